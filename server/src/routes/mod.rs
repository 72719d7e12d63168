//! Which handler answers a request. Under the API base path: the public API's endpoints
//! (`api.rs`); anything else there, and anywhere else for now, is the public service's JSON
//! 404. Rate limiting, when on, wraps every answer.
//!
//! The operator's endpoints (`ops.rs`: `/healthz`, `/readyz`, `/metrics`) come before both,
//! outside the API and its rate limit.
//!
//! Rooms for what comes next, each a module of its own beside `api.rs`: the API's description
//! (OpenAPI and the docs page), downloads (CSV exports) and the site's pages.

mod api;
mod ops;

use actix_web::http::{header, Method};
use actix_web::{web, HttpRequest, HttpResponse, ResponseError};

use roadtraffic_catalog::{Dataset, DATASETS};

use crate::api::query;
use crate::error::ApiError;
use crate::ops::Endpoint;
use crate::startup::AppState;

pub async fn dispatch(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    // Probes and metrics first: outside the API, never rate limited.
    if let Some(response) = ops::answer(&req, &state).await {
        return response;
    }
    name_endpoint(&req, &state);
    let Some(limiter) = &state.limiter else {
        return route(&req, &state)
            .await
            .unwrap_or_else(|e| e.error_response());
    };
    // With rate limiting on, every response carries the limit and what is left of it.
    let (limit, remaining, result) = match limiter.check(&req) {
        Ok((limit, remaining)) => (limit, remaining, route(&req, &state).await),
        Err(e) => (limiter.per_minute(), 0, Err(e)),
    };
    let mut response = result.unwrap_or_else(|e| e.error_response());
    for (name, value) in [
        ("x-ratelimit-limit", limit),
        ("x-ratelimit-remaining", remaining),
    ] {
        response.headers_mut().insert(
            header::HeaderName::from_static(name),
            header::HeaderValue::from(value),
        );
    }
    response
}

async fn route(req: &HttpRequest, state: &AppState) -> Result<HttpResponse, ApiError> {
    if req.method() == Method::OPTIONS {
        return Ok(preflight());
    }
    let endpoint = req
        .path()
        .strip_prefix(state.config.base_path())
        .and_then(dataset_for);
    match endpoint {
        Some(dataset) => api::list(req, state, dataset).await,
        None => Err(not_found(req)),
    }
}

/// Names the route a request is for, as `/metrics` labels it: a template, never the raw path
/// (see `ops::metrics`). A new route names itself here or where it answers; one that does not
/// is labelled by its first path segment when it succeeds.
fn name_endpoint(req: &HttpRequest, state: &AppState) {
    if req.method() == Method::OPTIONS {
        return Endpoint::name(req, "preflight");
    }
    let base = state.config.base_path();
    if let Some(dataset) = req.path().strip_prefix(base).and_then(dataset_for) {
        Endpoint::name(req, format!("{base}{}", dataset.paths[0]));
    }
}

/// The dataset an API path (without the base path) names, if any.
fn dataset_for(path: &str) -> Option<&'static Dataset> {
    let path = path
        .strip_suffix('/')
        .filter(|p| !p.is_empty())
        .unwrap_or(path);
    DATASETS.iter().copied().find(|d| d.paths.contains(&path))
}

/// Laravel's 404, naming the path without its leading `/`.
fn not_found(req: &HttpRequest) -> ApiError {
    ApiError::NotFound(query::url_decode(req.path().trim_start_matches('/')))
}

/// The answer to a CORS preflight.
fn preflight() -> HttpResponse {
    HttpResponse::NoContent()
        .insert_header((header::ACCESS_CONTROL_ALLOW_METHODS, "GET, HEAD, OPTIONS"))
        .insert_header((header::ACCESS_CONTROL_ALLOW_HEADERS, "*"))
        .insert_header((header::ACCESS_CONTROL_MAX_AGE, "86400"))
        .finish()
}
