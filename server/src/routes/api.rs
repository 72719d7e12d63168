//! The API's listing endpoints: a request flows one way, parse -> a checked request -> (on the
//! blocking pool) its SQL plan, its page, its JSON -> the response.

use std::sync::Arc;
use std::time::Duration;

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse};

use roadtraffic_catalog::places::Places;
use roadtraffic_catalog::Dataset;

use super::answers::public_base;
use super::tagged::{keep, kept, whole, Head};
use crate::api::{Envelope, FilterSets, Format, ListRequest};
use crate::cache::Encoding;
use crate::error::ApiError;
use crate::query::Query;
use crate::release::Release;
use crate::spatial::Crs;
use crate::state::AppState;
use crate::stream::{self, Written};

pub async fn list(
    req: &HttpRequest,
    query: &Query,
    state: &AppState,
    release: Arc<Release>,
    dataset: &'static Dataset,
    envelope: Envelope,
) -> Result<HttpResponse, ApiError> {
    let config = &state.config;
    let params = query.php().clone();
    let mut request = ListRequest::parse(dataset, &params, config.max_page_size)?;
    request.envelope = envelope;
    let spatial =
        envelope == Envelope::Laravel && dataset.paginated && Places::of(dataset).is_some();
    if spatial && prefers_geojson(req) {
        request.features = Some(Crs::Crs84);
    }
    let content_type = match request.features {
        Some(_) => Format::GeoJson.content_type(),
        None => Format::Json.content_type(),
    };
    let base = public_base(req, config.public_url.as_deref());
    let url = format!("{base}{}", req.path().trim_end_matches('/'));
    let mut key = request.canonical(&url, &params);
    if request.features.is_some() {
        key.push_str(" as GeoJSON");
    }
    let encoding = Encoding::negotiate(req, config.compress);
    let responses = state.responses(&release);
    let head = Head::of(&release, &key, encoding, content_type, spatial);
    if let Some(held) = head.held(req) {
        return Ok(held);
    }
    if let Some(body) = kept(&responses, &key, encoding).await? {
        return Ok(whole(body, encoding, head));
    }
    let permit = state.heavy_permit(request.rows_asked()).await?;
    let time_limit = Duration::from_millis(config.query_timeout);
    let filter_sets = FilterSets::of(&release, config.filter_set_bytes());
    let written = stream::run(move |flush| {
        let _permit = permit;
        request.run(&release, &filter_sets, &url, &params, time_limit, flush)
    })
    .await?;
    Ok(match written {
        Written::Whole(body) => {
            let (body, encoding) = keep(responses, key, body, encoding).await?;
            whole(body, encoding, head)
        }
        Written::Streamed(chunks) => head.builder().streaming(chunks),
    })
}

/// Whether the client asks for GeoJSON before JSON: `application/geo+json` in `Accept` with a
/// quality above 0 and not below that of `application/json` (browsers, asking `*/*`, get JSON).
fn prefers_geojson(req: &HttpRequest) -> bool {
    let quality = |wanted: &str| {
        req.headers()
            .get_all(header::ACCEPT)
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|item| {
                let mut parts = item.split(';').map(str::trim);
                let media = parts.next()?;
                let q = parts
                    .find_map(|p| p.strip_prefix("q="))
                    .map_or(Some(1.0), |q| q.parse::<f32>().ok())?;
                media.eq_ignore_ascii_case(wanted).then_some(q)
            })
            .fold(None, |best: Option<f32>, q| {
                Some(best.map_or(q, |b| b.max(q)))
            })
    };
    match (quality("application/geo+json"), quality("application/json")) {
        (Some(geo), json) => geo > 0.0 && geo >= json.unwrap_or(0.0),
        (None, _) => false,
    }
}
