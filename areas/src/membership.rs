//! Which count points each area holds: a point belongs to every area whose boundary contains
//! or touches it, judged exactly in the set's coordinates (longitude and latitude for a
//! lon/lat set, the count point's own easting and northing for a grid one).
//!
//! The areas' bounding boxes go in an R-tree; each count point is then tested exactly
//! (`geo::Intersects`: inside, or on an edge or a vertex; a point in a hole is outside) against
//! the few areas whose box holds it.

use std::collections::HashSet;

use geo::Intersects;
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{RTree, AABB};
use rusqlite::types::ValueRef;

use roadtraffic_catalog::places::{Places, EASTING, LATITUDE, LONGITUDE, NORTHING, PLACE_KEY};

use crate::table_exists;
use crate::{AreaSet, SetCrs};

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
    let mut datasets: Vec<Places> = (roadtraffic_catalog::DATASETS.iter())
        .filter_map(|d| Places::of(d))
        .collect();
    // The count points' own table first: its position is the one a count point is given.
    datasets.sort_by_key(|p| !p.key_is_id());
    let mut seen = HashSet::new();
    let mut places = Vec::new();
    for p in datasets {
        let (table, id) = match p.in_runs {
            true => (p.dataset.runs_table().expect("runs"), "first_id"),
            false => (p.dataset.table.to_string(), "id"),
        };
        if !table_exists(conn, &table)? {
            continue;
        }
        // SQLite's bare columns of a min(): the values of the row holding the minimum.
        let sql = format!(
            "SELECT {PLACE_KEY}, {LONGITUDE}, {LATITUDE}, {EASTING}, {NORTHING}, min({id}) \
             FROM {table} WHERE {PLACE_KEY} IS NOT NULL GROUP BY {PLACE_KEY}"
        );
        let mut stmt = conn.prepare(&sql)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let count_point_id: i64 = r.get(0)?;
            if seen.insert(count_point_id) {
                places.push(Place {
                    count_point_id,
                    longitude: number(r.get_ref(1)?),
                    latitude: number(r.get_ref(2)?),
                    easting: number(r.get_ref(3)?),
                    northing: number(r.get_ref(4)?),
                });
            }
        }
    }
    Ok(places)
}

/// A coordinate as stored: an integer, a real, or decimal text (longitude and latitude).
fn number(value: ValueRef) -> Option<f64> {
    let n = match value {
        ValueRef::Integer(i) => i as f64,
        ValueRef::Real(r) => r,
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok()?,
        ValueRef::Null | ValueRef::Blob(_) => return None,
    };
    n.is_finite().then_some(n)
}

/// A set's areas and the count points in each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Membership {
    /// (area index in `AreaSet::areas`, count point id), sorted, no repeats.
    pub pairs: Vec<(u32, i64)>,
    /// The pairs' count point ids, in the pairs' order: each area's a slice of it.
    ids: Vec<i64>,
}

