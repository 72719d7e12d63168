//! Which handler answers a request. Under the API base path: the public API's endpoints
//! (`api.rs`), their CSV and NDJSON forms (`downloads.rs`), its OpenAPI description
//! (`description.rs`) and what changed with the loaded release (`changes.rs`); under the
//! legacy base path, the same listings in the 2019-2020 envelope; anything else under either
//! is the public service's JSON 404. Outside them: `/docs`, `/downloads`, the website's pages
//! and assets (`crate::site`), an HTML 404 for a browser, the JSON 404 for anyone else. Rate
//! limiting, when on, wraps every answer.
//!
//! The operator's endpoints (`ops.rs`: `/healthz`, `/readyz`, `/metrics`) come before all
//! of these, outside the API and its rate limit.

mod api;
mod changes;
mod description;
mod downloads;
mod ops;

use actix_web::http::{header, Method};
use actix_web::{web, HttpRequest, HttpResponse, ResponseError};

use roadtraffic_catalog::{Dataset, DATASETS};

use crate::api::{query, Envelope};
use crate::description::openapi::Form;
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
    let path = req.path();
    let legacy = (state.config.legacy_base_path())
        .and_then(|base| path.strip_prefix(base))
        .and_then(endpoint_for);
    if let Some((dataset, Form::Json)) = legacy {
        return api::list(req, state, dataset, Envelope::Legacy).await;
    }
    let under_api = path.strip_prefix(state.config.base_path());
    if let Some(rest) = under_api.filter(|r| r.is_empty() || r.starts_with('/')) {
        return api_route(req, state, rest).await;
    }
    match path {
        "/docs" | "/docs/" => description::docs(req, state).await,
        // Where the public site keeps its API documentation.
        "/docs/index.html" | "/api-documentation" => Ok(see_other("/docs")),
        "/downloads" | "/downloads/" => downloads::page(req, state).await,
        _ => match path.strip_prefix("/downloads/") {
            Some(file) => downloads::file(req, state, file).await,
            None => site_page(req, state).await,
        },
    }
}

/// The website's page at this path; else an HTML 404 for a browser, the JSON 404 for others.
async fn site_page(req: &HttpRequest, state: &AppState) -> Result<HttpResponse, ApiError> {
    if let Some(page) = crate::site::respond(req, state).await {
        return Ok(page);
    }
    crate::site::not_found_for_browser(req).ok_or_else(|| not_found(req))
}

/// A path under the API base path.
async fn api_route(
    req: &HttpRequest,
    state: &AppState,
    rest: &str,
) -> Result<HttpResponse, ApiError> {
    match rest {
        // A person opening the API's address in a browser finds its documentation.
        "" | "/" => Ok(see_other("/docs")),
        "/openapi.json" => description::openapi(req, state),
        _ if rest.trim_end_matches('/') == changes::PATH => changes::latest(req, state).await,
        _ => match endpoint_for(rest) {
            Some((dataset, Form::Json)) => api::list(req, state, dataset, Envelope::Laravel).await,
            Some((dataset, form)) => downloads::listing(req, state, dataset, form).await,
            None => Err(not_found(req)),
        },
    }
}

/// Names the route a request is for, as `/metrics` labels it: a template, never the raw path
/// (see `ops::metrics`). A new route names itself here or where it answers; one that does not
/// is labelled by its first path segment when it succeeds.
fn name_endpoint(req: &HttpRequest, state: &AppState) {
    if req.method() == Method::OPTIONS {
        return Endpoint::name(req, "preflight");
    }
    let path = req.path();
    // The legacy base path serves the JSON form only.
    let bases = [
        Some((state.config.base_path(), true)),
        state.config.legacy_base_path().map(|b| (b, false)),
    ];
    for (base, every_form) in bases.into_iter().flatten() {
        let endpoint = path.strip_prefix(base).and_then(endpoint_for);
        if let Some((dataset, form)) = endpoint.filter(|(_, f)| every_form || *f == Form::Json) {
            return Endpoint::name(req, format!("{base}{}{}", dataset.paths[0], form.suffix()));
        }
    }
}

/// The dataset and form an API path (without the base path) names, if any.
fn endpoint_for(path: &str) -> Option<(&'static Dataset, Form)> {
    let path = path
        .strip_suffix('/')
        .filter(|p| !p.is_empty())
        .unwrap_or(path);
    Form::ALL.into_iter().find_map(|form| {
        let endpoint = match form {
            Form::Json => path,
            _ => path.strip_suffix(form.suffix())?,
        };
        let dataset = DATASETS
            .iter()
            .copied()
            .find(|d| d.paths.contains(&endpoint))?;
        Some((dataset, form))
    })
}

/// Laravel's 404, naming the path without its leading `/`.
fn not_found(req: &HttpRequest) -> ApiError {
    ApiError::NotFound(query::url_decode(req.path().trim_start_matches('/')))
}

/// Everything but the API's listings answers GET and HEAD only.
fn only_get(req: &HttpRequest) -> Result<(), ApiError> {
    match *req.method() {
        Method::GET | Method::HEAD => Ok(()),
        _ => Err(ApiError::MethodNotAllowed(req.method().to_string())),
    }
}

/// Scheme and host of this mirror as its users reach it: `--public-url`, else the request's.
fn public_base(req: &HttpRequest, public_url: Option<&str>) -> String {
    match public_url {
        Some(u) => u.trim_end_matches('/').to_string(),
        None => {
            let info = req.connection_info();
            format!("{}://{}", info.scheme(), info.host())
        }
    }
}

fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .finish()
}

/// The answer to a CORS preflight.
fn preflight() -> HttpResponse {
    HttpResponse::NoContent()
        .insert_header((header::ACCESS_CONTROL_ALLOW_METHODS, "GET, HEAD, OPTIONS"))
        .insert_header((header::ACCESS_CONTROL_ALLOW_HEADERS, "*"))
        .insert_header((header::ACCESS_CONTROL_MAX_AGE, "86400"))
        .finish()
}
