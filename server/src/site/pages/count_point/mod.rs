//! `/manualcountpoints/{id}`: a count point as the public page shows it (site details, its
//! place on the map, AADF by year with the count method), plus the count points nearest it, a
//! chart of AADF over the years, AADF by direction, the raw counts of each count day by hour,
//! and its downloads; the AADF figures that the release shown revised are marked with the value
//! each replaced in the kept release before it.

mod query;
mod template;

use maud::Markup;

use crate::error::ApiError;
use crate::site::pages::context;
use crate::site::View;

pub fn render(view: &View, id: i64) -> Result<Markup, ApiError> {
    let site =
        query::site(view, id)?.ok_or_else(|| ApiError::NotFound(format!("count point {id}")))?;
    // None: the count point has no easting and northing to measure from.
    let nearby = site
        .grid()
        .map(|at| query::nearby(view, id, at))
        .transpose()?;
    let aadf = query::aadf(view, id)?;
    let revised = query::revised(view, id, &aadf.by_vehicle)?;
    let counts = query::Counts {
        aadf,
        by_direction: query::by_direction(view, id)?,
        count_days: query::count_days(view, id)?,
    };
    Ok(template::page(
        &context(view),
        id,
        &site,
        nearby,
        counts,
        revised,
    ))
}
