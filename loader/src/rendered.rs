//! Rendered records (`--rendered-records`): every dataset's records written once, at load time,
//! as the JSON bytes the server would write for a request of all their fields, and kept in a
//! table of their own beside the columns (`roadtraffic_catalog::record::rendered_table`). The
//! server then copies a record instead of reading and writing it field by field, which is most
//! of the cost of a page it has not answered before; the file grows by the size of the JSON.

use std::collections::BTreeMap;
use std::time::Instant;

use rusqlite::Connection;

use roadtraffic_catalog::record::{rendered_table, RecordLayout};
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
