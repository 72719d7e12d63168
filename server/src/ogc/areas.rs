//! The area sets stored in the mirror's file (`roadtraffic-load areas add`), each a collection
//! of polygons, `areas-{set}`: its items the set's areas as GeoJSON Features in lon/lat (a grid
//! set's vertices transformed; each a MultiPolygon), their properties the area's `id` and `name`, `count_points`
//! (the release's count points in it) and `vehicle_km` of the release's latest `year` of AADF,
//! so that a GIS client draws a choropleth with no join. Items in the file's order, a window
//! of them by `limit` and `offset`, `bbox` keeping those whose extent meets the box.
//!
//! The sets are the latest file's and the figures the served release's: a path names its set,
//! resolved against the stored sets when asked (`Resource::Areas`).

use serde_json::{json, Map, Value};

use super::links::{link, this, to, Urls, HTML, QUERYABLES_REL, SCHEMA};
use super::query as ogc_query;
use crate::areas::{written, SetMembers, StoredSet};
use crate::error::ApiError;
use crate::forms::links::Link;
use crate::forms::Form;
use crate::query::Params;
use crate::rows::Window;
use crate::spatial::{grid, Area, Crs};
use crate::vehicle_km::{self, Latest, VEHICLE_KM};

/// What an area collection's id starts with; the set's name follows.
pub const PREFIX: &str = "areas-";

/// The parameters an area collection's items take.
pub const ITEMS_PARAMETERS: [&str; 6] = ["bbox", "bbox-crs", "crs", "limit", "offset", "f"];

/// A resource under an area collection's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AreaPart {
    Collection,
    Items,
    /// An area by its id (percent-decoded).
    Item(String),
    Queryables,
    Schema,
}

impl AreaPart {
    /// The part at the path's segments after `/collections/areas-{set}`.
    pub fn parse(more: &[&str]) -> Option<AreaPart> {
        Some(match more {
            [] => AreaPart::Collection,
            ["items"] => AreaPart::Items,
            ["queryables"] => AreaPart::Queryables,
            ["schema"] => AreaPart::Schema,
            ["items", id] if !id.is_empty() => AreaPart::Item(crate::query::url_decode(id)),
            _ => return None,
        })
    }
}

/// The collection's id of the set `name`.
pub fn collection_id(name: &str) -> String {
    format!("{PREFIX}{name}")
}

fn title(set: &StoredSet) -> String {
    format!("Areas: {}", set.info.name)
}

/// The box of every area of the set (lon/lat), if it has any.
fn extent(set: &StoredSet) -> Option<[f64; 4]> {
    let b = (set.bboxes.iter()).fold(
        [
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ],
        |b, a| {
            [
                b[0].min(a[0]),
                b[1].min(a[1]),
                b[2].max(a[2]),
                b[3].max(a[3]),
            ]
        },
    );
    (b[0] <= b[2]).then_some(b)
}

/// The collection: what it is, its links, its extent, its CRS (CRS84 only: the polygons are
/// given in lon/lat whatever the file's CRS).
pub fn collection(urls: &Urls, format: Form, set: &StoredSet) -> Value {
    let id = collection_id(&set.info.name);
    let here = urls.ogc(&format!("/collections/{id}"));
    let [this_one, alternate] = this(&here, format, false);
    let items = format!("{here}/items");
    let mut doc = json!({
        "id": id,
        "title": title(set),
        "description": format!(
            "The {} areas of the set `{}` (from {}, SHA-256 {}), each a polygon with its count points and the AADF vehicle-km of the latest year.",
            set.areas().len(), set.info.name, set.info.source, set.info.sha256
        ),
        "links": [
            this_one,
            alternate,
            to(items.clone(), "items", Form::Json, true, "Its features"),
            to(items, "items", Form::Html, true, "Its features, as a page"),
            link(format!("{here}/queryables"), QUERYABLES_REL, SCHEMA, "What its features' properties are"),
            link(format!("{here}/schema"), "describedby", SCHEMA, "The schema of its features"),
            link(urls.site(&format!("/areas/{}", set.info.name)), "alternate", HTML, "The set on the site"),
        ],
        "itemType": "feature",
        "crs": [Crs::CRS84_URI],
        "storageCrs": Crs::CRS84_URI,
    });
    if let Some(bbox) = extent(set) {
        doc["extent"] = json!({"spatial": {"bbox": [bbox], "crs": Crs::CRS84_URI}});
    }
    doc
}

