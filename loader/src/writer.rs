//! The SQLite side of a load, on a thread of its own so that both cores work: rows arrive in
//! batches and are inserted in one transaction; each table is completed (indexed, its own
//! values written) as soon as its rows are final, while the reader goes on with the next files.

use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Instant;

use rusqlite::{Connection, OpenFlags};

use roadtraffic_catalog::{self as catalog, schema, Dataset};

use crate::error::LoadError;
use crate::rendered;
use crate::totals::{self, Counter, Tallies};
use crate::value::Value;

/// Rows travel to the SQLite thread in batches of this many.
pub const BATCH_ROWS: usize = 2048;

/// Batch buffers in all, made once: the reader fills one while the SQLite thread drains the
/// others. Their number bounds the rows in flight (they pile up while SQLite builds an index),
/// and reusing them spares the page faults of fresh megabytes for every batch.
const BATCH_BUFFERS: usize = 6;

/// What the reading thread sends the SQLite thread.
pub enum ToWriter {
    /// Rows of the table, one after another: each is `table.columns().count()` values.
    Rows {
        table: &'static Dataset,
        values: Vec<Value>,
    },
    /// Rows of the table's runs table: first_id, last_id, then the run columns.
    Runs {
        table: &'static Dataset,
        runs: Vec<Vec<Value>>,
    },
    /// Every row of the table has been sent.
    Finished(&'static Dataset),
}

/// The reading thread's end of the link to the SQLite thread. Batches go over; their emptied
/// buffers come back to be filled again (see [`BATCH_BUFFERS`]).
pub struct WriterLink {
    tx: mpsc::SyncSender<ToWriter>,
    spare: mpsc::Receiver<Vec<Value>>,
}

impl WriterLink {
    pub fn send(&self, message: ToWriter) -> Result<(), LoadError> {
        self.tx.send(message).map_err(|_| LoadError::WriterStopped)
    }

    /// An empty batch buffer, once the SQLite thread has given one back.
    pub fn empty_batch(&self) -> Result<Vec<Value>, LoadError> {
        self.spare.recv().map_err(|_| LoadError::WriterStopped)
    }
}

/// The SQLite thread: gives back the connection and the tables it completed.
pub type Writer = JoinHandle<Result<(Connection, Vec<&'static str>), LoadError>>;

/// Opens the new file, creates its tables and starts the SQLite thread.
pub fn start(
    partial: &Path,
    national: Option<crate::national::Feed>,
) -> Result<(WriterLink, Writer), LoadError> {
    let conn = open_for_build(partial)?;
    let (tx, rx) = mpsc::sync_channel::<ToWriter>(BATCH_BUFFERS + 2);
    let (spare_tx, spare) = mpsc::sync_channel(BATCH_BUFFERS);
    let widest = catalog::DATASETS.iter().map(|d| d.columns().count()).max();
    for _ in 0..BATCH_BUFFERS {
        let buffer = Vec::with_capacity(BATCH_ROWS * widest.unwrap_or(1));
        spare_tx
            .send(buffer)
            .map_err(|_| LoadError::WriterStopped)?;
    }
    let counter = Counter::start(spare_tx, BATCH_BUFFERS, national);
    let writer = std::thread::spawn(move || write_all(conn, rx, counter));
    let link = WriterLink { tx, spare };
    Ok((link, writer))
}

/// Opens the new file: exclusively ours (see `Target::create_partial`), never reached through
/// a link.
fn open_partial(partial: &Path) -> Result<Connection, LoadError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_NOFOLLOW
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Ok(Connection::open_with_flags(partial, flags)?)
}

fn open_for_build(partial: &Path) -> Result<Connection, LoadError> {
    let conn = open_partial(partial)?;
    // No journal and no syncs while building: the file is not the target until renamed, and a
    // crash just leaves a temporary file that the next load removes. Sorts spill beside it,
    // not into /tmp.
    let dir = partial.parent().unwrap_or(Path::new("."));
    conn.execute_batch(&format!(
        "PRAGMA page_size = 32768;
         PRAGMA journal_mode = OFF;
         PRAGMA synchronous = OFF;
         PRAGMA locking_mode = EXCLUSIVE;
         PRAGMA cache_size = -32768;
         PRAGMA threads = 2;
         PRAGMA temp_store_directory = '{}';",
        dir.display().to_string().replace('\'', "''")
    ))?;
    for ddl in schema::create_all_tables() {
        conn.execute_batch(&ddl)?;
    }
    Ok(conn)
}

fn insert_sql(table: &str, columns: &[&str]) -> String {
    format!(
        "INSERT INTO {table} ({}) VALUES ({})",
        columns.join(","),
        vec!["?"; columns.len()].join(",")
    )
}

/// Inserts rows, binding the first `width` values of each.
fn insert_all<'v>(
    conn: &Connection,
    sql: &str,
    rows: impl Iterator<Item = &'v [Value]>,
    width: usize,
) -> Result<(), LoadError> {
    let mut stmt = conn.prepare_cached(sql)?;
    for row in rows {
        for (i, v) in row.iter().take(width).enumerate() {
            stmt.raw_bind_parameter(i + 1, v)?;
        }
        stmt.raw_execute()?;
    }
    Ok(())
}

