//! The mirror's HTTP server: the public API's endpoints answered from one SQLite file, read
//! only, switched to a new file when the loader renames one in.
//!
//! - `configuration`: every option;
//! - `startup`: the app built and bound;
//! - `routes`: which handler answers which request;
//! - `api`: the listings, from query string to JSON;
//! - `description`: the OpenAPI document and the docs page, from the catalogue;
//! - `downloads`: whole files, as DfT publishes them or as a listing's CSV and NDJSON;
//! - `html`: pages for people: the one layout of every HTML page;
//! - `stream`: bodies written on the blocking pool, sent whole or streamed;
//! - `release`: the loaded file, its connections and what is learnt of it;
//! - `error`: the one error type and the one place it becomes a status;
//! - `ratelimit`: the optional per-client limit;
//! - `site`: the website's pages, their layout and assets;
//! - `ops`: probes and metrics (their routes in `routes/ops.rs`);
//! - `shutdown`: the graceful stop on SIGTERM or SIGINT.

mod api;
mod cache;
mod configuration;
mod description;
mod downloads;
pub mod error;
pub mod html;
pub mod ops;
mod ratelimit;
pub mod release;
mod routes;
mod shutdown;
pub mod site;
mod startup;
mod stream;

pub use configuration::{Config, DEFAULT_DB, SAMPLE_DIR, SAMPLE_RELEASE};
pub use shutdown::serve_until_stopped;
pub use startup::{bind, start, Running};
