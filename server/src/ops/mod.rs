//! Operations: what an operator, a load balancer and Prometheus ask of a running server,
//! outside the API's base path.
//!
//! - `access_log`: a line per request once its body is sent, with the bytes sent;
//! - `metrics`: the Prometheus registry, and the middleware that counts every request by its
//!   endpoint label (given by the route table, never the raw path) and status;
//! - `probes`: liveness (`/healthz`: the process answers) and readiness (`/readyz`: a loaded
//!   file is open and queryable, and the server is not stopping).
//!
//! Their routes are in the route table (`crate::routes::table`), like every other.

pub mod access_log;
pub mod metrics;
pub mod probes;

pub use metrics::Metrics;
