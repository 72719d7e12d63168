//! Where the records of a dataset are: the catalogue's view of their coordinates, and the
//! spatial index the loader builds of them so that a box or a radius never scans a table.
//!
//! The index of a dataset is an R*Tree (`<table>_places`) of its distinct places: each count
//! point at each position the rows give it (longitude and latitude, easting and northing),
//! tens of thousands of entries rather than one per row. A query finds the count points in its
//! area there, seeks their rows by the count point index, then checks each row's own
//! coordinates exactly: rows of one count point that disagree on where it is are each judged
//! on their own values, and the R*Tree's 32-bit bounds (rounded outwards) only widen the
//! candidates.

use crate::Dataset;

/// The column that names a place: the count point (the id of a count point record).
pub const PLACE_KEY: &str = "count_point_id";

/// The coordinate columns, as the records name them.
pub const LONGITUDE: &str = "longitude";
pub const LATITUDE: &str = "latitude";
pub const EASTING: &str = "easting";
pub const NORTHING: &str = "northing";

/// A coordinate no real place has: where a row lacks a pair of coordinates, its index entry
/// sits here in those dimensions, outside any area a query can ask.
const NOWHERE: &str = "1e9";

/// Where a dataset's rows keep their coordinates.
#[derive(Debug, Clone, Copy)]
pub struct Places {
    pub dataset: &'static Dataset,
    /// The coordinates are run columns, read from the runs table (raw counts).
    pub in_runs: bool,
}

impl Places {
    /// The dataset's places, if its records have coordinates and a count point.
    pub fn of(d: &'static Dataset) -> Option<Places> {
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

    /// The R*Tree of the dataset's distinct places.
    pub fn index_table(&self) -> String {
        format!("{}_places", self.dataset.table)
    }

    /// The table whose rows hold the coordinates: the dataset's, or its runs table.
    pub fn source_table(&self) -> String {
        match self.in_runs {
            true => self
                .dataset
                .runs_table()
                .expect("run columns have a runs table"),
            false => self.dataset.table.to_string(),
        }
    }

    /// Whether the count point key is the row's id (count points), so that a seek by it is a
    /// rowid lookup.
    pub fn key_is_id(&self) -> bool {
        self.dataset.id_column() == Some(PLACE_KEY)
    }

    /// The statements that create the index and fill it from the loaded rows.
    pub fn create_index(&self) -> Vec<String> {
        let index = self.index_table();
        let real = |c: &str| format!("CAST(NULLIF({c}, '') AS REAL)");
        let pair = |x: &str, y: &str| {
            let both = format!("{x} IS NOT NULL AND {y} IS NOT NULL");
            [x, y].map(|c| format!("CASE WHEN {both} THEN {c} ELSE {NOWHERE} END"))
        };
        let [lon, lat] = pair(&real(LONGITUDE), &real(LATITUDE));
        let [e, n] = pair(EASTING, NORTHING);
        vec![
            format!(
                "CREATE VIRTUAL TABLE {index} USING rtree(id, min_lon, max_lon, min_lat, \
                 max_lat, min_e, max_e, min_n, max_n, +{PLACE_KEY} INTEGER)"
            ),
            format!(
                "INSERT INTO {index} (min_lon, max_lon, min_lat, max_lat, min_e, max_e, min_n, \
                 max_n, {PLACE_KEY}) SELECT lon, lon, lat, lat, e, e, n, n, {PLACE_KEY} FROM \
                 (SELECT DISTINCT {lon} AS lon, {lat} AS lat, {e} AS e, {n} AS n, {PLACE_KEY} \
                 FROM {} WHERE {PLACE_KEY} IS NOT NULL) WHERE lon <> {NOWHERE} OR e <> {NOWHERE}",
                self.source_table()
            ),
        ]
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
        let raw = Places::of(&crate::RAW_COUNTS).unwrap();
        assert!(raw.in_runs);
        assert_eq!(raw.source_table(), "raw_counts_runs");
        assert!(Places::of(&crate::COUNT_POINTS).unwrap().key_is_id());
    }

    #[test]
    fn the_index_is_built_of_distinct_places_and_skips_rows_without_any() {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        // The columns the index reads, as `schema` makes them.
        db.execute_batch(
            "CREATE TABLE count_points (id INTEGER PRIMARY KEY, count_point_id INTEGER, \
             easting INTEGER, northing INTEGER, latitude TEXT, longitude TEXT)",
        )
        .unwrap();
        let insert = "INSERT INTO count_points (id, count_point_id, easting, northing, latitude, \
                      longitude) VALUES (?1, ?1, ?2, ?3, ?4, ?5)";
        type Row<'a> = (
            i64,
            Option<i64>,
            Option<i64>,
            Option<&'a str>,
            Option<&'a str>,
        );
        let rows: [Row; 4] = [
            (1, Some(400000), Some(300000), Some("52.5"), Some("-2.0")),
            (2, None, None, Some("51.5"), Some("-0.1")),
            (3, Some(500000), Some(200000), None, Some("1.0")),
            (4, None, None, None, None),
        ];
        for r in rows {
            db.execute(insert, rusqlite::params![r.0, r.1, r.2, r.3, r.4])
                .unwrap();
        }
        for s in Places::of(&crate::COUNT_POINTS).unwrap().create_index() {
            db.execute_batch(&s).unwrap();
        }
        let entries: Vec<(i64, f64, f64)> = db
            .prepare("SELECT count_point_id, min_lon, min_e FROM count_points_places ORDER BY 1")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            entries,
            [
                (1, -2.0, 400000.0),
                (2, -0.1f32 as f64, 1e9),
                (3, 1e9, 500000.0)
            ]
        );
    }
}
