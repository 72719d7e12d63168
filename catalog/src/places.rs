//! Where the records of a dataset are: the catalogue's view of their coordinates, and the
//! spatial index the loader builds of them so that a box or a radius never scans a table.
//!
//! The index is one R*Tree (`places`) of every distinct place the count data give: each count
//! point at each position any row gives it (longitude and latitude, easting and northing),
//! tens of thousands of entries rather than one per row, shared by every dataset with places.
//! A query finds the count points in its area there, seeks their rows by the count point
//! index, then checks each row's own coordinates exactly: rows of one count point that
//! disagree on where it is are each judged on their own values, and the R*Tree's 32-bit
//! bounds (rounded outwards) and the places of other datasets only widen the candidates.

use std::sync::OnceLock;

use crate::{Dataset, DATASETS};

/// The column that names a place: the count point (the id of a count point record).
pub const PLACE_KEY: &str = "count_point_id";

/// The coordinate columns, as the records name them.
pub const LONGITUDE: &str = "longitude";
pub const LATITUDE: &str = "latitude";
pub const EASTING: &str = "easting";
pub const NORTHING: &str = "northing";

/// The R*Tree of places (a table name: an interface, as every table's).
pub const INDEX_TABLE: &str = "places";

/// A coordinate no real place has: where a place lacks a pair of coordinates, its entry sits
/// here in those dimensions, outside any area a query can ask.
pub const NOWHERE: f64 = 1e9;

/// The index, empty.
pub const CREATE_INDEX: &str = "CREATE VIRTUAL TABLE places USING rtree(id, min_lon, max_lon, \
     min_lat, max_lat, min_e, max_e, min_n, max_n, +count_point_id INTEGER)";

/// One place into the index: longitude, latitude, easting, northing, count point.
pub const INSERT_PLACE: &str = "INSERT INTO places (min_lon, max_lon, min_lat, max_lat, min_e, \
     max_e, min_n, max_n, count_point_id) VALUES (?1, ?1, ?2, ?2, ?3, ?3, ?4, ?4, ?5)";

/// Where a dataset's rows keep their coordinates.
#[derive(Debug, Clone, Copy)]
pub struct Places {
    pub dataset: &'static Dataset,
    /// The coordinates are run columns, read from the runs table (raw counts).
    pub in_runs: bool,
}

impl Places {
    /// The dataset's places, if its records have coordinates and a count point. Asked on
    /// every request of a listing: the catalogue's datasets are looked at once, then found by
    /// address.
    pub fn of(d: &'static Dataset) -> Option<Places> {
        static KNOWN: OnceLock<Vec<Option<Places>>> = OnceLock::new();
        let known = KNOWN.get_or_init(|| DATASETS.iter().map(|d| Places::find(d)).collect());
        match DATASETS.iter().position(|k| std::ptr::eq(*k, d)) {
            Some(i) => known[i],
            None => Places::find(d),
        }
    }

    fn find(d: &'static Dataset) -> Option<Places> {
        let stored = |name| d.column(name).is_some_and(|c| c.stored);
        let has_all = [PLACE_KEY, LONGITUDE, LATITUDE, EASTING, NORTHING]
            .into_iter()
            .all(stored);
        let in_runs = d.run_columns.contains(&LONGITUDE);
        has_all.then_some(Places {
            dataset: d,
            in_runs,
        })
    }

    /// Whether the count point key is the row's id (count points), so that a seek by it is a
    /// rowid lookup.
    pub fn key_is_id(&self) -> bool {
        self.dataset.id_column() == Some(PLACE_KEY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DATASETS;

    #[test]
    fn the_count_data_have_places_and_the_area_tables_none() {
        let with: Vec<&str> = DATASETS
            .iter()
            .filter_map(|d| Places::of(d))
            .map(|p| p.dataset.table)
            .collect();
        assert_eq!(
            with,
            ["raw_counts", "aadf_by_direction", "aadf", "count_points"]
        );
        assert!(Places::of(&crate::RAW_COUNTS).unwrap().in_runs);
        assert!(Places::of(&crate::COUNT_POINTS).unwrap().key_is_id());
    }

    #[test]
    fn the_index_takes_places_and_finds_them_by_either_pair() {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch(CREATE_INDEX).unwrap();
        db.execute(
            INSERT_PLACE,
            rusqlite::params![-2.0, 52.5, 400000, 300000, 1],
        )
        .unwrap();
        db.execute(
            INSERT_PLACE,
            rusqlite::params![NOWHERE, NOWHERE, 500000, 200000, 3],
        )
        .unwrap();
        let find = |sql: &str| -> Vec<i64> {
            let mut stmt = db.prepare(sql).unwrap();
            let ids = stmt.query_map([], |r| r.get(0)).unwrap();
            ids.collect::<Result<_, _>>().unwrap()
        };
        let by_lon = "SELECT count_point_id FROM places WHERE max_lon >= -3 AND min_lon <= 3";
        assert_eq!(find(by_lon), [1]);
        let by_e = "SELECT count_point_id FROM places WHERE max_e >= 0 AND min_e <= 900000";
        assert_eq!(find(by_e), [1, 3]);
    }
}
