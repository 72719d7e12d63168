//! `/metrics`: the Prometheus text format (the probes answer from `crate::ops::probes`).

use actix_web::HttpResponse;

use crate::error::ApiError;
use crate::ops::Metrics;
use crate::state::AppState;

pub fn metrics(state: &AppState, metrics: &Metrics) -> Result<HttpResponse, ApiError> {
    let release = state.current.get()?;
    let kept = state.named.listing()?;
    let text = metrics.render(&release, &kept)?;
    Ok(HttpResponse::Ok()
        .content_type(prometheus::TEXT_FORMAT)
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .body(text))
}
