//! `/releases`: the releases kept beside the served file, oldest first, as JSON: each with its
//! name, id, load time, whether it is the latest, its source files (with their SHA-256) and its
//! rows per table. Each is served under `/releases/{name}/` (see `table::Pin`).

use actix_web::{HttpRequest, HttpResponse};
use serde_json::{json, Value};

use super::tagged::{held, json};
use crate::error::ApiError;
use crate::state::AppState;

pub async fn list(req: &HttpRequest, state: &AppState) -> Result<HttpResponse, ApiError> {
    let listing = state.named.listing()?;
    let latest = listing.releases.len().saturating_sub(1);
    let releases: Vec<Value> = (listing.releases.iter().enumerate())
        .map(|(i, r)| {
            json!({
                "name": r.name,
                "id": r.id,
                "loaded_at": r.loaded_at,
                "latest": i == latest,
                "sources": r.sources,
                "row_counts": r.row_counts,
            })
        })
        .collect();
    let body = serde_json::to_vec(&releases).map_err(ApiError::internal)?;
    let ids: Vec<&str> = listing.releases.iter().map(|r| r.id.as_str()).collect();
    let etag = format!(
        "\"releases-{:x}\"",
        roadtraffic_catalog::stable_hash(&ids.join(","))
    );
    if let Some(held) = held(req, &etag) {
        return Ok(held);
    }
    Ok(json(etag).body(body))
}
