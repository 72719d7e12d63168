//! The row order of the national and split Parquet files: count point by count point, the
//! count points along a Hilbert curve over Great Britain. Rows near each other on the map are
//! near each other in the file, so a row group covers a small area: a box (the `bbox`
//! column's statistics) or a local authority (compact, so in few groups; their bloom
//! filters find them) skips most of the file. Ordered by year first, a town-sized box read
//! 98% of the groups.
//!
//! A count point's position is its place in the places index (the least longitude and
//! latitude of its places, as the index keeps them, in 32 bits rounded down), so that the
//! loader, which writes the files as it loads, and the server, which reads them out of SQLite
//! when it must, put the rows in the same order: by that position, then count point, then id.

use std::collections::HashMap;

use rusqlite::Connection;

use roadtraffic_catalog::places::{INDEX_TABLE, NOWHERE, PLACE_KEY};
use roadtraffic_catalog::{Column, Dataset};

/// The box the curve covers (longitude, latitude): Great Britain and its islands, with room.
/// A place outside it is put on the nearest edge.
const WEST: f64 = -8.8;
const EAST: f64 = 2.0;
const SOUTH: f64 = 49.8;
const NORTH: f64 = 61.0;

/// Cells of the curve on each side (2^16: about 15 m of latitude).
const ORDER: u32 = 16;

/// A place's position along the curve.
pub fn curve_position(longitude: f64, latitude: f64) -> u64 {
    let side = f64::from((1u32 << ORDER) - 1);
    let cell = |v: f64, low: f64, high: f64| ((v - low) / (high - low)).clamp(0.0, 1.0) * side;
    hilbert(
        cell(longitude, WEST, EAST) as u32,
        cell(latitude, SOUTH, NORTH) as u32,
    )
}

/// The distance along a Hilbert curve of `ORDER` of the cell (x, y): the classic iterative
/// form, each level choosing a quadrant and turning the rest to its orientation.
fn hilbert(mut x: u32, mut y: u32) -> u64 {
    let mut distance = 0u64;
    let mut s = 1u32 << (ORDER - 1);
    while s > 0 {
        let rx = u32::from((x & s) > 0);
        let ry = u32::from((y & s) > 0);
        distance += u64::from(s) * u64::from(s) * u64::from((3 * rx) ^ ry);
        if ry == 0 {
            if rx == 1 {
                x = s.wrapping_sub(1).wrapping_sub(x) & (s - 1);
                y = s.wrapping_sub(1).wrapping_sub(y) & (s - 1);
            }
            std::mem::swap(&mut x, &mut y);
        }
        x &= s - 1;
        y &= s - 1;
        s >>= 1;
    }
    distance
}

/// Each count point's position in the places index (the first of its places that has a
/// longitude and latitude, by the least of them); a count point with none goes after all.
pub fn positions(conn: &Connection) -> rusqlite::Result<HashMap<i64, u64>> {
    let sql = format!(
        "SELECT count_point_id, min(min_lon), min(min_lat) FROM {INDEX_TABLE} \
         WHERE min_lon < ?1 AND min_lat < ?1 GROUP BY count_point_id"
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([NOWHERE], |r| {
        Ok((r.get(0)?, curve_position(r.get(1)?, r.get(2)?)))
    })?;
    rows.collect()
}

/// Count points per part of a file read out of SQLite: a few hundred queries for a national
/// file, each of thousands of rows (a row group holds 131,072).
pub const COUNT_POINTS_PER_PART: usize = 256;

/// The count points in the order their rows go in a file: the count points in curve order
/// (`curve_ordered`) in parts of [`COUNT_POINTS_PER_PART`], each part by id (as its rows are
/// read out of SQLite, by the count point index).
pub fn file_order(mut curve_ordered: Vec<i64>) -> Vec<i64> {
    for part in curve_ordered.chunks_mut(COUNT_POINTS_PER_PART) {
        part.sort_unstable();
    }
    curve_ordered
}

/// A count point's position on the curve: after every other when it has no place.
pub fn position(positions: &HashMap<i64, u64>, count_point: i64) -> u64 {
    positions.get(&count_point).copied().unwrap_or(u64::MAX)
}

/// The count points of `d`'s rows (those whose `within` column is the id, for a split
/// file), in curve order; those with no place last, by id.
pub fn count_points(
    conn: &Connection,
    d: &Dataset,
    within: Option<(&Column, i64)>,
) -> rusqlite::Result<Vec<i64>> {
    let in_runs = |name: &str| d.run_columns.contains(&name);
    let table = match (in_runs(PLACE_KEY), d.runs_table()) {
        (true, Some(runs)) => runs,
        _ => d.table.to_string(),
    };
    // The split's column is read where the count point is (raw counts: both in the runs);
    // elsewhere every count point is asked, which finds the same rows.
    let within = within.filter(|(c, _)| in_runs(c.name) == in_runs(PLACE_KEY));
    let (filter, args) = match within {
        Some((c, id)) => (format!(" WHERE {} = ?1", c.name), vec![id]),
        None => (String::new(), vec![]),
    };
    let sql = format!("SELECT DISTINCT {PLACE_KEY} FROM {table}{filter}");
    let mut stmt = conn.prepare(&sql)?;
    let ids = stmt.query_map(rusqlite::params_from_iter(args), |r| {
        r.get::<_, Option<i64>>(0)
    })?;
    let positions = positions(conn)?;
    let mut keyed: Vec<(u64, i64)> = Vec::new();
    for id in ids {
        if let Some(id) = id? {
            keyed.push((position(&positions, id), id));
        }
    }
    keyed.sort_unstable();
    Ok(keyed.into_iter().map(|(_, id)| id).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The curve visits every cell once, each next to the one before (a 2^16 side: checked on
    /// the first 2^20 cells of the curve, which fill its first corner).
    #[test]
    fn the_curve_steps_from_cell_to_neighbouring_cell() {
        let mut at: HashMap<u64, (u32, u32)> = HashMap::new();
        for x in 0..1024u32 {
            for y in 0..1024u32 {
                assert!(at.insert(hilbert(x, y), (x, y)).is_none(), "({x}, {y})");
            }
        }
        for d in 1..(1u64 << 20) {
            let (a, b) = (at[&(d - 1)], at[&d]);
            assert_eq!(a.0.abs_diff(b.0) + a.1.abs_diff(b.1), 1, "{d}: {a:?} {b:?}");
        }
    }

    #[test]
    fn places_near_each_other_are_near_on_the_curve() {
        // Two points 1 km apart in Leeds, and one in Bristol.
        let leeds = curve_position(-1.5491, 53.8008);
        let leeds_east = curve_position(-1.5340, 53.8008);
        let bristol = curve_position(-2.5879, 51.4545);
        assert!(leeds.abs_diff(leeds_east) < leeds.abs_diff(bristol));
        assert_eq!(curve_position(-30.0, 0.0), hilbert(0, 0));
    }
}
