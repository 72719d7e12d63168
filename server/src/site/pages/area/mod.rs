//! The areas of the sets stored in the mirror's file (`roadtraffic-load areas add`):
//! `/areas` (the sets), `/areas/{set}` (its areas, A to Z, with their count points and latest
//! vehicle-km) and `/areas/{set}/{id}` (an area: its outline on the map, its count points, a
//! table paged, and its vehicle-km by year as a chart and a table, with links to the same in
//! the API and as downloads).

mod query;
mod template;

use maud::Markup;

use crate::areas::AreasOf;
use crate::error::ApiError;
use crate::query::Query;
use crate::site::pages::context;
use crate::site::View;

pub fn sets(view: &View, areas: &AreasOf) -> Result<Markup, ApiError> {
    Ok(template::sets(&context(view), &query::sets(areas)?))
}

/// A set's page; `?page=N` is the page of its table of areas, kept within range.
pub fn set(view: &View, areas: &AreasOf, name: &str, asked: &Query) -> Result<Markup, ApiError> {
    let shown = query::set_areas(view, areas, name)?;
    Ok(template::set(&context(view), &shown, page_asked(asked)))
}

/// An area's page; `?page=N` is the page of its count point table, kept within range.
pub fn one(
    view: &View,
    areas: &AreasOf,
    (set, id): (&str, &str),
    asked: &Query,
) -> Result<Markup, ApiError> {
    let (shown, page) = query::area(view, areas, (set, id), page_asked(asked))?;
    Ok(template::one(&context(view), shown, page))
}

fn page_asked(query: &Query) -> i64 {
    (query.first("page"))
        .and_then(|p| p.parse::<i64>().ok())
        .unwrap_or(1)
}
