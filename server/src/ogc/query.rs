//! The query parameters of the OGC resources, checked: every resource takes `f`; a feature
//! `crs` too; the items `bbox`, `bbox-crs`, `crs`, `datetime`, `limit`, `offset` and an
//! equality filter on each of the dataset's filters (as the JSON API reads them: a value, or
//! a comma-separated list). A parameter the API definition does not list is a 400 naming it,
//! as Part 1 requires (`/req/core/query-param-unknown`), and so is a bad value
//! (`/req/core/query-param-invalid`), the message saying which and why.

use std::sync::Arc;

use roadtraffic_catalog::Dataset;

use super::collection::Collection;
use super::datetime::Span;
use crate::error::ApiError;
use crate::filter::{self, queryables, Filter};
use crate::query::{self, Param, Params};
use crate::rows::{
    fields_named, filter_condition, list, sort_by, Condition, Reading, Rows, Window,
};
use crate::spatial::{Area, Crs};

/// `limit` when absent, and the most it gives: a larger one is taken as this, not refused
/// (`/req/core/fc-limit-response-1` C).
pub const DEFAULT_LIMIT: i64 = 10;
pub const MAX_LIMIT: i64 = 10_000;

/// The parameters of the items beside the dataset's queryables, in the order the API
/// definition lists them.
pub const ITEMS_PARAMETERS: [&str; 12] = [
    "bbox",
    "bbox-crs",
    "crs",
    "datetime",
    "filter",
    "filter-lang",
    "filter-crs",
    "sortby",
    "properties",
    "limit",
    "offset",
    "f",
];

fn bad(message: String) -> ApiError {
    ApiError::BadRequest(message)
}

/// A parameter's text: a bracketed name (`a[b]=`) is no parameter of this API.
fn text<'p>(name: &str, value: &'p Param) -> Result<&'p str, ApiError> {
    match value {
        Param::Text(t) => Ok(t),
        Param::Map(_) => Err(bad(format!(
            "Unknown parameter `{name}[...]`: this API's parameters have no brackets."
        ))),
    }
}

/// Refuses any parameter but `allowed` (and, for the items, the dataset's filters and
/// queryables).
pub(super) fn refuse_unknown(
    params: &Params,
    allowed: &[&str],
    items_of: Option<&'static Dataset>,
) -> Result<(), ApiError> {
    let names = |d: &'static Dataset| -> Vec<&'static str> {
        let mut names = d.filters.to_vec();
        let queryables = queryables::of(d).into_iter().filter(|q| q.column.is_some());
        names.extend(
            queryables
                .map(|q| q.name)
                .filter(|n| !d.filters.contains(n)),
        );
        names
    };
    let extra = items_of.map(names).unwrap_or_default();
    let known = |name: &str| allowed.contains(&name) || extra.contains(&name);
    let Some((name, value)) = params.iter().find(|(name, _)| !known(name)) else {
        return Ok(());
    };
    text(name, value)?;
    let mut all: Vec<&str> = allowed.to_vec();
    all.extend(extra);
    Err(bad(format!(
        "Unknown parameter `{name}`. This resource takes `{}`.",
        all.join("`, `")
    )))
}

/// A parameter's text, `None` when absent or empty (an empty value asks for the default).
pub(super) fn given<'p>(params: &'p Params, name: &str) -> Result<Option<&'p str>, ApiError> {
    match query::php::get(params, name) {
        Some(value) => Ok(Some(text(name, value)?).filter(|t| !t.is_empty())),
        None => Ok(None),
    }
}

/// The parameters of a resource that is not features: `f` alone (read by the negotiation,
/// `forms::negotiate`).
pub fn document(params: &Params) -> Result<(), ApiError> {
    refuse_unknown(params, &["f"], None)
}

/// A `crs` or `bbox-crs`: CRS84 when absent, else one of the collections' CRSs by URI.
pub(super) fn crs(params: &Params, name: &str) -> Result<Crs, ApiError> {
    let Some(uri) = given(params, name)? else {
        return Ok(Crs::Crs84);
    };
    Crs::from_uri(uri).ok_or_else(|| {
        bad(format!(
            "{name} `{uri}` is not a CRS of this collection: `{}` or `{}`.",
            Crs::CRS84_URI,
            Crs::BNG_URI
        ))
    })
}

