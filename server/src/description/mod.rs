//! The API's description: the OpenAPI 3.1 document (`openapi.rs`, `schemas.rs`, `releases.rs`
//! for the kept releases and `totals.rs` for each listing's facets and summary) and the docs
//! page a person reads (`docs/`: its examples read from the file, then its template and its
//! sections on releases, totals and OGC API - Features), both written from the route table's
//! endpoints, with where the mirror differs from the public service (`deviations.rs`). A
//! column's JSON type is the catalogue's (`roadtraffic_catalog::json_schema`), a filter's words
//! the rows' (`rows::filter_words`), for this description and OGC's alike. The document is built once per server (it
//! depends on the configuration alone); the docs page once per loaded file (its examples come from
//! the file's own rows).

mod areas;
mod deviations;
mod docs;
mod openapi;
mod releases;
mod schemas;
mod totals;

use std::sync::{Arc, Mutex, PoisonError};

use crate::api::Endpoint;
use crate::configuration::Config;
use crate::error::ApiError;
use crate::release::Release;

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

    /// The OpenAPI document, its servers at `base_url` (the latest, then any kept release by
    /// name), `since` taking the names of the releases kept before the latest (`older`) or
    /// none (an empty value: the default).
    pub fn openapi_json(&self, base_url: &str, older: &[&str]) -> Vec<u8> {
        let servers = serde_json::json!([
            {"url": base_url, "description": "this mirror: the latest release"},
            releases::release_server(base_url),
        ]);
        let mut names = vec![""];
        names.extend(older);
        let names = serde_json::json!(names).to_string();
        let marker = serde_json::json!(releases::SINCE_NAMES).to_string();
        format!(
            "{}\"servers\":{servers}{}",
            self.before_servers.replace(&marker, &names),
            self.after_servers.replace(&marker, &names)
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
        let list: String = deviations::DEVIATIONS
            .iter()
            .map(|d| format!("- {d}\n"))
            .collect();
        let (start, end) = (
            "<!-- deviations: written from the description -->",
            "<!-- end of the deviations -->",
        );
        roadtraffic_catalog::readme::check_section(&readme, start, end, &list).unwrap();
    }
}
