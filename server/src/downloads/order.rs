//! The row order of the national and split Parquet files (`roadtraffic_downloads::order`:
//! count point by count point, the count points along a Hilbert curve), read out of SQLite.
//!
//! SQLite cannot sort by the curve, and a sort in memory would hold the whole table; so the
//! file is read in parts, each a few hundred count points consecutive on the curve, sought
//! by the count point index (each part in count point, then id, order): memory holds one
//! part's rows at most, as it held one row group.

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::places::PLACE_KEY;
use roadtraffic_catalog::Dataset;

pub use roadtraffic_downloads::order::count_points;
use roadtraffic_downloads::order::COUNT_POINTS_PER_PART;

use crate::rows::{Condition, Rows};

/// The rows of `d` that meet `conditions`, as parts of consecutive `count_points`, each
/// sorted by count point (then id); one part of every row when there are none.
pub fn parts(d: &'static Dataset, conditions: &[Condition], count_points: &[i64]) -> Vec<Rows> {
    let Some(key) = d.column(PLACE_KEY) else {
        return vec![Rows::all(d, conditions.to_vec(), Vec::new())];
    };
    let parts = count_points.chunks(COUNT_POINTS_PER_PART).map(|ids| {
        let ids = ids.iter().map(|id| SqlValue::Integer(*id)).collect();
        let mut conditions = conditions.to_vec();
        conditions.push(Condition::In(key, ids));
        Rows::all(d, conditions, vec![(key, false)])
    });
    let parts: Vec<Rows> = parts.collect();
    match parts.is_empty() {
        true => vec![Rows::all(d, conditions.to_vec(), Vec::new())],
        false => parts,
    }
}
