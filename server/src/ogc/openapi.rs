//! The OpenAPI 3.0 definition of the OGC resources (`/ogcapi/api`), written from the
//! catalogue: a path per collection (its items with every parameter, its filters among them,
//! which is how GDAL learns which properties it may filter on at the server), every status
//! the server answers with, the `Content-Crs` header. OGC's building blocks, reduced to what
//! this server does.

use serde_json::{json, Map, Value};

use roadtraffic_catalog::json_schema;
use roadtraffic_catalog::{Dataset, COUNT_METHOD};

use super::collection::Collection;
use super::documents::{DESCRIPTION, TITLE};
use super::links::{GEOJSON, HTML, JSON, OPENAPI, SCHEMA};
use super::query::{DEFAULT_LIMIT, ITEMS_PARAMETERS, MAX_LIMIT};
use crate::filter::{self, queryables};
use crate::rows::filter_words;
use crate::spatial::Crs;

/// The definition, its server at `base` (this server's `/ogcapi`); `rate_limited` adds the
/// 429 answer.
pub fn document(base: &str, rate_limited: bool) -> Value {
    let errors = Errors { rate_limited };
    let mut paths = Map::new();
    let document = |summary: &str, id: &str, schema: &str, media: &str| {
        let ok = json!({"description": summary, "content": {media: {"schema": reference(schema)}, HTML: page()}});
        json!({"get": {
            "summary": summary, "operationId": id, "tags": ["Capabilities"],
            "parameters": [reference_parameter("f")],
            "responses": errors.with(ok, false),
        }})
    };
    paths.insert(
        "/".into(),
        document("The landing page", "getLandingPage", "landingPage", JSON),
    );
    paths.insert(
        "/conformance".into(),
        document(
            "The conformance classes this server meets",
            "getConformanceDeclaration",
            "confClasses",
            JSON,
        ),
    );
    paths.insert(
        "/api".into(),
        document(
            "This API definition",
            "getApiDefinition",
            "openapi",
            OPENAPI,
        ),
    );
    paths.insert(
        "/collections".into(),
        document(
            "The feature collections",
            "getCollections",
            "collections",
            JSON,
        ),
    );
    for c in Collection::all() {
        paths.extend(collection_paths(&c, &errors));
    }
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": format!("{TITLE}: OGC API - Features"),
            "version": env!("CARGO_PKG_VERSION"),
            "description": DESCRIPTION,
            "license": {"name": "Data: Open Government Licence v3.0", "url": "https://www.nationalarchives.gov.uk/doc/open-government-licence/version/3/"},
        },
        "servers": [{"url": base, "description": "this mirror"}],
        "tags": [
            {"name": "Capabilities", "description": "what this API is and holds"},
            {"name": "Data", "description": "the features"},
        ],
        "paths": paths,
        "components": {"parameters": parameters(), "schemas": schemas()},
    })
}

/// A collection's paths: itself, its items, a feature.
fn collection_paths(c: &Collection, errors: &Errors) -> Map<String, Value> {
    let (id, title) = (c.id(), c.title());
    let here = format!("/collections/{id}");
    let key = id.replace('-', "_");
    let mut items_parameters: Vec<Value> = ITEMS_PARAMETERS
        .into_iter()
        .map(reference_parameter)
        .collect();
    items_parameters.extend(filters(c.dataset()));
    let features = |schema: &str, what: &str| {
        json!({
            "description": what,
            "headers": {"Content-Crs": {"description": "The CRS of the coordinates, as `<uri>`.", "schema": {"type": "string"}}},
            "content": {GEOJSON: {"schema": reference(schema)}, HTML: page()},
        })
    };
    let collection = json!({"description": format!("{title}: the collection"), "content": {JSON: {"schema": reference("collection")}, HTML: page()}});
    let mut paths = Map::new();
    paths.insert(here.clone(), json!({"get": {
        "summary": format!("{title}: the collection"), "operationId": format!("describe_{key}"), "tags": ["Capabilities"],
        "parameters": [reference_parameter("f")],
        "responses": errors.with(collection, true),
    }}));
    paths.insert(format!("{here}/items"), json!({"get": {
        "summary": format!("{title}: the features"),
        "description": format!("{} Features in id order; `limit` features after the first `offset`, with links to the next and previous ones.", c.dataset().about),
        "operationId": format!("get_{key}_features"), "tags": ["Data"],
        "parameters": items_parameters,
        "responses": errors.with(features("featureCollectionGeoJSON", "The features"), true),
    }}));
    let schema = |what: &str| json!({"description": what, "content": {SCHEMA: {"schema": {"type": "object"}}, HTML: page()}});
    paths.insert(format!("{here}/queryables"), json!({"get": {
        "summary": format!("{title}: what a filter may name"), "operationId": format!("get_{key}_queryables"), "tags": ["Capabilities"],
        "parameters": [reference_parameter("f")],
        "responses": errors.with(schema("The queryables, as a JSON Schema"), true),
    }}));
    paths.insert(format!("{here}/schema"), json!({"get": {
        "summary": format!("{title}: the schema of its features"), "operationId": format!("get_{key}_schema"), "tags": ["Capabilities"],
        "parameters": [reference_parameter("f")],
        "responses": errors.with(schema("The features' JSON Schema"), true),
    }}));
    paths.insert(format!("{here}/items/{{featureId}}"), json!({"get": {
        "summary": format!("{title}: a feature"), "operationId": format!("get_{key}_feature"), "tags": ["Data"],
        "parameters": [reference_parameter("featureId"), reference_parameter("crs"), reference_parameter("f")],
        "responses": errors.with(features("featureGeoJSON", "The feature"), true),
    }}));
    paths
}

