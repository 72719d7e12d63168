//! What a page is rendered from.

use std::time::Duration;

use super::overview::Overview;
use crate::html::Frame;
use crate::release::{Named, Release};

/// What a page is rendered from: the loaded file, a connection to it (with the query time
/// limit), and what was learnt of it once.
pub struct View<'a> {
    pub release: &'a Release,
    pub conn: &'a rusqlite::Connection,
    pub overview: &'a Overview,
    /// The API's base path (`/api`), for links to its listings.
    pub api_base: &'a str,
    /// The largest page the API answers (`--max-page-size`), for the map's requests.
    pub max_page_size: i64,
    /// The path prefix of the release shown: `""` for the latest at its own paths,
    /// `/releases/{name}` for a named one.
    pub prefix: &'a str,
    /// The release shown among the kept ones, and the same page in each (the header's).
    pub frame: &'a Frame,
    /// The kept release before the one shown, to mark what the release shown revised.
    pub compared: Option<Compared<'a>>,
}

/// The release shown and the kept release before it, by name.
pub struct Compared<'a> {
    pub shown: &'a str,
    pub previous: &'a str,
    /// Where the previous release is opened (on first use, then kept open).
    pub named: &'a Named,
    /// The query time limit, for its connections too.
    pub time_limit: Duration,
}

impl Compared<'_> {
    /// The previous release, opened, and a connection to it with the query time limit.
    pub fn open(
        &self,
    ) -> Result<(std::sync::Arc<Release>, crate::release::TimedConnection), crate::error::ApiError>
    {
        let release = self.named.get(self.previous)?;
        let conn = release.timed_connection(self.time_limit)?;
        Ok((release, conn))
    }
}
