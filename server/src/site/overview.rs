//! What the site learns once per loaded file and keeps with its release: the areas and their
//! names, the headline figures, the metadata, and the map's point data (encoded and gzipped
//! once, ~14 bytes a count point). Every page reads it; a new file gets a new summary.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

use roadtraffic_catalog::{
    Domain, COUNT_POINTS, LOCAL_AUTHORITIES, REGIONS, REGION_TRAFFIC_BY_VEHICLE_TYPE,
    ROAD_CATEGORIES,
};

use crate::error::ApiError;
use crate::release::Release;

/// The box the map covers, in degrees (west, south, east, north): Great Britain and its
/// islands, with Ireland and the near coast of France for context. The outline
/// (`assets/gb-outline.json`) is clipped to the same box.
pub const MAP_BOX: [f64; 4] = [-11.0, 49.6, 2.2, 61.0];

/// A region, local authority or country.
#[derive(Debug, Clone)]
pub struct AdminArea {
    pub id: i64,
    pub name: String,
    /// The region of a local authority, the country of a region.
    pub parent: Option<i64>,
}

/// The national figures of the latest year: vehicle miles by vehicle type, summed over the
/// regions of the regional table.
#[derive(Debug, Clone)]
pub struct Headline {
    pub year: i64,
    pub regions: i64,
    /// Per vehicle column of the regional table: its name, the latest year's total, and the
    /// year before's over the same regions (when the file has it).
    pub rows: Vec<(&'static str, f64, Option<f64>)>,
}

/// The map's point data, encoded once.
pub struct MapPoints {
    pub bytes: actix_web::web::Bytes,
    pub gzipped: actix_web::web::Bytes,
    /// Count points with coordinates inside [`MAP_BOX`].
    pub mapped: usize,
    /// Of those, major roads whose file gives no road category (the per-area splits).
    pub major_without_category: usize,
}

pub struct Overview {
    pub regions: Vec<AdminArea>,
    pub local_authorities: Vec<AdminArea>,
    pub headline: Option<Headline>,
    pub metadata: Vec<(String, String)>,
    pub count_points: usize,
    pub points: MapPoints,
}

impl Overview {
    pub fn region(&self, id: i64) -> Option<&AdminArea> {
        self.regions.iter().find(|a| a.id == id)
    }

    pub fn local_authority(&self, id: i64) -> Option<&AdminArea> {
        self.local_authorities.iter().find(|a| a.id == id)
    }

    /// A metadata value of the loaded file; `None` when absent or empty (a load without
    /// `--release` stores an empty label).
    pub fn metadata(&self, key: &str) -> Option<&str> {
        self.metadata
            .iter()
            .find(|(k, v)| k == key && !v.trim().is_empty())
            .map(|(_, v)| v.as_str())
    }

