//! The areas' answers as JSON: the sets listed, an area's record (`id`, `name`,
//! `count_points`, `bbox`), a page of them in the listings' envelope, and the areas as RFC 7946
//! GeoJSON in lon/lat.

use serde_json::{json, Map, Value};

use super::held::{SetMembers, StoredSet, StoredSets};
use crate::error::ApiError;
use crate::forms::envelope::PageWriter;
use crate::forms::{CellValue, Envelope, Record, Writer};
use crate::query::php::Params;
use crate::rows::{Found, Page};

/// `/api/areas`: each set's name, its number of areas, its source file and that file's
/// SHA-256.
pub fn sets(sets: &StoredSets) -> Result<Vec<u8>, ApiError> {
    let listed: Vec<Value> = (sets.sets.iter())
        .map(|s| {
            json!({
                "set": s.info.name,
                "areas": s.areas().len(),
                "source": s.info.source,
                "sha256": s.info.sha256,
            })
        })
        .collect();
    serde_json::to_vec(&listed).map_err(ApiError::internal)
}

/// An area's record: its id, name, how many of the release's count points it holds, and its
/// extent in lon/lat.
pub fn record(set: &StoredSet, members: &SetMembers, index: usize) -> Map<String, Value> {
    let area = &set.areas()[index];
    let mut record = Map::new();
    record.insert("id".into(), area.id.clone().into());
    record.insert("name".into(), area.name.clone().into());
    record.insert("count_points".into(), members.counts[index].into());
    record.insert("bbox".into(), json!(set.bboxes[index]));
    record
}

/// A page of a set's areas (in the file's order) in the envelope of the listings, at `path`
/// with the request's parameters.
pub fn page(
    (set, members): (&StoredSet, &SetMembers),
    page: Page,
    (path, params): (String, Params),
) -> Result<Vec<u8>, ApiError> {
    let from = (page.number.value() - 1).saturating_mul(page.size);
    let from = usize::try_from(from).unwrap_or(usize::MAX);
    let found = Found::Page(page.clone());
    let mut writer = PageWriter::new(Envelope::Laravel, path, params);
    let mut out = Vec::new();
    writer.open(&mut out, &found)?;
    let on_page = (from..set.areas().len()).take(usize::try_from(page.size).unwrap_or(0));
    let mut written = 0;
    for index in on_page {
        let mut area = AreaRecord(record(set, members, index));
        writer.record(&mut out, &mut area)?;
        written += 1;
    }
    writer.close(&mut out, &found, written)?;
    Ok(out)
}

/// An area's record, for the envelope's writer (JSON only).
struct AreaRecord(Map<String, Value>);

impl Record for AreaRecord {
    fn json(&mut self, out: &mut Vec<u8>) -> Result<(), ApiError> {
        serde_json::to_writer(out, &self.0).map_err(ApiError::internal)
    }

    fn feature(&mut self, _: &mut Vec<u8>) -> Result<(), ApiError> {
        Err(ApiError::internal("an area's record as a feature"))
    }

    fn cells(
        &mut self,
        _: &mut dyn FnMut(CellValue) -> Result<(), ApiError>,
    ) -> Result<(), ApiError> {
        Err(ApiError::internal("an area's record as cells"))
    }
}

/// One area as a GeoJSON Feature: its id, its record as properties, its extent as `bbox`.
pub fn feature(set: &StoredSet, members: &SetMembers, index: usize) -> Value {
    let properties = record(set, members, index);
    json!({
        "type": "Feature",
        "id": set.areas()[index].id,
        "bbox": set.bboxes[index],
        "geometry": geometry(set, index),
        "properties": properties,
    })
}

/// Every area of a set as a GeoJSON FeatureCollection, in the file's order.
pub fn collection(set: &StoredSet, members: &SetMembers) -> Result<Vec<u8>, ApiError> {
    let features: Vec<Value> = (0..set.areas().len())
        .map(|i| feature(set, members, i))
        .collect();
    let collection = json!({"type": "FeatureCollection", "features": features});
    serde_json::to_vec(&collection).map_err(ApiError::internal)
}

/// An area's boundary in lon/lat: a Polygon when it is one, else a MultiPolygon.
fn geometry(set: &StoredSet, index: usize) -> Value {
    let ring =
        |r: &geo::LineString<f64>| -> Value { r.0.iter().map(|c| json!([c.x, c.y])).collect() };
    let polygon = |p: &geo::Polygon<f64>| -> Value {
        let rings = std::iter::once(p.exterior()).chain(p.interiors());
        rings.map(ring).collect()
    };
    match set.lon_lat_polygons(index).0.as_slice() {
        [one] => json!({"type": "Polygon", "coordinates": polygon(one)}),
        many => {
            let polygons: Vec<Value> = many.iter().map(polygon).collect();
            json!({"type": "MultiPolygon", "coordinates": polygons})
        }
    }
}