/// The features' properties with their JSON Schema types, in the order they are written.
fn properties() -> [(&'static str, &'static str, &'static str); 5] {
    [
        ("id", "string", "The area's id, as its boundary file gives it"),
        ("name", "string", "The area's name"),
        (
            "count_points",
            "integer",
            "The release's count points in the area (of any dataset)",
        ),
        (
            VEHICLE_KM,
            "number",
            "The AADF vehicle-km of the area's count points in `year` (all motor vehicles x link length x days in the year)",
        ),
        ("year", "integer", "The year of `vehicle_km`: the release's latest year of AADF"),
    ]
}

/// What the features' properties are (Part 3's queryables; no filter takes them here).
pub fn queryables(urls: &Urls, set: &StoredSet) -> Value {
    let id = collection_id(&set.info.name);
    let mut fields = Map::new();
    for (name, ty, title) in properties() {
        fields.insert(name.into(), json!({"type": ty, "title": title}));
    }
    fields.insert(
        "geometry".into(),
        json!({"format": "geometry-multipolygon", "title": "The area's boundary"}),
    );
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": urls.ogc(&format!("/collections/{id}/queryables")),
        "title": format!("{}: its properties", title(set)),
        "type": "object",
        "properties": fields,
        "additionalProperties": false,
    })
}

/// The features' JSON Schema (the collection's `describedby`), so that GDAL types each field.
pub fn feature_schema(urls: &Urls, set: &StoredSet) -> Value {
    let id = collection_id(&set.info.name);
    let mut fields = Map::new();
    // Not `id`: GDAL (3.12) makes a field of the features' own ids, `id` too, and a second
    // `id` from the schema would leave both empty.
    for (name, ty, title) in properties().into_iter().filter(|(name, ..)| *name != "id") {
        fields.insert(name.into(), json!({"type": ty, "title": title}));
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": urls.ogc(&format!("/collections/{id}/schema")),
        "title": title(set),
        "type": "object",
        "required": ["type", "geometry", "properties"],
        "properties": {
            "type": {"type": "string", "enum": ["Feature"]},
            "id": {"type": "string"},
            "geometry": {
                "$ref": "https://geojson.org/schema/MultiPolygon.json",
                "format": "geometry-multipolygon",
                "x-ogc-role": "primary-geometry",
            },
            "properties": {"type": "object", "properties": fields},
        },
    })
}

/// One area as a Feature: its boundary in lon/lat, its extent, its properties.
pub fn feature((set, members, latest): (&StoredSet, &SetMembers, &Latest), index: usize) -> Value {
    let mut feature = written::feature(set, members, index);
    // Always a MultiPolygon, so that a client types the layer as one (a mix of Polygons and
    // MultiPolygons is a layer of "any" geometry to GDAL).
    if feature["geometry"]["type"] == "Polygon" {
        let rings = feature["geometry"]["coordinates"].take();
        feature["geometry"] = json!({"type": "MultiPolygon", "coordinates": [rings]});
    }
    let area = &set.areas()[index];
    let km = latest.by_area[index].map(vehicle_km::km);
    feature["properties"] = json!({
        "id": area.id,
        "name": area.name,
        "count_points": members.counts[index],
        VEHICLE_KM: km,
        "year": latest.year,
    });
    feature
}

/// What the items are asked for: the areas whose extent meets a box (lon/lat), a window.
#[derive(Debug)]
pub struct AreaItems {
    pub bbox: Option<[f64; 4]>,
    pub window: Window,
}

impl AreaItems {
    pub fn parse(params: &Params) -> Result<AreaItems, ApiError> {
        ogc_query::refuse_unknown(params, &ITEMS_PARAMETERS, None)?;
        only_crs84(ogc_query::crs(params, "crs")?)?;
        let bbox = match ogc_query::given(params, "bbox")? {
            Some(text) => {
                let crs = ogc_query::crs(params, "bbox-crs")?;
                Some(lon_lat_box(ogc_query::bbox(text, crs)?))
            }
            None => None,
        };
        let window = Window {
            offset: ogc_query::offset(ogc_query::given(params, "offset")?)?,
            size: ogc_query::limit(ogc_query::given(params, "limit")?)?,
        };
        Ok(AreaItems { bbox, window })
    }

    /// Whether an area's extent meets the box asked (a box across the antimeridian is two).
    pub fn takes(&self, extent: &[f64; 4]) -> bool {
        let Some([w, s, e, n]) = self.bbox else {
            return true;
        };
        let lat = extent[1] <= n && extent[3] >= s;
        let lon = match w <= e {
            true => extent[0] <= e && extent[2] >= w,
            false => extent[2] >= w || extent[0] <= e,
        };
        lat && lon
    }
}

/// A feature's parameters: `crs` (CRS84 only) and `f`.
pub fn feature_params(params: &Params) -> Result<(), ApiError> {
    ogc_query::refuse_unknown(params, &["crs", "f"], None)?;
    only_crs84(ogc_query::crs(params, "crs")?)
}

