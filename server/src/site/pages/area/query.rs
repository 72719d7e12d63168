//! What the area pages show: the sets as stored, a set's areas with their count points and
//! latest vehicle-km, and of one area its count points (a page of them, with their latest
//! AADF) and its vehicle-km by year. The areas are the latest file's sets; what they hold is
//! the release shown's (`AreasOf`).

use std::sync::Arc;

use roadtraffic_catalog::COUNT_POINTS;

use crate::areas::{AreasOf, SetMembers, StoredSet};
use crate::error::ApiError;
use crate::site::pages::query::{count_point_rows, Column, Columns, PointRow};
use crate::site::View;
use crate::vehicle_km::{self, Latest, VEHICLE_KM};

/// Count points a page of an area's table, and areas a page of a set's.
pub const PER_PAGE: i64 = 50;
pub const AREAS_PER_PAGE: i64 = 200;

/// A set as listed.
pub struct SetRow {
    pub name: String,
    pub areas: usize,
    pub source: String,
    pub sha256: String,
}

/// An area of a set's table.
pub struct AreaRow {
    pub id: String,
    pub name: String,
    pub count_points: usize,
    /// In the latest year, in thousandths.
    pub vehicle_km: Option<i64>,
}

/// A set's areas, A to Z by name (then id), with the latest year of AADF.
pub struct SetAreas {
    pub set: Arc<StoredSet>,
    pub rows: Vec<AreaRow>,
    pub year: Option<i64>,
}

/// An area: its set, its place in it, its count points (the release's, of any dataset) and
/// its vehicle-km by year.
pub struct AreaShown {
    pub set: Arc<StoredSet>,
    pub index: usize,
    /// The release's count points in it, of any dataset.
    pub members: usize,
    /// Those of them in the count points table (the listing's), and a page of them.
    pub listed: i64,
    pub points: Vec<PointRow>,
    pub years: Columns,
    /// The AADF records of each year, in the order of `years.xs`.
    pub records: Vec<i64>,
}

pub fn sets(areas: &AreasOf) -> Result<Vec<SetRow>, ApiError> {
    Ok((areas.sets()?.sets.iter())
        .map(|s| SetRow {
            name: s.info.name.clone(),
            areas: s.areas().len(),
            source: s.info.source.clone(),
            sha256: s.info.sha256.clone(),
        })
        .collect())
}

/// The set named so, or a 404.
pub fn set_named(areas: &AreasOf, name: &str) -> Result<Arc<StoredSet>, ApiError> {
    areas
        .set(name)?
        .ok_or_else(|| ApiError::NotFound(format!("areas/{name}")))
}

pub fn set_areas(view: &View, areas: &AreasOf, name: &str) -> Result<SetAreas, ApiError> {
    let set = set_named(areas, name)?;
    let members = areas.members(&set)?;
    let latest = Latest::of(view.conn, &set, &members)?;
    let mut rows: Vec<AreaRow> = (set.areas().iter().enumerate())
        .map(|(i, a)| AreaRow {
            id: a.id.clone(),
            name: a.name.clone(),
            count_points: members.counts[i],
            vehicle_km: latest.by_area[i],
        })
        .collect();
    rows.sort_by(|a, b| (a.name.to_lowercase(), &a.id).cmp(&(b.name.to_lowercase(), &b.id)));
    Ok(SetAreas {
        set,
        rows,
        year: latest.year,
    })
}

/// An area and page `page` (from 1, kept within range) of its count points.
pub fn area(
    view: &View,
    areas: &AreasOf,
    (name, id): (&str, &str),
    page: i64,
) -> Result<(AreaShown, i64), ApiError> {
    let set = set_named(areas, name)?;
    let index = (set.index_of(id))
        .ok_or_else(|| ApiError::NotFound(format!("areas/{name}/{id}")))? as usize;
    let members: Arc<SetMembers> = areas.members(&set)?;
    let ids = members.membership.count_points_of(index as u32);
    let json = serde_json::to_string(ids).map_err(ApiError::internal)?;
    let listed = listed(view, &json)?;
    let last = ((listed + PER_PAGE - 1) / PER_PAGE).max(1);
    let page = page.clamp(1, last);
    let years = vehicle_km::by_year(view.conn, &json)?;
    let values = (years.iter())
        .map(|y| y.thousandths.map(vehicle_km::km))
        .collect();
    let shown = AreaShown {
        points: count_points(view, &json, page)?,
        members: ids.len(),
        listed,
        records: years.iter().map(|y| y.records).collect(),
        years: Columns {
            xs: years.iter().map(|y| y.year).collect(),
            columns: vec![Column {
                key: VEHICLE_KM.to_string(),
                values,
            }],
        },
        set,
        index,
    };
    Ok((shown, page))
}

/// How many of the count points (a JSON array of ids) the count points table holds.
fn listed(view: &View, ids: &str) -> Result<i64, ApiError> {
    let sql = format!(
        "SELECT count(*) FROM {} WHERE count_point_id IN (SELECT value FROM json_each(?1))",
        COUNT_POINTS.table
    );
    Ok(view.conn.query_row(&sql, [ids], |r| r.get(0))?)
}

/// Page `page` (from 1) of the count points (a JSON array of ids), by road.
fn count_points(view: &View, ids: &str, page: i64) -> Result<Vec<PointRow>, ApiError> {
    let condition = "count_point_id IN (SELECT value FROM json_each(?1))";
    count_point_rows(view, (condition, &ids), page, PER_PAGE)
}
