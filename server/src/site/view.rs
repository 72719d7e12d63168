//! What a page is rendered from.

use super::summary::Summary;
use crate::release::Release;

/// What a page is rendered from: the loaded file, a connection to it (with the query time
/// limit), and what was learnt of it once.
pub struct View<'a> {
    pub release: &'a Release,
    pub conn: &'a rusqlite::Connection,
    pub summary: &'a Summary,
    /// The API's base path (`/api`), for links to its listings.
    pub api_base: &'a str,
    /// The largest page the API answers (`--max-page-size`), for the map's requests.
    pub max_page_size: i64,
    /// The path prefix of the release shown: `""` for the latest at its own paths,
    /// `/releases/{name}` for a named one.
    pub prefix: &'a str,
}
