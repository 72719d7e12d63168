//! The JSON documents that describe the service: the landing page, the conformance
//! declaration, the collections and each collection (Part 1's schemas, with Part 2's `crs` and
//! `storageCrs`), written from the catalogue and the extents of the file being served.

use serde_json::{json, Value};

use super::collection::Collection;
use super::extent::Extent;
use super::links::{link, this, to, Urls, HTML, OPENAPI, QUERYABLES_REL, SCHEMA};
use crate::filter::queryables;
use crate::forms::Form;
use crate::spatial::Crs;

/// The conformance classes this server meets, and only those: Part 1's core, its GeoJSON and
/// HTML encodings and its OpenAPI 3.0 definition, Part 2's CRS by reference, Part 3's
/// filtering with queryables (also as query parameters), and the classes of CQL2 its filters
/// take (not accent-insensitive comparison, nor temporal or array functions).
pub const CONFORMANCE: [&str; 19] = [
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
    "http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs",
    "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables",
    "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables-query-parameters",
    "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter",
    "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter",
    "http://www.opengis.net/spec/cql2/1.0/conf/cql2-text",
    "http://www.opengis.net/spec/cql2/1.0/conf/cql2-json",
    "http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2",
    "http://www.opengis.net/spec/cql2/1.0/conf/advanced-comparison-operators",
    "http://www.opengis.net/spec/cql2/1.0/conf/case-insensitive-comparison",
    "http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions",
    "http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions-plus",
    "http://www.opengis.net/spec/cql2/1.0/conf/spatial-functions",
    "http://www.opengis.net/spec/cql2/1.0/conf/property-property",
    "http://www.opengis.net/spec/cql2/1.0/conf/arithmetic",
];

pub const TITLE: &str = "Road traffic statistics of Great Britain (offline mirror)";
pub const DESCRIPTION: &str = "The Department for Transport's road traffic counts as OGC API - Features: each count point, its annual average daily flows (AADF, also by direction) and the hourly raw counts behind them, as points in WGS 84 or on the British National Grid. Data: Department for Transport, Open Government Licence v3.0.";

/// The CRSs every collection is served in: CRS84 first, the default.
const CRSS: [Crs; 2] = [Crs::Crs84, Crs::BritishNationalGrid];

/// The temporal reference system of the intervals: the Gregorian calendar, UTC.
const GREGORIAN: &str = "http://www.opengis.net/def/uom/ISO-8601/0/Gregorian";

/// The landing page, its links in `format` (but the definition's).
pub fn landing(urls: &Urls, format: Form) -> Value {
    let [here, alternate] = this(&urls.ogc(""), format, false);
    json!({
        "title": TITLE,
        "description": DESCRIPTION,
        "links": [
            here,
            alternate,
            link(urls.ogc("/api"), "service-desc", OPENAPI, "The API definition (OpenAPI 3.0)"),
            link(urls.site("/docs#ogcapi"), "service-doc", HTML, "The API documentation"),
            to(urls.ogc("/conformance"), "conformance", format, false, "The conformance classes this server meets"),
            to(urls.ogc("/collections"), "data", format, false, "The feature collections"),
        ],
    })
}

pub fn conformance(urls: &Urls, format: Form) -> Value {
    json!({
        "conformsTo": CONFORMANCE,
        "links": this(&urls.ogc("/conformance"), format, false),
    })
}

pub fn collections(
    urls: &Urls,
    format: Form,
    extent_of: &dyn Fn(&Collection) -> Option<Extent>,
) -> Value {
    let collections: Vec<Value> = Collection::all()
        .map(|c| collection(urls, format, &c, extent_of(&c).as_ref()))
        .collect();
    json!({
        "links": this(&urls.ogc("/collections"), format, false),
        "collections": collections,
    })
}

/// A collection: what it is, where its items are (in each format), its extent, its CRSs.
pub fn collection(urls: &Urls, format: Form, c: &Collection, extent: Option<&Extent>) -> Value {
    let here = urls.ogc(&format!("/collections/{}", c.id()));
    let [this_one, alternate] = this(&here, format, false);
    let items = format!("{here}/items");
    let mut doc = json!({
        "id": c.id(),
        "title": c.title(),
        "description": c.dataset().about,
        "links": [
            this_one,
            alternate,
            to(items.clone(), "items", Form::Json, true, "Its features"),
            to(items, "items", Form::Html, true, "Its features, as a page"),
            link(format!("{here}/queryables"), QUERYABLES_REL, SCHEMA, "What a filter of its features may name"),
            link(format!("{here}/schema"), "describedby", SCHEMA, "The schema of its features"),
            link(urls.site("/about#licence"), "license", HTML, "Open Government Licence v3.0"),
        ],
        "itemType": "feature",
        "crs": CRSS.map(Crs::uri),
        // The files' own coordinates: whole metres on the grid, which the published
        // longitudes and latitudes were derived from.
        "storageCrs": Crs::BritishNationalGrid.uri(),
    });
    if let Some(extent) = extent
        .map(extent_document)
        .filter(|e| !e.as_object().is_some_and(|o| o.is_empty()))
    {
        doc["extent"] = extent;
    }
    doc
}

/// An extent's parts that are known.
fn extent_document(extent: &Extent) -> Value {
    let mut doc = json!({});
    if let Some(bbox) = extent.bbox {
        doc["spatial"] = json!({"bbox": [bbox], "crs": Crs::CRS84_URI});
    }
    if let Some((start, end)) = &extent.interval {
        doc["temporal"] = json!({"interval": [[start, end]], "trs": GREGORIAN});
    }
    doc
}

/// What a filter of `c`'s features may name: its queryables as one JSON Schema.
pub fn queryables(urls: &Urls, c: &Collection) -> Value {
    let id = urls.ogc(&format!("/collections/{}/queryables", c.id()));
    let title = format!("{}: what a filter may name", c.title());
    queryables::schema(c.dataset(), &id, &title)
}

/// The schema of `c`'s features (its `describedby`): a GeoJSON Feature whose `properties`
/// are the records' fields, each typed as the features write it (the decimals kept as text,
/// numbers; any but the ids and keys may be null), so that GDAL and QGIS type their fields
/// from it.
pub fn feature_schema(urls: &Urls, c: &Collection) -> Value {
    let id = urls.ogc(&format!("/collections/{}/schema", c.id()));
    let d = c.dataset();
    let mut properties = serde_json::Map::new();
    // One type each, though most may be null: GDAL (3.12) types a field from a schema's
    // `type` only when it is one name, and reads an array of them as text.
    for q in queryables::of(d).into_iter().filter(|q| q.column.is_some()) {
        properties.insert(q.name.to_string(), q.field_schema());
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": id,
        "title": c.title(),
        "type": "object",
        "required": ["type", "geometry", "properties"],
        "properties": {
            "type": {"type": "string", "enum": ["Feature"]},
            "id": {"type": "integer"},
            "geometry": {
                "oneOf": [{"type": "null"}, {"$ref": "https://geojson.org/schema/Point.json"}],
                "format": "geometry-point",
                "x-ogc-role": "primary-geometry",
            },
            "properties": {"type": "object", "properties": properties},
        },
    })
}
