//! What a local authority's page shows: its traffic by year with its road length, and a page of
//! its count points with their latest AADF.

use roadtraffic_catalog::{COUNT_POINTS, LOCAL_AUTHORITY_TRAFFIC};

use crate::error::ApiError;
use crate::site::pages::query::{count_point_rows, wide, Columns, PointRow};
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
    count_point_rows(view, ("local_authority_id = ?1", &id), page, PER_PAGE)
}
