//! Which handler answers a request: the path parsed once by the route table (`table`) into a
//! [`Route`], and that value matched here to its handler: the API's listings (`api.rs`), their
//! CSV and NDJSON forms and the downloads (`downloads.rs`), the description (`description.rs`),
//! what changed with the loaded release (`changes.rs`), OGC API - Features (`ogc.rs`), the
//! operator's endpoints (`ops.rs`),
//! the website (`crate::site`). The route also gives the metric label and whether only GET
//! and HEAD are answered (one guard, here). The operator's endpoints come before the
//! preflight and the rate limit, which wraps every other answer.

mod answers;
mod api;
mod changes;
mod description;
mod downloads;
mod ogc;
mod ops;
pub mod table;

use std::sync::Arc;

use actix_web::http::{header, Method};
use actix_web::{web, HttpRequest, HttpResponse, ResponseError};

use crate::api::Format;
use crate::description::Description;
use crate::error::ApiError;
use crate::html;
use crate::ops::metrics::{Label, Metrics};
use crate::ratelimit::Limiter;
use crate::state::AppState;
use answers::not_found;
pub use table::{Route, RouteTable};

/// What the handlers are handed: the shared state, and each room's own.
pub struct Router {
    pub state: AppState,
    pub table: RouteTable,
    pub description: Arc<Description>,
    pub metrics: web::Data<Metrics>,
    pub limiter: Option<Limiter>,
}

pub async fn dispatch(req: HttpRequest, router: web::Data<Router>) -> HttpResponse {
    let route = router.table.route(req.path());
    let label = if is_preflight(&req, &route) {
        Label::Template("preflight".into())
    } else {
        router.table.label(&route, req.path())
    };
    label.set(&req);
    // Probes and metrics first: outside the API, never rate limited.
    if route.is_operations() {
        return answer(&req, &router, route).await;
    }
    let Some(limiter) = &router.limiter else {
        return answer(&req, &router, route).await;
    };
    // With rate limiting on, every response carries the limit and what is left of it.
    let (limit, remaining, mut response) = match limiter.check(&req) {
        Ok((limit, remaining)) => (limit, remaining, answer(&req, &router, route).await),
        Err(e) => (limiter.per_minute(), 0, e.error_response()),
    };
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

/// The answer to a request for `route`: its handler's, or its error as the route's audience
/// reads it (an HTML page for the site's, JSON for anyone else).
async fn answer(req: &HttpRequest, router: &Router, route: Route) -> HttpResponse {
    let html = route.errors_as_html();
    match handle(req, router, route).await {
        Ok(response) => response,
        Err(e) if html => html::error_page(&e),
        Err(e) => e.error_response(),
    }
}

async fn handle(
    req: &HttpRequest,
    router: &Router,
    route: Route,
) -> Result<HttpResponse, ApiError> {
    if is_preflight(req, &route) {
        return Ok(preflight());
    }
    if route.get_only() && !matches!(*req.method(), Method::GET | Method::HEAD) {
        return Err(ApiError::MethodNotAllowed(req.method().to_string()));
    }
    let state = &router.state;
    match route {
        Route::Health => Ok(crate::ops::probes::alive()),
        Route::Ready => crate::ops::probes::readiness(state).await,
        Route::Metrics => ops::metrics(state, &router.metrics),
        Route::Listing(e, envelope) if e.format == Format::Json => {
            api::list(req, state, e.dataset, envelope).await
        }
        Route::Listing(e, _) => downloads::listing(req, state, e.dataset, e.format).await,
        Route::ApiHome | Route::DocsMoved => Ok(see_other("/docs")),
        Route::OpenApi => description::openapi(req, state, &router.description),
        Route::Changes => changes::latest(req, state).await,
        Route::Docs => description::docs(state, &router.description).await,
        Route::DownloadsPage => downloads::page(req, state).await,
        Route::Download(file) => downloads::file(req, state, &file).await,
        Route::Page(page) => Ok(crate::site::respond(req, state, page).await),
        Route::Asset(name) => Ok(crate::site::assets::serve(req, state, &name).await),
        Route::ApiUnknown => Err(not_found(req)),
        Route::Ogc(resource) => ogc::answer(req, state, resource).await,
        Route::Unknown => crate::site::not_found_for_browser(req).ok_or_else(|| not_found(req)),
    }
}

/// A CORS preflight: OPTIONS of any path but the operator's.
fn is_preflight(req: &HttpRequest, route: &Route) -> bool {
    req.method() == Method::OPTIONS && !route.is_operations()
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
