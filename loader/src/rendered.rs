//! JSON written at load time, with the server's own writer, in tables beside the columns:
//!
//! - **own values**, always, for the datasets that keep them (`Dataset::own_values`): the JSON
//!   text of each row's values but its id and run columns, from which the server writes records
//!   run by run (`roadtraffic_catalog::record::SplitLayout`) reading two values a row;
//! - **rendered records** (`--rendered-records`): every dataset's records as the JSON bytes the
//!   server would write for a request of all their fields
//!   (`roadtraffic_catalog::record::rendered_table`). The server then copies a record instead
//!   of writing it, which is most of the cost of a page it has not answered before; the file
//!   grows by the size of the JSON.
//!
//! Both are written from the values SQLite holds, as the server reads them, so that the bytes
//! are those the server would write from the columns.

use std::collections::BTreeMap;
use std::time::Instant;

use rusqlite::functions::FunctionFlags;
use rusqlite::Connection;

use roadtraffic_catalog::record::{self, rendered_table, RecordLayout};
use roadtraffic_catalog::{Dataset, DATASETS};

use crate::error::LoadError;

/// Writes the rendered records of every dataset into the file being built (inside its open
/// transaction), and returns the tag of each table's layout, for the metadata.
pub fn render_all(conn: &Connection) -> Result<BTreeMap<String, String>, LoadError> {
    let started = Instant::now();
    let mut tags = BTreeMap::new();
    for d in DATASETS {
        let layout = RecordLayout::whole(d);
        render(conn, d, &layout)?;
        tags.insert(d.table.to_string(), layout.tag());
    }
    log::info!("records rendered: {:.1} s", started.elapsed().as_secs_f64());
    Ok(tags)
}

/// One dataset's records, in id order.
fn render(conn: &Connection, d: &Dataset, layout: &RecordLayout) -> Result<(), LoadError> {
    let table = rendered_table(d);
    conn.execute_batch(&format!(
        "CREATE TABLE {table} (id INTEGER PRIMARY KEY, record BLOB NOT NULL)"
    ))?;
    // The record's fields in its order, then the row's id.
    let columns: Vec<&str> = d.stored_columns().map(|c| c.name).collect();
    let mut read = conn.prepare(&format!(
        "SELECT {}, id FROM {} ORDER BY id",
        columns.join(", "),
        d.table
    ))?;
    let mut insert = conn.prepare(&format!("INSERT INTO {table} (id, record) VALUES (?1, ?2)"))?;
    let mut rows = read.query([])?;
    let mut record = Vec::with_capacity(4096);
    while let Some(row) = rows.next()? {
        record.clear();
        layout.write(&mut record, row)?;
        insert.execute((row.get::<_, i64>(columns.len())?, &record))?;
    }
    Ok(())
}

/// The own values of a dataset that keeps them (see `Dataset::own_values`), once its rows are
/// final: in one statement, through a function of ours, which costs about half of a loop of
/// reads and inserts.
pub fn write_own_values(conn: &Connection, d: &Dataset) -> Result<(), LoadError> {
    let Some(table) = d.own_values_table() else {
        return Ok(());
    };
    let started = Instant::now();
    let columns: Vec<&str> = d.own_value_columns().map(|c| c.name).collect();
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function(OWN_VALUES, columns.len() as i32, flags, |ctx| {
        let mut json = Vec::with_capacity(64);
        record::write_own_values(&mut json, (0..ctx.len()).map(|i| ctx.get_raw(i)));
        Ok(json)
    })?;
    conn.execute_batch(&format!(
        "INSERT INTO {table} (id, json) SELECT id, {OWN_VALUES}({}) FROM {} ORDER BY id",
        columns.join(", "),
        d.table
    ))?;
    conn.remove_function(OWN_VALUES, columns.len() as i32)?;
    let seconds = started.elapsed().as_secs_f64();
    log::info!("own values of {}: {seconds:.1} s", d.table);
    Ok(())
}

/// The SQL function that writes a row's own values, while the loader needs it.
const OWN_VALUES: &str = "roadtraffic_own_values";
