//! Where: places and areas on the map, for spatial filters, GeoJSON and the OGC API.
//!
//! - `grid`: WGS 84 longitude/latitude to and from the British National Grid;
//! - `area`: a box or a radius asked of a listing, checked;
//! - `sql`: the SQL that finds the rows in an area through the spatial index;
//! - `nearest`: the count points within a radius, nearest first, from memory;
//! - `run_places`: the runs in a box, for raw counts whose coordinates are run columns.

pub mod area;
pub mod grid;
pub mod nearest;
pub mod run_places;
pub mod sql;

pub use area::{Area, Crs};
