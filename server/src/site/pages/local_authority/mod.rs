//! `/local-authorities` (every one, A to Z) and `/local-authorities/{id}`: an authority's
//! traffic over the years, its count points (a table, paged) and their map.

mod query;
mod template;

use maud::Markup;

use crate::error::ApiError;
use crate::query::Query;
use crate::site::pages::context;
use crate::site::View;

use query::PER_PAGE;

pub fn list(view: &View) -> Result<Markup, ApiError> {
    Ok(template::list(&context(view)))
}

/// The authority's page; `?page=N` is the page of its count point table, kept within range.
pub fn one(view: &View, id: i64, query: &Query) -> Result<Markup, ApiError> {
    let la = view
        .overview
        .local_authority(id)
        .ok_or_else(|| ApiError::NotFound(format!("local-authorities/{id}")))?;
    let traffic = query::traffic(view, id)?;
    let total = query::count_points_in(view, id)?;
    let last = (total + PER_PAGE - 1) / PER_PAGE;
    let page = query
        .first("page")
        .and_then(|p| p.parse::<i64>().ok())
        .unwrap_or(1)
        .clamp(1, last.max(1));
    let points = template::Points {
        rows: query::count_points(view, id, page)?,
        page,
        last,
        total,
    };
    Ok(template::one(&context(view), la, traffic, &points))
}
