//! Which count points each area holds: a point belongs to every area whose boundary contains
//! or touches it, judged exactly in the set's coordinates (longitude and latitude for a
//! lon/lat set, the count point's own easting and northing for a grid one).

use crate::AreaSet;

/// A count point where the release puts it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Place {
    pub count_point_id: i64,
    pub longitude: Option<f64>,
    pub latitude: Option<f64>,
    pub easting: Option<f64>,
    pub northing: Option<f64>,
}

/// Every count point of the release in `conn` (a file built by the loader), of any dataset:
/// where the `count_points` table puts it, else where the first of its other records does.
pub fn release_places(conn: &rusqlite::Connection) -> rusqlite::Result<Vec<Place>> {
    let _ = conn;
    unimplemented!("issue 35: the areas crate's membership")
}

/// A set's areas and the count points in each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Membership {
    /// (area index in `AreaSet::areas`, count point id), sorted, no repeats.
    pub pairs: Vec<(u32, i64)>,
}

impl Membership {
    /// Assigns each place to the areas it is in (none, one, or several on shared edges).
    pub fn assign(set: &AreaSet, places: &[Place]) -> Membership {
        let _ = (set, places);
        unimplemented!("issue 35: the areas crate's membership")
    }

    /// The count points of one area, ascending.
    pub fn count_points_of(&self, area: u32) -> &[i64] {
        let _ = area;
        unimplemented!("issue 35: the areas crate's membership")
    }
}