/// A feature's parameters: `crs` and `f` (read by the negotiation).
pub fn feature(params: &Params) -> Result<Crs, ApiError> {
    refuse_unknown(params, &["crs", "f"], None)?;
    crs(params, "crs")
}

/// What the items are asked for: which rows, a window of them (`Reading::Window`), in which
/// CRS (their form is the negotiation's).
#[derive(Debug)]
pub struct Items {
    pub rows: Rows,
    pub crs: Crs,
}

impl Items {
    pub fn parse(collection: &Collection, params: &Params) -> Result<Items, ApiError> {
        let d = collection.dataset();
        refuse_unknown(params, &ITEMS_PARAMETERS, Some(d))?;
        let mut conditions = Vec::new();
        if let Some(text) = given(params, "bbox")? {
            let area = bbox(text, crs(params, "bbox-crs")?)?;
            conditions.push(Condition::Within(collection.places, area));
        }
        if let Some(text) = given(params, "datetime")? {
            let span = Span::parse(text).map_err(bad)?;
            conditions.extend(span.condition(collection));
        }
        conditions.extend(property_conditions(d, params)?);
        let filter = filter::asked(
            d,
            given(params, "filter")?,
            given(params, "filter-lang")?,
            given(params, "filter-crs")?,
        )?;
        conditions.extend(filter.map(|f| Condition::Cql2(Arc::new(f))));
        let crs = crs(params, "crs")?;
        let window = Window {
            offset: offset(given(params, "offset")?)?,
            size: limit(given(params, "limit")?)?,
        };
        let sort = match given(params, "sortby")? {
            Some(text) => sort_by(d, text)?,
            None => Vec::new(),
        };
        let wanted = given(params, "properties")?.map(list).unwrap_or_default();
        Ok(Items {
            rows: Rows {
                reading: Reading::Window(window),
                fields: fields_named(d, &wanted)?,
                ..Rows::all(d, conditions, sort)
            },
            crs,
        })
    }
}

/// `name=value` for each of the dataset's filters (as the JSON API reads them: a value, or a
/// comma-separated list, text matched ignoring case) and for each other queryable (equal, as
/// CQL2's `name = value`).
fn property_conditions(d: &'static Dataset, params: &Params) -> Result<Vec<Condition>, ApiError> {
    let mut conditions = Vec::new();
    for (name, value) in params.iter() {
        if d.filters.contains(&name.as_str()) {
            conditions.extend(filter_condition(d, name, text(name, value)?)?);
        } else if let Some(q) = queryables::find(d, name).filter(|q| q.column.is_some()) {
            let value = text(name, value)?;
            if !value.is_empty() {
                let f = Filter::equals(d, q.name, value)?;
                conditions.push(Condition::Cql2(Arc::new(f)));
            }
        }
    }
    Ok(conditions)
}

/// `bbox`: four numbers in `crs`, or six (Part 1's Requirement 23: minX,minY,minZ,maxX,maxY,
/// maxZ) whose heights must be numbers and are then ignored: these features are 2-D points,
/// so only the box's extent on the ground can select them.
pub(super) fn bbox(text: &str, crs: Crs) -> Result<Area, ApiError> {
    let parts: Vec<&str> = text.split(',').collect();
    let [x0, y0, z0, x1, y1, z1] = parts[..] else {
        return Area::parse_ogc_box("bbox", text, crs).map_err(bad);
    };
    for (z, which) in [(z0.trim(), "minZ"), (z1.trim(), "maxZ")] {
        if !z.parse::<f64>().is_ok_and(f64::is_finite) {
            return Err(bad(format!(
                "bbox `{text}`: {which} `{z}` is not a number."
            )));
        }
    }
    let ground = [x0, y0, x1, y1].join(",");
    // Its messages name the box as it was sent, not as its four numbers.
    Area::parse_ogc_box("bbox", &ground, crs)
        .map_err(|m| bad(m.replacen(&format!("`{ground}`"), &format!("`{text}`"), 1)))
}

/// `limit`: [`DEFAULT_LIMIT`] when absent; a whole number from 1, taken as [`MAX_LIMIT`] when
/// above it.
pub(super) fn limit(text: Option<&str>) -> Result<i64, ApiError> {
    let Some(text) = text else {
        return Ok(DEFAULT_LIMIT);
    };
    match whole_number(text) {
        Some(0) | None => Err(bad(format!(
            "limit must be a whole number from 1 (at most {MAX_LIMIT} are returned), not `{text}`."
        ))),
        Some(n) => Ok(n.min(MAX_LIMIT as u128) as i64),
    }
}

