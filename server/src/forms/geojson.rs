//! The GeoJSON form (RFC 7946): a `FeatureCollection` of a dataset's rows, each a feature (a
//! `Point` at the record's own coordinates with the record as its `properties`, or `"geometry":
//! null` for a record without them: never a made-up point), then what the collection says of
//! them: nothing for a whole one, its counts and links for a page ([`Members`]; the API's page
//! here, OGC's window in `ogc::items`). One writer for the API's `.geojson` and pages and for
//! OGC's items. Features are written from the same SQL and record writers as the JSON records,
//! with the feature's id and coordinates selected after them (`Sql::extras`).

use rusqlite::types::ValueRef;

use roadtraffic_catalog::json;
use roadtraffic_catalog::places::{EASTING, LATITUDE, LONGITUDE, NORTHING};
use roadtraffic_catalog::record::Decimals;

use super::envelope::{page_of, PageUrls};
use super::json::Commas;
use super::links::{self, Escaping, Link};
use super::record::{Distance, JsonRecord};
use super::writer::{Record, Writer};
use crate::error::ApiError;
use crate::query::Params;
use crate::release::Release;
use crate::rows::{Found, PageNumber, Plan, Rows, Sql};
use crate::spatial::Crs;

/// How many columns the geometry adds to a row: the id, x and y.
const GEOMETRY_COLUMNS: usize = 3;

/// RFC 7946 advises at most 6 decimals (about 10 cm); the published coordinates have up to 8,
/// and the issue's contract is 7 (about 1 cm), so no point moves by more than a centimetre.
const DECIMALS: f64 = 1e7;

/// Writes each row of a request as a feature, in one CRS.
pub struct FeatureWriter {
    record: JsonRecord,
    distance: Option<Distance>,
    crs: Crs,
}

impl FeatureWriter {
    /// The writer of `rows`' features in `crs`, their properties' decimals kept as text
    /// written as `decimals` says.
    pub fn of(rows: &Rows, release: &Release, crs: Crs, decimals: Decimals) -> Self {
        FeatureWriter {
            record: JsonRecord::with_decimals(rows, release, false, decimals),
            distance: Distance::of(rows, GEOMETRY_COLUMNS),
            crs,
        }
    }

    /// The SQL of the rows: the record writer's, then the distance if asked, then the geometry.
    pub fn sql(&self, rows: &Rows) -> Sql {
        let mut sql = self.record.sql(rows);
        let plan = Plan(rows);
        let (x, y) = match self.crs {
            Crs::Crs84 => (LONGITUDE, LATITUDE),
            Crs::BritishNationalGrid => (EASTING, NORTHING),
        };
        let joined = sql.joined;
        sql.extras.extend([
            "r.id".to_string(),
            plan.column_named(x, joined),
            plan.column_named(y, joined),
        ]);
        sql
    }

    /// Writes a row's feature.
    pub fn write(
        &mut self,
        conn: &rusqlite::Connection,
        out: &mut Vec<u8>,
        row: &rusqlite::Row,
    ) -> Result<(), ApiError> {
        self.write_open(conn, out, row)?;
        out.push(b'}');
        Ok(())
    }

    /// Writes a row's feature but its closing brace, for members of one's own to follow (an
    /// OGC feature's `links`).
    pub fn write_open(
        &mut self,
        conn: &rusqlite::Connection,
        out: &mut Vec<u8>,
        row: &rusqlite::Row,
    ) -> Result<(), ApiError> {
        let at = row.as_ref().column_count() - GEOMETRY_COLUMNS;
        out.extend_from_slice(b"{\"type\":\"Feature\",\"id\":");
        json::int(out, row.get(at)?);
        out.extend_from_slice(b",\"geometry\":");
        self.geometry(out, row.get_ref(at + 1)?, row.get_ref(at + 2)?);
        out.extend_from_slice(b",\"properties\":");
        self.record.write(conn, out, row)?;
        if let Some(distance) = &self.distance {
            distance.append(out, row)?;
        }
        Ok(())
    }

    /// A `Point` at (x, y), or `null` when either is missing.
    fn geometry(&self, out: &mut Vec<u8>, x: ValueRef, y: ValueRef) {
        match (coordinate(x), coordinate(y)) {
            (Some(x), Some(y)) => {
                out.extend_from_slice(b"{\"type\":\"Point\",\"coordinates\":[");
                self.number(out, x);
                out.push(b',');
                self.number(out, y);
                out.extend_from_slice(b"]}");
            }
            _ => out.extend_from_slice(b"null"),
        }
    }

    fn number(&self, out: &mut Vec<u8>, v: f64) {
        let v = match self.crs {
            Crs::Crs84 => (v * DECIMALS).round() / DECIMALS,
            Crs::BritishNationalGrid => v,
        };
        out.extend_from_slice(v.to_string().as_bytes());
    }
}

