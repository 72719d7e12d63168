//! A GeoJSON FeatureCollection's features, by the `geojson` crate: RFC 7946 longitude and
//! latitude, or the grid where the legacy (2008) `crs` member declares EPSG:27700.

use geojson::{feature::Id, Feature, PolygonType, Value};
use serde_json::Value as Json;

use super::{crs_named, property_text, BoundaryError, Features, Fields, RawFeature, Rings};
use crate::SetCrs;

/// The features of `bytes`, a FeatureCollection.
pub(crate) fn read(bytes: &[u8], fields: &Fields) -> Result<Features, BoundaryError> {
    let not_geojson = |why: String| BoundaryError::file(format!("not valid GeoJSON: {why}"));
    let json: Json = serde_json::from_slice(bytes).map_err(|e| not_geojson(e.to_string()))?;
    let Json::Object(mut top) = json else {
        return Err(not_geojson("not a JSON object".into()));
    };
    match top.get("type").and_then(Json::as_str) {
        Some("FeatureCollection") => {}
        Some(other) => return Err(not_geojson(format!("a {other}, not a FeatureCollection"))),
        None => return Err(not_geojson("no \"type\" member".into())),
    }
    let crs = declared_crs(top.get("crs"))?;
    let Some(Json::Array(features)) = top.remove("features") else {
        return Err(not_geojson("no \"features\" array".into()));
    };
    if features.len() > super::MAX_FEATURES {
        return Err(super::check::too_many(features.len()));
    }
    let raw = (features.into_iter().enumerate())
        .map(|(i, f)| feature(i, f, fields))
        .collect::<Result<_, _>>()?;
    Ok((crs, raw))
}

/// The CRS the `crs` member declares: lon/lat without one.
fn declared_crs(crs: Option<&Json>) -> Result<SetCrs, BoundaryError> {
    let crs = match crs {
        None | Some(Json::Null) => return Ok(SetCrs::Crs84),
        Some(crs) => crs,
    };
    let name = (crs.get("type").and_then(Json::as_str) == Some("name"))
        .then(|| crs.pointer("/properties/name").and_then(Json::as_str))
        .flatten();
    let unknown = || {
        BoundaryError::file(format!(
            "its \"crs\" member declares {crs}: only longitude and latitude (CRS84, \
             EPSG:4326) or the British National Grid (EPSG:27700) are known"
        ))
    };
    name.and_then(crs_named).ok_or_else(unknown)
}

/// One feature: its id, name and rings.
fn feature(index: usize, json: Json, fields: &Fields) -> Result<RawFeature, BoundaryError> {
    let feature = Feature::from_json_value(json)
        .map_err(|e| BoundaryError::feature(index, None, format!("not a GeoJSON Feature: {e}")))?;
    let property = |name: &str| feature.properties.as_ref().and_then(|p| p.get(name));
    let text = |name: &str| {
        property_text(property(name)).map_err(|why| {
            BoundaryError::feature(index, None, format!("its property {name:?} {why}"))
        })
    };
    let own_id = feature.id.as_ref().map(|id| match id {
        Id::String(s) => s.clone(),
        Id::Number(n) => n.to_string(),
    });
    let id = match &fields.id {
        Some(field) => text(field)?,
        None => match text("code")? {
            Some(code) => Some(code),
            None => text("id")?.or(own_id),
        },
    };
    let name = text(fields.name.as_deref().unwrap_or("name"))?;
    let rings = match feature.geometry {
        None => Err("it has no geometry".to_string()),
        Some(g) => rings(g.value),
    };
    Ok(RawFeature { id, name, rings })
}

/// A geometry's polygons, or why it has none.
fn rings(value: Value) -> Result<Rings, String> {
    match value {
        Value::Polygon(p) => Ok(vec![polygon(p)?]),
        Value::MultiPolygon(ps) => ps.into_iter().map(polygon).collect(),
        other => Err(format!(
            "a {}: only Polygon and MultiPolygon features are areas",
            other.type_name()
        )),
    }
}

fn polygon(rings: PolygonType) -> Result<Vec<Vec<[f64; 2]>>, String> {
    (rings.into_iter())
        .map(|ring| {
            (ring.into_iter())
                .map(|p| match p.as_slice() {
                    [x, y, ..] => Ok([*x, *y]),
                    _ => Err(format!("a position with {} number(s)", p.len())),
                })
                .collect()
        })
        .collect()
}
