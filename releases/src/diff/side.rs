//! One file's side of a comparison: its rows of a table, read in key order on a thread of its
//! own and handed to the merge in batches, so that both files are read at once, one per core.

use std::path::{Path, PathBuf};
use std::sync::mpsc;

use rusqlite::Connection;

use roadtraffic_catalog::{Dataset, ValueType};

use super::rows::{compare_keys, Batch};
use super::DiffError;
use crate::Storage;

/// Batches read ahead of the merge, per file: bounds what is in flight.
const BATCHES_AHEAD: usize = 4;

/// How one file's rows of a table are read in key order (key columns first, then the
/// compared ones).
#[derive(Debug, Clone)]
pub enum KeyOrder {
    /// One query sorted by SQLite: tables without runs, of a few tens of thousands of rows.
    Sorted(String),
    /// Run by run (see `Dataset::run_columns`): the runs in the order of the key's run
    /// columns (`runs`: first_id, last_id, then those `run_keys` columns), each run's rows by
    /// id range (`rows`: the rest of the key, then the compared columns). The rows of the
    /// runs that share their run columns (a raw count's count point and day: 24 rows; an
    /// AADF year) are sorted here by the rest of the key. Nothing big is sorted: five million
    /// raw counts are read in key order at the speed of a plain scan.
    ByRuns {
        runs: String,
        rows: String,
        run_keys: usize,
    },
}

/// A column as `ORDER BY` names it: text compared as bytes, as the merge compares it.
fn sort_key(d: &Dataset, qualified: String, name: &str) -> String {
    match d.column(name).map(|c| c.ty) {
        Some(ValueType::Text | ValueType::Date) => format!("{qualified} COLLATE BINARY"),
        _ => qualified,
    }
}

/// How to read `d`'s rows with the key in `order` (its run columns first), then `compared`;
/// through the runs table if `with_runs`.
pub fn reading(d: &Dataset, order: &[&str], compared: &[&str], with_runs: bool) -> KeyOrder {
    let run_keys: Vec<&str> = order
        .iter()
        .copied()
        .take_while(|k| with_runs && d.run_columns.contains(k))
        .collect();
    let sorted = |cols: &[&str]| -> Vec<String> {
        cols.iter().map(|c| sort_key(d, c.to_string(), c)).collect()
    };
    match d.runs_table() {
        Some(runs) if !run_keys.is_empty() => {
            let rest: Vec<&str> = order[run_keys.len()..]
                .iter()
                .chain(compared)
                .copied()
                .collect();
            KeyOrder::ByRuns {
                runs: format!(
                    "SELECT first_id, last_id, {} FROM {runs} ORDER BY {}",
                    run_keys.join(", "),
                    sorted(&run_keys).join(", ")
                ),
                rows: format!(
                    "SELECT {} FROM {} WHERE id BETWEEN ?1 AND ?2",
                    rest.join(", "),
                    d.table
                ),
                run_keys: run_keys.len(),
            }
        }
        _ => {
            let all: Vec<&str> = order.iter().chain(compared).copied().collect();
            KeyOrder::Sorted(format!(
                "SELECT {} FROM {} ORDER BY {}",
                all.join(", "),
                d.table,
                sorted(order).join(", ")
            ))
        }
    }
}

/// The batches of one file, in key order, closed after the last; and the thread that reads
/// them, which tells a normal end from a reader that died.
pub struct FileBatches {
    batches: mpsc::Receiver<Result<Batch, DiffError>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

/// What a reader thread sends to.
type Sink = mpsc::SyncSender<Result<Batch, DiffError>>;

/// Starts reading a file's rows of a table: none when `reading` is `None` (a table the file
/// lacks). Rows are `width` values, the first `key` of them the key.
pub fn read(storage: &Storage, reading: Option<KeyOrder>, width: usize, key: usize) -> FileBatches {
    let (tx, batches) = mpsc::sync_channel(BATCHES_AHEAD);
    let storage = storage.clone();
    let path = storage.main.clone();
    let reader = std::thread::spawn(move || {
        let Some(reading) = reading else { return };
        let sqlite = |e| DiffError::Sqlite(path.clone(), e);
        let sent = storage.open().map_err(sqlite).and_then(|conn| {
            let mut out = Output::new(&tx, width);
            match &reading {
                KeyOrder::Sorted(sql) => send_sorted(&conn, sql, &mut out),
                KeyOrder::ByRuns {
                    runs,
                    rows,
                    run_keys,
                } => send_by_runs(&conn, (runs, rows), (*run_keys, key), &mut out),
            }
            .map_err(sqlite)?;
            out.finish();
            Ok(())
        });
        if let Err(e) = sent {
            let _ = tx.send(Err(e));
        }
    });
    FileBatches {
        batches,
        reader: Some(reader),
    }
}

/// Rows on their way to the merge, a batch at a time.
struct Output<'t> {
    tx: &'t Sink,
    batch: Batch,
    width: usize,
    /// The merge stopped: nobody to read on for.
    closed: bool,
}

