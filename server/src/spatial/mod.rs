//! Where: places and areas on the map, for spatial filters, GeoJSON and the OGC API.

pub mod grid;