/// What a table's final rows make: its tables of totals (from its tallies, if they were kept
/// as its rows were written), its indexes, and its own values if it keeps them. Tallies are
/// written first, so that their memory is given back before the index sorts take theirs (the
/// load's peak); totals summed by SQL come after the indexes.
fn complete(conn: &Connection, d: &Dataset, tallies: Option<Tallies>) -> Result<(), LoadError> {
    let by_sql = tallies.is_none();
    if let Some(tallies) = tallies {
        write_totals(conn, d, |conn| tallies.write(conn, d))?;
    }
    let started = Instant::now();
    for ddl in schema::create_indexes(d) {
        conn.execute_batch(&ddl)?;
    }
    let seconds = started.elapsed().as_secs_f64();
    log::info!("indexes of {}: {seconds:.1} s", d.table);
    if by_sql {
        write_totals(conn, d, |conn| totals::fill_by_sql(conn, d))?;
    }
    rendered::write_own_values(conn, d)
}

/// Fills a table's tables of totals with `fill`, then indexes them.
fn write_totals(
    conn: &Connection,
    d: &Dataset,
    fill: impl FnOnce(&Connection) -> Result<(), LoadError>,
) -> Result<(), LoadError> {
    let started = Instant::now();
    fill(conn)?;
    for (table, rollup) in d.rollup_tables() {
        for ddl in schema::create_rollup_indexes(d, &table, rollup) {
            conn.execute_batch(&ddl)?;
        }
    }
    if !d.rollups.is_empty() {
        let seconds = started.elapsed().as_secs_f64();
        log::info!("totals of {}: {seconds:.2} s", d.table);
    }
    Ok(())
}

/// The SQLite thread's work: everything it receives, in one transaction.
fn write_all(
    conn: Connection,
    batches: mpsc::Receiver<ToWriter>,
    counter: Counter,
) -> Result<(Connection, Vec<&'static str>), LoadError> {
    conn.execute_batch("BEGIN")?;
    let mut completed = Vec::new();
    for message in batches {
        match message {
            ToWriter::Rows { table, values } => {
                let names: Vec<&str> = table.stored_columns().map(|c| c.name).collect();
                let rows = values.chunks(table.columns().count());
                insert_all(&conn, &insert_sql(table.table, &names), rows, names.len())?;
                counter.rows(table, values)?;
            }
            ToWriter::Runs { table, runs } => {
                let Some(runs_table) = table.runs_table() else {
                    continue;
                };
                let names = [&["first_id", "last_id"], table.run_columns].concat();
                let rows = runs.iter().map(Vec::as_slice);
                insert_all(&conn, &insert_sql(&runs_table, &names), rows, names.len())?;
            }
            ToWriter::Finished(table) if table.final_when_read() => {
                complete(&conn, table, counter.done(table)?)?;
                completed.push(table.table);
            }
            ToWriter::Finished(_) => {}
        }
    }
    Ok((conn, completed))
}

/// Completes the tables not completed yet, gathers statistics and commits.
pub fn finish_tables(conn: &Connection, completed: &[&str]) -> Result<(), LoadError> {
    for d in catalog::DATASETS
        .iter()
        .filter(|d| !completed.contains(&d.table))
    {
        complete(conn, d, None)?;
    }
    // Sampled statistics: enough for the planner to choose between indexes, in a fraction of
    // the time of a full ANALYZE.
    conn.execute_batch("PRAGMA analysis_limit = 1000; ANALYZE; COMMIT;")?;
    Ok(())
}

/// Writes rows of the metadata table (once the source hashes are known, then the changes) and
/// closes the file.
pub fn write_metadata(partial: &Path, rows: &[(&str, String)]) -> Result<(), LoadError> {
    let conn = open_partial(partial)?;
    conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")?;
    let mut put = conn.prepare("INSERT INTO metadata (key, value) VALUES (?1, ?2)")?;
    for (key, value) in rows {
        put.execute((key, value))?;
    }
    drop(put);
    conn.close().map_err(|(_, e)| LoadError::Sqlite(e))
}
