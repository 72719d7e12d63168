//! The mirror's HTTP server: the public API's endpoints answered from one SQLite file, read
//! only, switched to a new file when the loader renames one in; beside them, the same data as
//! OGC API - Features.
//!
//! Dependencies point one way, down this list: a module imports modules of its own layer or
//! below, never above, and never in a cycle (among the rooms: `site`, `downloads`,
//! `description`, `ogc` and `ops` use `api`; `site` uses `downloads` and `totals`;
//! `description` uses `ogc` and `totals`, whose docs it writes):
//!
//! - `startup`, `shutdown`: the app built and bound, and stopped gracefully;
//! - `routes`: the one route table (`routes::table`), and which handler answers each route,
//!   the query string read and the form negotiated once per request;
//! - the rooms, each a kind of request: `api` (the listings), `site` (the website's pages),
//!   `downloads` (whole files, as DfT publishes them and as Parquet, kept once written, or a
//!   listing's whole CSV, NDJSON, GeoJSON or Parquet), `totals` (each listing's facets and
//!   summaries), `description` (the OpenAPI document and the docs page, from the route table's
//!   endpoints), `ogc` (OGC API - Features under `/ogcapi`), `ops` (probes and metrics),
//!   `areas` (the boundary sets stored in the file, what each area holds of a release, and
//!   the count points of `filter[area]`, which `api`, `downloads`, `totals`, `site` and `ogc`
//!   use), `vehicle_km` (an area's AADF vehicle-km by year, and every area's of one year: the
//!   site's area pages and OGC's area collections);
//! - `forms`: how an answer is written: the forms it takes (suffix, content type), which one a
//!   request gets (the negotiation), and one writer per form behind one interface;
//! - `rows`: what is read: a dataset's rows as a question asks them (filters, sort, fields,
//!   page), their SQL and paging;
//! - `filter`: CQL2 filters (`filter=`), checked against the catalogue and written as SQL,
//!   below the rows;
//! - `spatial` (where: areas checked, the British National Grid, their SQL), below the filters;
//! - `state`: what every room shares (the release being served, the configuration, the
//!   permits for heavy requests, the response cache);
//! - the ground: `release` (the loaded file, its connections, its time limit, and what the
//!   rooms keep per release), `comparisons` (the change report between two kept releases,
//!   made once per pair), `cache` (the response cache and content encodings), `html` (the
//!   one layout of every HTML page) over `assets` (the embedded files), `stream` (bodies
//!   written on the blocking pool), `ranged` (a file of known length, with byte ranges), `wire`
//!   (each connection's socket: a stored file's ranges sent by `sendfile`),
//!   `conditional` (the one conditional layer: validators, preconditions, 304 and 412),
//!   `query` (the query string, read once), `sql_functions` (what SQLite lacks that CQL2
//!   needs), `ratelimit`, `configuration`, `error` (the one
//!   error type and the one place it becomes a status).

mod api;
mod areas;
mod assets;
mod cache;
mod comparisons;
mod conditional;
mod configuration;
mod description;
mod downloads;
pub mod error;
mod filter;
mod forms;
pub mod html;
mod ogc;
pub mod ops;
pub mod query;
mod ranged;
mod ratelimit;
pub mod release;
mod routes;
mod rows;
mod shutdown;
pub mod site;
pub mod spatial;
mod sql_functions;
mod startup;
mod state;
mod stream;
mod totals;
mod vehicle_km;
mod wire;

pub use configuration::{Config, DEFAULT_DB, SAMPLE_DIR, SAMPLE_RELEASE};
pub use shutdown::serve_until_stopped;
pub use startup::{bind, start, Running};
