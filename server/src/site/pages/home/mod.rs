//! `/`: the map of every count point, the search (count point id, road, local authority or
//! region; `?q=`), and the headline figures of the latest year.

mod query;
mod template;

use maud::Markup;

use crate::error::ApiError;
use crate::query::Query;
use crate::site::pages::context;
use crate::site::View;

pub fn render(view: &View, query: &Query) -> Result<Markup, ApiError> {
    let q = query
        .first("q")
        .map(|q| q.trim().chars().take(100).collect::<String>())
        .filter(|q| !q.is_empty());
    let results = match &q {
        Some(q) => Some(query::search(view, q)?),
        None => None,
    };
    Ok(template::page(
        &context(view),
        q.as_deref(),
        results.as_ref(),
    ))
}
