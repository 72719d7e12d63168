//! CQL2's spatial functions (`S_INTERSECTS`, `S_WITHIN`, ...) of a record's point against a
//! geometry the filter gives: any geometry (points, boxes, lines, polygons with holes,
//! multi-geometries, collections), in the filter's CRS (`filter-crs`: CRS84 longitude and
//! latitude, or the British National Grid, against the records' own eastings and northings).
//!
//! Where the relation implies the point is inside the geometry's bounds, the spatial index
//! finds the count points there first (as `filter[bbox]` does); each row's own coordinates are
//! then tested exactly, by the geometry's DE-9IM relation with the point (`cql2_spatial`).

use cql2::Expr;
use geo::{BoundingRect, CoordsIter, Geometry, Point};
use rusqlite::types::Value as SqlValue;
use wkt::ToWkt;

use roadtraffic_catalog::places::{
    Places, EASTING, INDEX_TABLE, LATITUDE, LONGITUDE, NORTHING, PLACE_KEY,
};
use roadtraffic_catalog::Dataset;

use super::queryables;
use super::template::Template;
use super::translate::{column_value, Operand, Translator};
use super::{bad, Problem};
use crate::spatial::Crs;
use crate::sql_functions::Relation;

/// A geometry given in a filter.
pub struct Shape {
    geometry: Geometry,
}

impl Shape {
    /// The geometry of a literal (`POLYGON(...)`, `BBOX(...)`, GeoJSON), its coordinates
    /// checked against the CRS's range.
    pub fn of(e: &Expr, crs: Crs) -> Result<Shape, Problem> {
        let geometry = Geometry::try_from(e.clone())
            .map_err(|err| bad(format!("a geometry that cannot be read: {err}")))?;
        let (x_max, y_max) = match crs {
            Crs::Crs84 => (180.0, 90.0),
            Crs::BritishNationalGrid => (1e7, 1e7),
        };
        let out = geometry
            .coords_iter()
            .find(|c| !(c.x.abs() <= x_max && c.y.abs() <= y_max));
        if let Some(c) = out {
            let axes = match crs {
                Crs::Crs84 => {
                    "longitude from -180 to 180 and latitude from -90 to 90 (filter-crs CRS84)"
                }
                Crs::BritishNationalGrid => {
                    "eastings and northings within 10,000 km (filter-crs EPSG:27700)"
                }
            };
            return Err(bad(format!(
                "the geometry's point ({:?} {:?}) is out of range: {axes}",
                c.x, c.y
            )));
        }
        Ok(Shape { geometry })
    }
}

/// A record's point as SQL reads it in `crs`: its longitude and latitude, or its easting and
/// northing; `NULL` where it has none.
pub fn coordinates(d: &'static Dataset, crs: Crs) -> Result<[Template; 2], Problem> {
    let names = match crs {
        Crs::Crs84 => [LONGITUDE, LATITUDE],
        Crs::BritishNationalGrid => [EASTING, NORTHING],
    };
    let value = |name: &str| {
        queryables::find(d, name)
            .map(|q| column_value(&q))
            .ok_or_else(|| bad(format!("the records have no `{}`", queryables::GEOMETRY)))
    };
    Ok([value(names[0])?, value(names[1])?])
}

fn relation(op: &str) -> Result<Relation, Problem> {
    Ok(match op {
        "s_intersects" => Relation::Intersects,
        "s_disjoint" => Relation::Disjoint,
        "s_equals" => Relation::Equals,
        "s_touches" => Relation::Touches,
        "s_within" => Relation::Within,
        "s_contains" => Relation::Contains,
        "s_overlaps" => Relation::Overlaps,
        "s_crosses" => Relation::Crosses,
        _ => return Err(bad(format!("`{op}`: no such spatial function"))),
    })
}

/// `relation(b, a)` as a relation of `a` to `b`.
fn converse(r: Relation) -> Relation {
    match r {
        Relation::Within => Relation::Contains,
        Relation::Contains => Relation::Within,
        other => other,
    }
}

/// The SQL of a spatial function; `positive` as in `Translator::predicate`.
pub fn predicate(
    t: &Translator,
    op: &str,
    operands: Vec<Operand>,
    positive: bool,
) -> Result<Template, Problem> {
    let r = relation(op)?;
    let [a, b]: [Operand; 2] = operands
        .try_into()
        .map_err(|_| bad(format!("`{op}` takes two geometries")))?;
    match (a, b) {
        (Operand::Shape(a), Operand::Shape(b)) => {
            let holds = r.holds(&a.geometry, &b.geometry);
            Ok(Template::sql(if holds { "1" } else { "0" }))
        }
        (Operand::Point, Operand::Point) => itself(t, r),
        (Operand::Point, Operand::Shape(s)) => point_against(t, r, &s, positive),
        (Operand::Shape(s), Operand::Point) => point_against(t, converse(r), &s, positive),
        _ => Err(bad(format!(
            "`{op}` relates geometries: `{}` or a geometry such as POLYGON((...))",
            queryables::GEOMETRY
        ))),
    }
}

/// A record's point related to itself: NULL where it has none.
fn itself(t: &Translator, r: Relation) -> Result<Template, Problem> {
    let point = Point::new(0.0, 0.0);
    let holds = if r.holds(&point, &point) { "1" } else { "0" };
    let [x, y] = coordinates(t.dataset, t.crs)?;
    Ok(Template::sql("CASE WHEN ")
        .and(x)
        .then(" IS NULL OR ")
        .and(y)
        .then(&format!(" IS NULL THEN NULL ELSE {holds} END")))
}

fn point_against(
    t: &Translator,
    r: Relation,
    s: &Shape,
    positive: bool,
) -> Result<Template, Problem> {
    let [x, y] = coordinates(t.dataset, t.crs)?;
    let wkt = SqlValue::Text(s.geometry.wkt_string());
    let exact = Template::sql(format!("cql2_spatial({}, ", r as i64))
        .and(Template::arg(wkt))
        .then(", ")
        .and(x)
        .then(", ")
        .and(y)
        .then(")");
    let (Some(bounds), true) = (
        s.geometry.bounding_rect(),
        positive && r != Relation::Disjoint,
    ) else {
        return Ok(exact);
    };
    let Some(places) = Places::of(t.dataset) else {
        return Ok(exact);
    };
    let key = match places.key_is_id() {
        true => "id",
        false => PLACE_KEY,
    };
    let key = t.dataset.column(key).map(Template::column);
    let key = key.ok_or_else(|| bad("the records have no place"))?;
    let [a, b] = match t.crs {
        Crs::Crs84 => ["lon", "lat"],
        Crs::BritishNationalGrid => ["e", "n"],
    };
    let (min, max) = (bounds.min(), bounds.max());
    let arg = |v: f64| Template::arg(SqlValue::Real(v));
    let index = key
        .then(&format!(
            " IN (SELECT {PLACE_KEY} FROM {INDEX_TABLE} WHERE max_{a} >= "
        ))
        .and(arg(min.x))
        .then(&format!(" AND min_{a} <= "))
        .and(arg(max.x))
        .then(&format!(" AND max_{b} >= "))
        .and(arg(min.y))
        .then(&format!(" AND min_{b} <= "))
        .and(arg(max.y))
        .then(")");
    Ok(index.then(" AND ").and(exact).wrapped())
}