impl Membership {
    /// Assigns each place to the areas it is in (none, one, or several on shared edges).
    pub fn assign(set: &AreaSet, places: &[Place]) -> Membership {
        let boxes = (set.areas.iter().enumerate())
            .filter_map(|(i, a)| {
                let [min_x, min_y, max_x, max_y] = a.bounds();
                let corners = Rectangle::from_corners([min_x, min_y], [max_x, max_y]);
                min_x
                    .is_finite()
                    .then(|| GeomWithData::new(corners, i as u32))
            })
            .collect();
        let tree: RTree<GeomWithData<Rectangle<[f64; 2]>, u32>> = RTree::bulk_load(boxes);
        let mut pairs = Vec::new();
        for p in places {
            let at = match set.crs {
                SetCrs::Crs84 => p.longitude.zip(p.latitude),
                SetCrs::BritishNationalGrid => p.easting.zip(p.northing),
            };
            let Some((x, y)) = at else { continue };
            let point = geo::Point::new(x, y);
            for candidate in tree.locate_in_envelope_intersecting(&AABB::from_point([x, y])) {
                let area = candidate.data;
                if set.areas[area as usize].geometry.intersects(&point) {
                    pairs.push((area, p.count_point_id));
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let ids = pairs.iter().map(|&(_, id)| id).collect();
        Membership { pairs, ids }
    }

    /// The count points of one area, ascending.
    pub fn count_points_of(&self, area: u32) -> &[i64] {
        let start = self.pairs.partition_point(|&(a, _)| a < area);
        let end = self.pairs.partition_point(|&(a, _)| a <= area);
        &self.ids[start..end]
    }
}

#[cfg(test)]
mod tests {
    use geo::{polygon, MultiPolygon};

    use super::*;
    use crate::Area;

    fn area(id: &str, polygons: Vec<geo::Polygon<f64>>) -> Area {
        Area {
            id: id.into(),
            name: id.into(),
            geometry: MultiPolygon(polygons),
        }
    }

    /// Two unit squares side by side sharing the edge x = 1, the left one with a hole; a
    /// multipolygon of two squares apart.
    fn set(crs: SetCrs) -> AreaSet {
        let left = polygon!(
            exterior: [(x: 0.0, y: 0.0), (x: 1.0, y: 0.0), (x: 1.0, y: 1.0), (x: 0.0, y: 1.0)],
            interiors: [[(x: 0.2, y: 0.2), (x: 0.4, y: 0.2), (x: 0.4, y: 0.4), (x: 0.2, y: 0.4)]],
        );
        let right =
            polygon![(x: 1.0, y: 0.0), (x: 2.0, y: 0.0), (x: 2.0, y: 1.0), (x: 1.0, y: 1.0)];
        let far1 = polygon![(x: 5.0, y: 5.0), (x: 6.0, y: 5.0), (x: 6.0, y: 6.0), (x: 5.0, y: 6.0)];
        let far2 = polygon![(x: 8.0, y: 5.0), (x: 9.0, y: 5.0), (x: 9.0, y: 6.0), (x: 8.0, y: 6.0)];
        AreaSet {
            name: "t".into(),
            source: "t.geojson".into(),
            sha256: String::new(),
            crs,
            areas: vec![
                area("L", vec![left]),
                area("R", vec![right]),
                area("M", vec![far1, far2]),
            ],
        }
    }

    fn at(id: i64, x: f64, y: f64) -> Place {
        Place {
            count_point_id: id,
            longitude: Some(x),
            latitude: Some(y),
            easting: None,
            northing: None,
        }
    }

    #[test]
    fn points_inside_on_edges_on_vertices_and_in_holes() {
        let places = [
            at(1, 0.5, 0.5), // inside L
            at(2, 1.0, 0.5), // on the shared edge: both
            at(3, 1.0, 1.0), // on the shared vertex: both
            at(4, 0.3, 0.3), // in L's hole: neither
            at(5, 0.2, 0.3), // on the hole's edge: L (its boundary)
            at(6, 8.5, 5.5), // in M's second polygon
            at(7, 3.0, 3.0), // nowhere
            at(8, 2.0, 0.0), // R's corner
            at(9, 0.0, 0.0), // L's corner
        ];
        let m = Membership::assign(&set(SetCrs::Crs84), &places);
        assert_eq!(m.count_points_of(0), [1, 2, 3, 5, 9]);
        assert_eq!(m.count_points_of(1), [2, 3, 8]);
        assert_eq!(m.count_points_of(2), [6]);
        assert_eq!(m.count_points_of(3), [] as [i64; 0]);
        assert!(m.pairs.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_grid_set_judges_eastings_and_northings() {
        let p = Place {
            count_point_id: 1,
            longitude: Some(0.5),
            latitude: Some(0.5),
            easting: Some(1.5),
            northing: Some(0.5),
        };
        let unplaced = Place { easting: None, ..p };
        let m = Membership::assign(&set(SetCrs::BritishNationalGrid), &[p, unplaced]);
        assert_eq!(m.pairs, [(1, 1)]);
        let m = Membership::assign(&set(SetCrs::Crs84), &[p]);
        assert_eq!(m.pairs, [(0, 1)]);
    }

    #[test]
    fn release_places_prefer_the_count_points_table() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for d in roadtraffic_catalog::DATASETS {
            conn.execute_batch(&roadtraffic_catalog::schema::create_table(d))
                .unwrap();
            if let Some(runs) = roadtraffic_catalog::schema::create_runs_table(d) {
                conn.execute_batch(&runs).unwrap();
            }
        }
        conn.execute_batch(
            "INSERT INTO count_points (id, count_point_id, easting, northing, latitude, longitude)
               VALUES (10, 10, 400000, 300000, '52.5', '-1.25');
             INSERT INTO aadf (id, count_point_id, year, easting, northing, latitude, longitude)
               VALUES (1, 10, 2020, 1, 1, '50', '0'), (2, 20, 2020, 500000, 200000, ' 51.5 ', '-0.1'),
                      (3, 20, 2021, 2, 2, '50', '0'), (4, 30, 2020, NULL, NULL, 'x', NULL);",
        )
        .unwrap();
        let mut places = release_places(&conn).unwrap();
        places.sort_by_key(|p| p.count_point_id);
        assert_eq!(
            places[0],
            Place {
                count_point_id: 10,
                longitude: Some(-1.25),
                latitude: Some(52.5),
                easting: Some(400000.0),
                northing: Some(300000.0),
            }
        );
        assert_eq!(
            (places[1].longitude, places[1].latitude, places[1].easting),
            (Some(-0.1), Some(51.5), Some(500000.0))
        );
        assert_eq!(places[2].latitude, None);
        assert_eq!(places.len(), 3);
    }
}
