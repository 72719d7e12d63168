//! The operator's endpoints, at fixed paths outside the API's base path and never rate
//! limited (a probe that gets 429 would take a healthy replica out): `/healthz`, `/readyz`,
//! `/metrics`.

use actix_web::http::Method;
use actix_web::{HttpRequest, HttpResponse, ResponseError};

use crate::error::ApiError;
use crate::ops::{probes, Endpoint};
use crate::startup::AppState;

/// The answer to a request for one of the operator's endpoints; `None` for any other path.
pub async fn answer(req: &HttpRequest, state: &AppState) -> Option<HttpResponse> {
    let endpoint = match req.path() {
        "/healthz" => "/healthz",
        "/readyz" => "/readyz",
        "/metrics" => "/metrics",
        _ => return None,
    };
    Endpoint::name(req, endpoint);
    let answer = if req.method() != Method::GET && req.method() != Method::HEAD {
        Err(ApiError::MethodNotAllowed(req.method().to_string()))
    } else {
        match endpoint {
            "/healthz" => Ok(probes::alive()),
            "/readyz" => probes::readiness(state).await,
            _ => metrics(state),
        }
    };
    Some(answer.unwrap_or_else(|e| e.error_response()))
}

/// `/metrics`: the Prometheus text format.
fn metrics(state: &AppState) -> Result<HttpResponse, ApiError> {
    let release = state.current.get()?;
    let text = state.metrics.render(&release)?;
    Ok(HttpResponse::Ok()
        .content_type(prometheus::TEXT_FORMAT)
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .body(text))
}
