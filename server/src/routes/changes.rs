//! What changed between two releases, as JSON (`roadtraffic_catalog::changes::ChangeReport`:
//! rows added, removed and changed per table and year, count points new and retired, the
//! largest revisions), at `/releases/{new}/changes?since={old}` and, for the latest,
//! `<base-path>/releases/latest/changes` (`table::CHANGES_PATH`). `since` names a release kept
//! before `{new}`; without it, the one just before. Two kept releases are compared afresh
//! (`crate::comparisons`, once per pair). The oldest kept release (or a file kept under no name)
//! has no release before it: its answer is the report its load kept of the file it replaced,
//! if it replaced one. A mirror's own path: the public service has no such endpoint.

use std::sync::Arc;

use actix_web::{web, HttpRequest, HttpResponse};

use roadtraffic_releases::KeptRelease;

use super::tagged::{held, json};
use super::Pin;
use crate::cache::Encoding;
use crate::error::ApiError;
use crate::query::php::{self, Param};
use crate::query::Query;
use crate::release::Release;
use crate::state::AppState;

pub async fn answer(
    req: &HttpRequest,
    query: &Query,
    state: &AppState,
    pin: &Pin,
    release: Arc<Release>,
) -> Result<HttpResponse, ApiError> {
    let since = match php::get(query.php(), "since") {
        Some(Param::Text(t)) if !t.is_empty() => Some(t.clone()),
        Some(Param::Map(_)) => {
            return Err(ApiError::BadRequest(
                "since must be the name of a kept release.".into(),
            ))
        }
        _ => None,
    };
    let listing = state.named.listing()?;
    let name = match pin {
        Pin::Named(name) => Some(name.as_str()),
        Pin::Latest => listing.latest(),
    };
    let at = name.and_then(|n| listing.releases.iter().position(|r| r.name == n));
    let older = at.map_or(&[][..], |i| &listing.releases[..i]);
    let old = match (since, older.last()) {
        (Some(since), _) => older
            .iter()
            .find(|r| r.name == since)
            .ok_or_else(|| not_before(name, &since, older))?,
        (None, Some(before)) => before,
        (None, None) => return kept_report(req, state, release).await,
    };
    let new = &listing.releases[older.len()];
    between(req, state, (old, new), release).await
}

/// The report of two kept releases, made once.
async fn between(
    req: &HttpRequest,
    state: &AppState,
    (old, new): (&KeptRelease, &KeptRelease),
    release: Arc<Release>,
) -> Result<HttpResponse, ApiError> {
    let encoding = Encoding::negotiate(req, state.config.compress);
    let since: String = old.id.chars().take(16).collect();
    let etag = encoding.etag(format!("\"{}-changes-{since}\"", release.tag));
    if let Some(held) = held(req, &etag) {
        return Ok(held);
    }
    // Kept with the newer release as named: `/api/releases/latest/changes` and
    // `/releases/{latest}/changes` share one comparison.
    let holder = state.named.get(&new.name)?;
    let report = crate::comparisons::report(&state.config.db, old, new, &holder).await?;
    Ok(json(etag).body(report.to_vec()))
}

/// A `since` that names no release kept before this one: a 400 naming those that are.
fn not_before(name: Option<&str>, since: &str, older: &[KeptRelease]) -> ApiError {
    let this = name.map_or("this release".to_string(), |n| format!("release {n}"));
    let names: Vec<&str> = older.iter().map(|r| r.name.as_str()).collect();
    let allowed = match names.is_empty() {
        true => "none is".to_string(),
        false => format!("those kept are: {}", names.join(", ")),
    };
    ApiError::BadRequest(format!(
        "since={since} names no release kept before {this} ({allowed})."
    ))
}

/// What changed with a release that has no kept release before it: the report its load kept,
/// of the file it replaced; a 404 when it replaced none.
async fn kept_report(
    req: &HttpRequest,
    state: &AppState,
    release: Arc<Release>,
) -> Result<HttpResponse, ApiError> {
    // With `--compress` the compression middleware encodes the body: its tag is then weak.
    let encoding = Encoding::negotiate(req, state.config.compress);
    let etag = encoding.etag(format!("\"{}-changes\"", release.tag));
    // Read first: a release without a report has no representation, and its 404 takes no
    // preconditions (RFC 9110 §13.2.1).
    let report = web::block(move || {
        let report = release.changes()?.ok_or_else(|| {
            ApiError::NotHeld(
                "No change report: no release is kept before this one, and the load that built it replaced no earlier file."
                    .into(),
            )
        })?;
        serde_json::to_vec(&report).map_err(ApiError::internal)
    })
    .await
    .map_err(ApiError::internal)??;
    if let Some(held) = held(req, &etag) {
        return Ok(held);
    }
    Ok(json(etag).body(report))
}
