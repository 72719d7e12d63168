//! A set in the mirror's SQLite file. The tables are made by `areas add` (and carried by every
//! load), outside the catalogue's schema: a file without them has no sets.
//!
//! - `area_sets`: one row a set (`name`, `source`, `sha256`, `features`, `crs`, `added_at`);
//! - `areas`: one row an area (`set_name`, `id`, `name`, its bounds `min_x`, `min_y`, `max_x`,
//!   `max_y` in the set's CRS, `geometry` as WKB in the set's CRS), in the file's order;
//! - `area_count_points`: the file's release's count points in each area (`set_name`,
//!   `area_id`, `count_point_id`), as [`crate::Membership`] assigns them.
//!
//! Every value is a bound parameter: ids and names are text, never SQL.

use geozero::{CoordDimensions, ToGeo, ToWkb};
use rusqlite::{params, Connection, OptionalExtension};

use crate::{Area, AreaSet, Membership, SetCrs};

/// The tables, as made (an interface: the server reads them).
pub const CREATE_TABLES: &str = "
CREATE TABLE IF NOT EXISTS area_sets (
    name TEXT PRIMARY KEY, source TEXT NOT NULL, sha256 TEXT NOT NULL,
    features INTEGER NOT NULL, crs TEXT NOT NULL, added_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS areas (
    set_name TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL,
    min_x REAL NOT NULL, min_y REAL NOT NULL, max_x REAL NOT NULL, max_y REAL NOT NULL,
    geometry BLOB NOT NULL, PRIMARY KEY (set_name, id));
CREATE TABLE IF NOT EXISTS area_count_points (
    set_name TEXT NOT NULL, area_id TEXT NOT NULL, count_point_id INTEGER NOT NULL,
    PRIMARY KEY (set_name, area_id, count_point_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS area_count_points_count_point
    ON area_count_points (set_name, count_point_id);
";

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
    conn.execute_batch(CREATE_TABLES)
}

/// Whether the file has the area tables.
pub fn has_tables(conn: &Connection) -> rusqlite::Result<bool> {
    crate::table_exists(conn, "area_sets")
}

/// Writes a set (replacing none: a name already stored is the caller's to refuse).
pub fn write_set(conn: &Connection, set: &AreaSet, added_at: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO area_sets (name, source, sha256, features, crs, added_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            set.name,
            set.source,
            set.sha256,
            set.areas.len() as i64,
            set.crs.code(),
            added_at
        ],
    )?;
    let mut insert = conn.prepare(
        "INSERT INTO areas (set_name, id, name, min_x, min_y, max_x, max_y, geometry) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for area in &set.areas {
        let [min_x, min_y, max_x, max_y] = area.bounds();
        insert.execute(params![
            set.name,
            area.id,
            area.name,
            min_x,
            min_y,
            max_x,
            max_y,
            wkb(area)
        ])?;
    }
    Ok(())
}

/// An area's boundary as WKB (a MultiPolygon, little-endian, x and y).
pub fn wkb(area: &Area) -> Vec<u8> {
    geo::Geometry::MultiPolygon(area.geometry.clone())
        .to_wkb(CoordDimensions::xy())
        .expect("a multipolygon writes as WKB")
}

/// Writes which count points each area of `set` holds.
pub fn write_membership(
    conn: &Connection,
    set: &AreaSet,
    membership: &Membership,
) -> rusqlite::Result<()> {
    let mut insert = conn.prepare(
        "INSERT INTO area_count_points (set_name, area_id, count_point_id) VALUES (?1, ?2, ?3)",
    )?;
    for &(area, count_point) in &membership.pairs {
        insert.execute(params![set.name, set.areas[area as usize].id, count_point])?;
    }
    Ok(())
}

/// Assigns the release's count points (`places`) to the set's areas, and writes them and the
/// set's totals by area; how many (area, count point) pairs there are.
pub fn write_count_points(
    conn: &Connection,
    set: &AreaSet,
    places: &[crate::Place],
) -> rusqlite::Result<usize> {
    let membership = Membership::assign(set, places);
    write_membership(conn, set, &membership)?;
    crate::totals::fill(conn, &set.name)?;
    Ok(membership.pairs.len())
}

/// The sets stored, by name; none when the file has no area tables.
pub fn list_sets(conn: &Connection) -> rusqlite::Result<Vec<SetInfo>> {
    if !has_tables(conn)? {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare(
        "SELECT name, source, sha256, features, crs, added_at FROM area_sets ORDER BY name",
    )?;
    let rows = stmt.query_map([], |r| {
        let crs: String = r.get(4)?;
        Ok(SetInfo {
            name: r.get(0)?,
            source: r.get(1)?,
            sha256: r.get(2)?,
            features: r.get(3)?,
            crs: SetCrs::from_code(&crs).ok_or_else(|| unknown_crs(4, &crs))?,
            added_at: r.get(5)?,
        })
    })?;
    rows.collect()
}

fn unknown_crs(column: usize, crs: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        column,
        rusqlite::types::Type::Text,
        format!("unknown CRS {crs:?}").into(),
    )
}

/// A set with its areas, if stored.
pub fn read_set(conn: &Connection, name: &str) -> rusqlite::Result<Option<AreaSet>> {
    if !has_tables(conn)? {
        return Ok(None);
    }
    let set = conn
        .query_row(
            "SELECT source, sha256, crs FROM area_sets WHERE name = ?1",
            [name],
            |r| Ok((r.get::<_, String>(0)?, r.get(1)?, r.get::<_, String>(2)?)),
        )
        .optional()?;
    let Some((source, sha256, crs)) = set else {
        return Ok(None);
    };
    let crs = SetCrs::from_code(&crs).ok_or_else(|| unknown_crs(2, &crs))?;
    let mut stmt =
        conn.prepare("SELECT id, name, geometry FROM areas WHERE set_name = ?1 ORDER BY rowid")?;
    let areas = stmt.query_map([name], |r| {
        let blob: Vec<u8> = r.get(2)?;
        Ok(Area {
            id: r.get(0)?,
            name: r.get(1)?,
            geometry: multipolygon_of(&blob).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(2, rusqlite::types::Type::Blob, e.into())
            })?,
        })
    })?;
    Ok(Some(AreaSet {
        name: name.to_string(),
        source,
        sha256,
        crs,
        areas: areas.collect::<rusqlite::Result<_>>()?,
    }))
}

