//! The API's description: the OpenAPI document and the docs page.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse};

use crate::description::Description;
use crate::error::ApiError;
use crate::html;
use crate::state::{AppState, Served};

pub fn openapi(
    req: &HttpRequest,
    state: &AppState,
    description: &Description,
) -> Result<HttpResponse, ApiError> {
    let base = state.config.public_base(req);
    let listing = state.named.listing()?;
    let kept = listing.releases.iter().map(|r| r.name.as_str());
    let older: Vec<&str> = kept
        .take(listing.releases.len().saturating_sub(1))
        .collect();
    let body = description.openapi_json(&base, &older);
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "application/json"))
        .body(body))
}

/// The docs page of the release `served`, in its frame (`crate::site::frame`): the release
/// picker, and links into that release.
pub async fn docs(
    req: &HttpRequest,
    state: &AppState,
    served: &Served,
    description: &std::sync::Arc<Description>,
) -> Result<HttpResponse, ApiError> {
    let release = served.release.clone();
    let page = actix_web::web::block({
        let config = state.config.clone();
        let description = description.clone();
        move || description.docs_page(&release, &config)
    })
    .await
    .map_err(ApiError::internal)??;
    let frame = crate::site::frame::of(req, state, served).frame;
    Ok(html::response(html::in_release(&page, &frame)))
}
