//! The docs page's words on kept releases: how each is served by name, what changed between
//! two, and (in each dataset's section) an example of a record's revisions that returns rows.

use maud::{html, Markup};

use roadtraffic_catalog::DATASETS;

use super::examples::DatasetExamples;
use crate::api::{DEFAULT_KEYS, REVISIONS};
use crate::configuration::Config;
use crate::query;

/// The section on releases, under the page's requests.
pub fn section(config: &Config) -> Markup {
    let base = config.base_path();
    let legacy = config.legacy_base_path();
    html! {
        h2 id="releases" { "Releases" }
        p { "Each annual release revises past years. This mirror keeps every release it has loaded under a name (" code { "roadtraffic-load --release NAME" } "), and serves each of them, so that a URL names the data it returns for good." }
        ul {
            li { a href="/releases" { code { "/releases" } } ": the kept releases, oldest first, as JSON: name, id, load time, source files with their SHA-256, rows per table, and " code { "latest" } " for the one " code { (base) } " serves." }
            li { code { "/releases/{name}" (base) "/..." } ": every path, filter, envelope and form of the API, answered from that release exactly as " code { (base) "/..." } " is from the latest (the envelope's links stay inside the release). " code { "/releases/latest/..." } " is the latest." }
            @if let Some(legacy) = legacy {
                li { code { "/releases/{name}" (legacy) "/..." } ": the 2019-2020 listings, for that release." }
            }
            li { code { "/releases/{name}/downloads/..." } ": the whole files, as DfT publishes them, of that release." }
            li { code { "/releases/{name}/ogcapi" } ": OGC API - Features of that release (every link, the definition's server and the pages' links stay in it), for a GIS client to open a release that will not change under it." }
            li { "A named release's answers never change: they carry a strong " code { "ETag" } " and " code { "Cache-Control: public, max-age=31536000, immutable" } "; " code { (base) } " keeps its revalidated caching." }
            li { code { "/releases/{new}/changes?since={old}" } ": what changed between two kept releases (rows added, removed and changed per table and year, count points new and retired, the largest revisions); " code { "since" } " defaults to the release kept just before " code { "{new}" } ". The latest's is also at " code { (base) "/releases/latest/changes" } "." }
            li { code { "<endpoint>/revisions" } " (e.g. " code { (base) "/average-annual-daily-flow/revisions" } "): for each natural key the endpoint's filters match in any kept release (" (keys()) "), its record in every kept release, oldest first (" code { "null" } " where a release lacks it), with " code { "changed" } ", the fields whose value differs from the release before (never " code { "id" } ", each release's own row number). Keys come in key order, " code { "page[size]" } " of them (default " (DEFAULT_KEYS) ") a page; the next and previous pages are in the " code { "Link" } " header. " code { "fields" } " applies to the records; " code { "sort" } " is not taken." }
        }
    }
}

/// Each paginated dataset's natural key, in words: `AADF: count_point_id, year; ...`.
fn keys() -> String {
    let keyed = DATASETS.iter().filter(|d| d.paginated);
    let each: Vec<String> = keyed
        .map(|d| format!("{}: {}", d.title, d.natural_key.join(", ")))
        .collect();
    each.join("; ")
}

/// A dataset section's example of revisions: those of its first record, by its natural key.
pub fn revisions_example(first: &DatasetExamples, config: &Config) -> Option<Markup> {
    let mut filters = Vec::new();
    for (name, value) in first.key.as_ref()? {
        let mut filter = format!("filter%5B{name}%5D=");
        query::encode(value, &mut filter);
        filters.push(filter);
    }
    let d = first.dataset;
    let url = format!(
        "{}{}{REVISIONS}?{}",
        config.base_path(),
        d.paths[0],
        filters.join("&")
    );
    Some(html! {
        p { "How that record was revised, in every kept release (returns rows of this file): " a href=(url) { code { (url) } } }
    })
}
