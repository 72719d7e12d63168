//! Starting the server: the loaded file opened and watched, the app built with its routes and
//! headers, the listener bound (tests bind port 0 and read the address back).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use actix_web::http::header;
use actix_web::middleware::{from_fn, Compress, Condition, DefaultHeaders};
use actix_web::{web, App};

use crate::configuration::Config;
use crate::description::Description;
use crate::ops::{self, Metrics};
use crate::ratelimit::Limiter;
use crate::release::{Current, Named, Settings};
use crate::routes::{self, table, RouteTable, Router};
use crate::state::AppState;
use crate::wire::listen;

/// A bound server, and what stopping it gracefully needs.
pub struct Running {
    pub server: actix_web::dev::Server,
    pub addr: SocketAddr,
    pub router: web::Data<Router>,
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
        mmap_bytes: config.mmap_bytes(),
        metrics: metrics.db.clone(),
        min_idle: None,
    };
    let current = Current::open(&config.db, settings.clone()).map_err(std::io::Error::other)?;
    let current = Arc::new(current);
    let named = Arc::new(Named::new(&config.db, settings, current.clone()));
    named.watch(Duration::from_millis(config.watch_interval.max(50)));
    current.watch(Duration::from_millis(config.watch_interval.max(50)));
    let (compress, workers) = (config.compress, config.workers());
    let shutdown_timeout = config.shutdown_timeout;
    let table = RouteTable::new(&config);
    let description = Description::new(&config, table.endpoints(), table::CHANGES_PATH);
    let router = web::Data::new(Router {
        table,
        description: Arc::new(description),
        limiter: (config.rate_limit > 0).then(|| Limiter::new(config.rate_limit)),
        metrics: metrics.clone(),
        state: AppState::new(current, named, config.clone()),
    });
    if !config.lazy_downloads {
        keep_downloads_written(
            &router,
            Duration::from_millis(config.watch_interval.max(50)),
        );
    }
    let headers_config = config.clone();
    let app_router = router.clone();
    let app = move || {
        App::new()
            .app_data(app_router.clone())
            .app_data(metrics.clone())
            .wrap(Condition::new(compress, Compress::default()))
            .wrap(api_headers(&headers_config))
            // Outermost: every request is counted and logged, with the bytes actually sent.
            .wrap(from_fn(ops::metrics::observe))
            .default_service(web::to(routes::dispatch))
    };
    let listeners = listen::listeners(&config.bind)?;
    let first = listeners
        .first()
        .ok_or_else(|| std::io::Error::other("no address bound"))?;
    let addr = first.local_addr()?;
    let settings = listen::Workers {
        workers,
        // SQLite work runs on the blocking pool; more threads than connections would only wait.
        blocking_threads: (connections as usize).max(2),
        shutdown_timeout,
    };
    let server = listen::server(listeners, app, &settings)?;
    Ok(Running {
        server,
        addr,
        router,
    })
}

/// Writes the national files of each release served before they are asked for, on a thread
/// of its own, for as long as the server is up.
fn keep_downloads_written(router: &web::Data<Router>, every: Duration) {
    let weak = Arc::downgrade(&router.clone().into_inner());
    std::thread::spawn(move || {
        let runtime = actix_web::rt::System::new();
        let mut written = String::new();
        while let Some(router) = weak.upgrade() {
            let release = router.state.current.get().ok();
            if let Some(release) = release.filter(|r| r.tag != written) {
                written.clone_from(&release.tag);
                let store = crate::downloads::store_of(&release, &router.state.config);
                drop(router);
                // Between files: stop once another release is served (or the server stopped).
                let served = |r: &Router| r.state.current.get().ok().map(|c| c.tag.clone());
                let current = || weak.upgrade().and_then(|r| served(&r)) == Some(written.clone());
                runtime.block_on(crate::downloads::warm(store, release, current));
                continue;
            }
            drop(router);
            std::thread::sleep(every);
        }
    });
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
