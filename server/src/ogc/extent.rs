//! Each collection's extent in the file being served: the box of its places in WGS 84 (from
//! the spatial index, the entries of the collection's count points; those without a
//! longitude sit at the loader's "nowhere", 1e9) and the span of its records' times. Learnt
//! once per release, kept with it.

use std::sync::Arc;

use roadtraffic_catalog::places::{INDEX_TABLE, PLACE_KEY};

use super::collection::{Collection, Timing};
use crate::error::ApiError;
use crate::release::Release;

/// The extent of one collection: either part `None` when it has no rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Extent {
    /// West, south, east, north (WGS 84).
    pub bbox: Option<[f64; 4]>,
    /// The first and last instants of its records' times (RFC 3339, UTC).
    pub interval: Option<(String, String)>,
}

/// Every collection's extent, by collection id.
pub struct Extents(Vec<(&'static str, Extent)>);

/// Index entries beyond this are the loader's "nowhere": no longitude or latitude.
const SOMEWHERE: &str = "1e8";

impl Extents {
    /// The extents of `release`'s collections, learnt on first use.
    pub fn of(release: &Release) -> Result<Arc<Extents>, ApiError> {
        release.kept.get_or_make(|| {
            let conn = release.connection()?;
            let extents = Collection::all()
                .map(|c| Ok((c.id(), extent(&conn, &c)?)))
                .collect::<Result<_, ApiError>>()?;
            Ok(Extents(extents))
        })
    }

    pub fn get(&self, c: &Collection) -> Option<&Extent> {
        self.0.iter().find(|(id, _)| *id == c.id()).map(|(_, e)| e)
    }
}

fn extent(conn: &rusqlite::Connection, c: &Collection) -> Result<Extent, ApiError> {
    Ok(Extent {
        bbox: bbox(conn, c)?,
        interval: match c.timing() {
            Some(timing) => interval(conn, c, timing)?,
            None => None,
        },
    })
}

/// The box of the places of the collection's count points (the index's bounds are the rows'
/// values rounded outwards to 32 bits, and a count point's places include those other
/// datasets give it: the box holds every row, and may be a little wider).
fn bbox(conn: &rusqlite::Connection, c: &Collection) -> Result<Option<[f64; 4]>, ApiError> {
    let sql = format!(
        "SELECT min(min_lon), min(min_lat), max(max_lon), max(max_lat) FROM {INDEX_TABLE} \
         WHERE max_lon < {SOMEWHERE} AND max_lat < {SOMEWHERE} \
         AND {PLACE_KEY} IN (SELECT {PLACE_KEY} FROM {})",
        table_of(c, PLACE_KEY)
    );
    let row: [Option<f64>; 4] = conn.query_row(&sql, [], |r| {
        Ok([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?])
    })?;
    // Rounded outwards to a ten-millionth of a degree (1 cm), as the points are written.
    let (down, up) = (
        |v: f64| (v * 1e7).floor() / 1e7,
        |v: f64| (v * 1e7).ceil() / 1e7,
    );
    Ok(match row {
        [Some(w), Some(s), Some(e), Some(n)] => Some([down(w), down(s), up(e), up(n)]),
        _ => None,
    })
}

/// From the start of the first year (or count hour) to the last second of the last.
fn interval(
    conn: &rusqlite::Connection,
    c: &Collection,
    timing: Timing,
) -> Result<Option<(String, String)>, ApiError> {
    match timing {
        Timing::Year(year) => {
            let sql = format!(
                "SELECT min({0}), max({0}) FROM {1}",
                year.name,
                table_of(c, year.name)
            );
            let (first, last): (Option<i64>, Option<i64>) =
                conn.query_row(&sql, [], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(first.zip(last).map(|(first, last)| {
                (
                    format!("{first:04}-01-01T00:00:00Z"),
                    format!("{last:04}-12-31T23:59:59Z"),
                )
            }))
        }
        Timing::Hour { date, hour } => {
            let dates = format!(
                "SELECT min({0}), max({0}) FROM {1}",
                date.name,
                table_of(c, date.name)
            );
            let (first, last): (Option<String>, Option<String>) =
                conn.query_row(&dates, [], |r| Ok((r.get(0)?, r.get(1)?)))?;
            let (Some(first), Some(last)) = (first, last) else {
                return Ok(None);
            };
            let hour_of = |day: &str, which: &str| -> Result<i64, ApiError> {
                let sql = hours_of_day(c, date.name, hour.name, which);
                let found = conn.query_row(&sql, [day], |r| r.get::<_, Option<i64>>(0))?;
                Ok(found.unwrap_or(0))
            };
            let (start, end) = (hour_of(&first, "min")?, hour_of(&last, "max")?);
            Ok(Some((
                format!("{first}T{start:02}:00:00Z"),
                format!("{last}T{end:02}:59:59Z"),
            )))
        }
    }
}

/// The table that holds a column: the dataset's, or its runs' for a run column.
fn table_of(c: &Collection, column: &str) -> String {
    let d = c.dataset();
    match d.runs_table() {
        Some(runs) if d.run_columns.contains(&column) => runs,
        _ => d.table.to_string(),
    }
}

/// The first or last hour (`which`: `min` or `max`) counted on a day: through the runs when
/// the date is a run column (raw counts), so that only that day's rows are read.
fn hours_of_day(c: &Collection, date: &str, hour: &str, which: &str) -> String {
    let (table, dates) = (c.dataset().table, table_of(c, date));
    match dates == table {
        true => format!("SELECT {which}({hour}) FROM {table} WHERE {date} = ?1"),
        false => format!(
            "SELECT {which}(r.{hour}) FROM {dates} u JOIN {table} r \
             ON r.id BETWEEN u.first_id AND u.last_id WHERE u.{date} = ?1"
        ),
    }
}
