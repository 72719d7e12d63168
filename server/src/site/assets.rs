//! Serving the site's files (`crate::assets`), and the map's point data, which is per loaded
//! file (the latest's, or a kept release's for its pages under `/releases/{name}`): its name
//! carries the release's tag, and it is sent gzipped to any client that takes gzip.

use std::sync::Arc;

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};

use crate::assets;
use crate::error::ApiError;
use crate::html;
use crate::site::{current_overview, overview, overview::Overview};
use crate::state::AppState;

/// A year: the name changes whenever the bytes do.
const FOREVER: &str = "public, max-age=31536000, immutable";

/// Answers `/assets/{name}`.
pub async fn serve(req: &HttpRequest, state: &AppState, name: &str) -> HttpResponse {
    if let Some(asset) = assets::served_as(name) {
        return HttpResponse::Ok()
            .insert_header((header::CONTENT_TYPE, asset.content_type))
            .insert_header((header::CACHE_CONTROL, FOREVER))
            .body(asset.bytes);
    }
    if name.starts_with("points-") {
        let of_the_latest = match current_overview(state).await {
            Ok((release, summary)) => (name == Overview::points_asset(&release)).then_some(summary),
            Err(e) => return html::error_page(&e),
        };
        return match of_the_latest {
            Some(summary) => points(req, &summary),
            None => match kept_summary(state, name).await {
                Ok(Some(summary)) => points(req, &summary),
                Ok(None) => html::error_page(&ApiError::NotFound(name.to_string())),
                Err(e) => html::error_page(&e),
            },
        };
    }
    html::error_page(&ApiError::NotFound(name.to_string()))
}

/// The summary of the kept release whose map's point data is `name`, if one is (a named
/// release's pages name its own: the tag of a kept release is its id's first 32 digits).
async fn kept_summary(state: &AppState, name: &str) -> Result<Option<Arc<Overview>>, ApiError> {
    let listing = state.named.listing()?;
    let tag = |id: &str| id.get(..32).unwrap_or(id).to_string();
    let kept = (listing.releases.iter()).find(|r| name == format!("points-{}.bin", tag(&r.id)));
    let Some(kept) = kept else {
        return Ok(None);
    };
    let release = state.named.get(&kept.name)?;
    if name != Overview::points_asset(&release) {
        return Ok(None);
    }
    if let Some(summary) = release.kept.get::<Overview>() {
        return Ok(Some(summary));
    }
    let summary = web::block(move || overview::of(&release, &*release.connection()?))
        .await
        .map_err(ApiError::internal)??;
    Ok(Some(summary))
}

/// The map's point data, gzipped when the client takes it (it is compressed once per file).
fn points(req: &HttpRequest, summary: &Overview) -> HttpResponse {
    let gzip = req
        .headers()
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|e| e.trim().starts_with("gzip")));
    let mut response = HttpResponse::build(StatusCode::OK);
    response
        .insert_header((header::CONTENT_TYPE, "application/octet-stream"))
        .insert_header((header::CACHE_CONTROL, FOREVER))
        .insert_header((header::VARY, "Accept-Encoding"));
    if gzip {
        response
            .insert_header((header::CONTENT_ENCODING, "gzip"))
            .body(summary.points.gzipped.clone())
    } else {
        response.body(summary.points.bytes.clone())
    }
}
