//! The loader: published CSV files in, one indexed SQLite file out, atomically.
//!
//! One thread reads and checks the CSV rows (this one), another inserts them into SQLite, so
//! both cores work. The file is built under a temporary name beside the target, fsynced, and
//! renamed over the target only when complete: a reader of the target (the server) sees the old
//! file or the new one, never a partial one.

mod areas;
pub mod cli;
mod guard;
pub mod input;
mod report;
mod rows;
mod target;
pub mod value;

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use rusqlite::{Connection, OpenFlags};

use roadtraffic_catalog::{self as catalog, Dataset};
use roadtraffic_catalog::schema;
pub use report::{LoadReport, Problem, SourceReport};
use rows::TableLoader;
use target::Target;
use value::Value;

#[derive(Debug, Clone)]
pub struct LoadOptions {
    pub db: PathBuf,
    pub inputs: Vec<PathBuf>,
    /// Skip rows that cannot be read (and list them) instead of refusing the load.
    pub skip_bad_rows: bool,
    /// On a repeated natural key keep the first row instead of refusing the load.
    pub keep_first: bool,
    /// A label for the release, kept in the metadata table.
    pub release: Option<String>,
    /// The countries reference file (id, name, ons_code); the bundled one by default.
    pub countries: Option<PathBuf>,
    /// Draw a progress bar on stderr.
    pub progress: bool,
    /// Replace the file even if the new one lacks a table the old one has, or holds less than
    /// half of one's rows.
    pub allow_shrink: bool,
    /// A record longer than this is refused at its line, unread.
    pub max_record_bytes: u64,
}

/// Real records are under 2 KB.
pub const DEFAULT_MAX_RECORD_BYTES: u64 = 1 << 20;

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            db: PathBuf::new(),
            inputs: Vec::new(),
            skip_bad_rows: false,
            keep_first: false,
            release: None,
            countries: None,
            progress: false,
            allow_shrink: false,
            max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// An input named on the command line that cannot be read as data.
    #[error("{0}: not a regular file ({1})")]
    NotRegular(PathBuf, &'static str),
    #[error("no CSV file found in {0}")]
    NoCsv(PathBuf),
    #[error("{0}: not a readable zip archive: {1}")]
    Zip(PathBuf, String),
    /// `--db` names something a load must not replace.
    #[error("--db {0}: {1}")]
    Target(PathBuf, String),
    /// The input is not what a load can take; the message says where and why.
    #[error("{0}")]
    Refused(String),
    #[error("{}", report::bad_rows_message(.0))]
    BadRows(Box<LoadReport>),
    /// The new file would hold far less than the one it replaces.
    #[error("{}", report::shrink_message(.0))]
    Shrinks(Box<LoadReport>),
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("another load into {0} is in progress")]
    Busy(PathBuf),
    /// The SQLite thread stopped early; its own error says why.
    #[error("the SQLite writer stopped")]
    WriterStopped,
}

impl LoadError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        LoadError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The order in which kinds are loaded: the biggest first, so that the SQLite thread builds
/// its indexes while this thread reads the other files.
const LOAD_ORDER: [&Dataset; 7] = [
    &catalog::RAW_COUNTS,
    &catalog::AADF_BY_DIRECTION,
    &catalog::AADF,
    &catalog::COUNT_POINTS,
    &catalog::LOCAL_AUTHORITY_TRAFFIC,
    &catalog::REGION_TRAFFIC_BY_ROAD_TYPE,
    &catalog::REGION_TRAFFIC_BY_VEHICLE_TYPE,
];

/// Whether a table's rows are final once its files are read, so its indexes can be built
/// straight away (count points and local authority traffic are completed at the end).
fn final_when_read(d: &Dataset) -> bool {
    d.table != catalog::COUNT_POINTS.table && d.table != catalog::LOCAL_AUTHORITY_TRAFFIC.table
}

/// Rows travel to the SQLite thread in batches of this many.
const BATCH_ROWS: usize = 2048;

