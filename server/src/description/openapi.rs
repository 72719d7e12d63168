//! The OpenAPI 3.1 description of the API, written from the catalogue and the configuration:
//! every endpoint and alias (and their CSV and NDJSON forms), every filter with its type,
//! `sort` and `fields` with their names as enums, the page parameters with their bounds, the
//! records and envelopes as served, every error, the headers.

use serde_json::{json, Map, Value};

use roadtraffic_catalog::json_schema;
use roadtraffic_catalog::places::Places;
use roadtraffic_catalog::{Dataset, COUNT_METHOD, DATASETS};

use super::{releases, schemas};
use crate::api::{Endpoint, REVISIONS};
use crate::configuration::Config;
use crate::filter;
use crate::forms::Form;
use crate::rows::{filter_words, DEFAULT_PAGE_SIZE};
use crate::spatial::area::MAX_RADIUS_M;
use crate::spatial::grid::AREA_OF_USE;
use crate::spatial::Crs;

/// The whole description, but its `servers` (see [`super::Description`]), of the API's
/// paths under the base path: the listing endpoints, their revisions and totals, then the
/// change report's path; and `/releases`.
pub fn document(config: &Config, endpoints: &[Endpoint], changes_path: &str) -> Value {
    let base = config.base_path();
    let mut paths = Map::new();
    for e in endpoints {
        let get = operation(e.dataset, e.alias, e.format, config);
        paths.insert(format!("{base}{}", e.path()), json!({ "get": get }));
    }
    for e in endpoints.iter().filter(|e| e.has_revisions()) {
        let get = releases::revisions_operation(e, config);
        paths.insert(
            format!("{base}{}{REVISIONS}", e.path()),
            json!({ "get": get }),
        );
    }
    super::totals::paths(config, endpoints, &mut paths);
    super::areas::paths(config, &mut paths);
    paths.insert(
        format!("{base}{changes_path}"),
        json!({"get": changes_operation()}),
    );
    paths.insert(
        "/releases".to_string(),
        json!({"get": releases::releases_operation()}),
    );
    let mut schemas_map = schemas::common();
    for d in DATASETS {
        let name = schemas::record_name(d);
        schemas_map.insert(format!("{name}Page"), schemas::envelope(&name));
        schemas_map.insert(name, schemas::record(d));
    }
    super::totals::schemas(&mut schemas_map);
    json!({
        "openapi": "3.1.0",
        "info": info(),
        "servers": [],
        "paths": paths,
        "components": {"schemas": schemas_map},
    })
}

fn info() -> Value {
    json!({
        "title": "Road traffic statistics of Great Britain (offline mirror)",
        "version": env!("CARGO_PKG_VERSION"),
        "summary": "The Department for Transport's road traffic API, answered from a local copy of a release.",
        "description": "The same paths, records, filters and Laravel pagination envelope as https://roadtraffic.dft.gov.uk/api, from one SQLite file. Every release the mirror keeps is also served by name, under the second server (`/releases/{release}`): its answers never change. Every response is JSON written as PHP writes it (`\\/` escaped, non-ASCII as `\\uXXXX`); every error is `{\"message\": \"...\"}`. Data: Department for Transport, road traffic statistics, Open Government Licence v3.0.",
        "license": {"name": "Data: Open Government Licence v3.0", "url": "https://www.nationalarchives.gov.uk/doc/open-government-licence/version/3/"},
    })
}

fn operation(d: &'static Dataset, alias: usize, format: Form, config: &Config) -> Value {
    let table = d.table;
    let id = match (alias, format) {
        (0, Form::Json) => format!("list_{table}"),
        (0, _) => format!("export_{table}_{}", format.suffix().trim_start_matches('.')),
        (n, Form::Json) => format!("list_{table}_alias_{n}"),
        (n, _) => format!(
            "export_{table}_alias_{n}_{}",
            format.suffix().trim_start_matches('.')
        ),
    };
    let mut parameters = listing_filters(d);
    parameters.push(sort(d));
    parameters.push(fields(d));
    if d.paginated && format == Form::Json {
        parameters.extend(page(config, DEFAULT_PAGE_SIZE, "Records per page"));
    }
    json!({
        "operationId": id,
        "summary": summary(d, format),
        "description": description(d, format),
        "parameters": parameters,
        "responses": responses(d, format, config),
    })
}

