//! The access log: a line per answered request once its body is sent, in the format actix-web's
//! `Logger` wrote (`%a "%r" %s %b %Dms`) and under its target, so that log filters and readers
//! of the old lines keep working. Written by the metrics' body (`metrics::Metered`) rather than
//! by `Logger`, which counts the bytes a body yields: a range of a stored file yields a marker
//! that the socket replaces with the file's bytes (`crate::wire`), and the line counts those.

use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::HttpRequest;

/// The target actix-web's `Logger` logs under (`RUST_LOG=actix_web::middleware::logger=warn`
/// silences the access log, as it did).
const TARGET: &str = "actix_web::middleware::logger";

/// What a request's line says before its bytes and time.
pub struct Access(String);

impl Access {
    /// The line's start for `req` answered with `status`, if the access log is on.
    pub fn of(req: &HttpRequest, status: StatusCode) -> Option<Access> {
        if !log::log_enabled!(target: TARGET, log::Level::Info) {
            return None;
        }
        let peer = req
            .peer_addr()
            .map_or("-".to_string(), |a| a.ip().to_string());
        let target = match req.query_string() {
            "" => req.path().to_string(),
            query => format!("{}?{query}", req.path()),
        };
        let (method, version) = (req.method(), req.version());
        let line = format!(
            "{peer} \"{method} {target} {version:?}\" {}",
            status.as_u16()
        );
        Some(Access(line))
    }

    /// Logs the line: `sent` bytes, `took` from the request's arrival.
    pub fn log(&self, sent: u64, took: Duration) {
        let ms = took.as_nanos() as f64 / 1_000_000.0;
        log::info!(target: TARGET, "{} {sent} {ms}ms", self.0);
    }
}
