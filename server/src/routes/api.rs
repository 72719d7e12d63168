//! The API's listing endpoints: a request flows one way, parse -> a checked request -> (on the
//! blocking pool) its SQL plan, its page, its JSON -> the response.

use std::time::Duration;

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse};

use roadtraffic_catalog::Dataset;

use crate::api::{query, ListRequest};
use crate::error::ApiError;
use crate::release::Release;
use crate::startup::AppState;
use crate::stream;

pub async fn list(
    req: &HttpRequest,
    state: &AppState,
    dataset: &'static Dataset,
) -> Result<HttpResponse, ApiError> {
    super::only_get(req)?;
    let config = &state.config;
    let params = query::parse(req.query_string());
    let request = ListRequest::parse(dataset, &params, config.max_page_size)?;
    let release = state.current.get()?;
    let base = super::public_base(req, config.public_url.as_deref());
    let url = format!("{base}{}", req.path().trim_end_matches('/'));
    let etag = etag(&release, &url, req.query_string());
    if matches_etag(req, &etag) {
        let not_modified = HttpResponse::NotModified()
            .insert_header((header::ETAG, etag))
            .finish();
        return Ok(not_modified);
    }
    let permit = state.heavy_permit(request.rows_asked()).await?;
    let time_limit = Duration::from_millis(config.query_timeout);
    let mut head = HttpResponse::Ok();
    head.insert_header((header::CONTENT_TYPE, "application/json"))
        .insert_header((header::ETAG, etag));
    stream::respond(head, move |flush| {
        let _permit = permit;
        request.run(&release, &url, &params, time_limit, flush)
    })
    .await
}

/// The ETag of a response: the loaded file and the request.
fn etag(release: &Release, url: &str, query: &str) -> String {
    let request = roadtraffic_catalog::stable_hash(&format!("{url}?{query}"));
    format!("\"{}-{request:x}\"", release.tag)
}

fn matches_etag(req: &HttpRequest, etag: &str) -> bool {
    req.headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|inm| inm.split(',').any(|t| t.trim() == etag || t.trim() == "*"))
}
