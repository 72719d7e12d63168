//! Where each run of rows is, for the one dataset whose coordinates are run columns (raw
//! counts): the runs' longitudes and latitudes in an in-memory R-tree kept per release, so
//! that the runs in a WGS 84 box are found without reading each from the file.
//!
//! Through SQL, a box's runs are found by the places index, then every run of every count
//! point in it is read from the runs table to test its own coordinates: 1,600 reads at random
//! for a 30 km box, most of the time of a page of 1,000 whose box is new. Here the same test
//! is made on the coordinates as SQL reads them (`CAST(NULLIF(c, '') AS REAL)`, compared
//! with the box's edges included) of the runs that have a count point (the places index
//! holds every run's position under its count point), so the runs found are SQL's, in tens
//! of microseconds.
//! About 40 bytes a run: 9 MB for the 220,000 of a full-size file, read on the first box.

use std::sync::Arc;

use rstar::primitives::GeomWithData;
use rstar::{RTree, AABB};
use rusqlite::Connection;

use roadtraffic_catalog::places::{LATITUDE, LONGITUDE, PLACE_KEY};

use crate::error::ApiError;
use crate::release::Release;

/// A run's first and last row ids.
pub type RunIds = (i64, i64);

type RunPoint = GeomWithData<[f64; 2], RunIds>;

/// The runs of one runs table that have a longitude and a latitude, by them.
pub struct RunPlaces {
    table: String,
    tree: RTree<RunPoint>,
}

impl RunPlaces {
    /// The runs of `runs_table` in `release`, read over `conn` on first use and kept with the
    /// release; `None` when what is kept is another table's.
    pub fn of(
        release: &Release,
        runs_table: &str,
        conn: &Connection,
    ) -> Result<Option<Arc<RunPlaces>>, ApiError> {
        let kept = release
            .kept
            .get_or_make(|| RunPlaces::read(runs_table, conn))?;
        Ok((kept.table == runs_table).then_some(kept))
    }

    fn read(table: &str, conn: &Connection) -> Result<RunPlaces, ApiError> {
        let sql = format!(
            "SELECT first_id, last_id, CAST(NULLIF({LONGITUDE}, '') AS REAL), \
             CAST(NULLIF({LATITUDE}, '') AS REAL) FROM {table} WHERE {PLACE_KEY} IS NOT NULL"
        );
        let mut stmt = conn.prepare(&sql)?;
        let rows = stmt.query_map([], |r| {
            let at: (Option<f64>, Option<f64>) = (r.get(2)?, r.get(3)?);
            Ok(match at {
                (Some(x), Some(y)) => Some(RunPoint::new([x, y], (r.get(0)?, r.get(1)?))),
                _ => None, // a NULL is in no box
            })
        })?;
        let mut points = Vec::new();
        for point in rows {
            points.extend(point?);
        }
        Ok(RunPlaces {
            table: table.to_string(),
            tree: RTree::bulk_load(points),
        })
    }

    /// The runs whose point is in the box from `min` to `max` (edges included; `min` below
    /// `max` on both axes), in id order.
    pub fn in_box(&self, min: [f64; 2], max: [f64; 2]) -> Vec<RunIds> {
        let inside = |[x, y]: [f64; 2]| min[0] <= x && x <= max[0] && min[1] <= y && y <= max[1];
        let mut found: Vec<RunIds> = (self.tree)
            .locate_in_envelope(&AABB::from_corners(min, max))
            .filter(|p| inside(*p.geom()))
            .map(|p| p.data)
            .collect();
        found.sort_unstable();
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runs_in_a_box_edges_included_in_id_order() {
        let db = Connection::open_in_memory().unwrap();
        db.execute_batch(
            "CREATE TABLE runs (first_id INTEGER PRIMARY KEY, last_id INTEGER, \
               count_point_id INTEGER, longitude TEXT, latitude TEXT);
             INSERT INTO runs VALUES (30, 31, 7, '-1.5', '52.5'), (1, 4, 7, '-1.0', '52.0'), \
               (10, 12, 8, '-1.25', '52.25'), (20, 20, 8, '', '52.3'), \
               (40, 45, 9, NULL, NULL), (50, 50, 9, '-0.99', '52.0'), \
               (60, 61, NULL, '-1.25', '52.25');",
        )
        .unwrap();
        let places = RunPlaces::read("runs", &db).unwrap();
        assert_eq!(
            places.in_box([-1.5, 52.0], [-1.0, 52.5]),
            [(1, 4), (10, 12), (30, 31)]
        );
        assert_eq!(places.in_box([-1.2, 52.0], [-1.0, 52.2]), [(1, 4)]);
        assert_eq!(places.in_box([10.0, 10.0], [11.0, 11.0]), []);
    }
}