impl<'t> Output<'t> {
    fn new(tx: &'t Sink, width: usize) -> Self {
        Output {
            tx,
            batch: Batch::new(width),
            width,
            closed: false,
        }
    }

    /// Sends the batch if it is full.
    fn row_done(&mut self) {
        if self.batch.is_full() && !self.closed {
            let full = std::mem::replace(&mut self.batch, Batch::new(self.width));
            self.closed = self.tx.send(Ok(full)).is_err();
        }
    }

    fn finish(self) {
        if self.batch.rows() > 0 && !self.closed {
            let _ = self.tx.send(Ok(self.batch));
        }
    }
}

fn send_sorted(conn: &Connection, sql: &str, out: &mut Output) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(sql)?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        for c in 0..out.width {
            out.batch.push(row.get_ref(c)?);
        }
        out.row_done();
        if out.closed {
            break;
        }
    }
    Ok(())
}

/// Reads run by run (see [`KeyOrder::ByRuns`]); `keys`: the run columns' count and the key's.
fn send_by_runs(
    conn: &Connection,
    (runs_sql, rows_sql): (&str, &str),
    (run_keys, key): (usize, usize),
    out: &mut Output,
) -> rusqlite::Result<()> {
    let mut runs_stmt = conn.prepare(runs_sql)?;
    let mut rows_stmt = conn.prepare(rows_sql)?;
    let mut runs = runs_stmt.query([])?;
    // The rows of the runs that share their run columns, and those columns' values.
    let mut group = Batch::new(out.width);
    let (mut group_key, mut run_key) = (Batch::new(run_keys), Batch::new(run_keys));
    while let Some(run) = runs.next()? {
        let (first, last): (i64, i64) = (run.get(0)?, run.get(1)?);
        run_key.clear();
        for c in 0..run_keys {
            run_key.push(run.get_ref(2 + c)?);
        }
        if run_key.bytes() != group_key.bytes() {
            flush_group(&mut group, run_keys..key, out);
            std::mem::swap(&mut group_key, &mut run_key);
        }
        let mut rows = rows_stmt.query((first, last))?;
        while let Some(row) = rows.next()? {
            for c in 0..run_keys {
                group.push_encoded(group_key.value(0, c));
            }
            for c in 0..out.width - run_keys {
                group.push(row.get_ref(c)?);
            }
        }
        if out.closed {
            return Ok(());
        }
    }
    flush_group(&mut group, run_keys..key, out);
    Ok(())
}

/// Sends a group's rows sorted by the rest of the key, and empties it.
fn flush_group(group: &mut Batch, rest: std::ops::Range<usize>, out: &mut Output) {
    let mut order: Vec<usize> = (0..group.rows()).collect();
    if !rest.is_empty() {
        order.sort_by(|&a, &b| compare_keys((group, a), (group, b), rest.clone()));
    }
    for row in order {
        out.batch.copy_row(group, row);
        out.row_done();
    }
    group.clear();
}

/// Where the merge is in one file's rows.
pub struct Cursor {
    rows: FileBatches,
    path: PathBuf,
    batch: Option<Batch>,
    at: usize,
    /// Rows passed so far.
    pub seen: u64,
}

impl Cursor {
    pub fn new(rows: FileBatches, path: &Path) -> Self {
        Cursor {
            rows,
            path: path.to_path_buf(),
            batch: None,
            at: 0,
            seen: 0,
        }
    }

    /// Makes sure there is a current row, if any is left; false at the end.
    pub fn fill(&mut self) -> Result<bool, DiffError> {
        while self.batch.as_ref().is_none_or(|b| self.at >= b.rows()) {
            match self.rows.batches.recv() {
                Ok(batch) => {
                    self.batch = Some(batch?);
                    self.at = 0;
                }
                Err(mpsc::RecvError) => {
                    self.batch = None;
                    // Closed: the end of the rows, unless the reader died on its way.
                    let reader = self.rows.reader.take().map(|r| r.join());
                    if let Some(Err(_)) = reader {
                        return Err(DiffError::ReaderStopped(self.path.clone()));
                    }
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// The current row (after [`Cursor::fill`] said there is one).
    pub fn row(&self) -> Result<(&Batch, usize), DiffError> {
        match &self.batch {
            Some(b) => Ok((b, self.at)),
            None => Err(DiffError::ReaderStopped(self.path.clone())),
        }
    }

    pub fn advance(&mut self) {
        self.at += 1;
        self.seen += 1;
    }
}