/// Batch buffers in all, made once: the reader fills one while the SQLite thread drains the
/// others. Their number bounds the rows in flight (they pile up while SQLite builds an index),
/// and reusing them spares the page faults of fresh megabytes for every batch.
const BATCH_BUFFERS: usize = 6;

/// What the reading thread sends the SQLite thread.
pub(crate) enum ToWriter {
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
pub(crate) struct WriterLink {
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

/// Runs a whole load. On success the target file has been replaced; on failure it is untouched
/// and nothing is left behind.
pub fn run(opts: &LoadOptions) -> Result<LoadReport, LoadError> {
    let started = Instant::now();
    if opts.inputs.is_empty() {
        return Err(LoadError::Refused("no input files given".into()));
    }
    let target = Target::claim(&opts.db)?;
    let inputs = input::expand(&opts.inputs)?;
    target.check_not_an_input(&opts.db, &inputs.ids)?;
    // Hash the input files on the side while the rows are read.
    let hashing = {
        let files = inputs.files.clone();
        std::thread::spawn(move || {
            files
                .iter()
                .map(|f| input::sha256_file(f))
                .collect::<Result<Vec<String>, LoadError>>()
        })
    };
    let kinds = rows::classify(&inputs.sources, opts.max_record_bytes)?;
    let countries = areas::read_countries(opts.countries.as_deref())?;

    let partial = target.create_partial()?;
    let mut report = build(
        opts,
        partial.path(),
        &inputs.sources,
        &kinds,
        &countries,
        started,
    )?;
    report.skipped_inputs = inputs.skipped;
    report.previous_rows = target.previous.clone();
    let hashes = hashing
        .join()
        .map_err(|_| LoadError::Refused("the hashing thread failed".into()))??;
    report.sources = inputs
        .files
        .iter()
        .zip(hashes)
        .map(|(f, sha256)| SourceReport {
            file: f.display().to_string(),
            bytes: std::fs::metadata(f).map(|m| m.len()).unwrap_or(0),
            sha256,
        })
        .collect();
    report.shrunk = target.shrinks(&report.rows);
    if !report.shrunk.is_empty() && !opts.allow_shrink {
        return Err(LoadError::Shrinks(Box::new(report)));
    }
    finish(partial.path(), &report)?;
    target.swap_in(partial)?;
    report.elapsed_seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Opens the new file: exclusively ours, created by [`Target::create_partial`], never
/// reached through a link.
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

fn create_indexes(conn: &Connection, d: &Dataset) -> Result<(), LoadError> {
    let started = Instant::now();
    for ddl in schema::create_indexes(d) {
        conn.execute_batch(&ddl)?;
    }
    log::info!(
        "indexes of {}: {:.1} s",
        d.table,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Inserts what it receives, in one transaction, on its own thread, and indexes each table as
/// soon as its rows are in. Gives back the connection and the tables it indexed.
fn spawn_writer(
    conn: Connection,
    batches: mpsc::Receiver<ToWriter>,
    spare: mpsc::SyncSender<Vec<Value>>,
) -> std::thread::JoinHandle<Result<(Connection, Vec<&'static str>), LoadError>> {
    std::thread::spawn(move || {
        conn.execute_batch("BEGIN")?;
        let mut indexed = Vec::new();
        for message in batches {
            match message {
                ToWriter::Rows { table, mut values } => {
                    let names: Vec<&str> = table.stored_columns().map(|c| c.name).collect();
                    let rows = values.chunks(table.columns().count());
                    insert_all(&conn, &insert_sql(table.table, &names), rows, names.len())?;
                    values.clear();
                    let _ = spare.send(values);
                }
                ToWriter::Runs { table, runs } => {
                    let runs_table = table.runs_table().expect("a dataset with runs");
                    let names = [&["first_id", "last_id"], table.run_columns].concat();
                    let rows = runs.iter().map(Vec::as_slice);
                    insert_all(&conn, &insert_sql(&runs_table, &names), rows, names.len())?;
                }
                ToWriter::Finished(table) if final_when_read(table) => {
                    create_indexes(&conn, table)?;
                    indexed.push(table.table);
                }
                ToWriter::Finished(_) => {}
            }
        }
        Ok((conn, indexed))
    })
}

fn build(
    opts: &LoadOptions,
    partial: &Path,
    sources: &[input::InputSource],
    kinds: &[&'static Dataset],
    countries: &[areas::Country],
    started: Instant,
) -> Result<LoadReport, LoadError> {
    let conn = open_for_build(partial)?;
    let (tx, rx) = mpsc::sync_channel::<ToWriter>(8);
    let (spare_tx, spare_rx) = mpsc::sync_channel(BATCH_BUFFERS);
    let widest = catalog::DATASETS.iter().map(|d| d.columns().count()).max();
    for _ in 0..BATCH_BUFFERS {
        let buffer = Vec::with_capacity(BATCH_ROWS * widest.unwrap_or(1));
        spare_tx
            .send(buffer)
            .map_err(|_| LoadError::WriterStopped)?;
    }
    let writer = spawn_writer(conn, rx, spare_tx);
    let link = WriterLink {
        tx,
        spare: spare_rx,
    };
    let progress = report::Progress::new(opts.progress, sources.iter().map(|s| s.size).sum());
    let mut report = LoadReport::default();
    let mut areas = areas::Areas::default();
    let mut aadf_points = areas::AadfPoints::default();
    let mut duplicate_places = Vec::new();
    let read_result = (|| -> Result<(), LoadError> {
        for dataset in LOAD_ORDER {
            let mine: Vec<&input::InputSource> = sources
                .iter()
                .zip(kinds)
                .filter(|(_, k)| k.table == dataset.table)
                .map(|(s, _)| s)
                .collect();
            let bytes = mine.iter().map(|s| s.size).sum();
            let mut table = TableLoader::new(dataset, opts, bytes);
            let mut sinks = rows::Sinks {
                link: &link,
                progress: &progress,
                areas: &mut areas,
                aadf_points: &mut aadf_points,
                report: &mut report,
            };
            for source in mine {
                table.load_source(source, &mut sinks)?;
            }
            duplicate_places.extend(table.finish(&link, &mut report)?);
            link.send(ToWriter::Finished(dataset))?;
        }
        Ok(())
    })();
    drop(link);
    progress.finish();
    // The writer's error, if any, is the cause of a closed channel: report it first.
    let (conn, indexed) = writer.join().expect("writer thread")?;
    read_result?;
    log::info!(
        "rows read and inserted: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    for places in duplicate_places {
        places.resolve(&conn, &mut report)?;
    }
    if !report.is_clean(opts.skip_bad_rows, opts.keep_first) {
        return Err(LoadError::BadRows(Box::new(report)));
    }
    areas::complete_count_points(&conn, &aadf_points, &mut report)?;
    areas::write_derived(&conn, &areas, countries, &mut report)?;
    for d in catalog::DATASETS
        .iter()
        .filter(|d| !indexed.contains(&d.table))
    {
        create_indexes(&conn, d)?;
    }
    // Sampled statistics: enough for the planner to choose between indexes, in a fraction of
    // the time of a full ANALYZE.
    conn.execute_batch("PRAGMA analysis_limit = 1000; ANALYZE; COMMIT;")?;
    log::info!(
        "indexes and ANALYZE: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    report.release = opts.release.clone();
    report.elapsed_seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Writes the metadata table (once the source hashes are known) and closes the file.
fn finish(partial: &Path, report: &LoadReport) -> Result<(), LoadError> {
    let conn = open_partial(partial)?;
    conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")?;
    let mut put = conn.prepare("INSERT INTO metadata (key, value) VALUES (?1, ?2)")?;
    for (key, value) in report.metadata() {
        put.execute((key, value))?;
    }
    drop(put);
    conn.close().map_err(|(_, e)| LoadError::Sqlite(e))
}
