//! What the downloads page reads of the loaded file: the regions and local authorities whose
//! split files it links to.

use roadtraffic_catalog::{LOCAL_AUTHORITIES, REGIONS};

use crate::error::ApiError;

/// Each area table's ids and names, ordered by name.
pub struct AreaLists {
    pub regions: Vec<(i64, String)>,
    pub local_authorities: Vec<(i64, String)>,
}

impl AreaLists {
    pub fn read(conn: &rusqlite::Connection) -> Result<AreaLists, ApiError> {
        Ok(AreaLists {
            regions: areas(conn, REGIONS.table)?,
            local_authorities: areas(conn, LOCAL_AUTHORITIES.table)?,
        })
    }
}

/// Ids and names of an area table, ordered by name.
fn areas(conn: &rusqlite::Connection, table: &str) -> Result<Vec<(i64, String)>, ApiError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT id, coalesce(name, '') FROM {table} ORDER BY name, id"
    ))?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}
