//! What a local authority's page shows: its traffic by year with its road length, and a page of
//! its count points with their latest AADF.

use roadtraffic_catalog::{AADF, COUNT_POINTS, LOCAL_AUTHORITY_TRAFFIC};

use crate::error::ApiError;
use crate::site::pages::query::{wide, Columns};
use crate::site::View;

/// Count points a page of the table.
pub const PER_PAGE: i64 = 50;

/// The authority's traffic by year.
pub struct Traffic {
    /// Cars and taxis, and all motor vehicles, in vehicle miles.
    pub miles: Columns,
    /// The road length of each year, in km and in miles, in the order of `miles.xs`.
    pub lengths: Vec<(Option<f64>, Option<f64>)>,
}

/// A count point of the table, with its latest AADF.
pub struct PointRow {
    pub id: i64,
    pub road: Option<String>,
    pub category: Option<String>,
    pub road_type: Option<String>,
    pub aadf_year: Option<i64>,
    pub aadf: Option<f64>,
}

pub fn traffic(view: &View, id: i64) -> Result<Traffic, ApiError> {
    let columns = ["cars_and_taxis", "all_motor_vehicles"];
    let sql = format!(
        "SELECT year, {}, link_length_km, link_length_miles FROM {} \
         WHERE local_authority_id = ?1 ORDER BY year",
        columns.join(", "),
        LOCAL_AUTHORITY_TRAFFIC.table
    );
    let miles = wide(view, &sql, &[&id], &columns)?;
    // The lengths are a column of the table, not a series: the same rows, read again.
    let mut stmt = view.conn.prepare(&sql)?;
    let lengths = stmt
        .query_map([id], |r| Ok((r.get(3)?, r.get(4)?)))?
        .collect::<Result<_, _>>()?;
    Ok(Traffic { miles, lengths })
}

pub fn count_points_in(view: &View, id: i64) -> Result<i64, ApiError> {
    let sql = format!(
        "SELECT count(*) FROM {} WHERE local_authority_id = ?1",
        COUNT_POINTS.table
    );
    Ok(view.conn.query_row(&sql, [id], |r| r.get(0))?)
}

/// Page `page` (from 1) of the authority's count points, by road.
pub fn count_points(view: &View, id: i64, page: i64) -> Result<Vec<PointRow>, ApiError> {
    // The page of count points first, then their latest AADF: joining before the limit would
    // look up the AADF of every count point of the authority (thousands) for a page of 50.
    let sql = format!(
        "SELECT c.count_point_id, c.road_name, c.road_category, c.aadf_year, a.all_motor_vehicles, c.road_type \
         FROM (SELECT * FROM {} WHERE local_authority_id = ?1 \
               ORDER BY road_name, count_point_id LIMIT ?2 OFFSET ?3) c \
         LEFT JOIN {} a ON a.count_point_id = c.count_point_id AND a.year = c.aadf_year \
         ORDER BY c.road_name, c.count_point_id",
        COUNT_POINTS.table, AADF.table
    );
    let mut stmt = view.conn.prepare(&sql)?;
    let rows = stmt.query_map([id, PER_PAGE, (page - 1) * PER_PAGE], |r| {
        Ok(PointRow {
            category: r.get(2)?,
            road_type: r.get(5)?,
            id: r.get(0)?,
            road: r.get(1)?,
            aadf_year: r.get(3)?,
            aadf: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
