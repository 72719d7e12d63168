//! The API's description: the OpenAPI 3.1 document (`openapi.rs`, `schemas.rs`) and the docs
//! page a person reads (`docs.rs`), both written from the catalogue. The document is built once
//! per server (it depends on the configuration alone); the docs page once per loaded file (its
//! examples come from the file's own rows).

mod docs;
mod openapi;
mod schemas;

use std::sync::{Arc, Mutex, PoisonError};

use crate::api::Endpoint;
use crate::configuration::Config;
use crate::error::ApiError;
use crate::release::Release;

/// Where the mirror answers differently from the public service, as the docs page and the
/// README say it (`readme_deviations_follow_the_description`).
pub const DEVIATIONS: &[&str] = &[
    "A bad `page[size]` or `page[number]` (not an integer, out of range) is a `400` that says what is wrong; the public service silently falls back to a default.",
    "Every data response has an `ETag` that changes with each load and not with how the request is encoded; `If-None-Match` (compared weakly: `W/\"x\"` matches `\"x\"`) gets `304`. An encoded (gzip, br, deflate) body's `ETag` is weak.",
    "Compression (br, gzip, deflate) only with `--compress`; by default bodies are plain JSON, as the public service sends them (some clients keep the raw bytes).",
    "Rate limiting is off by default; with `--rate-limit N`, `x-ratelimit-limit` and `x-ratelimit-remaining` are sent on every response and the N+1th request in a minute gets `429` with `retry-after`.",
    "`count_method` (`counted`, `estimated`): on AADF it matches `estimation_method`; raw counts are all manual counts, so `counted` matches every raw count and `estimated` none.",
    "`/api/countries`, `/api/regions` and `/api/local-authorities` accept `filter[id]` and `filter[name]` (and `sort`, `fields`).",
    "`sort`: ties are broken by id, in the direction of the last sort key (so one index scan, forwards or backwards, gives the order).",
    "A plain `page=3` next to `page[size]` is ignored rather than replacing it (PHP would let it).",
    "Ids are assigned 1..N in file order by the loader (count points: id = count_point_id), so they match the public service's ids only when the same files are loaded in the same order.",
    "Countries, regions and local authorities are derived from the data files: country ids come from the bundled `data/countries.csv` (England 1, Scotland 2, Wales 3); a local authority's `ita_id` is null (no published CSV carries it).",
    "Every listing is also served whole as CSV (`<endpoint>.csv`) and NDJSON (`<endpoint>.ndjson`), with the same filters, sort and fields; the OpenAPI description is at `<base-path>/openapi.json`.",
];

/// The description, built once, with the place of its `servers` entry, which is the one part
/// that can depend on the request (when there is no `--public-url`).
pub struct Description {
    before_servers: String,
    after_servers: String,
    /// The docs page of the release with this tag.
    docs: Mutex<Option<(String, Arc<String>)>>,
    endpoints: Vec<Endpoint>,
}

impl Description {
    /// The description of the API's listing `endpoints` (the route table's) and its change
    /// report at `changes_path`, both under the base path.
    pub fn new(config: &Config, endpoints: &[Endpoint], changes_path: &str) -> Description {
        let text = openapi::document(config, endpoints, changes_path).to_string();
        const EMPTY: &str = "\"servers\":[]";
        let at = text.find(EMPTY).unwrap_or(text.len());
        Description {
            before_servers: text[..at].to_string(),
            after_servers: text[at..].replacen(EMPTY, "", 1),
            docs: Mutex::new(None),
            endpoints: endpoints.to_vec(),
        }
    }

    /// The OpenAPI document, its server at `base_url`.
    pub fn openapi_json(&self, base_url: &str) -> Vec<u8> {
        let servers = serde_json::json!([{"url": base_url, "description": "this mirror"}]);
        format!(
            "{}\"servers\":{servers}{}",
            self.before_servers, self.after_servers
        )
        .into_bytes()
    }

    /// The docs page of this release, written the first time it is asked for.
    pub fn docs_page(&self, release: &Release, config: &Config) -> Result<Arc<String>, ApiError> {
        let mut docs = self.docs.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((tag, page)) = docs.as_ref() {
            if *tag == release.tag {
                return Ok(page.clone());
            }
        }
        let page = Arc::new(docs::page(release, config, &self.endpoints)?);
        *docs = Some((release.tag.clone(), page.clone()));
        Ok(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readme_deviations_follow_the_description() {
        let readme = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
        let list: String = DEVIATIONS.iter().map(|d| format!("- {d}\n")).collect();
        let (start, end) = (
            "<!-- deviations: written from the description -->",
            "<!-- end of the deviations -->",
        );
        roadtraffic_catalog::readme::check_section(&readme, start, end, &list).unwrap();
    }
}
