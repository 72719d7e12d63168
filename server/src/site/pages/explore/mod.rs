//! `/explore`: any summary of the API, asked with a form and answered as a table, a chart and
//! the API's URLs of the same question. The page's question is its query string (`question`), made
//! the API's own query string and checked and run by the API's totals engine, in process, on
//! the page's connection: the page and the API cannot differ. A question the API refuses is a
//! 400 page that shows the API's message above the form as it was filled.
//!
//! - `question`: the page's query string, and the API's query strings of the same question;
//! - `query`: the answer, and the values the filter fields suggest;
//! - `template`: the page (`form`: its forms; `figure`: its chart; `labels`: its words).

mod figure;
mod form;
mod labels;
mod query;
mod question;
mod template;

use actix_web::http::StatusCode;

use crate::areas::AreasOf;
use crate::error::ApiError;
use crate::query::Query;
use crate::release::Release;
use crate::rows::{AreaLookup, NoAreas};
use crate::site::pages::context;
use crate::site::{Drawn, View};
use crate::totals::Summary;

use question::Ask;
use template::{Answered, Shown};

pub fn render(view: &View, query: &Query, areas: Option<&AreasOf>) -> Result<Drawn, ApiError> {
    let (ask, refused) = Ask::read(query);
    let hints = query::Hints::of(view.release, ask.dataset)?;
    let area_sets: Vec<String> = match areas.map(AreasOf::sets) {
        Some(sets) => (sets?.names().into_iter()).map(str::to_string).collect(),
        None => Vec::new(),
    };
    let areas: &dyn AreaLookup = match areas {
        Some(areas) => areas,
        None => &NoAreas,
    };
    let outcome = match refused {
        Some(e) => Err(e),
        None => answer(view, &ask, areas),
    };
    let (status, outcome) = match outcome {
        Ok(answered) => (StatusCode::OK, Ok(answered)),
        Err(ApiError::BadRequest(message)) => (StatusCode::BAD_REQUEST, Err(message)),
        Err(other) => return Err(other),
    };
    let shown = Shown {
        ask: &ask,
        hints: &hints,
        area_sets: &area_sets,
        outcome,
    };
    Ok(Drawn {
        status,
        markup: template::page(&context(view), &shown),
    })
}

/// The question checked as the API checks it, and answered.
fn answer(view: &View, ask: &Ask, areas: &dyn AreaLookup) -> Result<Answered, ApiError> {
    let question = checked(ask, areas)?;
    let rows = query::answer(view, &question)?;
    Ok(Answered { question, rows })
}

fn checked(ask: &Ask, areas: &dyn AreaLookup) -> Result<Summary, ApiError> {
    Summary::parse(ask.dataset, &Query::read(&ask.summary_query()), areas)
}

/// The rows of its dataset's table that the page's question reads (0 when a table of totals
/// answers it, or when it is refused): a page that reads many waits for a heavy permit, as the
/// API's summary does.
pub fn rows_read(release: &Release, query: &Query, areas: &dyn AreaLookup) -> i64 {
    let (ask, refused) = Ask::read(query);
    let question = match (refused, checked(&ask, areas)) {
        (None, Ok(question)) => question,
        _ => return 0,
    };
    query::rows_read(release, &question).unwrap_or(0)
}
