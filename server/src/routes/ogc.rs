//! OGC API - Features: each resource under `/ogcapi` (parsed by the route table) of the release
//! asked for (the latest, or a kept one under `/releases/{name}/ogcapi`, every link staying
//! under that prefix), answered from the `ogc` room in the form negotiated
//! (`forms::negotiate`: as `f` asks, else as `Accept` prefers): JSON (GeoJSON with
//! `Content-Crs` for features), or HTML for a browser. Every answer is tagged as the API's
//! are (`tagged`): by the release and the question in one canonical form, the request's
//! preconditions answered before anything is read, the body kept in the release's response
//! cache.

use std::sync::Arc;
use std::time::Duration;

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse};
use serde_json::Value;

use super::tagged::{streamed_answer, whole_answer};
use crate::areas::{AreasOf, StoredSet};
use crate::conditional::stands_for_representation;
use crate::error::ApiError;
use crate::forms::Form;
use crate::html::Frame;
use crate::ogc::extent::Extents;
use crate::ogc::items::{write_item, write_items, ItemLinks};
use crate::ogc::links::{Urls, GEOJSON, JSON, OPENAPI, SCHEMA};
use crate::ogc::{areas as ogc_areas, documents, html, openapi, query as ogc_query};
use crate::ogc::{Collection, Resource};
use crate::query::{self, Params, Query};
use crate::release::Release;
use crate::rows::FilterSets;
use crate::spatial::Crs;
use crate::state::{AppState, Served};
use crate::stream::Flush;

/// What a resource is asked with: where the release's service is, the parameters, the form,
/// and the frame of its page (the release's prefix on the layout's links).
pub(super) struct Asked {
    pub(super) urls: Urls,
    pub(super) params: Params,
    pub(super) format: Form,
    pub(super) frame: Frame,
}

pub async fn answer(
    req: &HttpRequest,
    query: &Query,
    state: &AppState,
    served: &Served,
    resource: Resource,
    format: Form,
) -> Result<HttpResponse, ApiError> {
    let asked = Asked {
        urls: Urls {
            root: format!("{}{}", state.config.public_base(req), served.prefix),
        },
        params: query.php().clone(),
        format,
        frame: Frame {
            prefix: served.prefix.clone(),
            releases: Vec::new(),
        },
    };
    let release = served.release.clone();
    match resource {
        Resource::Items(c) => items(req, state, release, c, asked).await,
        Resource::Item(c, id) => item(req, state, release, (c, id), asked).await,
        Resource::Areas(set, part) => {
            super::ogc_areas::answer(req, state, release, (set, part), asked).await
        }
        Resource::NoCollection(id) => Err(no_collection(&id)),
        Resource::Unknown => Err(no_resource(req, &asked.urls)),
        document => describe(req, state, release, document, asked).await,
    }
}

/// A document: the landing page, the conformance, the definition, the collections, one.
async fn describe(
    req: &HttpRequest,
    state: &AppState,
    release: Arc<Release>,
    resource: Resource,
    asked: Asked,
) -> Result<HttpResponse, ApiError> {
    ogc_query::document(&asked.params)?;
    let rate_limited = state.config.rate_limit > 0;
    // The collections and the definition list the latest file's area sets.
    let areas = AreasOf::new(state, &release)?;
    let key = format!(
        "{} areas of {}",
        document_key(&asked, &resource, rate_limited),
        state.current.get()?.tag
    );
    let format = asked.format;
    let content_type = match (format, &resource) {
        (Form::Html, _) => Form::Html.content_type(),
        (_, Resource::Api) => OPENAPI,
        (_, Resource::Queryables(_) | Resource::Schema(_)) => SCHEMA,
        _ => JSON,
    };
    let make = move |release: &Release| {
        let Asked { urls, frame, .. } = asked;
        let (title, doc) = match resource {
            Resource::Landing => (documents::TITLE.into(), documents::landing(&urls, format)),
            Resource::Conformance => (
                "Conformance classes".into(),
                documents::conformance(&urls, format),
            ),
            Resource::Api => {
                let mut doc = openapi::document(&urls.ogc(""), rate_limited);
                let sets = areas.sets()?;
                openapi::add_area_sets(&mut doc, &sets.names(), rate_limited);
                ("The API definition (OpenAPI 3.0)".into(), doc)
            }
            Resource::Collections => {
                let extents = Extents::of(release)?;
                let extent_of = |c: &Collection| extents.get(c).cloned();
                let mut doc = documents::collections(&urls, format, &extent_of);
                let sets = areas.sets()?;
                let sets: Vec<&StoredSet> = sets.sets.iter().map(|s| &**s).collect();
                ogc_areas::add_collections(&mut doc, &urls, format, &sets);
                ("Feature collections".into(), doc)
            }
            Resource::Collection(c) => {
                let extents = Extents::of(release)?;
                let doc = documents::collection(&urls, format, &c, extents.get(&c));
                (c.title(), doc)
            }
            Resource::Queryables(c) => {
                let title = format!("{}: queryables", c.title());
                (title, documents::queryables(&urls, &c))
            }
            Resource::Schema(c) => {
                let title = format!("{}: the schema of its features", c.title());
                (title, documents::feature_schema(&urls, &c))
            }
            _ => return Err(ApiError::internal("a resource that is no document")),
        };
        Ok(match format {
            Form::Html => html::document(&frame, &title, &doc).into_bytes(),
            _ => doc.to_string().into_bytes(),
        })
    };
    let answer = whole_answer(req, state, release, key, content_type, 0, make).await?;
    Ok(finished(answer, format, None))
}

