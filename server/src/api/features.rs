//! A listing's rows as GeoJSON features (RFC 7946): each a `Point` at the record's own
//! coordinates with the record as its `properties`, or `"geometry": null` for a record without
//! them (never a made-up point). Written from the same SQL and record writers as the JSON
//! records, with the feature's id and coordinates selected after them (`Sql::extras`).

use rusqlite::types::ValueRef;

use roadtraffic_catalog::json;
use roadtraffic_catalog::places::{EASTING, LATITUDE, LONGITUDE, NORTHING};

use super::envelope::{Page, PageNumber, PageUrls};
use super::paging::RowQuery;
use super::params::ListRequest;
use super::plan::{Plan, Sql};
use super::records::{Distance, JsonRecord};
use crate::error::ApiError;
use crate::query::Params;
use crate::release::Release;
use crate::spatial::Crs;
use crate::stream::Body;

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
    pub fn of(request: &ListRequest, release: &Release, crs: Crs) -> Self {
        FeatureWriter {
            record: JsonRecord::of(request, release),
            distance: Distance::of(request, GEOMETRY_COLUMNS),
            crs,
        }
    }

    /// The request's SQL: the record writer's, then the distance if asked, then the geometry.
    pub fn sql(&self, request: &ListRequest) -> Sql {
        let mut sql = self.record.sql(request);
        let plan = Plan(request);
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

/// The rows of a query as a JSON array of features.
pub fn write_features(
    conn: &rusqlite::Connection,
    query: &RowQuery,
    writer: &mut FeatureWriter,
    body: &mut Body,
) -> Result<usize, ApiError> {
    let mut stmt = conn.prepare_cached(&query.sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(query.args.iter()))?;
    body.buf.push(b'[');
    let mut written = 0;
    while let Some(row) = rows.next()? {
        if written > 0 {
            body.buf.push(b',');
        }
        writer.write(conn, &mut body.buf, row)?;
        written += 1;
        body.flush_if_full()?;
    }
    body.buf.push(b']');
    Ok(written)
}

/// Every feature of an unpaginated request, as a `FeatureCollection`.
pub fn write_collection(
    conn: &rusqlite::Connection,
    request: &ListRequest,
    writer: &mut FeatureWriter,
    body: &mut Body,
) -> Result<(), ApiError> {
    let sql = writer.sql(request);
    body.buf
        .extend_from_slice(b"{\"type\":\"FeatureCollection\",\"features\":");
    write_features(conn, &RowQuery::all(&sql), writer, body)?;
    body.buf.push(b'}');
    Ok(())
}

/// After a page's features: `numberMatched`, `numberReturned` (as OGC API - Features names
/// them) and `links` to this page and the first, previous, next and last, as the envelope's
/// page URLs.
pub fn write_page_tail(
    out: &mut Vec<u8>,
    page: &Page,
    returned: usize,
    path: &str,
    params: &Params,
) {
    let urls = PageUrls::new(path, params);
    let (current, last) = (page.number.value(), page.last_page());
    out.extend_from_slice(b",\"numberMatched\":");
    json::int(out, page.total);
    out.extend_from_slice(b",\"numberReturned\":");
    json::int(out, returned as i64);
    out.extend_from_slice(b",\"links\":[");
    let next = (current < last).then(|| PageNumber::Small(current + 1));
    let links = [
        ("self", Some(page.number.clone())),
        ("first", Some(PageNumber::Small(1))),
        ("prev", page.number.previous()),
        ("next", next),
        ("last", Some(PageNumber::Small(last))),
    ];
    let mut first = true;
    for (rel, number) in links {
        let Some(number) = number else { continue };
        if !first {
            out.push(b',');
        }
        first = false;
        out.extend_from_slice(b"{\"href\":");
        urls.write(out, Some(&number));
        out.extend_from_slice(b",\"rel\":");
        json::string(out, rel);
        out.extend_from_slice(b",\"type\":\"application/geo+json\"}");
    }
    out.extend_from_slice(b"]}");
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
