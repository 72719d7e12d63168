//! Serving the site's files (`crate::assets`), and the map's point data, which is per loaded
//! file: its name carries the release's tag, and it is sent gzipped to any client that takes
//! gzip.

use actix_web::http::{header, StatusCode};
use actix_web::{HttpRequest, HttpResponse};

use crate::assets;
use crate::error::ApiError;
use crate::html;
use crate::site::{current_summary, summary::Summary};
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
        return match current_summary(state).await {
            Ok((release, summary)) if name == Summary::points_asset(&release) => {
                points(req, &summary)
            }
            Ok(_) => html::error_page(&ApiError::NotFound(name.to_string())),
            Err(e) => html::error_page(&e),
        };
    }
    html::error_page(&ApiError::NotFound(name.to_string()))
}

/// The map's point data, gzipped when the client takes it (it is compressed once per file).
fn points(req: &HttpRequest, summary: &Summary) -> HttpResponse {
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
