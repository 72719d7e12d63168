//! Areas: any boundary file (wards, constituencies, a council's own zones) as a set of areas
//! the mirror can filter and add up by. Shared by the loader (which reads, checks and stores a
//! set, and assigns a release's count points when it loads one) and the server (which reads
//! the sets back and assigns the count points of any release it serves): one rule of
//! membership, so both always agree.
//!
//! - `read`: a boundary file (GeoJSON, lon/lat or a declared EPSG:27700, or a GeoPackage
//!   layer) to an [`AreaSet`], every fault a [`BoundaryError`] naming the feature;
//! - `store`: the set in the mirror's SQLite file (`area_sets`, `areas`,
//!   `area_count_points`), written, listed, read and dropped;
//! - `membership`: which count points each area holds (contains or touches: a point on a
//!   shared edge is in both), exactly, in the set's own coordinates;
//! - `totals`: each AADF table's totals by set, area and year, kept beside the set.

pub mod membership;
pub mod read;
pub mod set;
pub mod store;
pub mod totals;

pub use membership::{Membership, Place};
pub use read::{read_boundaries, BoundaryError, Fields};
pub use set::{Area, AreaSet, SetCrs};
pub use store::SetInfo;