/// A stored geometry (WKB) as a multipolygon.
pub fn multipolygon_of(wkb: &[u8]) -> Result<geo::MultiPolygon<f64>, String> {
    match geozero::wkb::Wkb(wkb).to_geo().map_err(|e| e.to_string())? {
        geo::Geometry::MultiPolygon(mp) => Ok(mp),
        geo::Geometry::Polygon(p) => Ok(geo::MultiPolygon(vec![p])),
        _ => Err("not a (multi)polygon".into()),
    }
}

/// Drops a set, its areas and its count points; whether it was there.
pub fn drop_set(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    if !has_tables(conn)? {
        return Ok(false);
    }
    let dropped = conn.execute("DELETE FROM area_sets WHERE name = ?1", [name])?;
    conn.execute("DELETE FROM areas WHERE set_name = ?1", [name])?;
    conn.execute("DELETE FROM area_count_points WHERE set_name = ?1", [name])?;
    crate::totals::forget(conn, name)?;
    Ok(dropped > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Place;

    fn set(name: &str) -> AreaSet {
        let square = geo::Rect::new(
            geo::coord! {x: -1.0, y: 52.0},
            geo::coord! {x: 0.0, y: 53.0},
        );
        let hole = geo::Rect::new(
            geo::coord! {x: -0.6, y: 52.4},
            geo::coord! {x: -0.4, y: 52.6},
        );
        let with_hole = geo::Polygon::new(
            square.to_polygon().exterior().clone(),
            vec![hole.to_polygon().exterior().clone()],
        );
        AreaSet {
            name: name.into(),
            source: "z.geojson".into(),
            sha256: "ab".repeat(32),
            crs: SetCrs::Crs84,
            areas: vec![Area {
                id: "x'); DROP TABLE areas; --".into(),
                name: "Zone \"1\"".into(),
                geometry: geo::MultiPolygon(vec![with_hole]),
            }],
        }
    }

    #[test]
    fn a_set_is_written_read_listed_and_dropped() {
        let conn = Connection::open_in_memory().unwrap();
        assert_eq!(list_sets(&conn).unwrap(), []);
        assert_eq!(read_set(&conn, "z").unwrap(), None);
        create_tables(&conn).unwrap();
        let z = set("z");
        write_set(&conn, &z, "2026-01-01T00:00:00Z").unwrap();
        let places = [Place {
            count_point_id: 5,
            longitude: Some(-0.9),
            latitude: Some(52.1),
            easting: None,
            northing: None,
        }];
        write_membership(&conn, &z, &Membership::assign(&z, &places)).unwrap();
        assert_eq!(read_set(&conn, "z").unwrap(), Some(z.clone()));
        let listed = list_sets(&conn).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(
            (
                listed[0].features,
                listed[0].crs,
                listed[0].added_at.as_str()
            ),
            (1, SetCrs::Crs84, "2026-01-01T00:00:00Z")
        );
        let bounds: (f64, f64, f64, f64) = conn
            .query_row("SELECT min_x, min_y, max_x, max_y FROM areas", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .unwrap();
        assert_eq!(bounds, (-1.0, 52.0, 0.0, 53.0));
        let member: String = conn
            .query_row("SELECT area_id FROM area_count_points", [], |r| r.get(0))
            .unwrap();
        assert_eq!(member, z.areas[0].id);
        assert!(drop_set(&conn, "z").unwrap());
        assert!(!drop_set(&conn, "z").unwrap());
        assert_eq!(list_sets(&conn).unwrap(), []);
        let left: i64 = conn
            .query_row(
                "SELECT (SELECT count(*) FROM areas) + (SELECT count(*) FROM area_count_points)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(left, 0);
    }
}
