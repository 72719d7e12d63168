//! The docs page, as the site's pages are made: what it reads of the loaded file (`examples`,
//! the page's only SQL), then the page drawn from that (`template`, with its sections on
//! `releases`, `totals` and OGC API - Features, `ogc`).

mod examples;
mod ogc;
mod releases;
mod template;
mod totals;

use crate::api::Endpoint;
use crate::configuration::Config;
use crate::error::ApiError;
use crate::release::Release;

/// The page of `release`, describing the API's listing `endpoints`.
pub fn page(
    release: &Release,
    config: &Config,
    endpoints: &[Endpoint],
) -> Result<String, ApiError> {
    let conn = release.pool.get()?;
    let examples = examples::Examples::read(&conn)?;
    Ok(template::page(&examples, config, endpoints))
}