/// The paths of the area sets' collections (`areas-{set}`), added to the definition `doc`:
/// itself, its items (a window, a box), a feature by its id (text), its queryables and schema.
pub fn add_area_sets(doc: &mut Value, sets: &[&str], rate_limited: bool) {
    let errors = Errors { rate_limited };
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    let crs84 = json!({
        "name": "crs", "in": "query", "required": false, "style": "form", "explode": false,
        "description": "The CRS of the coordinates in the response: WGS 84 longitude and latitude (CRS84), the only one of an area collection.",
        "schema": {"type": "string", "format": "uri", "enum": [Crs::CRS84_URI]},
    });
    let feature_id = json!({"name": "featureId", "in": "path", "required": true, "description": "The area's id, as its boundary file gives it.", "schema": {"type": "string"}});
    let features = |schema: &str, what: &str| json!({"description": what, "content": {GEOJSON: {"schema": reference(schema)}, HTML: page()}});
    let json_doc = |schema: Value, what: &str, media: &str| json!({"description": what, "content": {media: {"schema": schema}, HTML: page()}});
    for set in sets {
        let (id, key) = (super::areas::collection_id(set), format!("areas_{set}"));
        let here = format!("/collections/{id}");
        let get = |summary: String, op: String, tag: &str, parameters: Vec<Value>, ok: Value| json!({"get": {"summary": summary, "operationId": op, "tags": [tag], "parameters": parameters, "responses": errors.with(ok, true)}});
        let f = || reference_parameter("f");
        let mut items = vec![
            reference_parameter("bbox"),
            reference_parameter("bbox-crs"),
            crs84.clone(),
        ];
        items.extend(["limit", "offset", "f"].map(reference_parameter));
        paths.insert(
            here.clone(),
            get(
                format!("The areas of `{set}`: the collection"),
                format!("describe_{key}"),
                "Capabilities",
                vec![f()],
                json_doc(reference("collection"), "The collection", JSON),
            ),
        );
        paths.insert(
            format!("{here}/items"),
            get(
                format!("The areas of `{set}`: the features"),
                format!("get_{key}_features"),
                "Data",
                items,
                features(
                    "featureCollectionGeoJSON",
                    "The areas, in the file's order, with their count points and latest vehicle-km",
                ),
            ),
        );
        paths.insert(
            format!("{here}/items/{{featureId}}"),
            get(
                format!("The areas of `{set}`: an area"),
                format!("get_{key}_feature"),
                "Data",
                vec![feature_id.clone(), crs84.clone(), f()],
                features("featureGeoJSON", "The area"),
            ),
        );
        for (part, what) in [
            ("queryables", "its properties"),
            ("schema", "the schema of its features"),
        ] {
            let ok = json_doc(json!({"type": "object"}), what, SCHEMA);
            paths.insert(
                format!("{here}/{part}"),
                get(
                    format!("The areas of `{set}`: {what}"),
                    format!("get_{key}_{part}"),
                    "Capabilities",
                    vec![f()],
                    ok,
                ),
            );
        }
    }
}

