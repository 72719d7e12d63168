//! Downloads: the page, the stored files (DfT's, and each as Parquet) answered with byte
//! ranges, and the API's listings whole as CSV, NDJSON, GeoJSON or Parquet, streamed.

use actix_web::http::header;
use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder};

use roadtraffic_catalog::Dataset;

use super::tagged::{bodiless, Head};
use crate::areas::AreasOf;
use crate::cache::Encoding;
use crate::downloads::store::{Store, Stored};
use crate::downloads::{self, Download};
use crate::error::ApiError;
use crate::forms::{self, Form, Spec};
use crate::html;
use crate::query::Query;
use crate::ranged::{self, Representation};
use crate::release::Release;
use crate::rows::Rows;
use crate::state::{AppState, Served};
use crate::stream;

pub async fn page(
    req: &HttpRequest,
    state: &AppState,
    served: &Served,
) -> Result<HttpResponse, ApiError> {
    let release = served.release.clone();
    let base = format!("{}{}", served.prefix, state.config.base_path());
    // The examples read the release's own files.
    let origin = state.config.public_base(req) + &served.prefix;
    let content = actix_web::web::block(move || downloads::page(&release, &base, &origin))
        .await
        .map_err(ApiError::internal)??;
    // The page's own links are to the latest's paths: the frame moves them into the release.
    let page = html::page(html::Section::Downloads, "Downloads", content);
    let frame = crate::site::frame::of(req, state, served).frame;
    Ok(html::response(html::in_release(&page, &frame)))
}

/// A file under `/downloads/`: a national file (CSV, zip or Parquet) or a split file (CSV or
/// Parquet), from the store (written first if it is not there yet).
pub async fn file(
    req: &HttpRequest,
    state: &AppState,
    release: Arc<Release>,
    (path, form): (&str, Form),
) -> Result<HttpResponse, ApiError> {
    let store = downloads::store_of(&release, &state.config);
    // Twice at most: a stored file found gone (its folder pruned by another server) is
    // forgotten and written again.
    for _ in 0..2 {
        let stored = match store.ready(path) {
            Some(stored) => stored,
            None => write(req, release.clone(), &store, path).await?,
        };
        let file = Representation {
            path: &stored.path,
            mapped: stored.mapped.clone(),
            opened: stored.opened.clone(),
            len: stored.len,
            etag: &stored.etag,
            modified: stored.modified,
            content_type: form.content_type(),
            filename: path.rsplit('/').next().unwrap_or(path),
            would_be_encoded: Encoding::negotiate(req, state.config.compress) != Encoding::Identity,
        };
        match ranged::respond(req, &file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => store.forget(path),
            answered => return answered.map_err(ApiError::internal),
        }
    }
    Err(ApiError::Unavailable)
}

/// The download at `path` written into the store: a 404 for a path that names none, or a
/// split file of an area the release does not have.
async fn write(
    req: &HttpRequest,
    release: Arc<Release>,
    store: &Store,
    path: &str,
) -> Result<Stored, ApiError> {
    let download = downloads::resolve(path).ok_or_else(|| ApiError::no_route(req))?;
    if let Some((table, id)) = download.area {
        let exists = {
            let release = release.clone();
            let table = table.to_string();
            actix_web::web::block(move || release.has_record(&table, id))
                .await
                .map_err(ApiError::internal)??
        };
        if !exists {
            return Err(ApiError::no_route(req));
        }
    }
    downloads::stored(store, release, path, download).await
}

/// An API listing whole, as CSV, NDJSON, GeoJSON or Parquet: its filters, sort and fields,
/// every record.
pub async fn listing(
    req: &HttpRequest,
    query: &Query,
    state: &AppState,
    release: Arc<Release>,
    dataset: &'static Dataset,
    format: Form,
) -> Result<HttpResponse, ApiError> {
    let rows = Rows::whole(dataset, query, &AreasOf::new(state, &release)?)?;
    let name = format!(
        "{}{}",
        dataset.paths[0].trim_start_matches('/').replace('/', "-"),
        format.suffix()
    );
    let spec = Spec::whole(format, &rows, &name)
        .ok_or_else(|| ApiError::internal(format!("no whole listing as {format:?}")))?;
    // Tagged by the release and the rows asked, in their canonical form: the same file
    // whatever the order or encoding of the parameters.
    let key = format!("whole {name} {format:?} {}{}", rows.key(), rows.area_key());
    let encoding = Encoding::negotiate(req, state.config.compress);
    let tagged = Head::of(&release, &key, encoding, format.content_type());
    if let Some(held) = tagged.held(req) {
        return Ok(held);
    }
    let head = streamed_head(tagged.builder(), &name);
    // A query engine asks a `HEAD` before every read: its headers, without running the export.
    if req.method() == actix_web::http::Method::HEAD {
        return Ok(bodiless(head));
    }
    let download = Download {
        rows,
        spec,
        area: None,
        by_place: false,
    };
    send(state, release, download, head).await
}

/// The head of a streamed listing, tagged.
fn streamed_head(mut head: HttpResponseBuilder, name: &str) -> HttpResponseBuilder {
    // Written as it is read: no length to take ranges of (the stored files have one).
    head.insert_header((header::ACCEPT_RANGES, "none"))
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{name}\""),
        ));
    head
}

async fn send(
    state: &AppState,
    release: Arc<Release>,
    download: Download,
    head: HttpResponseBuilder,
) -> Result<HttpResponse, ApiError> {
    // A whole file is always heavy.
    let permit = state.heavy_permit(i64::MAX).await?;
    stream::respond(head, move |flush| {
        let _permit = permit;
        forms::write_whole(&release, &download.rows, download.spec, flush)
    })
    .await
}
