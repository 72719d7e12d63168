//! What a count point's page shows: its details, the count points nearest it, its AADF by
//! year (with the count method) and by direction, its raw counts by count day and hour, and
//! what the release shown revised of its AADF since the kept release before it.

use roadtraffic_catalog::places::{Places, EASTING, INDEX_TABLE, NORTHING, PLACE_KEY};
use roadtraffic_catalog::{AADF, AADF_BY_DIRECTION, COUNT_POINTS, DIRECTIONS, RAW_COUNTS};

use crate::error::ApiError;
use crate::site::format::aadf_groups;
use crate::site::pages::query::{long, revisions, wide_in, Column, Columns, Revised};
use crate::site::View;

/// The count point's own columns, as read for its details.
pub struct Site {
    pub region_id: i64,
    pub local_authority_id: i64,
    pub road_name: String,
    pub road_category: String,
    pub road_type: String,
    pub start_junction: String,
    pub end_junction: String,
    pub easting: Option<i64>,
    pub northing: Option<i64>,
    pub latitude: String,
    pub longitude: String,
    pub link_km: String,
    pub link_miles: String,
}

impl Site {
    /// Its latitude and longitude, when both are numbers.
    pub fn coordinates(&self) -> Option<(f64, f64)> {
        self.latitude.parse().ok().zip(self.longitude.parse().ok())
    }

    /// Its easting and northing, when it has both.
    pub fn grid(&self) -> Option<(i64, i64)> {
        self.easting.zip(self.northing)
    }
}

/// How far, and how many, the nearby count points are looked for.
pub const NEARBY_METRES: i64 = 10_000;
pub const NEARBY_COUNT: i64 = 10;

/// Another count point near this one.
pub struct Neighbour {
    pub id: i64,
    pub road_name: String,
    pub road_category: Option<String>,
    pub road_type: Option<String>,
    /// Straight-line distance on the National Grid (eastings and northings), in metres.
    pub metres: f64,
}

/// The count point's numbers, each drawn as charts and tables on its page.
pub struct Counts {
    pub aadf: Aadf,
    /// All motor vehicles by year, a column per direction of travel.
    pub by_direction: Columns,
    /// Latest first.
    pub count_days: Vec<CountDay>,
}

/// AADF by year, a column per vehicle group, and the count method of each year.
pub struct Aadf {
    pub by_vehicle: Columns,
    pub methods: Vec<String>,
}

/// What the release shown changed of the count point's AADF since the kept release before it.
pub struct Revisions {
    pub shown: String,
    pub previous: String,
    pub against: Against,
}

pub enum Against {
    /// The previous release does not have the count point.
    New,
    /// It does: the figures revised (each with the value it replaced) and the years added.
    Known {
        revised: Vec<Revised>,
        new_years: Vec<i64>,
    },
}

/// The raw counts of one count day: all motor vehicles by hour, a column per direction.
pub struct CountDay {
    pub date: String,
    pub by_hour: Columns,
}

/// The count point's details from the count points table or, for a file loaded without its
/// count point (raw counts alone), from its latest raw count, which carries the same columns.
pub fn site(view: &View, id: i64) -> Result<Option<Site>, ApiError> {
    const COLUMNS: &str = "region_id, local_authority_id, road_name, road_category, road_type, \
         start_junction_road_name, end_junction_road_name, easting, northing, latitude, \
         longitude, link_length_km, link_length_miles";
    let listed = format!(
        "SELECT {COLUMNS} FROM {} WHERE count_point_id = ?1",
        COUNT_POINTS.table
    );
    if let Some(site) = site_from(view, &listed, id)? {
        return Ok(Some(site));
    }
    let runs = RAW_COUNTS.runs_table().unwrap_or_default();
    let counted = format!(
        "SELECT {} FROM {runs} u JOIN {} r ON r.id BETWEEN u.first_id AND u.last_id \
         WHERE u.count_point_id = ?1 ORDER BY u.first_id DESC LIMIT 1",
        COLUMNS
            .split(", ")
            .map(|c| format!("r.{}", c.trim()))
            .collect::<Vec<_>>()
            .join(", "),
        RAW_COUNTS.table
    );
    site_from(view, &counted, id)
}

fn site_from(view: &View, sql: &str, id: i64) -> Result<Option<Site>, ApiError> {
    let text = |r: &rusqlite::Row, i| -> rusqlite::Result<String> {
        Ok(r.get::<_, Option<String>>(i)?.unwrap_or_default())
    };
    let mut stmt = view.conn.prepare(sql)?;
    let mut rows = stmt.query_map([id], |r| {
        Ok(Site {
            region_id: r.get(0)?,
            local_authority_id: r.get(1)?,
            road_name: text(r, 2)?,
            road_category: text(r, 3)?,
            road_type: text(r, 4)?,
            start_junction: text(r, 5)?,
            end_junction: text(r, 6)?,
            easting: r.get(7)?,
            northing: r.get(8)?,
            latitude: text(r, 9)?,
            longitude: text(r, 10)?,
            link_km: text(r, 11)?,
            link_miles: text(r, 12)?,
        })
    })?;
    Ok(rows.next().transpose()?)
}

