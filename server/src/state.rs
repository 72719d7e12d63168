//! What every room of the server shares, handed down to its handlers: the release being
//! served, the configuration, the permits for heavy requests, and the response cache of the
//! release (kept with it). Each room's own state (the description, the metrics, the rate
//! limit) is built beside this one at startup and handed to the routes.

use std::convert::Infallible;
use std::sync::Arc;

use crate::cache::ResponseCache;
use crate::configuration::Config;
use crate::error::ApiError;
use crate::release::{Current, Named, Release};

/// The release a request is answered from, and the path that names it in the links it is
/// answered with.
#[derive(Clone)]
pub struct Served {
    pub release: Arc<Release>,
    /// `""` for the latest at its own paths; `/releases/{name}` for a named release.
    pub prefix: String,
}

pub struct AppState {
    /// The release at `--db`: `/api` and everything not under `/releases/{name}`.
    pub current: Arc<Current>,
    /// Every release kept beside it, by name.
    pub named: Arc<Named>,
    pub config: Config,
    /// Permits for requests of more than [`HEAVY_ROWS`] rows.
    heavy: Arc<tokio::sync::Semaphore>,
}

/// Pages of more rows than this are heavy: at most half the connections serve them at once.
const HEAVY_ROWS: i64 = 1000;

impl AppState {
    pub fn new(current: Arc<Current>, named: Arc<Named>, config: Config) -> AppState {
        let permits = (config.connections() as usize / 2).max(1);
        AppState {
            current,
            named,
            config,
            heavy: Arc::new(tokio::sync::Semaphore::new(permits)),
        }
    }

    /// For a request of this many rows, a permit if it is heavy: big pages wait their turn
    /// for one of a few, so that crawlers asking for 30,000 rows at a time cannot take every
    /// connection from the light requests.
    pub async fn heavy_permit(
        &self,
        rows: i64,
    ) -> Result<Option<tokio::sync::OwnedSemaphorePermit>, ApiError> {
        if rows <= HEAVY_ROWS {
            return Ok(None);
        }
        let permit = self.heavy.clone().acquire_owned().await;
        permit.map(Some).map_err(ApiError::internal)
    }

    /// The finished responses kept for `release` (`--response-cache-mb`).
    pub fn responses(&self, release: &Release) -> Arc<ResponseCache> {
        let bytes = self.config.response_cache_mb << 20;
        let made = release
            .kept
            .get_or_make(|| Ok::<_, Infallible>(ResponseCache::new(bytes)));
        made.unwrap_or_else(|never| match never {})
    }
}
