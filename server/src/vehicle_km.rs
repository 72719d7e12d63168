//! The AADF vehicle-km of areas, as the site's area pages and OGC's area collections show
//! them: for one area by year, and for every area of a set in one year. DfT's own measure
//! for major-road traffic (the catalogue's derived measure `vehicle_km`: each AADF record's
//! `all_motor_vehicles` x `link_length_km` x the days of its year), summed exactly in
//! thousandths over the records of the count points each area holds, as the summary's
//! `sum=vehicle_km` with `filter[area]` (or `group_by=area:{set}`) adds them: a record of a
//! count point in two areas (on a shared edge) counts in each.

use std::collections::HashMap;

use roadtraffic_catalog::totals::{DerivedMeasure, DERIVED_SCALE};
use roadtraffic_catalog::AADF;

use crate::areas::{SetMembers, StoredSet};
use crate::error::ApiError;

/// The measure's name in the summaries and in OGC's properties.
pub const VEHICLE_KM: &str = "vehicle_km";

fn measure() -> Result<&'static DerivedMeasure, ApiError> {
    AADF.derived_measures()
        .find(|m| m.name == VEHICLE_KM)
        .ok_or_else(|| ApiError::internal("AADF has no vehicle-km"))
}

/// Thousandths of a vehicle-km as vehicle-km.
pub fn km(thousandths: i64) -> f64 {
    thousandths as f64 / DERIVED_SCALE as f64
}

/// One year's figures of an area.
#[derive(Debug, Clone, PartialEq)]
pub struct Year {
    pub year: i64,
    /// The AADF records counted.
    pub records: i64,
    /// Their vehicle-km in thousandths; `None` where no record has a link length.
    pub thousandths: Option<i64>,
}

/// The vehicle-km of the count points `count_points` (a JSON array of ids) by year, in year
/// order.
pub fn by_year(conn: &rusqlite::Connection, count_points: &str) -> Result<Vec<Year>, ApiError> {
    let sql = format!(
        "SELECT year, count(*), sum({}) FROM {} r \
         WHERE count_point_id IN (SELECT value FROM json_each(?1)) AND year IS NOT NULL \
         GROUP BY year ORDER BY year",
        measure()?.thousandths_sql("r"),
        AADF.table
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([count_points], |r| {
        Ok(Year {
            year: r.get(0)?,
            records: r.get(1)?,
            thousandths: r.get(2)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The latest year of AADF in the release, if it has any.
pub fn latest_year(conn: &rusqlite::Connection) -> Result<Option<i64>, ApiError> {
    let sql = format!("SELECT max(year) FROM {}", AADF.table);
    Ok(conn.query_row(&sql, [], |r| r.get(0))?)
}

/// Each count point's vehicle-km in `year`, in thousandths (those with no record that year
/// are absent, those whose records have no link length `None`).
pub fn of_count_points(
    conn: &rusqlite::Connection,
    year: i64,
) -> Result<HashMap<i64, Option<i64>>, ApiError> {
    let sql = format!(
        "SELECT count_point_id, sum({}) FROM {} r WHERE year = ?1 GROUP BY count_point_id",
        measure()?.thousandths_sql("r"),
        AADF.table
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([year], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The vehicle-km of an area holding `members` in the year of `by_point` (from
/// [`of_count_points`]): `None` when none of them has a figure that year.
pub fn of_area(members: &[i64], by_point: &HashMap<i64, Option<i64>>) -> Option<i64> {
    let figures = members
        .iter()
        .filter_map(|id| by_point.get(id).copied().flatten());
    figures.fold(None, |sum, v| Some(sum.unwrap_or(0) + v))
}

/// The release's latest year of AADF and each area's vehicle-km that year (in thousandths,
/// by the area's index).
pub struct Latest {
    pub year: Option<i64>,
    pub by_area: Vec<Option<i64>>,
}

impl Latest {
    pub fn of(
        conn: &rusqlite::Connection,
        set: &StoredSet,
        members: &SetMembers,
    ) -> Result<Latest, ApiError> {
        let Some(year) = latest_year(conn)? else {
            let by_area = vec![None; set.areas().len()];
            return Ok(Latest {
                year: None,
                by_area,
            });
        };
        let by_point: HashMap<i64, Option<i64>> = of_count_points(conn, year)?;
        let by_area = (0..set.areas().len() as u32)
            .map(|i| of_area(members.membership.count_points_of(i), &by_point))
            .collect();
        Ok(Latest {
            year: Some(year),
            by_area,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_area_adds_its_count_points_figures() {
        let by_point = HashMap::from([(1, Some(1500)), (2, None), (3, Some(250))]);
        assert_eq!(of_area(&[1, 2, 3, 4], &by_point), Some(1750));
        assert_eq!(of_area(&[2, 4], &by_point), None);
        assert_eq!(of_area(&[], &by_point), None);
        assert_eq!(km(1750), 1.75);
    }

    #[test]
    fn by_year_sums_the_records_of_the_count_points() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(&format!(
            "CREATE TABLE {} (count_point_id INTEGER, year INTEGER, all_motor_vehicles INTEGER, \
             link_length_km TEXT); INSERT INTO {0} VALUES (1, 2019, 100, '1.50'), \
             (2, 2019, 10, '0.25'), (3, 2019, 5, '9'), (1, 2020, 100, '')",
            AADF.table
        ))
        .unwrap();
        let years = by_year(&conn, "[1,2]").unwrap();
        // 2019: (100 x 1500 + 10 x 250) x 365 thousandths; 2020: no length.
        assert_eq!(
            years,
            [
                Year {
                    year: 2019,
                    records: 2,
                    thousandths: Some(152_500 * 365)
                },
                Year {
                    year: 2020,
                    records: 1,
                    thousandths: None
                }
            ]
        );
        assert_eq!(latest_year(&conn).unwrap(), Some(2020));
        let points = of_count_points(&conn, 2019).unwrap();
        assert_eq!(points[&3], Some(5 * 9000 * 365));
    }
}
