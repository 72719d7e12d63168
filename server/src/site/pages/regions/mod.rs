//! `/regions` (every region, with its latest traffic) and `/regions/{id}`: a region's traffic
//! by vehicle type and by road category over the years, its local authorities, its count
//! points on the map.

mod query;
mod template;

use maud::Markup;

use crate::error::ApiError;
use crate::site::pages::context;
use crate::site::View;

pub fn list(view: &View) -> Result<Markup, ApiError> {
    let latest = query::latest_totals(view)?;
    Ok(template::list(&context(view), &latest))
}

pub fn one(view: &View, id: i64) -> Result<Markup, ApiError> {
    let region = view
        .overview
        .region(id)
        .ok_or_else(|| ApiError::NotFound(format!("regions/{id}")))?;
    let figures = query::region(view, id)?;
    Ok(template::one(&context(view), region, figures))
}
