//! The areas room: the boundary sets stored in the mirror's file (`roadtraffic-load areas
//! add`), what each area holds of the release served, and the answers about them: the sets
//! (`/api/areas`), a set's areas in the Laravel envelope or as GeoJSON, one area as a
//! Feature. Beside them it finds the count points of `filter[area]` for every listing
//! ([`AreasOf`] is the rows' [`AreaLookup`]) and of the totals by area.
//!
//! - `held`: the sets of the latest file, and each release's members of each set, kept with
//!   the releases;
//! - `written`: the answers' JSON and GeoJSON;
//! - `parquet`: a set's areas as GeoParquet.

mod held;
pub mod parquet;

/// Where the area sets are, under the API's base path.
pub const PATH: &str = "/areas";
pub mod written;

use std::sync::Arc;

pub use held::{SetMembers, StoredSet, StoredSets};

use crate::error::ApiError;
use crate::release::Release;
use crate::rows::area_filter::{unknown_areas, unknown_set};
use crate::rows::{AreaFilter, AreaGrouping, AreaLookup};
use crate::state::AppState;

/// The areas as a request sees them: the latest file's sets, over the count points of the
/// release it is answered from.
pub struct AreasOf {
    latest: Arc<Release>,
    served: Arc<Release>,
}

impl AreasOf {
    pub fn new(state: &AppState, served: &Arc<Release>) -> Result<AreasOf, ApiError> {
        Ok(AreasOf {
            latest: state.current.get()?,
            served: served.clone(),
        })
    }

    pub fn sets(&self) -> Result<Arc<StoredSets>, ApiError> {
        StoredSets::of(&self.latest)
    }

    /// The set named so, if stored.
    pub fn set(&self, name: &str) -> Result<Option<Arc<StoredSet>>, ApiError> {
        Ok(self.sets()?.get(name).cloned())
    }

    /// The set named so, or the 400 naming the sets there are.
    pub fn set_asked(&self, name: &str) -> Result<Arc<StoredSet>, ApiError> {
        let sets = self.sets()?;
        let found = sets.get(name).cloned();
        found.ok_or_else(|| unknown_set(name, &sets.names()))
    }

    /// What each area of `set` holds of the served release's count points.
    pub fn members(&self, set: &StoredSet) -> Result<Arc<SetMembers>, ApiError> {
        held::Memberships::of(&self.served, set)
    }
}

impl AreaLookup for AreasOf {
    fn area_filter(&self, set: &str, ids: &[&str]) -> Result<AreaFilter, ApiError> {
        let stored = self.set_asked(set)?;
        let unknown: Vec<&str> = (ids.iter().copied())
            .filter(|id| stored.index_of(id).is_none())
            .collect();
        if !unknown.is_empty() {
            return Err(unknown_areas(set, &unknown));
        }
        let indexes: Vec<u32> = ids.iter().filter_map(|id| stored.index_of(id)).collect();
        let count_points = self.members(&stored)?.count_points_of(&indexes);
        let mut ids: Vec<String> = ids.iter().map(|id| id.to_string()).collect();
        ids.sort();
        ids.dedup();
        Ok(AreaFilter {
            set: set.to_string(),
            sha256: stored.info.sha256.clone(),
            ids,
            count_points: serde_json::to_string(&count_points)
                .map_err(ApiError::internal)?
                .into(),
        })
    }

    fn grouping(&self, set: &str) -> Result<AreaGrouping, ApiError> {
        let sets = self.sets()?;
        let stored = sets
            .get(set)
            .ok_or_else(|| unknown_set(set, &sets.names()))?;
        let members = self.members(stored)?;
        let totals_tables = match Arc::ptr_eq(&self.latest, &self.served) {
            true => sets.totals_tables.clone(),
            false => Arc::from([]),
        };
        Ok(AreaGrouping {
            set: set.to_string(),
            sha256: stored.info.sha256.clone(),
            names: stored.names.clone(),
            pairs: members.pairs_json(stored),
            totals_tables,
        })
    }
}
