//! Which handler answers a request: the path parsed once by the route table (`table`) into a
//! [`Route`], and that value matched here to its handler: the API's listings (`api.rs`), their
//! CSV and NDJSON forms and the downloads (`downloads.rs`), the revisions of their records
//! across the kept releases (`revisions.rs`), their facets and summaries (`totals.rs`), the
//! description (`description.rs`), what changed
//! between two releases (`changes.rs`), OGC API - Features (`ogc.rs`), the
//! operator's endpoints (`ops.rs`),
//! the website (`crate::site`). The route also gives the metric label and whether only GET
//! and HEAD are answered (one guard, here). The operator's endpoints come before the
//! preflight and the rate limit, which wraps every other answer.

mod api;
mod areas;
mod changes;
mod description;
mod downloads;
mod ogc;
mod ogc_areas;
mod ops;
mod releases;
mod revisions;
pub mod table;
mod tagged;
mod totals;

use std::sync::Arc;

use actix_web::http::{header, Method};
use actix_web::{web, HttpRequest, HttpResponse, ResponseError};

use crate::description::Description;
use crate::error::ApiError;
use crate::forms::{self, Chosen, Form};
use crate::html;
use crate::ops::metrics::{Label, Metrics};
use crate::query::Query;
use crate::ratelimit::Limiter;
use crate::state::{AppState, Served};
pub use table::{Pin, Route, RouteTable};

/// What the handlers are handed: the shared state, and each room's own.
pub struct Router {
    pub state: AppState,
    pub table: RouteTable,
    pub description: Arc<Description>,
    pub metrics: web::Data<Metrics>,
    pub limiter: Option<Limiter>,
}

