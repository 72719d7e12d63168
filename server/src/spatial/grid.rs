//! WGS 84 longitude and latitude to and from the British National Grid (EPSG:27700), as PROJ
//! converts them when it has no grid files: the Helmert transformation EPSG:1314 (`helmert`)
//! and the Ordnance Survey's Transverse Mercator (`tm`). OSTN15 would be better to about
//! 0.1 m, but it is a grid file this mirror does not ship; 2 m is finer than a map filter
//! needs, and matching PROJ's fallback keeps our answers within a millimetre of what a client
//! computes with pyproj or GDAL offline.

mod helmert;
mod tm;

/// A point on the British National Grid, metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridPoint {
    pub easting: f64,
    pub northing: f64,
}

/// The grid's area of use (EPSG:27700) in WGS 84: min lon, min lat, max lon, max lat.
pub const AREA_OF_USE: [f64; 4] = [-9.01, 49.75, 2.01, 61.01];

/// WGS 84 longitude and latitude (degrees) on the grid.
pub fn to_grid(lon: f64, lat: f64) -> GridPoint {
    helmert::to_grid(lon, lat)
}

/// A grid point's WGS 84 longitude and latitude (degrees): the inverse of `to_grid`.
pub fn from_grid(p: GridPoint) -> (f64, f64) {
    helmert::from_grid(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_area_of_use_lands_on_the_grid_in_range() {
        let [w, s, e, n] = AREA_OF_USE;
        for (lon, lat) in [(w, s), (e, s), (w, n), (e, n)] {
            let p = to_grid(lon, lat);
            assert!((-200_000.0..800_000.0).contains(&p.easting), "{p:?}");
            assert!((-100_000.0..1_300_000.0).contains(&p.northing), "{p:?}");
        }
    }
}