/// The error answers every operation may give.
struct Errors {
    rate_limited: bool,
}

impl Errors {
    /// The responses of an operation: `ok` as its 200 (with its `ETag`), its `304` and `412`,
    /// then its errors (a 404 where the path names a collection or a feature).
    fn with(&self, mut ok: Value, names_something: bool) -> Value {
        let etag = json!({"description": "The release and the question: the same for the same parameters in any order.", "schema": {"type": "string"}});
        if let Some(ok) = ok.as_object_mut() {
            let headers = ok.entry("headers").or_insert_with(|| json!({}));
            headers["ETag"] = etag;
        }
        let mut out = Map::new();
        out.insert("200".into(), ok);
        out.insert(
            "304".into(),
            json!({"description": "Not modified: `If-None-Match` matched the ETag."}),
        );
        out.insert(
            "412".into(),
            json!({"description": "Precondition failed: `If-Match` named another tag (compared strongly)."}),
        );
        out.insert(
            "400".into(),
            exception("A parameter is unknown or its value is wrong; the message says which."),
        );
        if names_something {
            out.insert("404".into(), exception("No such collection or feature."));
        }
        if self.rate_limited {
            out.insert(
                "429".into(),
                exception("Too many requests this minute (see `retry-after`)."),
            );
        }
        out.insert("500".into(), exception("An unexpected error (logged)."));
        out.insert("503".into(), exception("Busy, or the query ran over its time limit: try again shortly (see `retry-after`)."));
        Value::Object(out)
    }
}

/// Every resource's HTML form (with `f=html`, or an `Accept` that prefers `text/html`).
fn page() -> Value {
    json!({"schema": {"type": "string"}})
}

fn exception(description: &str) -> Value {
    json!({"description": description, "content": {JSON: {"schema": reference("exception")}}})
}

fn reference(schema: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{schema}")})
}

fn reference_parameter(name: &str) -> Value {
    json!({"$ref": format!("#/components/parameters/{name}")})
}

/// An equality filter on each of the dataset's filters, named as the property, in the words
/// every description uses (`rows::filter_words`); then each other queryable as a parameter
/// (Part 3's `queryables-query-parameters`): features whose property equals the value.
fn filters(d: &'static Dataset) -> Vec<Value> {
    let own = d.filters.iter().filter_map(|&name| {
        let schema = match name == COUNT_METHOD {
            true => json!({"type": "string", "enum": ["counted", "estimated"]}),
            false => json_schema::filter_value(d.filter_column(name)?),
        };
        Some(json!({
            "name": name, "in": "query", "required": false, "style": "form", "explode": false,
            "description": filter_words(d, name)?,
            "schema": schema,
        }))
    });
    let others = queryables::of(d)
        .into_iter()
        .filter(|q| q.column.is_some() && !d.filters.contains(&q.name))
        .map(|q| {
            let mut schema = q.field_schema();
            schema.as_object_mut().map(|s| s.remove("description"));
            json!({
                "name": q.name, "in": "query", "required": false,
                "description": format!("Those whose `{}` equals this value (as CQL2's `{} = value`; text minding letter case).", q.name, q.name),
                "schema": schema,
            })
        });
    own.chain(others).collect()
}

/// An RFC 3339 date-time (or a bare date), or an interval of two with either end open; a
/// text that fits may still name no real time (a 30th of February), which is refused.
fn datetime_pattern() -> String {
    let date = "[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])";
    let time = r"([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?";
    let offset = "([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])";
    let instant = format!("{date}([Tt]{time}{offset})?");
    let end = format!(r"({instant}|\.\.)?");
    format!("^({instant}|{end}/{end})$")
}