pub async fn dispatch(req: HttpRequest, router: web::Data<Router>) -> HttpResponse {
    let (pin, route) = router.table.resolve(req.path());
    let query = Query::read(req.query_string());
    let label = if is_preflight(&req, &route) {
        Label::Template("preflight".into())
    } else if pin != Pin::Latest {
        Label::Section(table::RELEASES.to_string())
    } else {
        router.table.label(&route, req.path())
    };
    label.set(&req);
    // Probes and metrics first: outside the API, never rate limited.
    let asked = Asked {
        req: &req,
        query: &query,
        pin,
    };
    if route.is_operations() {
        return answer(&asked, &router, route).await;
    }
    let Some(limiter) = &router.limiter else {
        return answer(&asked, &router, route).await;
    };
    // With rate limiting on, every response carries the limit and what is left of it.
    let (limit, remaining, mut response) = match limiter.check(&req) {
        Ok((limit, remaining)) => (limit, remaining, answer(&asked, &router, route).await),
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

/// What a request asks, read once: the request, its query string and the release it names.
pub struct Asked<'a> {
    pub req: &'a HttpRequest,
    pub query: &'a Query,
    pub pin: Pin,
}

/// The answer to a request for `route`: its handler's, or its error as the route's audience
/// reads it (an HTML page for the site's, JSON for anyone else).
async fn answer(asked: &Asked<'_>, router: &Router, route: Route) -> HttpResponse {
    let html = route.errors_as_html();
    let ogc = matches!(route, Route::Ogc(_));
    let immutable = asked.pin != Pin::Latest && route.immutable_when_named();
    match handle(asked, router, route).await {
        Ok(response) if immutable => forever(response),
        Ok(response) => response,
        Err(e) if html => html::error_page(&e),
        Err(e) if ogc => e.ogc_response(),
        Err(e) => e.error_response(),
    }
}

/// A named release's answer, which never changes: kept by any cache for a year, never
/// revalidated (RFC 8246).
fn forever(mut response: HttpResponse) -> HttpResponse {
    if crate::conditional::stands_for_representation(response.status()) {
        response.headers_mut().insert(
            header::CACHE_CONTROL,
            header::HeaderValue::from_static(IMMUTABLE),
        );
    }
    response
}

/// The caching of a named release's data.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The release a request is answered from: the latest, or a kept one by name (a 404 for a
/// name not kept).
fn served(state: &AppState, pin: &Pin) -> Result<Served, ApiError> {
    Ok(match pin {
        Pin::Latest => Served {
            release: state.current.get()?,
            prefix: String::new(),
        },
        Pin::Named(name) => Served {
            release: state.named.get(name)?,
            prefix: format!("{}/{name}", table::RELEASES),
        },
    })
}

async fn handle(
    asked: &Asked<'_>,
    router: &Router,
    route: Route,
) -> Result<HttpResponse, ApiError> {
    let req = asked.req;
    if is_preflight(req, &route) {
        return Ok(preflight());
    }
    if route.get_only() && !matches!(*req.method(), Method::GET | Method::HEAD) {
        return Err(ApiError::MethodNotAllowed(req.method().to_string()));
    }
    let chosen = forms::negotiate(route.offer(), req, asked.query)?;
    let response = respond(asked, router, route, chosen).await?;
    Ok(varying(response, chosen))
}

/// An answer whose form `Accept` chose says so, for caches (its errors are JSON whatever was
/// asked: only answers are marked).
fn varying(mut response: HttpResponse, chosen: Chosen) -> HttpResponse {
    if chosen.by_accept {
        let vary = header::HeaderValue::from_static("Accept");
        response.headers_mut().insert(header::VARY, vary);
    }
    response
}

/// The handler's answer to `route`, in the form chosen.
async fn respond(
    asked: &Asked<'_>,
    router: &Router,
    route: Route,
    chosen: Chosen,
) -> Result<HttpResponse, ApiError> {
    let Asked { req, query, pin } = asked;
    let state = &router.state;
    let served = served(state, pin)?;
    let release = served.release.clone();
    match route {
        Route::Health => Ok(crate::ops::probes::alive()),
        Route::Ready => crate::ops::probes::readiness(state).await,
        Route::Metrics => ops::metrics(state, &router.metrics),
        Route::Listing(e, envelope) if e.format == Form::Json => {
            let form = chosen.form_or(Form::Json);
            api::list(req, query, state, release, (e.dataset, envelope, form)).await
        }
        Route::Listing(e, _) => {
            let form = chosen.form_or(e.format);
            downloads::listing(req, query, state, release, e.dataset, form).await
        }
        Route::Revisions(e) => revisions::answer(req, query, state, e.dataset).await,
        Route::Facets(e) => totals::facets(req, query, state, release, e.dataset).await,
        Route::Summary(e, format) => {
            totals::summary(req, query, state, release, e.dataset, format).await
        }
        Route::AreaSets => areas::sets(req, state, release).await,
        Route::AreaSet(set, form) => areas::set(req, query, state, release, (&set, form)).await,
        Route::Area(set, id) => areas::area(req, state, release, (&set, &id)).await,
        Route::ApiHome | Route::DocsMoved => Ok(see_other(&format!("{}/docs", served.prefix))),
        Route::OpenApi => description::openapi(req, state, &router.description),
        Route::Changes => changes::answer(req, query, state, pin, release).await,
        Route::Releases => releases::list(req, state).await,
        Route::Docs => description::docs(req, state, &served, &router.description).await,
        Route::DownloadsPage => downloads::page(req, state, &served).await,
        Route::Download(file) => {
            let form = chosen.form_or(Form::Csv);
            downloads::file(req, state, release, (&file, form)).await
        }
        Route::Page(page) => Ok(crate::site::respond(req, state, &served, page, query).await),
        Route::Asset(name) => Ok(crate::site::assets::serve(req, state, &name).await),
        Route::ApiUnknown => Err(ApiError::no_route(req)),
        Route::Ogc(resource) => {
            let form = chosen.form_or(Form::Json);
            ogc::answer(req, query, state, &served, resource, form).await
        }
        Route::Unknown => Ok(match chosen.form_or(Form::Json) {
            Form::Html => crate::site::not_found_page(req, state, &served),
            _ => ApiError::no_route(req).error_response(),
        }),
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