fn summary(d: &Dataset, format: Form) -> String {
    let what = capitalised(d.title);
    match format {
        Form::Json if d.paginated => format!("{what}, a page at a time"),
        Form::Json => format!("{what}, every record"),
        Form::Csv => format!("{what} as CSV: every matching record"),
        Form::Ndjson => format!("{what} as NDJSON: every matching record"),
        Form::GeoJson => format!("{what} as GeoJSON: every matching record, a feature each"),
        Form::Parquet => format!("{what} as Parquet: every matching record"),
        Form::Zip | Form::Html => what,
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn description(d: &'static Dataset, form: Form) -> String {
    let order = if d.paginated {
        "Ordered by id unless `sort` says otherwise."
    } else {
        "A bare JSON array (no envelope), ordered by id unless `sort` says otherwise."
    };
    let format = match form {
        Form::Json => String::new(),
        Form::Csv => " Every matching record, no pagination, as CSV with a header of the fields; text holding a comma, quote or line end is quoted.".into(),
        Form::Ndjson => " Every matching record, no pagination, one JSON record a line.".into(),
        Form::GeoJson => " Every matching record, no pagination, as an RFC 7946 GeoJSON FeatureCollection, streamed: each feature a Point at the record's longitude and latitude (at most 7 decimals; `\"geometry\": null` for a record without them), its `id` the record's id, its `properties` the record.".into(),
        Form::Zip | Form::Html => String::new(),
        Form::Parquet => " Every matching record, no pagination, as an Apache Parquet file (zstd) of the fields, in the CSV form's order and under its names: integers as INT32 or INT64, decimals as DOUBLE, `count_date` as DATE, text as dictionary-encoded UTF-8, empty values as nulls. Streamed, so its length is not known beforehand (`Accept-Ranges: none`): a query engine that reads byte ranges wants the whole-table files of `/downloads` instead.".into(),
    };
    let format = match (form, Places::of(d)) {
        (Form::Json, Some(_)) if d.paginated => format!("{format} Asked with `Accept: application/geo+json`, the page is a GeoJSON FeatureCollection instead of the envelope, with `numberMatched`, `numberReturned` and `links` (`self`, `first`, `prev`, `next`, `last`)."),
        _ => format,
    };
    format!("{} {order}{format} Unknown parameters (`page`, `limit`, ...) are ignored, as the public service ignores them.", d.about)
}

/// One of a list's items from a set of names; an empty item is ignored, as every empty value is.
pub(super) fn names(names: Vec<String>) -> Value {
    let mut all = vec![String::new()];
    all.extend(names);
    json!({"type": "string", "enum": all})
}

/// One query parameter whose value is a comma-separated list of `items`.
pub(super) fn list_parameter(name: &str, description: String, items: Value) -> Value {
    json!({
        "name": name,
        "in": "query",
        "required": false,
        "description": description,
        "style": "form",
        "explode": false,
        "schema": {"type": "array", "items": items},
    })
}

/// Each of the dataset's filters as `filter[name]`, in the words every description uses
/// (`rows::filter_words`): a list of values of the column's type.
pub(super) fn filters(d: &Dataset) -> Vec<Value> {
    d.filters
        .iter()
        .filter_map(|&name| {
            let param = format!("filter[{name}]");
            let words = filter_words(d, name)?;
            if name == COUNT_METHOD {
                let items = names(vec!["counted".into(), "estimated".into()]);
                return Some(list_parameter(&param, words, items));
            }
            let c = d.filter_column(name)?;
            let text =
                format!("{words} Empty values are ignored. Also accepted bare, as `{name}=`.");
            Some(list_parameter(&param, text, json_schema::filter_value(c)))
        })
        .collect()
}

/// Every filter a listing takes: its own (`filter[name]`), where it has places the spatial
/// ones, and a CQL2 `filter`.
pub(super) fn listing_filters(d: &'static Dataset) -> Vec<Value> {
    let mut parameters = filters(d);
    if Places::of(d).is_some() {
        parameters.extend(spatial_filters());
        parameters.push(super::areas::filter());
    }
    parameters.extend(cql2_filter(d));
    parameters
}

/// `filter`, `filter-lang` and `filter-crs`: a CQL2 filter (a mirror's own on the API; OGC's
/// Part 3 on the items).
pub(super) fn cql2_filter(d: &'static Dataset) -> [Value; 3] {
    let spatial = match Places::of(d) {
        Some(_) => " Spatial functions (`S_INTERSECTS`, `S_WITHIN`, `S_DISJOINT`, `S_TOUCHES`, `S_EQUALS`, `S_CONTAINS`, `S_OVERLAPS`, `S_CROSSES`) relate each record's point (`geometry`: its own longitude and latitude, or with `filter-crs` EPSG:27700 its own easting and northing) to any geometry, in WKT (`POLYGON((...))`, `BBOX(...)`) or GeoJSON.",
        None => "",
    };
    let filter = format!("A CQL2 filter (OGC's Common Query Language, as OGC API - Features Part 3 takes it): any property of the records by name (`latitude`, `longitude` and the link lengths as numbers), with `=`, `<>`, `<`, `<=`, `>`, `>=`, `LIKE`, `BETWEEN`, `IN`, `IS NULL`, `AND`, `OR`, `NOT`, `CASEI`, arithmetic (`+ - * / % ^ div`) and property-to-property comparisons.{spatial} Text compares minding letter case unless in `CASEI(...)` (`filter[...]` ignores it, as the public service does); a comparison with a null is unknown and selects nothing. E.g. `year >= 2015 AND road_category = 'TM'`, `all_hgvs * 5 > all_motor_vehicles`. Combines with every other filter, `sort`, `fields`, the page and every form, but not with `filter[...]` in one request (say those in the CQL2 filter). At most {} bytes, nested at most {} deep (and the whole request line within 64 KB, so at most {} characters when each may take 12 once URL-encoded). A mirror's own: the public service has no `filter` parameter.", filter::MAX_BYTES, filter::MAX_DEPTH, filter::MAX_CHARACTERS_IN_A_URL);
    let lang = "The encoding of `filter`: `cql2-text` (the default; `cql-text`, the 2020 draft's name, is taken as it) or `cql2-json`.";
    let crs = format!("The CRS of `filter`'s geometries: `{}` (the default; longitude, latitude) or `{}` (British National Grid easting, northing).", Crs::CRS84_URI, Crs::BNG_URI);
    [
        json!({"name": "filter", "in": "query", "required": false, "description": filter, "schema": {"type": "string", "maxLength": filter::MAX_CHARACTERS_IN_A_URL}}),
        json!({"name": "filter-lang", "in": "query", "required": false, "description": lang, "schema": {"type": "string", "enum": ["", "cql2-text", "cql2-json", "cql-text"], "default": "cql2-text"}}),
        json!({"name": "filter-crs", "in": "query", "required": false, "description": crs, "schema": {"type": "string", "enum": ["", Crs::CRS84_URI, Crs::BNG_URI], "default": Crs::CRS84_URI}}),
    ]
}

/// `filter[bbox]` and `filter[near]`, on a dataset with places (a mirror's own: the public
/// service has no spatial filter).
pub(super) fn spatial_filters() -> [Value; 2] {
    let bbox = "Records whose own longitude and latitude are inside this WGS 84 box (edges included): `minLon,minLat,maxLon,maxLat`, as OGC's `bbox`. The box must overlap the British National Grid's area (-9.01,49.75,2.01,61.01). Combines with every other filter, `sort`, `fields` and the page. A mirror's own filter: the public service has none.";
    let near = format!("Records within `radius_m` metres of a point: `lon,lat,radius_m` (WGS 84; the point inside the British National Grid's area; the radius above 0 and at most {}). The distance is measured on the British National Grid from the record's own easting and northing (the point converted with OSTN15, the Ordnance Survey's transformation, so that a count point asked for by its published longitude and latitude is at 0; at sea beyond OSTN15's shifts, with the Helmert transformation EPSG:1314, about 2 m off): nearest first unless `sort` is given, each record gaining `distance_m` (metres, to the decimetre) as its last field (in CSV, its last column). A mirror's own filter: the public service has none.", MAX_RADIUS_M);
    // Each number's range, by position: exactly what the server accepts but the order of the
    // corners (min <= max), which JSON Schema cannot compare.
    let [w, so, e, n] = AREA_OF_USE;
    let box_items = [(-180.0, e), (-90.0, n), (w, 180.0), (so, 90.0)]
        .map(|(min, max)| json!({"type": "number", "minimum": min, "maximum": max}));
    let near_items = [
        json!({"type": "number", "minimum": w, "maximum": e}),
        json!({"type": "number", "minimum": so, "maximum": n}),
        json!({"type": "number", "exclusiveMinimum": 0, "maximum": MAX_RADIUS_M}),
    ];
    let numbers = |items: &[Value]| json!({"type": "array", "prefixItems": items, "items": false, "minItems": items.len(), "maxItems": items.len()});
    [
        json!({"name": "filter[bbox]", "in": "query", "required": false, "description": bbox, "style": "form", "explode": false, "schema": numbers(&box_items)}),
        json!({"name": "filter[near]", "in": "query", "required": false, "description": near, "style": "form", "explode": false, "schema": numbers(&near_items)}),
    ]
}

fn sort(d: &Dataset) -> Value {
    let names: Vec<String> = d
        .sorts()
        .flat_map(|s| [s.to_string(), format!("-{s}")])
        .collect();
    let text = "Sort keys in order, `-` for descending. Ties are broken by id in the direction of the last key; an id key ends the sort.".to_string();
    list_parameter("sort", text, self::names(names))
}

pub(super) fn fields(d: &Dataset) -> Value {
    let fields = d.stored_columns().map(|c| c.name.to_string()).collect();
    let text =
        "Only these fields of each record, in record order; none (or empty) means all.".to_string();
    list_parameter("fields", text, names(fields))
}

/// `page[size]` (`what` per page, `default` of them) and `page[number]`.
pub(super) fn page(config: &Config, default: i64, what: &str) -> [Value; 2] {
    [
        json!({
            "name": "page[size]", "in": "query", "required": false,
            "description": format!("{what} (default {default}). Also accepted URL-encoded, `page%5Bsize%5D`."),
            "schema": {"type": "integer", "minimum": 1, "maximum": config.max_page_size, "default": default},
        }),
        json!({
            "name": "page[number]", "in": "query", "required": false,
            "description": "The page, from 1 (the default). Past the last page: an empty page (`data: []`, `from` and `to` null).",
            "schema": {"type": "integer", "minimum": 1, "default": 1},
        }),
    ]
}

/// What changed with the latest release, since the one before or `since` another kept one:
/// the mirror's own endpoint.
fn changes_operation() -> Value {
    json!({
        "operationId": "releaseChanges",
        "summary": "What changed with the latest release, since the one before or another",
        "description": "What changed between two releases: per table, rows added, removed and changed (by column and year); count points new and retired; the years before and after; the 20 largest revisions of `all_motor_vehicles`. Since the release kept just before the latest, or `since` another kept before it, compared on first request (seconds on full-size data) and kept. Every pair of kept releases at `/releases/{new}/changes?since={old}` (the second server's `/api/releases/latest/changes` is the same), whose answer never changes. A release with none kept before it: the report its load kept of the file it replaced. A mirror's own endpoint (the public service has none). The same listings in the 2019-2020 envelope (`data`, `links`, `meta`), for clients of that era, are served under `--legacy-base-path` (default `/legacy/api`) and are not described here.",
        "parameters": [releases::since_parameter()],
        "responses": {
            "200": {"description": "The change report.", "content": {"application/json": {"schema": {"type": "object"}}}},
            "304": {"description": "Not modified: `If-None-Match` matched the ETag."},
            "400": message("`since` names no release kept before this one; the message names those that are."),
            "404": message("No release is kept before this one, and the load that built it replaced no earlier file."),
            "500": message("An unexpected error (logged)."),
            "503": message("Busy: try again shortly (see `retry-after`)."),
        },
    })
}

pub(super) fn message(description: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Message"}}},
    })
}

