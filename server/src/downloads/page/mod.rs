//! The downloads page, as the site's pages are made: what it reads of the loaded file
//! (`query`), then the page drawn from it (`template`).

mod query;
mod template;

use maud::Markup;

use crate::error::ApiError;
use crate::release::Release;

/// The page's content of `release` (the caller puts it in the site's layout): its links under
/// `base_path`, its examples at `origin`, the mirror's scheme and host.
pub fn page(release: &Release, base_path: &str, origin: &str) -> Result<Markup, ApiError> {
    let conn = release.pool.get()?;
    let areas = query::AreaLists::read(&conn)?;
    Ok(template::page(release, &areas, base_path, origin))
}
