//! Downloads: the page, DfT's files, and the API's listings whole as CSV or NDJSON.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse};

use roadtraffic_catalog::Dataset;

use super::answers::not_found;
use crate::api::{query, Format, ListRequest, Plan};
use crate::downloads::{self, Download, Export};
use crate::error::ApiError;
use crate::html;
use crate::state::AppState;
use crate::stream;

pub async fn page(state: &AppState) -> Result<HttpResponse, ApiError> {
    let release = state.current.get()?;
    let base = state.config.base_path().to_string();
    let content = actix_web::web::block(move || downloads::page(&release, &base))
        .await
        .map_err(ApiError::internal)??;
    Ok(html::response(html::page(
        html::Section::Downloads,
        "Downloads",
        content,
    )))
}

/// A file under `/downloads/`: a national file (CSV or zip) or a split file.
pub async fn file(
    req: &HttpRequest,
    state: &AppState,
    path: &str,
) -> Result<HttpResponse, ApiError> {
    let Some(download) = downloads::resolve(path) else {
        return Err(not_found(req));
    };
    let release = state.current.get()?;
    if let Some((table, id)) = download.area {
        let exists = {
            let release = release.clone();
            let table = table.to_string();
            actix_web::web::block(move || release.has_record(&table, id))
                .await
                .map_err(ApiError::internal)??
        };
        if !exists {
            return Err(not_found(req));
        }
    }
    let content_type = match download.export {
        Export::Zip(..) => "application/zip",
        Export::Csv(_) | Export::Ndjson | Export::GeoJson => "text/csv; charset=utf-8",
    };
    send(state, release, download, content_type).await
}

/// An API listing whole, as CSV, NDJSON or GeoJSON: its filters, sort and fields, every record.
pub async fn listing(
    req: &HttpRequest,
    state: &AppState,
    dataset: &'static Dataset,
    format: Format,
) -> Result<HttpResponse, ApiError> {
    let params = query::parse(req.query_string());
    let request = ListRequest::whole(dataset, &params)?;
    let export = match format {
        Format::Ndjson => Export::Ndjson,
        Format::GeoJson => Export::GeoJson,
        _ => {
            let layout = downloads::layout::Layout::fields(&request.fields);
            match Plan(&request).near() {
                Some(_) => Export::Csv(layout.with_distance(request.fields.len())),
                None => Export::Csv(layout),
            }
        }
    };
    let name = format!(
        "{}{}",
        dataset.paths[0].trim_start_matches('/').replace('/', "-"),
        format.suffix()
    );
    let download = Download {
        request,
        export,
        name,
        area: None,
    };
    send(state, state.current.get()?, download, format.content_type()).await
}

async fn send(
    state: &AppState,
    release: std::sync::Arc<crate::release::Release>,
    download: Download,
    content_type: &'static str,
) -> Result<HttpResponse, ApiError> {
    // A whole file is always heavy.
    let permit = state.heavy_permit(i64::MAX).await?;
    let mut head = HttpResponse::Ok();
    head.insert_header((header::CONTENT_TYPE, content_type))
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{}\"", download.name),
        ));
    stream::respond(head, move |flush| {
        let _permit = permit;
        downloads::export(&release, &download.request, &download.export, flush)
    })
    .await
}