    /// The name of the map's point data for this release: it changes with every load, so it
    /// can be cached for ever.
    pub fn points_asset(release: &Release) -> String {
        format!("points-{}.bin", release.tag)
    }
}

/// The summary of a release, learnt on first use and kept with it (two requests may learn it
/// at once: the first kept wins, both are the same).
pub fn of(release: &Release, conn: &rusqlite::Connection) -> Result<Arc<Overview>, ApiError> {
    release.kept.get_or_make(|| {
        let started = std::time::Instant::now();
        let summary = learn(conn)?;
        log::info!(
            "site summary learnt in {} ms ({} count points, map data {} bytes, {} gzipped)",
            started.elapsed().as_millis(),
            summary.count_points,
            summary.points.bytes.len(),
            summary.points.gzipped.len()
        );
        Ok(summary)
    })
}

fn learn(conn: &rusqlite::Connection) -> Result<Overview, ApiError> {
    let (points, count_points) = map_points(conn)?;
    Ok(Overview {
        regions: areas(conn, REGIONS.table, "country_id")?,
        local_authorities: areas(conn, LOCAL_AUTHORITIES.table, "region_id")?,
        headline: headline(conn)?,
        metadata: conn
            .prepare("SELECT key, value FROM metadata ORDER BY key")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?,
        count_points,
        points,
    })
}

fn areas(
    conn: &rusqlite::Connection,
    table: &str,
    parent: &str,
) -> Result<Vec<AdminArea>, ApiError> {
    let sql = format!("SELECT id, name, {parent} FROM {table} ORDER BY name, id");
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([], |r| {
        Ok(AdminArea {
            id: r.get(0)?,
            name: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
            parent: r.get(2)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The vehicle columns of the regional table, as the catalogue declares them.
pub fn regional_vehicle_columns() -> Vec<&'static str> {
    REGION_TRAFFIC_BY_VEHICLE_TYPE
        .stored_columns()
        .filter(|c| c.domain == Domain::Count)
        .map(|c| c.name)
        .collect()
}

fn headline(conn: &rusqlite::Connection) -> Result<Option<Headline>, ApiError> {
    let table = REGION_TRAFFIC_BY_VEHICLE_TYPE.table;
    let latest: Option<i64> =
        conn.query_row(&format!("SELECT max(year) FROM {table}"), [], |r| r.get(0))?;
    let Some(year) = latest else { return Ok(None) };
    let columns = regional_vehicle_columns();
    let sums: Vec<String> = columns.iter().map(|c| format!("sum({c})")).collect();
    // The year before, over the regions of the latest year only: a like-for-like change.
    let sql = format!(
        "SELECT year, count(*), {} FROM {table} WHERE year IN (?1, ?1 - 1) \
         AND region_id IN (SELECT region_id FROM {table} WHERE year = ?1) GROUP BY year",
        sums.join(", ")
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut by_year: HashMap<i64, (i64, Vec<Option<f64>>)> = HashMap::new();
    let rows = stmt.query_map([year], |r| {
        let values = (0..columns.len())
            .map(|i| r.get::<_, Option<f64>>(i + 2))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((r.get::<_, i64>(0)?, (r.get::<_, i64>(1)?, values)))
    })?;
    for row in rows {
        let (y, values) = row?;
        by_year.insert(y, values);
    }
    let Some((regions, latest)) = by_year.remove(&year) else {
        return Ok(None);
    };
    let previous = by_year.remove(&(year - 1)).map(|(_, v)| v);
    let rows = columns
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let before = previous.as_ref().and_then(|p| p[i]);
            latest[i].map(|v| (*c, v, before))
        })
        .collect();
    Ok(Some(Headline {
        year,
        regions,
        rows,
    }))
}

/// One count point as the map draws it.
struct Point {
    id: u32,
    lon: u16,
    lat: u16,
    local_authority: u16,
    road: u16,
    category: u8,
    region: u8,
}

/// The map's point data: a 24-byte header ("RTP1", the count as u32, [`MAP_BOX`] as four
/// f32), then column arrays (little-endian) of ids (u32), longitude and latitude (u16, the
/// box in 65,535 steps, ~15 m), local authority ids and road name indexes (u16), road
/// category indexes (254: a major road of no given category) and region ids (u8), then a JSON object of the road names, the local
/// authorities' names and the road category codes.
fn map_points(conn: &rusqlite::Connection) -> Result<(MapPoints, usize), ApiError> {
    let sql = format!(
        "SELECT count_point_id, latitude, longitude, road_category, road_name, \
         local_authority_id, region_id, road_type FROM {} ORDER BY count_point_id",
        COUNT_POINTS.table
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([])?;
    let mut roads: Vec<String> = Vec::new();
    let mut road_index: HashMap<String, u16> = HashMap::new();
    let mut points = Vec::new();
    let mut all = 0;
    while let Some(r) = rows.next()? {
        all += 1;
        let coordinate = |i| -> rusqlite::Result<Option<f64>> {
            let text: Option<String> = r.get(i)?;
            Ok(text.and_then(|t| t.trim().parse::<f64>().ok()))
        };
        let (Some(lat), Some(lon)) = (coordinate(1)?, coordinate(2)?) else {
            continue;
        };
        let (Some(lon), Some(lat)) = (
            quantise(lon, MAP_BOX[0], MAP_BOX[2]),
            quantise(lat, MAP_BOX[1], MAP_BOX[3]),
        ) else {
            continue;
        };
        let Ok(id) = u32::try_from(r.get::<_, i64>(0)?) else {
            continue;
        };
        let category: Option<String> = r.get(3)?;
        let road: String = r.get::<_, Option<String>>(4)?.unwrap_or_default();
        let road = match road_index.get(&road) {
            Some(i) => *i,
            None => {
                let i = u16::try_from(roads.len()).unwrap_or(u16::MAX);
                if i < u16::MAX {
                    road_index.insert(road.clone(), i);
                    roads.push(road);
                }
                i
            }
        };
        points.push(Point {
            id,
            lon,
            lat,
            local_authority: u16::try_from(r.get::<_, i64>(5)?).unwrap_or(u16::MAX),
            road,
            category: category_index(
                category.as_deref(),
                r.get::<_, Option<String>>(7)?.as_deref(),
            ),
            region: u8::try_from(r.get::<_, i64>(6)?).unwrap_or(u8::MAX),
        });
    }
    let names = serde_json::json!({
        "roads": roads,
        "localAuthorities": local_authority_names(conn)?,
        "categories": ROAD_CATEGORIES,
    });
    let bytes = encode(&points, &names.to_string());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&bytes).map_err(ApiError::internal)?;
    let gzipped = gz.finish().map_err(ApiError::internal)?;
    let mapped = points.len();
    let major_without_category = points.iter().filter(|p| p.category == MAJOR).count();
    Ok((
        MapPoints {
            bytes: bytes.into(),
            gzipped: gzipped.into(),
            mapped,
            major_without_category,
        },
        all,
    ))
}

fn local_authority_names(
    conn: &rusqlite::Connection,
) -> Result<serde_json::Map<String, serde_json::Value>, ApiError> {
    let sql = format!("SELECT id, name FROM {}", LOCAL_AUTHORITIES.table);
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?.to_string(),
            serde_json::Value::from(r.get::<_, Option<String>>(1)?.unwrap_or_default()),
        ))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The category index of a major road without a road category.
const MAJOR: u8 = 254;

/// A point's road category: its index in `ROAD_CATEGORIES`, else [`MAJOR`] for a major road
/// (files split by area give only the road type), else 255.
fn category_index(category: Option<&str>, road_type: Option<&str>) -> u8 {
    match category.and_then(|c| ROAD_CATEGORIES.iter().position(|k| *k == c)) {
        Some(i) => i as u8,
        None if road_type == Some("Major") => MAJOR,
        None => u8::MAX,
    }
}

/// A coordinate as a step of 65,535 across `[min, max]`; none outside it.
fn quantise(value: f64, min: f64, max: f64) -> Option<u16> {
    let step = (value - min) / (max - min) * f64::from(u16::MAX);
    (value.is_finite() && (0.0..=f64::from(u16::MAX)).contains(&step)).then(|| step.round() as u16)
}

fn encode(points: &[Point], names: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(24 + points.len() * 14 + names.len());
    out.extend_from_slice(b"RTP1");
    out.extend_from_slice(&(points.len() as u32).to_le_bytes());
    for edge in MAP_BOX {
        out.extend_from_slice(&(edge as f32).to_le_bytes());
    }
    out.extend(points.iter().flat_map(|p| p.id.to_le_bytes()));
    out.extend(points.iter().flat_map(|p| p.lon.to_le_bytes()));
    out.extend(points.iter().flat_map(|p| p.lat.to_le_bytes()));
    out.extend(points.iter().flat_map(|p| p.local_authority.to_le_bytes()));
    out.extend(points.iter().flat_map(|p| p.road.to_le_bytes()));
    out.extend(points.iter().map(|p| p.category));
    out.extend(points.iter().map(|p| p.region));
    out.extend_from_slice(names.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_outside_the_box_are_not_mapped() {
        assert_eq!(quantise(MAP_BOX[0], MAP_BOX[0], MAP_BOX[2]), Some(0));
        assert_eq!(quantise(MAP_BOX[2], MAP_BOX[0], MAP_BOX[2]), Some(u16::MAX));
        assert_eq!(quantise(-20.0, MAP_BOX[0], MAP_BOX[2]), None);
        assert_eq!(quantise(f64::NAN, MAP_BOX[0], MAP_BOX[2]), None);
    }

    #[test]
    fn the_encoding_keeps_its_arrays_aligned() {
        let p = Point {
            id: 7,
            lon: 1,
            lat: 2,
            local_authority: 3,
            road: 0,
            category: 1,
            region: 4,
        };
        let bytes = encode(&[p], "{}");
        assert_eq!(&bytes[..4], b"RTP1");
        assert_eq!(bytes.len(), 24 + 14 + 2);
        assert_eq!(u32::from_le_bytes(bytes[24..28].try_into().unwrap()), 7);
    }
}
