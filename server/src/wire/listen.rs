//! The listening sockets and the HTTP service on each connection, as actix-web's `HttpServer`
//! makes them (every address the bind resolves to, the address reused, a backlog of 1,024; the
//! same timeouts and graceful stop), except that each connection's socket is a [`Wire`], so
//! that stored files go out by `sendfile`. `HttpServer` takes no wrapper of the socket, hence
//! this file.

use std::net::{SocketAddr, TcpListener};
use std::time::Duration;

use actix_http::body::MessageBody;
use actix_http::error::DispatchError;
use actix_http::{Extensions, HttpService, Protocol, Request, Response};
use actix_service::{IntoServiceFactory, ServiceFactory, ServiceFactoryExt};
use actix_web::dev::{AppConfig, Server};
use tokio::net::TcpStream;

use super::Wire;

/// How many workers the server runs, and how it stops.
pub struct Workers {
    pub workers: usize,
    /// Threads of each worker's blocking pool.
    pub blocking_threads: usize,
    /// Seconds a graceful stop waits for answers in flight.
    pub shutdown_timeout: u64,
}

/// The sockets `bind` names, every address it resolves to, as actix-web binds them.
pub fn listeners(bind: &str) -> std::io::Result<Vec<TcpListener>> {
    let mut bound = Vec::new();
    let mut last = None;
    for addr in std::net::ToSocketAddrs::to_socket_addrs(bind)? {
        match listener(addr) {
            Ok(l) => bound.push(l),
            Err(e) => last = Some(e),
        }
    }
    match (bound.is_empty(), last) {
        (true, Some(e)) => Err(e),
        (true, None) => Err(std::io::Error::other(format!("{bind}: no address"))),
        (false, _) => Ok(bound),
    }
}

fn listener(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(addr),
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )?;
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(1024)?;
    Ok(socket.into())
}

/// The server of `app` on `listeners`, each connection served through a [`Wire`].
pub fn server<F, I, S, B>(
    listeners: Vec<TcpListener>,
    app: F,
    workers: &Workers,
) -> std::io::Result<Server>
where
    F: Fn() -> I + Send + Clone + 'static,
    I: IntoServiceFactory<S, Request>,
    S: ServiceFactory<Request, Config = AppConfig> + 'static,
    S::Error: Into<Response<actix_http::body::BoxBody>> + 'static,
    S::InitError: std::fmt::Debug,
    S::Response: Into<Response<B>> + 'static,
    B: MessageBody + 'static,
{
    let mut builder = Server::build()
        .workers(workers.workers)
        .worker_max_blocking_threads(workers.blocking_threads)
        .shutdown_timeout(workers.shutdown_timeout)
        .disable_signals();
    let stopping = builder.graceful_shutdown_signal();
    for listener in listeners {
        let addr = listener.local_addr()?;
        let (app, stopping) = (app.clone(), stopping.clone());
        builder = builder.listen(format!("roadtraffic-{addr}"), listener, move || {
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
                // As `HttpServer` configures an app: the host of a request without a `Host`
                // header is the address bound (actix-web's `AppConfig::new` is crate-private;
                // this is its public constructor for servers built outside `HttpServer`).
                .finish(actix_service::map_config(app(), move |_| {
                    AppConfig::__priv_test_new(false, addr.to_string(), addr)
                }));
            actix_service::fn_service(wired).and_then(http)
        })?;
    }
    Ok(builder.run())
}

/// A connection as actix-http's service takes it: its socket, protocol and peer.
type Connection = (Wire, Protocol, Option<SocketAddr>);

/// A connection's socket in a [`Wire`].
fn wired(io: TcpStream) -> std::future::Ready<Result<Connection, DispatchError>> {
    // No Nagle: a range's head and its last short segment would each wait for the client's
    // ACK (64 KiB ranges at half the rate, BENCHMARKS.md); large ranges are corked instead.
    let _ = io.set_nodelay(true);
    let peer = io.peer_addr().ok();
    std::future::ready(Ok((Wire::new(io), Protocol::Http1, peer)))
}
