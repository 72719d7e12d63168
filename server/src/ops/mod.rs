//! Operations: what an operator, a load balancer and Prometheus ask of a running server,
//! outside the API's base path.
//!
//! - `metrics`: the Prometheus registry, and the middleware that counts every request by its
//!   endpoint (the route template, never the raw path) and status;
//! - `probes`: liveness (`/healthz`: the process answers) and readiness (`/readyz`: a loaded
//!   file is open and queryable, and the server is not stopping).
//!
//! Their handlers are in `routes/ops.rs`.

pub mod metrics;
pub mod probes;

pub use metrics::{DbMetrics, Endpoint, Metrics};
