//! Starting the server: the loaded file opened and watched, the app built with its routes and
//! headers, the listener bound (tests bind port 0 and read the address back).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use actix_web::http::header;
use actix_web::middleware::{from_fn, Compress, Condition, DefaultHeaders, Logger};
use actix_web::{web, App, HttpServer};

use crate::configuration::Config;
use crate::description::Description;
use crate::error::ApiError;
use crate::ops::{self, Metrics};
use crate::ratelimit::Limiter;
use crate::release::{Current, Settings};
use crate::routes;

/// What every handler shares.
pub struct AppState {
    pub current: Arc<Current>,
    pub config: Config,
    pub limiter: Option<Limiter>,
    pub description: Arc<Description>,
    /// Permits for requests of more than [`HEAVY_ROWS`] rows.
    heavy: Arc<tokio::sync::Semaphore>,
    pub metrics: web::Data<Metrics>,
}

/// Pages of more rows than this are heavy: at most half the connections serve them at once.
const HEAVY_ROWS: i64 = 1000;

impl AppState {
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
}

/// A bound server, and what stopping it gracefully needs.
pub struct Running {
    pub server: actix_web::dev::Server,
    pub addr: SocketAddr,
    pub state: web::Data<AppState>,
}

/// Opens the file and binds the listener; the returned server runs when awaited.
pub fn start(config: Config) -> std::io::Result<(actix_web::dev::Server, SocketAddr)> {
    bind(config).map(|running| (running.server, running.addr))
}

/// Opens the file and binds the listener. Signals are not handled here: `shutdown` does it for
/// the program, and a server run inside tests leaves them alone.
pub fn bind(config: Config) -> std::io::Result<Running> {
    let connections = config.connections();
    let metrics = web::Data::new(Metrics::new().map_err(std::io::Error::other)?);
    let settings = Settings {
        connections,
        cache_kib: config.cache_kib_per_connection(),
        filter_set_bytes: config.filter_set_bytes(),
        metrics: metrics.db.clone(),
        response_cache_bytes: config.response_cache_mb << 20,
    };
    let current = Arc::new(Current::open(&config.db, settings).map_err(std::io::Error::other)?);
    current.watch(Duration::from_millis(config.watch_interval.max(50)));
    let compress = config.compress;
    let workers = config.workers();
    let shutdown_timeout = config.shutdown_timeout;
    let state = web::Data::new(AppState {
        current,
        limiter: (config.rate_limit > 0).then(|| Limiter::new(config.rate_limit)),
        description: Arc::new(Description::new(&config)),
        heavy: Arc::new(tokio::sync::Semaphore::new(
            (connections as usize / 2).max(1),
        )),
        config: config.clone(),
        metrics: metrics.clone(),
    });
    let headers_config = config.clone();
    let app_state = state.clone();
    let server = HttpServer::new(move || {
        App::new()
            .app_data(app_state.clone())
            .app_data(metrics.clone())
            .wrap(Condition::new(compress, Compress::default()))
            .wrap(api_headers(&headers_config))
            .wrap(Logger::new("%a \"%r\" %s %b %Dms"))
            // Outermost: every request is counted, with the bytes actually sent.
            .wrap(from_fn(ops::metrics::observe))
            .default_service(web::to(routes::dispatch))
    })
    .workers(workers)
    // SQLite work runs on the blocking pool; more threads than connections would only wait.
    .worker_max_blocking_threads((connections as usize).max(2))
    .client_request_timeout(Duration::from_secs(10))
    .client_disconnect_timeout(Duration::from_secs(5))
    .keep_alive(Duration::from_secs(30))
    .shutdown_timeout(shutdown_timeout)
    .disable_signals()
    .bind(&config.bind)?;
    let addr = server
        .addrs()
        .first()
        .copied()
        .ok_or_else(|| std::io::Error::other("no address bound"))?;
    Ok(Running {
        server: server.run(),
        addr,
        state,
    })
}

/// The headers of every response, as the public service sends them; `cache-control` as
/// configured, and `Vary: Accept-Encoding` when bodies may be compressed.
fn api_headers(config: &Config) -> DefaultHeaders {
    let headers = DefaultHeaders::new()
        .add((header::CONTENT_TYPE, "application/json"))
        .add((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"))
        .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .add((header::X_FRAME_OPTIONS, "Deny"))
        .add((header::CACHE_CONTROL, config.cache_control.clone()))
        .add((
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; frame-ancestors 'none'",
        ));
    if config.compress {
        headers.add((header::VARY, "Accept-Encoding"))
    } else {
        headers
    }
}