/// `offset`: how many matching features to skip, 0 when absent; any whole number (past the
/// last feature the page is empty).
pub(super) fn offset(text: Option<&str>) -> Result<i64, ApiError> {
    let Some(text) = text else {
        return Ok(0);
    };
    whole_number(text)
        .map(|n| n.min(i64::MAX as u128) as i64)
        .ok_or_else(|| {
            bad(format!(
                "offset must be a whole number from 0, not `{text}`."
            ))
        })
}

/// Decimal digits (a `+` before them allowed), however many: saturated rather than refused.
fn whole_number(text: &str) -> Option<u128> {
    let digits = text.strip_prefix('+').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.parse::<u128>().unwrap_or(u128::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(query: &str) -> Result<Items, String> {
        let c = Collection::find("raw-counts").unwrap();
        Items::parse(&c, query::Query::read(query).php()).map_err(|e| e.to_string())
    }

    #[test]
    fn limit_and_offset_have_defaults_and_a_cap() {
        let window = |q| {
            items(q).map(|i| match i.rows.reading {
                Reading::Window(w) => (w.offset, w.size),
                _ => (-1, -1),
            })
        };
        assert_eq!(window(""), Ok((0, 10)));
        assert_eq!(window("limit=&offset="), Ok((0, 10)));
        assert_eq!(window("limit=25&offset=7"), Ok((7, 25)));
        assert_eq!(window("limit=50000"), Ok((0, 10_000)));
        assert_eq!(
            window("limit=99999999999999999999999999999999999999999"),
            Ok((0, 10_000))
        );
        assert_eq!(
            window("offset=99999999999999999999999").unwrap().0,
            i64::MAX
        );
        for q in ["limit=0", "limit=-1", "limit=1.5", "limit=x", "offset=-3"] {
            assert!(items(q).is_err(), "{q}");
        }
    }

    #[test]
    fn unknown_parameters_are_named() {
        let refused = items("road_name=M4&sortbyy=id").unwrap_err();
        assert!(refused.contains("`sortbyy`"), "{refused}");
        assert!(items("filter[road_name]=M4")
            .unwrap_err()
            .contains("brackets"));
        assert!(items("page[size]=3").is_err());
        assert!(document(query::Query::read("limit=3").php()).is_err());
        assert!(document(query::Query::read("f=json").php()).is_ok());
    }

    #[test]
    fn boxes_crss_and_times_are_checked() {
        assert!(items("bbox=-2,52,-1,53").is_ok());
        assert!(
            items("bbox=10,40,11,41").is_ok(),
            "outside Great Britain: valid, empty"
        );
        assert!(
            items("bbox=170,-50,-170,-40").is_ok(),
            "across the antimeridian"
        );
        let box_of = |q| items(q).map(|i| i.rows.key());
        assert_eq!(box_of("bbox=-2,52,0,-1,53,100"), box_of("bbox=-2,52,-1,53"));
        assert!(items("bbox=-2,52,x,-1,53,100")
            .unwrap_err()
            .contains("minZ `x`"));
        let refused = items("bbox=-2,53,0,-1,52,100").unwrap_err();
        assert!(
            refused.contains("`-2,53,0,-1,52,100`: the minimum latitude"),
            "{refused}"
        );
        assert!(items("bbox=-2,53,-1,52").unwrap_err().contains("latitude"));
        let bng = "bbox-crs=http://www.opengis.net/def/crs/EPSG/0/27700";
        assert!(items(&format!("bbox=400000,200000,410000,210000&{bng}")).is_ok());
        assert!(items(&format!("bbox=-2,52,-1,53&{bng}x")).is_err());
        assert!(items("crs=EPSG:4326")
            .unwrap_err()
            .contains("crs `EPSG:4326`"));
        assert!(items("datetime=2019-05-14T08:00:00Z/..").is_ok());
        assert!(items("datetime=yesterday")
            .unwrap_err()
            .contains("datetime"));
        assert!(items("hour=x").unwrap_err().contains("hour"));
    }
}