/// What a document is known by: the release's service at this server's address, the resource,
/// its form; and the server's version, as a document's words are the code's (and whether the
/// definition lists the rate limit's 429).
fn document_key(asked: &Asked, resource: &Resource, rate_limited: bool) -> String {
    let collection = match resource {
        Resource::Collection(c) | Resource::Queryables(c) | Resource::Schema(c) => c.id(),
        _ => "",
    };
    format!(
        "{} {} {collection} {:?} {} {rate_limited}",
        asked.urls.ogc(""),
        resource.template(),
        asked.format,
        env!("CARGO_PKG_VERSION")
    )
}

/// A window of a collection's features: GeoJSON streamed from the blocking pool, or a page.
async fn items(
    req: &HttpRequest,
    state: &AppState,
    release: Arc<Release>,
    c: Collection,
    asked: Asked,
) -> Result<HttpResponse, ApiError> {
    let items = ogc_query::Items::parse(&c, &asked.params)?;
    let (crs, rows) = (items.crs, items.rows.asked());
    let Asked {
        urls,
        params,
        format,
        frame,
    } = asked;
    let links = ItemLinks::new(&urls, &c, params.clone(), format);
    let (key, url) = (links.key(&links.url), links.url.clone());
    let link_header = links.header(&links.url);
    let time_limit = Duration::from_millis(state.config.query_timeout);
    let budget = state.config.filter_set_bytes();
    let write = move |release: &Release, flush: &mut Flush| {
        let filter_sets = FilterSets::of(release, budget);
        write_items(&items, links, release, &filter_sets, time_limit, flush)
    };
    let answer = match format {
        Form::Html => {
            let page = move |release: &Release| {
                let doc = whole(|flush| write(release, flush))?;
                Ok(html::items(&frame, (&c, crs), &doc, &url, &params).into_bytes())
            };
            let content_type = Form::Html.content_type();
            whole_answer(req, state, release, key, content_type, rows, page).await?
        }
        _ => streamed_answer(req, state, release, (key, GEOJSON), rows, write).await?,
    };
    let mut answer = finished(answer, format, Some(crs));
    if let (true, Ok(value)) = (
        answer.status().is_success(),
        header::HeaderValue::from_str(&link_header),
    ) {
        answer.headers_mut().insert(header::LINK, value);
    }
    Ok(answer)
}

/// One feature by its id; a 404 for an id no feature has.
async fn item(
    req: &HttpRequest,
    state: &AppState,
    release: Arc<Release>,
    (c, id): (Collection, Option<i64>),
    asked: Asked,
) -> Result<HttpResponse, ApiError> {
    let crs = ogc_query::feature(&asked.params)?;
    let no_feature = ApiError::NotHeld(format!(
        "No feature `{}` in the collection `{}`.",
        last_segment(req.path()),
        c.id()
    ));
    let Some(id) = id else {
        return Err(no_feature);
    };
    let (format, frame) = (asked.format, asked.frame);
    let links = ItemLinks::new(&asked.urls, &c, asked.params, format);
    let key = links.key(&links.item_url(id));
    let content_type = match format {
        Form::Html => Form::Html.content_type(),
        _ => GEOJSON,
    };
    let make = move |release: &Release| {
        let body = write_item(release, &c, id, crs, &links)?.ok_or(no_feature)?;
        if format != Form::Html {
            return Ok(body);
        }
        let doc: Value = serde_json::from_slice(&body).map_err(ApiError::internal)?;
        Ok(html::item(&frame, &c, &doc).into_bytes())
    };
    let answer = whole_answer(req, state, release, key, content_type, 0, make).await?;
    Ok(finished(answer, format, Some(crs)))
}

/// A body written in chunks, whole, as JSON (a page of features for its HTML form).
fn whole<W>(write: W) -> Result<Value, ApiError>
where
    W: FnOnce(&mut Flush) -> Result<Vec<u8>, ApiError>,
{
    let mut body = Vec::new();
    let mut keep = |chunk: Vec<u8>| {
        body.extend_from_slice(&chunk);
        Ok(())
    };
    let rest = write(&mut keep)?;
    body.extend_from_slice(&rest);
    serde_json::from_slice(&body).map_err(ApiError::internal)
}

/// An answer with what its representation says besides its tag: a page's own headers, on its
/// `304` too (a browser puts the headers of a `304` on the page it keeps: the server's default
/// CSP, which lets nothing in, would leave the kept page without its stylesheet); and for
/// features, but not on a `304` (RFC 9110 §15.4.5), the CRS of their coordinates (Part 2's
/// `Content-Crs`, on their page too: it shows them).
pub(super) fn finished(answer: HttpResponse, format: Form, crs: Option<Crs>) -> HttpResponse {
    let page = format == Form::Html && stands_for_representation(answer.status());
    let mut answer = match page {
        true => crate::html::as_page(answer),
        false => answer,
    };
    if !answer.status().is_success() {
        return answer;
    }
    let crs = crs.map(|crs| header::HeaderValue::from_str(&format!("<{}>", crs.uri())));
    if let Some(Ok(value)) = crs {
        let name = header::HeaderName::from_static("content-crs");
        answer.headers_mut().insert(name, value);
    }
    answer
}

fn no_collection(id: &str) -> ApiError {
    let ids: Vec<&str> = Collection::all().map(|c| c.id()).collect();
    ApiError::NotHeld(format!(
        "No collection `{id}`. The collections are `{}`.",
        ids.join("`, `")
    ))
}

fn no_resource(req: &HttpRequest, urls: &Urls) -> ApiError {
    ApiError::NotHeld(format!(
        "No such resource: {}. See {} for what there is.",
        req.path(),
        urls.ogc("")
    ))
}

fn last_segment(path: &str) -> String {
    query::url_decode(path.trim_end_matches('/').rsplit('/').next().unwrap_or(""))
}
