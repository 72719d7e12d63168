//! The API's listing endpoints: a request flows one way, parse -> a checked request -> (on the
//! blocking pool) its SQL plan, its page, its JSON -> the response.

use std::time::Duration;

use actix_web::http::{header, Method};
use actix_web::{HttpRequest, HttpResponse};

use roadtraffic_catalog::Dataset;

use crate::api::{query, Envelope, ListRequest};
use crate::error::ApiError;
use crate::release::Release;
use crate::startup::AppState;
use crate::stream;

pub async fn list(
    req: &HttpRequest,
    state: &AppState,
    dataset: &'static Dataset,
    envelope: Envelope,
) -> Result<HttpResponse, ApiError> {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return Err(ApiError::MethodNotAllowed(req.method().to_string()));
    }
    let config = &state.config;
    let params = query::parse(req.query_string());
    let mut request = ListRequest::parse(dataset, &params, config.max_page_size)?;
    request.envelope = envelope;
    let release = state.current.get()?;
    let url = endpoint_url(req, config.public_url.as_deref());
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

/// The absolute URL of the endpoint, as the envelope's `path`: scheme and host from
/// `--public-url`, else from the request.
fn endpoint_url(req: &HttpRequest, public_url: Option<&str>) -> String {
    let base = match public_url {
        Some(u) => u.trim_end_matches('/').to_string(),
        None => {
            let info = req.connection_info();
            format!("{}://{}", info.scheme(), info.host())
        }
    };
    format!("{base}{}", req.path().trim_end_matches('/'))
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
