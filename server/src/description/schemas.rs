//! The JSON Schemas of the API's records, envelopes and errors, from the catalogue: each
//! record's fields in record order, typed and nullable exactly as served.

use serde_json::{json, Map, Value};

use roadtraffic_catalog::json_schema;
use roadtraffic_catalog::meanings::meaning;
use roadtraffic_catalog::places::Places;
use roadtraffic_catalog::{Column, Dataset, Domain};

/// The name of a dataset's record schema: `AverageAnnualDailyFlow` from its first path.
pub fn record_name(d: &Dataset) -> String {
    d.paths[0]
        .trim_start_matches('/')
        .split(['-', '/'])
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// A field's schema: its JSON type (with null where it can be empty, `json_schema::field`)
/// and meaning.
pub(super) fn field_schema(d: &Dataset, c: &Column) -> Value {
    let mut schema = json_schema::field(d, c);
    if let Some(m) = meaning(c.name) {
        let unit = match (c.domain, d.count_unit) {
            (Domain::Count, Some(unit)) => format!(" In {unit}."),
            _ => String::new(),
        };
        schema.insert("description".into(), json!(format!("{m}{unit}")));
    }
    Value::Object(schema)
}

/// A record: its fields in record order (the order they are served in). None is required:
/// `fields=` picks some of them.
pub fn record(d: &'static Dataset) -> Value {
    let mut properties: Map<String, Value> = d
        .stored_columns()
        .map(|c| (c.name.to_string(), field_schema(d, c)))
        .collect();
    if Places::of(d).is_some() {
        properties.insert("distance_m".into(), json!({"type": ["number", "null"], "minimum": 0, "description": "Only with `filter[near]`, last: metres from its point on the British National Grid, to the decimetre (null for a record without easting and northing, which `near` never keeps)."}));
    }
    let order: Vec<&str> = d.stored_columns().map(|c| c.name).collect();
    json!({
        "type": "object",
        "description": format!("{} Fields, in this order: {}.", d.about, order.join(", ")),
        "properties": properties,
        "additionalProperties": false,
    })
}

/// The Laravel envelope of a page of records, keys in the order served.
pub fn envelope(record: &str) -> Value {
    let nullable_int = json!({"type": ["integer", "null"]});
    let url = json!({"type": "string"});
    let nullable_url = json!({"type": ["string", "null"]});
    json!({
        "type": "object",
        "description": "Laravel's pagination envelope, keys in this order: current_page, data, first_page_url, from, last_page, last_page_url, links, next_page_url, path, per_page, prev_page_url, to, total.",
        "required": ["current_page", "data", "first_page_url", "from", "last_page", "last_page_url", "links", "next_page_url", "path", "per_page", "prev_page_url", "to", "total"],
        "properties": {
            "current_page": {"type": "integer", "minimum": 1, "description": "The page number asked for (1 by default)."},
            "data": {"type": "array", "items": {"$ref": format!("#/components/schemas/{record}")}},
            "first_page_url": url,
            "from": {"type": ["integer", "null"], "description": "1-based position of the page's first record; null when the page is empty."},
            "last_page": {"type": "integer", "minimum": 1},
            "last_page_url": url,
            "links": {"type": "array", "items": {"$ref": "#/components/schemas/PageLink"}},
            "next_page_url": nullable_url,
            "path": {"type": "string", "description": "The endpoint's absolute URL, without query."},
            "per_page": {"type": "integer", "minimum": 1},
            "prev_page_url": nullable_url,
            "to": nullable_int,
            "total": {"type": "integer", "minimum": 0, "description": "Records that match the filters."},
        },
        "additionalProperties": false,
    })
}

/// The schemas every description holds, besides the records and their envelopes.
pub fn common() -> Map<String, Value> {
    let mut out = Map::new();
    out.insert(
        "PageLink".into(),
        json!({
            "type": "object",
            "description": "A link of the page window: previous, the pages around the current one (a `...` gap has no page), next.",
            "required": ["url", "label", "active"],
            "properties": {
                "url": {"type": ["string", "null"]},
                "label": {"type": "string"},
                "page": {"type": ["integer", "null"]},
                "active": {"type": "boolean"},
            },
            "additionalProperties": false,
        }),
    );
    out.insert("FeatureCollection".into(), feature_collection());
    out.insert(
        "Message".into(),
        json!({
            "type": "object",
            "description": "Every error: what went wrong, in a sentence.",
            "required": ["message"],
            "properties": {"message": {"type": "string"}},
            "additionalProperties": false,
        }),
    );
    out
}

/// A GeoJSON FeatureCollection of records (RFC 7946), with OGC API - Features' counts and
/// links when it is a page.
fn feature_collection() -> Value {
    let position =
        json!({"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2});
    let point = json!({"type": "object", "required": ["type", "coordinates"], "properties": {"type": {"const": "Point"}, "coordinates": position}});
    let link = json!({"type": "object", "required": ["href", "rel"], "properties": {"href": {"type": "string"}, "rel": {"type": "string"}, "type": {"type": "string"}}});
    json!({
        "type": "object",
        "description": "GeoJSON (RFC 7946): each feature a Point at the record's longitude and latitude, with the record as its properties; `geometry` null for a record without coordinates. A page adds numberMatched, numberReturned and links.",
        "required": ["type", "features"],
        "properties": {
            "type": {"const": "FeatureCollection"},
            "features": {"type": "array", "items": {
                "type": "object",
                "required": ["type", "id", "geometry", "properties"],
                "properties": {
                    "type": {"const": "Feature"},
                    "id": {"type": "integer"},
                    "geometry": {"oneOf": [point, {"type": "null"}]},
                    "properties": {"type": "object"},
                },
            }},
            "numberMatched": {"type": "integer", "minimum": 0},
            "numberReturned": {"type": "integer", "minimum": 0},
            "links": {"type": "array", "items": link},
        },
    })
}
