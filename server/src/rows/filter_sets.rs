//! What the API learns of the filter sets asked of one release, kept with it (see
//! `crate::release::Kept`) and bounded in memory (`--filter-set-cache-mib`).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use crate::error::ApiError;
use crate::release::Release;

/// What is learnt of a filter set by one scan of its index: how many rows match, and the id of
/// every [`CHECKPOINT_EVERY`]th of them in id order, so that any page of it starts with a seek
/// near its first row rather than an OFFSET over all the rows before it.
#[derive(Debug)]
pub struct FilterSet {
    pub total: i64,
    pub checkpoints: Vec<i64>,
    /// Where the set is decided by its runs alone and they are few (at most [`RUNS_KEPT`]):
    /// each run it keeps, in id order, so that a page finds its runs without a query.
    pub runs: Option<Vec<KeptRun>>,
}

pub const CHECKPOINT_EVERY: i64 = 256;

/// The most runs a filter set keeps (24 bytes each): a 30 km box's raw counts are about 1,600
/// runs; a set of more finds its page's runs by a query from its checkpoint instead.
pub const RUNS_KEPT: usize = 1 << 16;

/// A run of a filter set: its rows' ids, and the position of its first row in the set.
#[derive(Debug, Clone, Copy)]
pub struct KeptRun {
    pub first_id: i64,
    pub last_id: i64,
    pub position: i64,
}

impl FilterSet {
    /// The runs holding the `size` rows from position `offset` on, and the first and last of
    /// those rows' ids; `None` when the runs are not kept or the window is past the last row.
    pub fn runs_of_window(&self, offset: i64, size: i64) -> Option<(Vec<i64>, i64, i64)> {
        let runs = self.runs.as_ref()?;
        let from = runs.partition_point(|r| r.position + (r.last_id - r.first_id) < offset);
        let end = offset.saturating_add(size); // the position just past the window
        let first = runs.get(from)?;
        let low = first.first_id + (offset - first.position);
        let (mut firsts, mut high) = (Vec::new(), low);
        for run in runs[from..].iter().take_while(|r| r.position < end) {
            firsts.push(run.first_id);
            high = run.last_id.min(run.first_id + (end - run.position) - 1);
        }
        Some((firsts, low, high))
    }

    /// The ids of the `size` rows from position `offset` on, in order, when the runs are kept
    /// (each run a range of consecutive ids).
    pub fn ids_of_window(&self, offset: i64, size: i64) -> Option<Vec<i64>> {
        let runs = self.runs.as_ref()?;
        let from = runs.partition_point(|r| r.position + (r.last_id - r.first_id) < offset);
        let end = offset.saturating_add(size);
        let mut ids = Vec::with_capacity(usize::try_from(size).unwrap_or(0).min(1 << 16));
        for run in runs[from..].iter().take_while(|r| r.position < end) {
            let skip = (offset - run.position).max(0);
            let last = run.last_id.min(run.first_id + (end - run.position) - 1);
            ids.extend(run.first_id + skip..=last);
        }
        Some(ids)
    }
}

/// Filter sets are learnt once per release and kept; past the budget (`--filter-set-cache-mib`),
/// the oldest half of the sets is forgotten so memory stays bounded whatever the clients ask.
/// What a set is reckoned to cost besides its checkpoints (8 bytes each) and its key (kept
/// twice): its map entry, its place in the order, its allocation headers.
const SET_OVERHEAD_BYTES: usize = 128;

/// The filter sets learnt of one release.
pub struct FilterSets(Mutex<FilterSetCache>);

struct FilterSetCache {
    sets: HashMap<String, Arc<FilterSet>>,
    order: Vec<String>,
    bytes: usize,
    budget: usize,
}

/// The memory a set of this key holds in the cache.
fn cost(key: &str, set: &FilterSet) -> usize {
    let runs = set.runs.as_ref().map_or(0, Vec::len);
    SET_OVERHEAD_BYTES + 2 * key.len() + 8 * set.checkpoints.len() + 24 * runs
}

