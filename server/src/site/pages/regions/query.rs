//! What the regions' pages show: each region's latest total, a region's traffic by vehicle
//! type and by road category, and its number of count points.

use std::collections::HashMap;

use roadtraffic_catalog::{
    COUNT_POINTS, REGION_TRAFFIC_BY_ROAD_TYPE, REGION_TRAFFIC_BY_VEHICLE_TYPE, ROAD_CATEGORY_CODES,
};

use crate::error::ApiError;
use crate::site::overview::regional_vehicle_columns;
use crate::site::pages::query::{long, wide, Columns};
use crate::site::View;

/// Each region's motor vehicle miles in the latest year of the regional table.
pub struct LatestTotals {
    pub year: Option<i64>,
    pub by_region: HashMap<i64, f64>,
}

/// A region's figures.
pub struct Region {
    /// Vehicle miles by year, a column per vehicle type.
    pub by_vehicle: Columns,
    /// Motor vehicle miles by year, a column per road category.
    pub by_road: Columns,
    pub count_points: i64,
}

pub fn latest_totals(view: &View) -> Result<LatestTotals, ApiError> {
    let table = REGION_TRAFFIC_BY_VEHICLE_TYPE.table;
    let sql = format!(
        "SELECT region_id, all_motor_vehicles, year FROM {table} \
         WHERE year = (SELECT max(year) FROM {table})"
    );
    let mut stmt = view.conn.prepare(&sql)?;
    let latest: HashMap<i64, (f64, i64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?
        .collect::<Result<_, _>>()?;
    Ok(LatestTotals {
        year: latest.values().map(|(_, y)| *y).next(),
        by_region: latest.into_iter().map(|(id, (v, _))| (id, v)).collect(),
    })
}

pub fn region(view: &View, id: i64) -> Result<Region, ApiError> {
    let columns = regional_vehicle_columns();
    let sql = format!(
        "SELECT year, {} FROM {} WHERE region_id = ?1 ORDER BY year",
        columns.join(", "),
        REGION_TRAFFIC_BY_VEHICLE_TYPE.table
    );
    let by_vehicle = wide(view, &sql, &[&id], &columns)?;
    let sql = format!(
        "SELECT year, road_category, all_motor_vehicles FROM {} WHERE region_id = ?1 ORDER BY year",
        REGION_TRAFFIC_BY_ROAD_TYPE.table
    );
    let by_road = long(view, &sql, &[&id], ROAD_CATEGORY_CODES)?;
    let count_points = view.conn.query_row(
        &format!(
            "SELECT count(*) FROM {} WHERE region_id = ?1",
            COUNT_POINTS.table
        ),
        [id],
        |r| r.get(0),
    )?;
    Ok(Region {
        by_vehicle,
        by_road,
        count_points,
    })
}