/// A coordinate as stored: an integer (easting, northing) or decimal text (longitude,
/// latitude); `None` when empty or not a finite number.
fn coordinate(v: ValueRef) -> Option<f64> {
    match v {
        ValueRef::Integer(i) => Some(i as f64),
        ValueRef::Real(f) => Some(f),
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        _ => None,
    }
    .filter(|v: &f64| v.is_finite())
}

/// What a `FeatureCollection` says after its features: its counts and links, for a page.
pub trait Members {
    /// Writes `,"member":...` for each member (nothing for none).
    fn write(&self, out: &mut Vec<u8>, found: &Found, returned: usize) -> Result<(), ApiError>;
}

impl Members for Box<dyn Members + Send> {
    fn write(&self, out: &mut Vec<u8>, found: &Found, returned: usize) -> Result<(), ApiError> {
        self.as_ref().write(out, found, returned)
    }
}

/// A whole collection says nothing more.
pub struct Whole;

impl Members for Whole {
    fn write(&self, _: &mut Vec<u8>, _: &Found, _: usize) -> Result<(), ApiError> {
        Ok(())
    }
}

/// Features as a `FeatureCollection`, and `members` after them.
pub struct FeatureCollection<M> {
    commas: Commas,
    members: M,
}

impl<M: Members> FeatureCollection<M> {
    pub fn new(members: M) -> Self {
        FeatureCollection {
            commas: Commas::default(),
            members,
        }
    }
}

impl<M: Members> Writer for FeatureCollection<M> {
    fn open(&mut self, out: &mut Vec<u8>, _: &Found) -> Result<(), ApiError> {
        out.extend_from_slice(b"{\"type\":\"FeatureCollection\",\"features\":[");
        Ok(())
    }

    fn record(&mut self, out: &mut Vec<u8>, record: &mut dyn Record) -> Result<(), ApiError> {
        self.commas.before_next(out);
        record.feature(out)
    }

    fn close(&mut self, out: &mut Vec<u8>, found: &Found, written: usize) -> Result<(), ApiError> {
        out.push(b']');
        self.members.write(out, found, written)?;
        out.push(b'}');
        Ok(())
    }
}

/// A page of the API's listing as GeoJSON (asked by `Accept`): `numberMatched`,
/// `numberReturned` (as OGC API - Features names them) and `links` to this page and the first,
/// previous, next and last, as the envelope's page URLs, escaped as the API's JSON is.
pub struct ApiPage {
    pub path: String,
    pub params: Params,
}

impl Members for ApiPage {
    fn write(&self, out: &mut Vec<u8>, found: &Found, returned: usize) -> Result<(), ApiError> {
        let page = page_of(found)?;
        let urls = PageUrls::new(&self.path, &self.params);
        let (current, last) = (page.number.value(), page.last_page());
        out.extend_from_slice(b",\"numberMatched\":");
        json::int(out, page.total);
        out.extend_from_slice(b",\"numberReturned\":");
        json::int(out, returned as i64);
        out.extend_from_slice(b",\"links\":");
        let next = (current < last).then(|| PageNumber::Small(current + 1));
        let pages = [
            ("self", Some(page.number.clone())),
            ("first", Some(PageNumber::Small(1))),
            ("prev", page.number.previous()),
            ("next", next),
            ("last", Some(PageNumber::Small(last))),
        ];
        let links: Vec<Link> = (pages.into_iter())
            .filter_map(|(rel, number)| {
                Some(Link {
                    href: urls.url(&number?),
                    rel,
                    media: crate::forms::Form::GeoJson.media(),
                    title: None,
                })
            })
            .collect();
        links::write(out, &links, Escaping::Php);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_are_read_as_stored_and_missing_ones_are_none() {
        assert_eq!(
            coordinate(ValueRef::Text(b"-3.03218424")),
            Some(-3.03218424)
        );
        assert_eq!(coordinate(ValueRef::Integer(328570)), Some(328570.0));
        assert_eq!(coordinate(ValueRef::Text(b"")), None);
        assert_eq!(coordinate(ValueRef::Text(b"NaN")), None);
        assert_eq!(coordinate(ValueRef::Null), None);
    }

    #[test]
    fn longitude_and_latitude_have_at_most_seven_decimals() {
        let writer = FeatureWriter {
            record: JsonRecord::Fields(roadtraffic_catalog::record::RecordLayout::new(&[], None)),
            distance: None,
            crs: Crs::Crs84,
        };
        let mut out = Vec::new();
        writer.geometry(
            &mut out,
            ValueRef::Text(b"-3.03218424"),
            ValueRef::Text(b"51.57731861"),
        );
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            r#"{"type":"Point","coordinates":[-3.0321842,51.5773186]}"#
        );
    }
}
