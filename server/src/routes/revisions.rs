//! `<base-path>/<endpoint>/revisions` (and the same under `/releases/{name}`, where it answers
//! the same: it spans every kept release): the revisions of the records the endpoint's filters
//! match (`api::RevisionsRequest`), a page of keys at a time, the next and previous pages in
//! `Link`. Revalidated like `/api`: its tag follows the kept releases and the request, and it
//! changes when a release is kept or dropped.

use std::sync::Arc;
use std::time::Duration;

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};

use roadtraffic_catalog::Dataset;

use super::tagged::{held, json};
use crate::api::{NamedRelease, RevisionsRequest};
use crate::areas::AreasOf;
use crate::cache::Encoding;
use crate::error::ApiError;
use crate::query::Query;
use crate::release::Listing;
use crate::state::AppState;

/// The name the latest answers to when no release is kept by name (a file loaded without
/// `--release`): the one `/releases/latest/` serves it under.
const UNNAMED_LATEST: &str = "latest";

pub async fn answer(
    req: &HttpRequest,
    query: &Query,
    state: &AppState,
    dataset: &'static Dataset,
) -> Result<HttpResponse, ApiError> {
    let config = &state.config;
    let params = query.php();
    let areas = AreasOf::new(state, &state.current.get()?)?;
    let request = RevisionsRequest::parse(dataset, query, config.max_page_size, &areas)?;
    let listing = state.named.listing()?;
    let base = config.public_base(req);
    let url = format!("{base}{}", req.path().trim_end_matches('/'));
    // With `--compress` the compression middleware encodes the body: its tag is then weak.
    let encoding = Encoding::negotiate(req, config.compress);
    let etag = encoding.etag(etag(state, &listing, &request.canonical(&url, params))?);
    if let Some(held) = held(req, &etag) {
        return Ok(held);
    }
    let releases = listing.releases.len().max(1);
    let permit = state.heavy_permit(request.rows_asked(releases)).await?;
    let time_limit = Duration::from_millis(config.query_timeout);
    let (named, current) = (state.named.clone(), state.current.clone());
    let request = Arc::new(request);
    let running = request.clone();
    let revisions = web::block(move || {
        let _permit = permit;
        let kept = match listing.releases.is_empty() {
            true => vec![NamedRelease {
                name: UNNAMED_LATEST.to_string(),
                release: current.get()?,
            }],
            false => (listing.releases.iter())
                .map(|r| {
                    let release = named.get(&r.name)?;
                    let name = r.name.clone();
                    Ok(NamedRelease { name, release })
                })
                .collect::<Result<_, ApiError>>()?,
        };
        running.run(&kept, time_limit)
    })
    .await
    .map_err(ApiError::internal)??;
    let mut response = json(etag);
    if let Some(links) = request.links(&url, params, revisions.more) {
        response.insert_header((header::LINK, links));
    }
    Ok(response.body(revisions.body))
}

/// The tag of an answer: the kept releases (each by its id; the served file's when none is
/// kept by name) and the request in its canonical form.
fn etag(state: &AppState, listing: &Listing, canonical: &str) -> Result<String, ApiError> {
    let mut ids: Vec<String> = listing.releases.iter().map(|r| r.id.clone()).collect();
    if ids.is_empty() {
        ids.push(state.current.get()?.about.id.clone());
    }
    let hash = roadtraffic_catalog::stable_hash(&format!("{}\n{canonical}", ids.join(",")));
    Ok(format!("\"revisions-{hash:x}\""))
}
