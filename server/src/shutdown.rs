//! A graceful stop. On SIGTERM or SIGINT the server closes its listener (new connections are
//! refused, so a load balancer sends them elsewhere at once, and probes fail), closes idle
//! keep-alive connections and takes no further request on busy ones, and lets the requests in
//! flight finish, streamed pages included, for up to `--shutdown-timeout` seconds; what is
//! still running then is cut. A second signal cuts at once. Either way the program exits 0:
//! it was asked to stop, and it stopped.

use std::future::Future;
use std::pin::pin;
use std::time::Instant;

use actix_web::dev::ServerHandle;
use actix_web::rt::signal::unix::{signal, SignalKind};
use actix_web::web;
use futures_util::future::{select, Either};

use crate::routes::Router;
use crate::startup::Running;

/// Runs the server until it is stopped by a signal and has finished stopping.
pub async fn serve_until_stopped(running: Running) -> std::io::Result<()> {
    let stopping = stop_on_signals(running.server.handle(), running.router.clone())?;
    let server = running.server;
    let stopped = actix_web::rt::spawn(stopping);
    server.await?;
    // Only a signal stops the server: its task has the last word on how it went.
    stopped.await.map_err(std::io::Error::other)?;
    log::info!("stopped");
    Ok(())
}

/// The task that waits for the signals: set up before the server runs, so that a signal that
/// comes early is not missed (nor does it kill the process unhandled).
fn stop_on_signals(
    handle: ServerHandle,
    router: web::Data<Router>,
) -> std::io::Result<impl Future<Output = ()>> {
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    Ok(async move {
        let first = next_signal(&mut term, &mut int).await;
        let timeout = router.state.config.shutdown_timeout;
        log::info!(
            "{first}: stopping; {} requests in flight have up to {timeout} s to finish",
            router.metrics.in_flight()
        );
        let started = Instant::now();
        let graceful = pin!(handle.stop(true));
        let again = pin!(next_signal(&mut term, &mut int));
        match select(graceful, again).await {
            Either::Left(((), _)) if started.elapsed().as_secs() >= timeout => {
                log::warn!("{timeout} s passed: the requests still in flight were cut");
            }
            Either::Left(((), _)) => log::info!("every request in flight finished"),
            // The server takes one stop at a time, and it is busy with the graceful one.
            Either::Right((second, _)) => {
                log::warn!("{second} again: cutting the requests in flight");
                std::process::exit(0);
            }
        }
    })
}

async fn next_signal(
    term: &mut actix_web::rt::signal::unix::Signal,
    int: &mut actix_web::rt::signal::unix::Signal,
) -> &'static str {
    match select(pin!(term.recv()), pin!(int.recv())).await {
        Either::Left(_) => "SIGTERM",
        Either::Right(_) => "SIGINT",
    }
}
