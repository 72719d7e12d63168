//! The dataset catalogue: the one description of every table the mirror holds, and what is
//! built from it alone (the SQLite schema, the JSON of its records, the README's endpoint
//! table). The loader, the server and the benchmark generator read it; it reads nothing of
//! theirs.

pub mod changes;
mod dataset;
mod datasets;
pub mod dates;
pub mod json;
pub mod json_schema;
pub mod legacy;
pub mod meanings;
pub mod places;
pub mod readme;
pub mod record;
pub mod schema;
pub mod totals;

pub use dataset::*;
pub use datasets::*;

/// A stable 64-bit hash (FNV-1a): the same on every run and every machine, for versions and
/// tags that must not change between starts.
pub fn stable_hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}
