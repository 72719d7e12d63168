//! `<base-path>/<endpoint>/facets` and `<base-path>/<endpoint>/summary[.csv|.ndjson]` (and the
//! same under `/releases/{name}`): the question checked (`totals::Facets`, `totals::Summary`),
//! answered on the blocking pool under the query time limit, kept in the release's response
//! cache and tagged as a listing is. A question that reads the table's rows (no table of
//! totals answers it) waits for a heavy permit, as a big page does.

use std::sync::Arc;
use std::time::Duration;

use actix_web::{web, HttpRequest, HttpResponse};

use roadtraffic_catalog::Dataset;

use super::tagged::whole_answer;
use crate::areas::AreasOf;
use crate::error::ApiError;
use crate::forms::Form;
use crate::query::Query;
use crate::release::Release;
use crate::state::AppState;
use crate::totals::{Facets, ReadFrom, Rollups, Summary};

pub async fn facets(
    req: &HttpRequest,
    query: &Query,
    state: &AppState,
    release: Arc<Release>,
    dataset: &'static Dataset,
) -> Result<HttpResponse, ApiError> {
    let question = Facets::parse(dataset, query, &AreasOf::new(state, &release)?)?;
    let rollups = rollups(&release).await?;
    let reads_rows = (question.columns.iter()).any(|c| {
        let one = std::slice::from_ref(c);
        ReadFrom::choose(dataset, &question.conditions, one, &[], &rollups).reads_rows()
    });
    let time_limit = Duration::from_millis(state.config.query_timeout);
    let rows = heavy_rows(&release, dataset, reads_rows);
    whole_answer(
        req,
        state,
        release,
        key(req, state, question.key()),
        "application/json",
        rows,
        move |release| {
            let conn = release.timed_connection(time_limit)?;
            let facets = question.run(&conn, &rollups)?;
            Ok(crate::totals::facets_json(&facets))
        },
    )
    .await
}

pub async fn summary(
    req: &HttpRequest,
    query: &Query,
    state: &AppState,
    release: Arc<Release>,
    dataset: &'static Dataset,
    format: Form,
) -> Result<HttpResponse, ApiError> {
    let question = Summary::parse(dataset, query, &AreasOf::new(state, &release)?)?;
    let rollups = rollups(&release).await?;
    let reads_rows = question.source(&rollups).reads_rows();
    let time_limit = Duration::from_millis(state.config.query_timeout);
    let rows = heavy_rows(&release, dataset, reads_rows);
    let content_type = format.content_type();
    whole_answer(
        req,
        state,
        release,
        key(req, state, question.key()),
        content_type,
        rows,
        move |release| {
            let conn = release.timed_connection(time_limit)?;
            let summary = question.run(&conn, &rollups)?;
            crate::totals::write_summary(format, &summary)
        },
    )
    .await
}

/// The release's tables of totals, learnt on its first question (on the blocking pool: it
/// counts their rows).
async fn rollups(release: &Arc<Release>) -> Result<Arc<Rollups>, ApiError> {
    if let Some(known) = release.kept.get::<Rollups>() {
        return Ok(known);
    }
    let release = release.clone();
    web::block(move || Rollups::of(&release))
        .await
        .map_err(ApiError::internal)?
}

/// The rows a question may read, for its heavy permit: the table's, when it reads them.
fn heavy_rows(release: &Release, dataset: &Dataset, reads_rows: bool) -> i64 {
    match reads_rows {
        true => release.rows(dataset.table).0,
        false => 0,
    }
}

/// The question as its answer is known by: its URL (which names the release, the endpoint and
/// the form) and the question in its canonical form, so that the same question asked with its
/// parameters in another order or encoding has the same tag and kept answer.
fn key(req: &HttpRequest, state: &AppState, question: String) -> String {
    let base = state.config.public_base(req);
    let path = req.path().trim_end_matches('/');
    format!("{base}{path} {question}")
}
