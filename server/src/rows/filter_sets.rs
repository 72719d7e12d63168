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
}

pub const CHECKPOINT_EVERY: i64 = 256;

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
    SET_OVERHEAD_BYTES + 2 * key.len() + 8 * set.checkpoints.len()
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