/// The parameters shared by the operations (Part 1's and Part 2's building blocks).
fn parameters() -> Value {
    let crss = [Crs::CRS84_URI, Crs::BNG_URI];
    json!({
        "f": {
            "name": "f", "in": "query", "required": false, "style": "form", "explode": false,
            "description": "The format: JSON (GeoJSON for features), or HTML. Without it (or empty), the one `Accept` prefers by its q-values (a browser gets HTML; a form at `q=0` is never sent), JSON when it names neither.",
            "schema": {"type": "string", "enum": ["", "json", "geojson", "html"]},
        },
        "bbox": {
            "name": "bbox", "in": "query", "required": false, "style": "form", "explode": false,
            "description": "Only features whose point is in this box (edges included): minX,minY,maxX,maxY in `bbox-crs` (WGS 84 longitude and latitude by default, each within -180..180 and -90..90; a minimum longitude above the maximum crosses the antimeridian; on the British National Grid easting -100000..900000 and northing -100000..1400000). A box where no count point is matches nothing. Six numbers, minX,minY,minZ,maxX,maxY,maxZ (Part 1's box with heights), are the same box: these features are 2-D points, so the heights (any numbers) are ignored.",
            // Part 1's own definition (4 to 6 items), narrowed by `oneOf` to what it means.
            "schema": {"type": "array", "minItems": 4, "maxItems": 6, "oneOf": [{"maxItems": 4}, {"minItems": 6}], "items": {"type": "number"}},
        },
        "bbox-crs": {
            "name": "bbox-crs", "in": "query", "required": false, "style": "form", "explode": false,
            "description": "The CRS of `bbox`: WGS 84 (CRS84, the default) or the British National Grid (EPSG:27700, easting and northing in metres).",
            "schema": {"type": "string", "format": "uri", "enum": crss},
        },
        "crs": {
            "name": "crs", "in": "query", "required": false, "style": "form", "explode": false,
            "description": "The CRS of the coordinates in the response: WGS 84 longitude and latitude (CRS84, the default; at most 7 decimals), or the British National Grid (EPSG:27700: the files' own easting and northing). The response's `Content-Crs` header names it.",
            "schema": {"type": "string", "format": "uri", "enum": crss},
        },
        "datetime": {
            "name": "datetime", "in": "query", "required": false, "style": "form", "explode": false,
            "description": "Only features whose time shares an instant with this RFC 3339 date-time or interval (`start/end`, either end open as `..` or empty; a bare date is that whole day, UTC). A record's time is its year (AADF), the year of its latest AADF (count points; a count point without one matches any), or the hour of its count from `count_date` Thh:00 to the next hour (raw counts; the files give no zone: read as UTC).",
            "schema": {"type": "string", "pattern": datetime_pattern()},
        },
        "filter": {
            "name": "filter", "in": "query", "required": false,
            "description": format!("A CQL2 filter (Part 3): any queryable by name (see the collection's `queryables`; `latitude`, `longitude` and the link lengths are numbers), with comparisons, `LIKE`, `BETWEEN`, `IN`, `IS NULL`, `AND`, `OR`, `NOT`, `CASEI`, arithmetic, property-to-property comparisons and every spatial function (`S_INTERSECTS`, `S_WITHIN`, ...) of the feature's point (`geometry`) against any geometry. Text compares minding letter case unless in `CASEI(...)`; a comparison with a null is unknown and selects nothing. At most {} bytes, nested at most {} deep (and the whole request line within 64 KB, so at most {} characters when each may take 12 once URL-encoded).", filter::MAX_BYTES, filter::MAX_DEPTH, filter::MAX_CHARACTERS_IN_A_URL),
            "schema": {"type": "string", "maxLength": filter::MAX_CHARACTERS_IN_A_URL},
        },
        "filter-lang": {
            "name": "filter-lang", "in": "query", "required": false, "style": "form", "explode": false,
            "description": "The encoding of `filter`: `cql2-text` (the default; the 2020 draft's `cql-text` is taken as it) or `cql2-json`.",
            "schema": {"type": "string", "enum": ["", "cql2-text", "cql2-json", "cql-text"], "default": "cql2-text"},
        },
        "filter-crs": {
            "name": "filter-crs", "in": "query", "required": false, "style": "form", "explode": false,
            "description": "The CRS of `filter`'s geometries: CRS84 longitude and latitude (the default) against each feature's own, or the British National Grid (EPSG:27700) against each feature's own easting and northing.",
            "schema": {"type": "string", "enum": ["", Crs::CRS84_URI, Crs::BNG_URI], "default": Crs::CRS84_URI},
        },
        "sortby": {
            "name": "sortby", "in": "query", "required": false, "style": "form", "explode": false,
            "description": "The order of the features: a comma-separated list of properties, each ascending or after `-` descending (`sortby=-year,count_point_id`); ties in id order. The properties the JSON API's `sort` takes.",
            "schema": {"type": "array", "items": {"type": "string"}},
        },
        "properties": {
            "name": "properties", "in": "query", "required": false, "style": "form", "explode": false,
            "description": "Only these properties in each feature (`properties=year,all_hgvs`), in record order; the geometry and id are always written.",
            "schema": {"type": "array", "items": {"type": "string"}},
        },
        "limit": {
            "name": "limit", "in": "query", "required": false, "style": "form", "explode": false,
            "description": format!("How many features at most (default {DEFAULT_LIMIT}); a limit above {MAX_LIMIT} is taken as {MAX_LIMIT}."),
            "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
        },
        "offset": {
            "name": "offset", "in": "query", "required": false, "style": "form", "explode": false,
            "description": "How many of the matching features to skip (the `next` and `prev` links carry it). Past the last feature, no features.",
            "schema": {"type": "integer", "minimum": 0, "default": 0},
        },
        "featureId": {
            "name": "featureId", "in": "path", "required": true,
            "description": "The feature's id: its record's id.",
            "schema": {"type": "integer", "minimum": 0},
        },
    })
}