fn only_crs84(crs: Crs) -> Result<(), ApiError> {
    match crs {
        Crs::Crs84 => Ok(()),
        _ => Err(ApiError::BadRequest(format!(
            "crs: an area collection's features are in `{}` only.",
            Crs::CRS84_URI
        ))),
    }
}

/// A box as lon/lat: a grid box by the envelope of its corners.
fn lon_lat_box(area: Area) -> [f64; 4] {
    let Area::Box { crs, min, max } = area else {
        return [-180.0, -90.0, 180.0, 90.0];
    };
    if crs == Crs::Crs84 {
        return [min[0], min[1], max[0], max[1]];
    }
    let corners = [
        [min[0], min[1]],
        [min[0], max[1]],
        [max[0], min[1]],
        [max[0], max[1]],
    ];
    corners.iter().fold(
        [
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ],
        |b, [x, y]| {
            let (lon, lat) = grid::from_grid(grid::GridPoint {
                easting: *x,
                northing: *y,
            });
            [b[0].min(lon), b[1].min(lat), b[2].max(lon), b[3].max(lat)]
        },
    )
}

/// A window of the set's areas (in the file's order) as a FeatureCollection, with
/// `numberMatched`, `numberReturned` and the links of the window (`links`: where the items
/// are and how they were asked).
pub fn items(
    held: (&StoredSet, &SetMembers, &Latest),
    asked: &AreaItems,
    links: &super::items::ItemLinks,
) -> Value {
    let set = held.0;
    let matching: Vec<usize> = (0..set.areas().len())
        .filter(|i| asked.takes(&set.bboxes[*i]))
        .collect();
    let Window { offset, size } = asked.window;
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    let taken = usize::try_from(size).unwrap_or(usize::MAX);
    let features: Vec<Value> = (matching.iter().skip(start).take(taken))
        .map(|i| feature(held, *i))
        .collect();
    let matched = matching.len() as i64;
    let window_links: Vec<Value> = (links.of_window(asked.window, matched).iter())
        .map(link_value)
        .collect();
    json!({
        "type": "FeatureCollection",
        "features": features,
        "numberMatched": matched,
        "numberReturned": features.len(),
        "links": window_links,
    })
}

/// One area as a Feature with its links, `None` for an id the set does not have.
pub fn item(
    held: (&StoredSet, &SetMembers, &Latest),
    id: &str,
    links: &super::items::ItemLinks,
) -> Option<Value> {
    let index = held.0.index_of(id)? as usize;
    let mut doc = feature(held, index);
    let mut item_links: Vec<Value> = (links.this(&item_url(&links.url, id)).iter())
        .map(link_value)
        .collect();
    item_links.push(link_value(&links.to_collection()));
    doc["links"] = Value::Array(item_links);
    Some(doc)
}

/// An area's URL under the items' `url`: its id percent-encoded, a path segment.
pub fn item_url(items: &str, id: &str) -> String {
    let mut encoded = String::new();
    crate::query::encode(id, &mut encoded);
    format!("{items}/{encoded}")
}

fn link_value(l: &Link) -> Value {
    json!({"href": l.href, "rel": l.rel, "type": l.media, "title": l.title})
}

/// The collections' members for the sets: appended to the collections document.
pub fn add_collections(doc: &mut Value, urls: &Urls, format: Form, sets: &[&StoredSet]) {
    if let Some(all) = doc["collections"].as_array_mut() {
        all.extend(sets.iter().map(|s| collection(urls, format, s)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_and_boxes() {
        assert_eq!(AreaPart::parse(&[]), Some(AreaPart::Collection));
        assert_eq!(
            AreaPart::parse(&["items", "E05%20x"]),
            Some(AreaPart::Item("E05 x".into()))
        );
        assert_eq!(AreaPart::parse(&["items", "a", "b"]), None);
        let asked = |q: &str| AreaItems::parse(crate::query::Query::read(q).php());
        let items = asked("bbox=-3,51,-2,52&limit=5").unwrap();
        assert!(items.takes(&[-2.5, 51.5, -2.4, 51.6]));
        assert!(items.takes(&[-4.0, 50.0, -2.9, 51.1]), "overlapping");
        assert!(!items.takes(&[-1.0, 51.5, -0.5, 51.6]));
        assert_eq!(items.window.size, 5);
        assert!(asked("road_name=M4").is_err());
        assert!(asked("crs=http://www.opengis.net/def/crs/EPSG/0/27700").is_err());
        let grid = asked(
            "bbox=300000,180000,340000,200000&bbox-crs=http://www.opengis.net/def/crs/EPSG/0/27700",
        )
        .unwrap();
        assert!(grid.takes(&[-3.1, 51.5, -3.0, 51.6]), "{:?}", grid.bbox);
        assert_eq!(
            item_url("http://h/items", "a b/c"),
            "http://h/items/a%20b%2Fc"
        );
    }
}
