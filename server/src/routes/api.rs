//! The API's listing endpoints: a request flows one way, parse -> a checked request -> (on the
//! blocking pool) its SQL plan, its page, its JSON -> the response.

use std::sync::Arc;
use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse};

use roadtraffic_catalog::Dataset;

use super::tagged::{keep, kept, whole, Head};
use crate::api::ListingAsked;
use crate::cache::Encoding;
use crate::error::ApiError;
use crate::forms::{self, Envelope, Form};
use crate::query::Query;
use crate::release::Release;
use crate::rows::FilterSets;
use crate::state::AppState;
use crate::stream::{self, Written};

/// A listing of `dataset`, in `envelope`, as JSON or (a page with places asked for it) as
/// GeoJSON features.
pub async fn list(
    req: &HttpRequest,
    query: &Query,
    state: &AppState,
    release: Arc<Release>,
    (dataset, envelope, form): (&'static Dataset, Envelope, Form),
) -> Result<HttpResponse, ApiError> {
    let config = &state.config;
    let base = config.public_base(req);
    let url = format!("{base}{}", req.path().trim_end_matches('/'));
    let listing = ListingAsked::parse(dataset, query, config.max_page_size, url, (envelope, form))?;
    let key = listing.key();
    let encoding = Encoding::negotiate(req, config.compress);
    let responses = state.responses(&release);
    let head = Head::of(&release, &key, encoding, form.content_type());
    if let Some(held) = head.held(req) {
        return Ok(held);
    }
    if let Some(body) = kept(&responses, &key, encoding).await? {
        return Ok(whole(body, encoding, head));
    }
    let permit = state.heavy_permit(listing.rows.asked()).await?;
    let time_limit = Duration::from_millis(config.query_timeout);
    let filter_sets = FilterSets::of(&release, config.filter_set_bytes());
    let written = stream::run(move |flush| {
        let _permit = permit;
        let reading = (&listing.rows, &*filter_sets);
        forms::write_timed(&release, reading, listing.spec(), time_limit, flush)
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