/// The [`NEARBY_COUNT`] count points nearest `(easting, northing)` within [`NEARBY_METRES`],
/// `id` left out: nearest first, ties by id. The R*Tree of the count points' places gives
/// those in the square around it, then each is read by rowid (a count point's key is its id,
/// and its one row one place); `CROSS JOIN` keeps that order whatever the statistics say of
/// a small table, so no query scans it. Distances are squared in whole metres, so ties are
/// exact.
pub fn nearby(view: &View, id: i64, (e, n): (i64, i64)) -> Result<Vec<Neighbour>, ApiError> {
    let mut stmt = view.conn.prepare(&nearby_sql())?;
    let rows = stmt.query_map([id, e, n, NEARBY_METRES, NEARBY_COUNT], |r| {
        Ok(Neighbour {
            id: r.get(0)?,
            road_name: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
            road_category: r.get(2)?,
            road_type: r.get(3)?,
            metres: (r.get::<_, i64>(4)? as f64).sqrt(),
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The statement of [`nearby`]: `?1` the count point, `?2, ?3` its easting and northing, `?4`
/// the radius, `?5` how many. The index holds each count point at every place any dataset gives
/// it, so its count points are taken once each.
fn nearby_sql() -> String {
    let places = Places::of(&COUNT_POINTS).expect("count points have places");
    debug_assert!(places.key_is_id());
    format!(
        "SELECT c.id, c.road_name, c.road_category, c.road_type, \
           (c.{EASTING} - ?2) * (c.{EASTING} - ?2) + (c.{NORTHING} - ?3) * (c.{NORTHING} - ?3) AS d2 \
         FROM (SELECT DISTINCT {PLACE_KEY} FROM {INDEX_TABLE} \
               WHERE max_e >= ?2 - ?4 AND min_e <= ?2 + ?4 AND max_n >= ?3 - ?4 AND min_n <= ?3 + ?4) p \
         CROSS JOIN {table} c ON c.id = p.{PLACE_KEY} \
         WHERE c.id <> ?1 AND d2 <= ?4 * ?4 \
         ORDER BY d2, c.id LIMIT ?5",
        table = COUNT_POINTS.table,
    )
}

/// AADF by year, and each year's count method: the detailed one when the file gives it.
pub fn aadf(view: &View, id: i64) -> Result<Aadf, ApiError> {
    let by_vehicle = aadf_by_vehicle(view.conn, id)?;
    let sql = format!(
        "SELECT estimation_method, estimation_method_detailed FROM {} \
         WHERE count_point_id = ?1 ORDER BY year",
        AADF.table
    );
    let mut stmt = view.conn.prepare(&sql)?;
    let methods = stmt
        .query_map([id], |r| {
            let method: Option<String> = r.get(0)?;
            let detailed: Option<String> = r.get(1)?;
            Ok(detailed
                .filter(|d| !d.is_empty())
                .or(method)
                .unwrap_or_default())
        })?
        .collect::<Result<_, _>>()?;
    Ok(Aadf {
        by_vehicle,
        methods,
    })
}

/// AADF by year, a column per vehicle group, in the release of `conn`.
fn aadf_by_vehicle(conn: &rusqlite::Connection, id: i64) -> Result<Columns, ApiError> {
    let sql = format!(
        "SELECT year, {} FROM {} WHERE count_point_id = ?1 ORDER BY year",
        aadf_groups().join(", "),
        AADF.table
    );
    wide_in(conn, &sql, &[&id], aadf_groups())
}

/// What the release shown revised of the count point's AADF (`now`): read from the kept
/// release before it, the same query; `None` when there is none (the oldest kept, or a file
/// without a name).
pub fn revised(view: &View, id: i64, now: &Columns) -> Result<Option<Revisions>, ApiError> {
    let Some(compared) = &view.compared else {
        return Ok(None);
    };
    let (_release, conn) = compared.open()?;
    let before = aadf_by_vehicle(&conn, id)?;
    let known = !before.xs.is_empty() || has_count_point(&conn, id)?;
    let against = match known {
        false => Against::New,
        true => {
            let (revised, new_years) = revisions(now, &before);
            Against::Known { revised, new_years }
        }
    };
    Ok(Some(Revisions {
        shown: compared.shown.to_string(),
        previous: compared.previous.to_string(),
        against,
    }))
}

/// Whether the release of `conn` has the count point: listed, or counted (raw counts alone).
fn has_count_point(conn: &rusqlite::Connection, id: i64) -> Result<bool, ApiError> {
    let sql = format!(
        "SELECT EXISTS (SELECT 1 FROM {} WHERE count_point_id = ?1) \
         OR EXISTS (SELECT 1 FROM {} WHERE count_point_id = ?1)",
        COUNT_POINTS.table,
        RAW_COUNTS.runs_table().unwrap_or_default()
    );
    Ok(conn.query_row(&sql, [id], |r| r.get(0))?)
}

pub fn by_direction(view: &View, id: i64) -> Result<Columns, ApiError> {
    let sql = format!(
        "SELECT year, direction_of_travel, all_motor_vehicles FROM {} \
         WHERE count_point_id = ?1 ORDER BY year",
        AADF_BY_DIRECTION.table
    );
    long(view, &sql, &[&id], DIRECTIONS)
}

/// One raw count: its hour, its direction, its motor vehicles.
type HourCount = (i64, String, Option<f64>);

/// The raw counts, one count day each, latest first.
pub fn count_days(view: &View, id: i64) -> Result<Vec<CountDay>, ApiError> {
    let runs = RAW_COUNTS.runs_table().unwrap_or_default();
    let sql = format!(
        "SELECT r.count_date, r.hour, r.direction_of_travel, r.all_motor_vehicles \
         FROM {runs} u JOIN {} r ON r.id BETWEEN u.first_id AND u.last_id \
         WHERE u.count_point_id = ?1 ORDER BY r.count_date DESC, r.hour, r.direction_of_travel",
        RAW_COUNTS.table
    );
    let mut stmt = view.conn.prepare(&sql)?;
    let mut days: Vec<(String, Vec<HourCount>)> = Vec::new();
    let mut rows = stmt.query([id])?;
    while let Some(r) = rows.next()? {
        let date: String = r.get(0)?;
        let cell = (
            r.get(1)?,
            r.get::<_, Option<String>>(2)?.unwrap_or_default(),
            r.get(3)?,
        );
        match days.last_mut() {
            Some((d, cells)) if *d == date => cells.push(cell),
            _ => days.push((date, vec![cell])),
        }
    }
    let days = days.into_iter().map(|(date, cells)| CountDay {
        date,
        by_hour: by_hour(&cells),
    });
    Ok(days.collect())
}

/// A day's raw counts (by hour, then direction) as columns by hour: one per direction met, in
/// the catalogue's order of directions and then in the order met.
fn by_hour(cells: &[HourCount]) -> Columns {
    let mut hours: Vec<i64> = cells.iter().map(|c| c.0).collect();
    hours.dedup();
    let mut keys: Vec<&str> = DIRECTIONS.to_vec();
    keys.retain(|k| cells.iter().any(|c| c.1 == *k));
    for c in cells {
        if !keys.contains(&c.1.as_str()) {
            keys.push(&c.1);
        }
    }
    let columns = keys
        .iter()
        .map(|k| Column {
            key: (*k).to_string(),
            values: hours
                .iter()
                .map(|h| {
                    cells
                        .iter()
                        .find(|c| c.0 == *h && c.1 == *k)
                        .and_then(|c| c.2)
                })
                .collect(),
        })
        .collect();
    Columns { xs: hours, columns }
}

#[cfg(test)]
mod tests {
    use super::*;
    use roadtraffic_catalog::schema;

    /// The nearby count points are found through the R*Tree and read by rowid, on a file as
    /// the loader leaves it (indexes, statistics): no step of the plan scans a table.
    #[test]
    fn the_nearby_count_points_are_found_without_a_scan() {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch(&schema::create_table(&COUNT_POINTS))
            .unwrap();
        for ddl in schema::create_indexes(&COUNT_POINTS) {
            db.execute_batch(&ddl).unwrap();
        }
        let insert = "INSERT INTO count_points (id, count_point_id, road_name, easting, northing) \
                      VALUES (?1, ?1, 'A1', ?2, ?3)";
        for i in 0..50 {
            db.execute(insert, [i, 400_000 + 300 * i, 300_000]).unwrap();
        }
        db.execute_batch(roadtraffic_catalog::places::CREATE_INDEX)
            .unwrap();
        for i in 0..50 {
            let place = rusqlite::params![-2.0, 52.0, 400_000 + 300 * i, 300_000, i];
            db.execute(roadtraffic_catalog::places::INSERT_PLACE, place)
                .unwrap();
        }
        db.execute_batch("ANALYZE").unwrap();
        let plan: Vec<String> = db
            .prepare(&format!("EXPLAIN QUERY PLAN {}", nearby_sql()))
            .unwrap()
            .query_map([1, 400_300, 300_000, NEARBY_METRES, NEARBY_COUNT], |r| {
                r.get(3)
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        // The R*Tree's own search gives `p`, and each of `c`, the count points, is read by
        // rowid: nothing scans a table.
        let all = plan.join("\n");
        assert!(all.contains("SCAN places VIRTUAL TABLE INDEX"), "{all}");
        assert!(all.contains("SEARCH c USING INTEGER PRIMARY KEY"), "{all}");
        assert!(!all.contains("SCAN c"), "{all}");
        let ids: Vec<i64> = db
            .prepare(&nearby_sql())
            .unwrap()
            .query_map([1, 400_300, 300_000, 1_000, NEARBY_COUNT], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            ids,
            [0, 2, 3, 4],
            "nearest first, ties by id, itself left out"
        );
    }
}