fn responses(d: &'static Dataset, format: Form, config: &Config) -> Value {
    let record = schemas::record_name(d);
    let body = match format {
        Form::Json if d.paginated => {
            json!({"$ref": format!("#/components/schemas/{record}Page")})
        }
        Form::Json => {
            json!({"type": "array", "items": {"$ref": format!("#/components/schemas/{record}")}})
        }
        Form::Csv | Form::Ndjson => json!({"type": "string"}),
        Form::Parquet | Form::Zip => json!({"type": "string", "format": "binary"}),
        Form::Html => json!({"type": "string"}),
        Form::GeoJson => json!({"$ref": "#/components/schemas/FeatureCollection"}),
    };
    let mut content = Map::new();
    content.insert(format.content_type().into(), json!({"schema": body}));
    if format == Form::Json && d.paginated && Places::of(d).is_some() {
        let page = json!({"$ref": "#/components/schemas/FeatureCollection"});
        content.insert(Form::GeoJson.content_type().into(), json!({"schema": page}));
    }
    let what = "A parameter is wrong; the message says which and how.";
    answered("The records.", content, what, config)
}

/// A data answer's responses: `200` with `content` (described as `ok`) and its headers, `304`,
/// the errors (`bad`, what a `400` means), the rate limit's when it is on.
pub(super) fn answered(ok: &str, content: Map<String, Value>, bad: &str, config: &Config) -> Value {
    let mut headers = Map::new();
    headers.insert("ETag".into(), json!({"description": "Changes when the loaded file changes.", "schema": {"type": "string"}}));
    if config.rate_limit > 0 {
        headers.insert(
            "x-ratelimit-limit".into(),
            json!({"description": "Requests allowed a minute.", "schema": {"type": "integer"}}),
        );
        headers.insert(
            "x-ratelimit-remaining".into(),
            json!({"description": "Requests left this minute.", "schema": {"type": "integer"}}),
        );
    }
    let mut out = Map::new();
    out.insert(
        "200".into(),
        json!({"description": ok, "headers": headers, "content": content}),
    );
    out.insert(
        "304".into(),
        json!({"description": "Not modified: `If-None-Match` matched the ETag."}),
    );
    out.insert("400".into(), message(bad));
    out.insert(
        "412".into(),
        json!({"description": "Precondition failed: `If-Match` named another tag (compared strongly)."}),
    );
    if config.rate_limit > 0 {
        out.insert(
            "429".into(),
            message("Too many requests this minute (see `retry-after`)."),
        );
    }
    out.insert("500".into(), message("An unexpected error (logged)."));
    out.insert(
        "503".into(),
        message(
            "Busy, or the query ran over its time limit: try again shortly (see `retry-after`).",
        ),
    );
    Value::Object(out)
}
