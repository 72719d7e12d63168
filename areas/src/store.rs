//! A set in the mirror's SQLite file. The tables are made by `areas add` (and carried by every
//! load), outside the catalogue's schema: a file without them has no sets.
//!
//! - `area_sets`: one row a set (`name`, `source`, `sha256`, `features`, `crs`, `added_at`);
//! - `areas`: one row an area (`set_name`, `id`, `name`, its bounds `min_x`, `min_y`, `max_x`,
//!   `max_y` in the set's CRS, `geometry` as WKB in the set's CRS), in the file's order;
//! - `area_count_points`: the file's release's count points in each area (`set_name`,
//!   `area_id`, `count_point_id`), as [`crate::Membership`] assigns them.

use rusqlite::Connection;

use crate::AreaSet;

/// A set as listed: what `/api/areas` and `areas list` say of it.
#[derive(Debug, Clone, PartialEq)]
pub struct SetInfo {
    pub name: String,
    pub source: String,
    pub sha256: String,
    pub features: i64,
    pub crs: crate::SetCrs,
    pub added_at: String,
}

/// The tables, if not there yet.
pub fn create_tables(conn: &Connection) -> rusqlite::Result<()> {
    let _ = conn;
    unimplemented!("issue 35: the areas crate's store")
}

/// Writes a set (replacing none: a name already stored is the caller's to refuse).
pub fn write_set(conn: &Connection, set: &AreaSet, added_at: &str) -> rusqlite::Result<()> {
    let _ = (conn, set, added_at);
    unimplemented!("issue 35: the areas crate's store")
}

/// The sets stored, by name; none when the file has no area tables.
pub fn list_sets(conn: &Connection) -> rusqlite::Result<Vec<SetInfo>> {
    let _ = conn;
    unimplemented!("issue 35: the areas crate's store")
}

/// A set with its areas, if stored.
pub fn read_set(conn: &Connection, name: &str) -> rusqlite::Result<Option<AreaSet>> {
    let _ = (conn, name);
    unimplemented!("issue 35: the areas crate's store")
}

/// Drops a set, its areas and its count points; whether it was there.
pub fn drop_set(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    let _ = (conn, name);
    unimplemented!("issue 35: the areas crate's store")
}