impl FilterSets {
    /// The filter sets learnt of `release`, kept with it; at most about `budget` bytes.
    pub fn of(release: &Release, budget: usize) -> Arc<FilterSets> {
        let made = release
            .kept
            .get_or_make(|| Ok::<_, Infallible>(FilterSets::new(budget)));
        made.unwrap_or_else(|never| match never {})
    }

    /// An empty cache that holds at most about `budget` bytes.
    fn new(budget: usize) -> Self {
        FilterSets(Mutex::new(FilterSetCache {
            sets: HashMap::new(),
            order: Vec::new(),
            bytes: 0,
            budget,
        }))
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, FilterSetCache>, ApiError> {
        self.0
            .lock()
            .map_err(|_| ApiError::internal("the filter set cache's lock is poisoned"))
    }

    /// The bytes the learnt sets hold, as reckoned against the budget.
    pub fn bytes(&self) -> usize {
        self.lock().map_or(0, |cache| cache.bytes)
    }

    pub fn get(&self, key: &str) -> Result<Option<Arc<FilterSet>>, ApiError> {
        Ok(self.lock()?.sets.get(key).cloned())
    }

    pub fn remember(&self, key: String, set: FilterSet) -> Result<Arc<FilterSet>, ApiError> {
        let set = Arc::new(set);
        let mut cache = self.lock()?;
        let bytes = cost(&key, &set);
        while cache.bytes + bytes > cache.budget && !cache.order.is_empty() {
            let half = cache.order.len().div_ceil(2);
            let forget: Vec<String> = cache.order.drain(..half).collect();
            for k in forget {
                if let Some(old) = cache.sets.remove(&k) {
                    cache.bytes -= cost(&k, &old);
                }
            }
        }
        if bytes > cache.budget {
            return Ok(set); // used for this request, too big to keep
        }
        cache.bytes += bytes;
        if let Some(old) = cache.sets.insert(key.clone(), set.clone()) {
            cache.bytes -= cost(&key, &old);
        } else {
            cache.order.push(key);
        }
        Ok(set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of ids 10-14, 20-22 and 40-49: positions 0-4, 5-7 and 8-17.
    fn set() -> FilterSet {
        let run = |first_id, last_id, position| KeptRun {
            first_id,
            last_id,
            position,
        };
        FilterSet {
            total: 18,
            checkpoints: vec![10],
            runs: Some(vec![run(10, 14, 0), run(20, 22, 5), run(40, 49, 8)]),
        }
    }

    #[test]
    fn a_window_is_found_in_its_runs() {
        let set = set();
        assert_eq!(set.runs_of_window(0, 5), Some((vec![10], 10, 14)));
        assert_eq!(set.runs_of_window(3, 4), Some((vec![10, 20], 13, 21)));
        assert_eq!(set.runs_of_window(5, 3), Some((vec![20], 20, 22)));
        assert_eq!(set.runs_of_window(7, 100), Some((vec![20, 40], 22, 49)));
        assert_eq!(set.runs_of_window(17, 1), Some((vec![40], 49, 49)));
        assert_eq!(set.runs_of_window(18, 1), None);
        let unkept = FilterSet { runs: None, ..set };
        assert_eq!(unkept.runs_of_window(0, 1), None);
    }

    #[test]
    fn a_window_s_ids_are_those_of_its_positions() {
        let set = set();
        assert_eq!(set.ids_of_window(0, 5), Some(vec![10, 11, 12, 13, 14]));
        assert_eq!(set.ids_of_window(3, 4), Some(vec![13, 14, 20, 21]));
        assert_eq!(set.ids_of_window(7, 3), Some(vec![22, 40, 41]));
        assert_eq!(set.ids_of_window(16, 100), Some(vec![48, 49]));
        assert_eq!(set.ids_of_window(18, 5), Some(vec![]));
        let unkept = FilterSet { runs: None, ..set };
        assert_eq!(unkept.ids_of_window(0, 1), None);
    }
}
