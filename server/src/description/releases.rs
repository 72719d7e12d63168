//! What the description says of kept releases: `/releases`, the change report between two of
//! them (`since`), and each listing's revisions across all of them. Every other path is also
//! answered under `/releases/{name}` for that release: the description's second server.

use serde_json::{json, Map, Value};

use roadtraffic_catalog::json_schema;
use roadtraffic_catalog::{Dataset, Source};

use super::openapi::{self, message};
use super::schemas;
use crate::api::{Endpoint, DEFAULT_KEYS};
use crate::configuration::Config;

/// Where the names of the releases kept before the latest go in the written document: the
/// values `since` takes at the latest's change report, which change with every load (see
/// `Description::openapi_json`).
pub const SINCE_NAMES: &str = "\u{1}names of the releases kept before the latest\u{1}";

/// The second server: every path of the description, for one kept release.
pub fn release_server(base_url: &str) -> Value {
    json!({
        "url": format!("{base_url}/releases/{{release}}"),
        "description": "A kept release, by name (`/releases` lists them; `latest` is the latest): every path of this description is answered under it exactly as for the latest, from that release, and so are the 2019-2020 listings (`/releases/{release}/legacy/api/...`), the downloads (`/releases/{release}/downloads/...`), OGC API - Features (`/releases/{release}/ogcapi/...`) and the site's pages. Its data never changes: `Cache-Control: public, max-age=31536000, immutable` and a strong ETag (but on the revisions and `/releases`, which span every kept release). Envelope links stay under the release.",
        "variables": {"release": {"default": "latest", "description": "A kept release's name, or `latest`."}},
    })
}

/// `/releases`: the kept releases, oldest first.
pub fn releases_operation() -> Value {
    let release = json!({
        "type": "object",
        "required": ["name", "id", "loaded_at", "latest", "sources", "row_counts"],
        "properties": {
            "name": {"type": "string", "description": "`--release` given to its load: its name in `/releases/{name}/...`."},
            "id": {"type": "string", "description": "SHA-256 of its metadata: the same for every copy of one load."},
            "loaded_at": {"type": "string", "description": "When it was loaded (RFC 3339)."},
            "latest": {"type": "boolean", "description": "True for one: the release `/api` serves."},
            "sources": {"description": "The files it was loaded from, each with its size and SHA-256."},
            "row_counts": {"type": "object", "description": "Rows per table."},
        },
    });
    json!({
        "operationId": "releases",
        "summary": "The releases kept, oldest first",
        "description": "Every release this mirror keeps, oldest first, the last the latest (the one `/api` serves). Each is served by name under `/releases/{name}/`: the API (`/releases/{name}/api/...`), the 2019-2020 listings (`/releases/{name}/legacy/api/...`), the downloads (`/releases/{name}/downloads/...`), what changed (`/releases/{name}/changes?since=`) and the site. Empty when the served file was loaded without `--release`.",
        "responses": {
            "200": {"description": "The kept releases.", "content": {"application/json": {"schema": {"type": "array", "items": release}}}},
            "304": {"description": "Not modified: `If-None-Match` matched the ETag."},
            "500": message("An unexpected error (logged)."),
        },
    })
}

/// `since` at the latest's change report: one of the releases kept before it.
pub fn since_parameter() -> Value {
    json!({
        "name": "since",
        "in": "query",
        "required": false,
        "description": "The older release to compare with, by name: one kept before this one (`/releases` lists them). Default: the one just before. Under `/releases/{release}`, one kept before that release. Any other is a 400 that names those allowed.",
        "schema": {"type": "string", "enum": SINCE_NAMES},
    })
}

/// `<endpoint>/revisions` of a listing endpoint that has them.
pub fn revisions_operation(e: &Endpoint, config: &Config) -> Value {
    let d = e.dataset;
    let id = match e.alias {
        0 => format!("revisions_{}", d.table),
        n => format!("revisions_{}_alias_{n}", d.table),
    };
    let mut parameters = openapi::listing_filters(d);
    parameters.push(openapi::fields(d));
    parameters.extend(openapi::page(config, DEFAULT_KEYS, "Keys per page"));
    let key = d.natural_key.join(", ");
    json!({
        "operationId": id,
        "summary": format!("How each record of {} was revised, release by release", d.title),
        "description": format!("The natural keys ({key}) of the records the filters match in any kept release, in key order, a page of keys at a time; each with its record in every kept release, oldest first, exactly as that release's listing writes it (`fields` too), or null where the release lacks the key, and `changed`: the fields whose value differs from the release before (none for the first; every field of the one present when a record comes or goes; never `id`, each release's own row number). The filters pick the keys, in any release; each key's record is then shown in every release. The same under `/releases/{{release}}` (it spans every kept release, whichever names it). `sort` is not taken: keys come in key order. With no release kept by name, the one release served, named `latest`. The next and previous pages are in `Link` (`rel=\"next\"`, `rel=\"prev\"`). A mirror's own endpoint (the public service has none)."),
        "parameters": parameters,
        "responses": responses(d, config),
    })
}

fn responses(d: &'static Dataset, config: &Config) -> Value {
    let record = schemas::record_name(d);
    let key: Map<String, Value> = (d.natural_key.iter())
        .filter_map(|k| d.column(k))
        .map(|c| (c.name.to_string(), Value::Object(json_schema::value(c))))
        .collect();
    let fields: Vec<&str> = (d.stored_columns())
        .filter(|c| c.source != Source::Id)
        .map(|c| c.name)
        .collect();
    let release = json!({
        "type": "object",
        "required": ["release", "record", "changed"],
        "properties": {
            "release": {"type": "string"},
            "record": {"anyOf": [{"$ref": format!("#/components/schemas/{record}")}, {"type": "null"}]},
            "changed": {"type": "array", "items": {"type": "string", "enum": fields}},
        },
        "additionalProperties": false,
    });
    let item = json!({
        "type": "object",
        "required": ["key", "releases"],
        "properties": {
            "key": {"type": "object", "required": d.natural_key, "properties": key, "additionalProperties": false},
            "releases": {"type": "array", "items": release},
        },
        "additionalProperties": false,
    });
    let headers = json!({
        "ETag": {"description": "Changes when a release is kept or dropped.", "schema": {"type": "string"}},
        "Link": {"description": "The next page (`rel=\"next\"`), when more keys follow, and the previous one (`rel=\"prev\"`).", "schema": {"type": "string"}},
    });
    let mut out = json!({
        "200": {"description": "A page of keys, each with its records.", "headers": headers, "content": {"application/json": {"schema": {"type": "array", "items": item}}}},
        "304": {"description": "Not modified: `If-None-Match` matched the ETag."},
        "400": message("A parameter is wrong; the message says which and how."),
        "500": message("An unexpected error (logged)."),
        "503": message("Busy, or the query ran over its time limit: try again shortly (see `retry-after`)."),
    });
    if config.rate_limit > 0 {
        out["429"] = message("Too many requests this minute (see `retry-after`).");
    }
    out
}
