//! The API's listing endpoints: a request flows one way, parse -> a checked request -> (on the
//! blocking pool) its SQL plan, its page, its JSON -> the response.

use std::sync::Arc;
use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse};

use roadtraffic_catalog::Dataset;

use super::tagged::{streamed_answer_of, Headed};
use crate::api::ListingAsked;
use crate::areas::AreasOf;
use crate::error::ApiError;
use crate::forms::{self, Envelope, Form};
use crate::query::Query;
use crate::release::Release;
use crate::rows::FilterSets;
use crate::state::AppState;
use crate::stream::Flush;

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
    let areas = AreasOf::new(state, &release)?;
    let asked = (envelope, form);
    let listing = ListingAsked::parse(dataset, query, config.max_page_size, url, asked, &areas)?;
    let key = listing.key();
    let rows = listing.rows.asked();
    let time_limit = Duration::from_millis(config.query_timeout);
    let budget = config.filter_set_bytes();
    let write = move |release: &Release, flush: &mut Flush| {
        let filter_sets = FilterSets::of(release, budget);
        let reading = (&listing.rows, &*filter_sets);
        forms::write_timed(release, reading, listing.spec(), time_limit, flush)
    };
    let answer = (key, form.content_type(), Headed::WithoutRunning);
    streamed_answer_of(req, state, release, answer, rows, write).await
}