/// The response schemas (Part 1's, with Part 2's additions to the collection).
fn schemas() -> Value {
    let link = json!({"type": "object", "required": ["href", "rel"], "properties": {
        "href": {"type": "string"}, "rel": {"type": "string"}, "type": {"type": "string"}, "title": {"type": "string"},
    }});
    let links = json!({"type": "array", "items": reference("link")});
    let extent = json!({"type": "object", "properties": {
        "spatial": {"type": "object", "properties": {
            "bbox": {"type": "array", "minItems": 1, "items": {"type": "array", "minItems": 4, "maxItems": 4, "items": {"type": "number"}}},
            "crs": {"type": "string"},
        }},
        "temporal": {"type": "object", "properties": {
            "interval": {"type": "array", "minItems": 1, "items": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "string", "format": "date-time", "nullable": true}}},
            "trs": {"type": "string"},
        }},
    }});
    let collection = json!({"type": "object", "required": ["id", "links"], "properties": {
        "id": {"type": "string"}, "title": {"type": "string"}, "description": {"type": "string"},
        "links": links, "extent": extent, "itemType": {"type": "string"},
        "crs": {"type": "array", "items": {"type": "string"}}, "storageCrs": {"type": "string", "format": "uri"},
    }});
    let point = json!({"type": "object", "required": ["type", "coordinates"], "properties": {
        "type": {"type": "string", "enum": ["Point"]},
        "coordinates": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "number"}},
    }});
    let feature = json!({"type": "object", "required": ["type", "geometry", "properties"], "properties": {
        "type": {"type": "string", "enum": ["Feature"]},
        "id": {"type": "integer"},
        "geometry": {"allOf": [point], "nullable": true},
        "properties": {"type": "object", "description": "The record, as the JSON API writes it, but for the decimals its records carry as strings (latitude, longitude, link_length_km, link_length_miles): numbers here, `null` when empty."},
        "links": links,
    }});
    json!({
        "link": link,
        "exception": {"type": "object", "required": ["code", "message"], "properties": {"code": {"type": "string"}, "description": {"type": "string"}, "message": {"type": "string"}}},
        "landingPage": {"type": "object", "required": ["links"], "properties": {"title": {"type": "string"}, "description": {"type": "string"}, "links": links}},
        "confClasses": {"type": "object", "required": ["conformsTo"], "properties": {"conformsTo": {"type": "array", "items": {"type": "string"}}}},
        "openapi": {"type": "object", "description": "An OpenAPI 3.0 definition (this one)."},
        "collections": {"type": "object", "required": ["links", "collections"], "properties": {"links": links, "collections": {"type": "array", "items": reference("collection")}}},
        "collection": collection,
        "featureGeoJSON": feature,
        "featureCollectionGeoJSON": {"type": "object", "required": ["type", "features"], "properties": {
            "type": {"type": "string", "enum": ["FeatureCollection"]},
            "features": {"type": "array", "items": reference("featureGeoJSON")},
            "links": links,
            "numberMatched": {"type": "integer", "minimum": 0},
            "numberReturned": {"type": "integer", "minimum": 0},
        }},
    })
}
