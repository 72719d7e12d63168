//! A loaded release: the SQLite file opened read-only behind a connection pool, its metadata
//! and row counts, and nothing of the layers above it: what they learn of a release they keep
//! in its [`Kept`] values.
//!
//! - `current`: the release being served, replaced when the loader renames a new file in;
//! - `time_limit`: connections whose queries stop at `--query-timeout`;
//! - `metrics`: what the SQLite layer counts;
//! - `file`: the file opened, its connection pool, metadata and row counts;
//! - `named`: the releases kept beside the file, by name, each opened when first asked for;
//! - `kept`: one value per type that a layer above keeps per release.

mod current;
mod file;
mod kept;
mod metrics;
mod named;
mod time_limit;

pub use current::Current;
pub use file::{
    is_stale_sample, FileIdentity, OpenError, Pool, PooledConnection, Release, Settings, Tagging,
};
pub use kept::Kept;
pub use metrics::DbMetrics;
pub use named::{Listing, Named};
pub use time_limit::TimedConnection;
