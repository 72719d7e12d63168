//! OGC API - Features: each resource under `/ogcapi` (parsed by the route table) answered from
//! the `ogc` room, its documents as JSON, its features as GeoJSON with `Content-Crs`.

use std::time::Duration;

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse, HttpResponseBuilder};

use super::answers::public_base;
use crate::api::{query, FilterSets};
use crate::error::ApiError;
use crate::ogc::extent::Extents;
use crate::ogc::items::{write_item, write_items, ItemLinks};
use crate::ogc::links::{Urls, GEOJSON, JSON, OPENAPI};
use crate::ogc::{documents, openapi, query as ogc_query, Collection, Resource};
use crate::spatial::Crs;
use crate::state::AppState;
use crate::stream;

pub async fn answer(
    req: &HttpRequest,
    state: &AppState,
    resource: Resource,
) -> Result<HttpResponse, ApiError> {
    let params = query::parse(req.query_string());
    let urls = Urls {
        root: public_base(req, state.config.public_url.as_deref()),
    };
    match resource {
        Resource::Items(c) => return items(state, &urls, c, params).await,
        Resource::Item(c, id) => return item(req, state, &urls, c, id, params).await,
        _ => {}
    }
    ogc_query::document(&params)?;
    let doc = match resource {
        Resource::Landing => documents::landing(&urls),
        Resource::Conformance => documents::conformance(&urls),
        Resource::Api => {
            let doc = openapi::document(&urls.ogc(""), state.config.rate_limit > 0);
            return Ok(send(OPENAPI, doc.to_string()));
        }
        Resource::Collections => {
            let extents = extents(state).await?;
            documents::collections(&urls, &|c| extents.get(c).cloned())
        }
        Resource::Collection(c) => {
            let extents = extents(state).await?;
            documents::collection(&urls, &c, extents.get(&c))
        }
        Resource::NoCollection(id) => return Err(no_collection(&id)),
        Resource::Items(_) | Resource::Item(..) | Resource::Unknown => {
            return Err(ApiError::NotHeld(format!(
                "No such resource: {}. See {} for what there is.",
                req.path(),
                urls.ogc("")
            )))
        }
    };
    Ok(send(JSON, doc.to_string()))
}

/// A window of a collection's features, streamed from the blocking pool.
async fn items(
    state: &AppState,
    urls: &Urls,
    c: Collection,
    params: query::Params,
) -> Result<HttpResponse, ApiError> {
    let items = ogc_query::Items::parse(&c, &params)?;
    let release = state.current.get()?;
    let permit = state.heavy_permit(items.window.size).await?;
    let time_limit = Duration::from_millis(state.config.query_timeout);
    let filter_sets = FilterSets::of(&release, state.config.filter_set_bytes());
    let links = ItemLinks::new(urls, &c, params);
    let head = features_head(items.crs);
    stream::respond(head, move |flush| {
        let _permit = permit;
        write_items(&items, &links, &release, &filter_sets, time_limit, flush)
    })
    .await
}

/// One feature by its id; a 404 for an id no feature has.
async fn item(
    req: &HttpRequest,
    state: &AppState,
    urls: &Urls,
    c: Collection,
    id: Option<i64>,
    params: query::Params,
) -> Result<HttpResponse, ApiError> {
    let (crs, _) = ogc_query::feature(&params)?;
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
    let links = ItemLinks::new(urls, &c, params);
    let written = web::block(move || write_item(&release, &c, id, crs, &links))
        .await
        .map_err(ApiError::internal)??;
    match written {
        Some(body) => Ok(features_head(crs).body(body)),
        None => Err(no_feature()),
    }
}

/// The head of a response with features: GeoJSON, in `crs` (Part 2's `Content-Crs`).
fn features_head(crs: Crs) -> HttpResponseBuilder {
    let mut head = HttpResponse::Ok();
    head.insert_header((header::CONTENT_TYPE, GEOJSON))
        .insert_header(("Content-Crs", format!("<{}>", crs.uri())));
    head
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

fn last_segment(path: &str) -> String {
    query::url_decode(path.trim_end_matches('/').rsplit('/').next().unwrap_or(""))
}
