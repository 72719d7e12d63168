//! Offline mirror of Great Britain's road traffic statistics API.
//!
//! [`catalog`] describes every dataset once; [`load`] builds the SQLite file from published CSV
//! files; [`server`] answers the public API's requests from it; [`synth`] generates a
//! full-size synthetic release for benchmarks.

pub mod catalog;
pub mod load;
pub mod schema;
pub mod server;
pub mod synth;
