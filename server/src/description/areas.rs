//! What the description says of the areas: `/areas` and its sets, areas and features, and
//! `filter[area]` on every listing with places.

use serde_json::{json, Map, Value};

use super::openapi::{self, message};
use crate::areas::PATH as AREAS;
use crate::configuration::Config;

/// `filter[area]`, on a dataset with places.
pub fn filter() -> Value {
    let words = "Records whose count point is in any of these areas of one set (`/api/areas` lists the sets): `{set}:{id}[,{id}...]`. A count point is in every area whose boundary contains or touches it (a point on a shared edge is in both). Combines with every other filter, `filter=`, the forms, facets and summaries. An unknown set or id is a 400 naming it. A mirror's own filter.";
    json!({"name": "filter[area]", "in": "query", "required": false, "description": words, "schema": {"type": "string"}})
}

/// The areas' paths under the base path.
pub fn paths(config: &Config, paths: &mut Map<String, Value>) {
    let base = format!("{}{AREAS}", config.base_path());
    let set = json!({"name": "set", "in": "path", "required": true, "schema": {"type": "string"}});
    let id = json!({"name": "id", "in": "path", "required": true, "schema": {"type": "string"}});
    let record = json!({"type": "object", "required": ["id", "name", "count_points", "bbox"], "properties": {
        "id": {"type": "string"}, "name": {"type": "string"},
        "count_points": {"type": "integer", "description": "The release's count points in the area, of any dataset."},
        "bbox": {"type": "array", "items": {"type": "number"}, "minItems": 4, "maxItems": 4, "description": "[minLon, minLat, maxLon, maxLat]"}}});
    let listed = json!({"type": "array", "items": {"type": "object", "required": ["set", "areas", "source", "sha256"], "properties": {
        "set": {"type": "string"}, "areas": {"type": "integer"}, "source": {"type": "string", "description": "The boundary file's name."}, "sha256": {"type": "string"}}}});
    let not_found = message("No such set or area.");
    let answer = |summary: &str, media: &str, schema: Value, parameters: Vec<Value>| {
        json!({"get": {"operationId": summary.to_lowercase().replace(' ', "_"), "summary": summary, "parameters": parameters,
            "responses": {"200": {"description": summary, "content": {media: {"schema": schema}}}, "304": {"description": "Not modified: `If-None-Match` matched the ETag (which changes when a set is replaced)."}, "400": message("A parameter the request got wrong (a page number or size)."), "404": not_found}}})
    };
    paths.insert(
        base.clone(),
        answer("Area sets", "application/json", listed, Vec::new()),
    );
    let mut page = vec![set.clone()];
    page.extend(openapi::page(
        config,
        crate::rows::DEFAULT_PAGE_SIZE,
        "Areas per page",
    ));
    let envelope =
        json!({"type": "object", "properties": {"data": {"type": "array", "items": record}}});
    paths.insert(
        format!("{base}/{{set}}"),
        answer("Areas of a set", "application/json", envelope, page),
    );
    let feature = json!({"type": "object", "description": "An RFC 7946 Feature: the area's boundary in longitude and latitude, its record as properties."});
    paths.insert(
        format!("{base}/{{set}}.geojson"),
        answer("Areas of a set as GeoJSON", "application/geo+json", json!({"type": "object", "description": "An RFC 7946 FeatureCollection of every area."}), vec![set.clone()]),
    );
    let geoparquet = json!({"type": "string", "format": "binary", "description": "GeoParquet 1.1: one row per area in the set's order, `id`, `name`, `count_points` (as the JSON records), `geometry` (WKB Polygon or MultiPolygon in longitude and latitude, OGC:CRS84) and `bbox` (xmin, ymin, xmax, ymax), declared as its covering in the `geo` metadata."});
    paths.insert(
        format!("{base}/{{set}}.parquet"),
        answer(
            "Areas of a set as GeoParquet",
            "application/vnd.apache.parquet",
            geoparquet,
            vec![set.clone()],
        ),
    );
    paths.insert(
        format!("{base}/{{set}}/{{id}}"),
        answer("One area", "application/geo+json", feature, vec![set, id]),
    );
}
