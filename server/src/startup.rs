//! Starting the server: the loaded file opened and watched, the app built with its routes and
//! headers, the listener bound (tests bind port 0 and read the address back).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use actix_http::error::DispatchError;
use actix_http::{Extensions, HttpService, Protocol};
use actix_service::ServiceFactoryExt;
use actix_web::dev::AppConfig;
use actix_web::http::header;
use actix_web::middleware::{from_fn, Compress, Condition, DefaultHeaders, Logger};
use actix_web::{web, App};
use tokio::net::TcpStream;

use crate::configuration::Config;
use crate::description::Description;
use crate::ops::{self, Metrics};
use crate::ratelimit::Limiter;
use crate::release::{Current, Named, Settings};
use crate::routes::{self, table, RouteTable, Router};
use crate::state::AppState;
use crate::wire::Wire;

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
            .wrap(Logger::new("%a \"%r\" %s %b %Dms"))
            // Outermost: every request is counted, with the bytes actually sent.
            .wrap(from_fn(ops::metrics::observe))
            .default_service(web::to(routes::dispatch))
    };
    let listener = listener(&config.bind)?;
    let addr = listener.local_addr()?;
    let builder = actix_web::dev::Server::build();
    let stopping = builder.graceful_shutdown_signal();
    let server = builder
        .workers(workers)
        // SQLite work runs on the blocking pool; more threads than connections would only wait.
        .worker_max_blocking_threads((connections as usize).max(2))
        .shutdown_timeout(shutdown_timeout)
        .disable_signals()
        .listen("roadtraffic", listener, move || {
            // Each connection's socket in a `Wire`, so that stored files go out by `sendfile`.
            let wired = actix_service::fn_service(|io: TcpStream| {
                let _ = io.set_nodelay(true);
                let peer = io.peer_addr().ok();
                std::future::ready(Ok::<_, DispatchError>((
                    Wire::new(io),
                    Protocol::Http1,
                    peer,
                )))
            });
            let stopping = stopping.clone();
            let http = HttpService::build()
                // Idle keep-alive connections close when a graceful stop starts.
                .graceful_shutdown_signal(move || {
                    let stopping = stopping.clone();
                    async move { stopping.notified().await }
                })
                .h1_allow_half_closed(true)
                .keep_alive(Duration::from_secs(30))
                .client_request_timeout(Duration::from_secs(10))
                .client_disconnect_timeout(Duration::from_secs(5))
                .local_addr(addr)
                .on_connect_ext(|io: &Wire, ext: &mut Extensions| {
                    ext.insert(io.splices());
                })
                .finish(actix_service::map_config(app(), move |_| {
                    AppConfig::__priv_test_new(false, addr.to_string(), addr)
                }));
            wired.and_then(http)
        })?;
    Ok(Running {
        server: server.run(),
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

/// The listening socket, as actix-web's own binding makes it: the address reused, a backlog of
/// 1,024 connections.
fn listener(bind: &str) -> std::io::Result<std::net::TcpListener> {
    let mut last = std::io::Error::other(format!("{bind}: no address"));
    for addr in std::net::ToSocketAddrs::to_socket_addrs(bind)? {
        let socket = socket2::Socket::new(
            socket2::Domain::for_address(addr),
            socket2::Type::STREAM,
            Some(socket2::Protocol::TCP),
        )?;
        socket.set_reuse_address(true)?;
        match socket.bind(&addr.into()).and_then(|()| socket.listen(1024)) {
            Ok(()) => return Ok(socket.into()),
            Err(e) => last = e,
        }
    }
    Err(last)
}
