//! OGC API - Features: each resource under `/ogcapi` (parsed by the route table) answered from
//! the `ogc` room in the form negotiated (`forms::negotiate`: as `f` asks, else as `Accept`
//! prefers): JSON (GeoJSON with `Content-Crs` for features), or HTML for a browser.

use std::time::Duration;

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse, HttpResponseBuilder};
use serde_json::Value;

use crate::error::ApiError;
use crate::forms::Form;
use crate::ogc::extent::Extents;
use crate::ogc::items::{write_item, write_items, ItemLinks};
use crate::ogc::links::{Urls, JSON, OPENAPI};
use crate::ogc::{documents, html, openapi, query as ogc_query, Collection, Resource};
use crate::query::{self, Params, Query};
use crate::rows::FilterSets;
use crate::spatial::Crs;
use crate::state::AppState;
use crate::stream;

pub async fn answer(
    req: &HttpRequest,
    query: &Query,
    state: &AppState,
    resource: Resource,
    format: Form,
) -> Result<HttpResponse, ApiError> {
    let params = query.php().clone();
    let urls = Urls {
        root: state.config.public_base(req),
    };
    match resource {
        Resource::Items(c) => return items(state, &urls, (c, format), params).await,
        Resource::Item(c, id) => return item(req, state, &urls, (c, format, id), params).await,
        Resource::NoCollection(id) => return Err(no_collection(&id)),
        Resource::Unknown => return Err(no_resource(req, &urls)),
        _ => {}
    }
    ogc_query::document(&params)?;
    let (title, doc) = match resource {
        Resource::Landing => (documents::TITLE.into(), documents::landing(&urls, format)),
        Resource::Conformance => (
            "Conformance classes".into(),
            documents::conformance(&urls, format),
        ),
        Resource::Api => {
            let doc = openapi::document(&urls.ogc(""), state.config.rate_limit > 0);
            if format != Form::Html {
                return Ok(send(OPENAPI, doc.to_string()));
            }
            ("The API definition (OpenAPI 3.0)".into(), doc)
        }
        Resource::Collections => {
            let extents = extents(state).await?;
            let doc = documents::collections(&urls, format, &|c| extents.get(c).cloned());
            ("Feature collections".into(), doc)
        }
        Resource::Collection(c) => {
            let extents = extents(state).await?;
            (
                c.title(),
                documents::collection(&urls, format, &c, extents.get(&c)),
            )
        }
        _ => return Err(no_resource(req, &urls)),
    };
    Ok(match format {
        Form::Html => crate::html::response(html::document(&title, &doc)),
        _ => send(JSON, doc.to_string()),
    })
}

/// A window of a collection's features: GeoJSON streamed from the blocking pool, or a page.
async fn items(
    state: &AppState,
    urls: &Urls,
    (c, format): (Collection, Form),
    params: Params,
) -> Result<HttpResponse, ApiError> {
    let items = ogc_query::Items::parse(&c, &params)?;
    let release = state.current.get()?;
    let permit = state.heavy_permit(items.rows.asked()).await?;
    let time_limit = Duration::from_millis(state.config.query_timeout);
    let filter_sets = FilterSets::of(&release, state.config.filter_set_bytes());
    let crs = items.crs;
    let links = ItemLinks::new(urls, &c, params.clone(), format);
    let url = links.url.clone();
    let write = move |flush: &mut stream::Flush| {
        let _permit = permit;
        write_items(&items, links, &release, &filter_sets, time_limit, flush)
    };
    if format != Form::Html {
        return stream::respond(features_head(crs), write).await;
    }
    let page = web::block(move || {
        let doc = whole(write)?;
        Ok::<_, ApiError>(html::items(&c, &doc, &url, &params))
    })
    .await
    .map_err(ApiError::internal)??;
    Ok(with_crs(crate::html::response(page), crs))
}

/// One feature by its id; a 404 for an id no feature has.
async fn item(
    req: &HttpRequest,
    state: &AppState,
    urls: &Urls,
    (c, format, id): (Collection, Form, Option<i64>),
    params: Params,
) -> Result<HttpResponse, ApiError> {
    let crs = ogc_query::feature(&params)?;
    let no_feature = || {
        ApiError::NotHeld(format!(
            "No feature `{}` in the collection `{}`.",
            last_segment(req.path()),
            c.id()
        ))
    };
    let Some(id) = id else {
        return Err(no_feature());
    };
    let release = state.current.get()?;
    let links = ItemLinks::new(urls, &c, params, format);
    let written = web::block(move || write_item(&release, &c, id, crs, &links))
        .await
        .map_err(ApiError::internal)??;
    let body = written.ok_or_else(no_feature)?;
    Ok(match format {
        Form::Html => {
            let doc: Value = serde_json::from_slice(&body).map_err(ApiError::internal)?;
            with_crs(crate::html::response(html::item(&c, &doc)), crs)
        }
        _ => features_head(crs).body(body),
    })
}

/// A body written in chunks, whole, as JSON (a page of features for its HTML form).
fn whole<W>(write: W) -> Result<Value, ApiError>
where
    W: FnOnce(&mut stream::Flush) -> Result<Vec<u8>, ApiError>,
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

/// The head of a response with features: GeoJSON, in `crs` (Part 2's `Content-Crs`).
fn features_head(crs: Crs) -> HttpResponseBuilder {
    let mut head = HttpResponse::Ok();
    head.insert_header((header::CONTENT_TYPE, crate::ogc::links::GEOJSON))
        .insert_header(("Content-Crs", format!("<{}>", crs.uri())));
    head
}

/// A page of features with Part 2's `Content-Crs`: it shows their coordinates too.
fn with_crs(mut page: HttpResponse, crs: Crs) -> HttpResponse {
    let value = format!("<{}>", crs.uri());
    if let Ok(value) = header::HeaderValue::from_str(&value) {
        (page.headers_mut()).insert(header::HeaderName::from_static("content-crs"), value);
    }
    page
}

fn send(media: &'static str, body: String) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, media))
        .body(body)
}

/// The extents of the release being served, learnt on the blocking pool the first time.
async fn extents(state: &AppState) -> Result<std::sync::Arc<Extents>, ApiError> {
    let release = state.current.get()?;
    web::block(move || Extents::of(&release))
        .await
        .map_err(ApiError::internal)?
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
