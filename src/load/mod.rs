//! The loader: published CSV files in, one indexed SQLite file out, atomically.
//!
//! One thread reads and checks the CSV rows (this one), another inserts them into SQLite, so
//! both cores work. The file is built under a temporary name beside the target, fsynced, and
//! renamed over the target only when complete: a reader of the target (the server) sees the old
//! file or the new one, never a partial one.

mod areas;
pub mod input;
mod report;
mod rows;
pub mod value;

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use rusqlite::Connection;

use crate::catalog::{self, Dataset};
use crate::schema;
pub use report::{LoadReport, Problem, SourceReport};
use rows::TableLoader;
use value::Value;

#[derive(Debug, Clone, Default)]
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
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The input is not what a load can take; the message says where and why.
    #[error("{0}")]
    Refused(String),
    #[error("{}", report::bad_rows_message(.0))]
    BadRows(Box<LoadReport>),
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("another load into {0} is in progress")]
    Busy(PathBuf),
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

/// What the reading thread sends the SQLite thread.
pub(crate) enum ToWriter {
    Rows {
        table: &'static Dataset,
        rows: Vec<Vec<Value>>,
    },
    /// Rows of the table's runs table: first_id, last_id, then the run columns.
    Runs {
        table: &'static Dataset,
        runs: Vec<Vec<Value>>,
    },
    /// Every row of the table has been sent.
    Finished(&'static Dataset),
}

/// The temporary file a load builds, beside the target so that the rename is atomic.
pub fn partial_path(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    db.with_file_name(name)
}

/// Runs a whole load. On success the target file has been replaced; on failure it is untouched
/// and the temporary file removed.
pub fn run(opts: &LoadOptions) -> Result<LoadReport, LoadError> {
    let started = Instant::now();
    if opts.inputs.is_empty() {
        return Err(LoadError::Refused("no input files given".into()));
    }
    let (sources, files) = input::expand(&opts.inputs)?;
    // Hash the input files on the side while the rows are read.
    let hashing = {
        let files = files.clone();
        std::thread::spawn(move || {
            files
                .iter()
                .map(|f| input::sha256_file(f).map_err(|e| LoadError::io(f, e)))
                .collect::<Result<Vec<String>, LoadError>>()
        })
    };
    let kinds = rows::classify(&sources)?;
    let countries = areas::read_countries(opts.countries.as_deref())?;

    let partial = partial_path(&opts.db);
    let lock = lock_partial(&partial, &opts.db)?;
    let result =
        build(opts, &partial, &sources, &kinds, &countries, started).and_then(|mut report| {
            let hashes = hashing.join().expect("hashing thread")?;
            report.sources = files
                .iter()
                .zip(hashes)
                .map(|(f, sha256)| SourceReport {
                    file: f.display().to_string(),
                    bytes: std::fs::metadata(f).map(|m| m.len()).unwrap_or(0),
                    sha256,
                })
                .collect();
            finish(&partial, &report)?;
            // Make the new file durable before it replaces the old one.
            File::open(&partial)
                .and_then(|f| f.sync_all())
                .map_err(|e| LoadError::io(&partial, e))?;
            std::fs::rename(&partial, &opts.db).map_err(|e| LoadError::io(&opts.db, e))?;
            if let Some(dir) = opts.db.parent().filter(|d| !d.as_os_str().is_empty()) {
                // The rename itself is durable once the directory is synced.
                let _ = File::open(dir).and_then(|d| d.sync_all());
            }
            report.elapsed_seconds = started.elapsed().as_secs_f64();
            Ok(report)
        });
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    drop(lock);
    result
}

/// Takes the lock that keeps two loads from building the same file: a lock on the temporary
/// file itself. Another load may rename or remove the file between our open and our lock, so
/// the lock only counts if the locked file is still the one at that path.
fn lock_partial(partial: &Path, db: &Path) -> Result<File, LoadError> {
    use std::os::unix::fs::MetadataExt;
    for _ in 0..10 {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .read(true)
            .open(partial)
            .map_err(|e| LoadError::io(partial, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(LoadError::Busy(db.to_path_buf()))
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(LoadError::io(partial, e)),
        }
        let locked = file.metadata().map_err(|e| LoadError::io(partial, e))?;
        match std::fs::metadata(partial) {
            Ok(now) if now.ino() == locked.ino() && now.dev() == locked.dev() => return Ok(file),
            _ => continue, // renamed or removed under us: open the new one
        }
    }
    Err(LoadError::Busy(db.to_path_buf()))
}

fn open_for_build(partial: &Path) -> Result<Connection, LoadError> {
    // Start from an empty file whatever an interrupted load left there.
    File::create(partial).map_err(|e| LoadError::io(partial, e))?;
    let conn = Connection::open(partial)?;
    // No journal and no syncs while building: the file is not the target until renamed, and a
    // crash just leaves a temporary file that the next load overwrites.
    conn.execute_batch(
        "PRAGMA page_size = 32768;
         PRAGMA journal_mode = OFF;
         PRAGMA synchronous = OFF;
         PRAGMA locking_mode = EXCLUSIVE;
         PRAGMA cache_size = -32768;
         PRAGMA threads = 2;",
    )?;
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

fn insert_all(
    conn: &Connection,
    sql: &str,
    rows: &[Vec<Value>],
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
) -> std::thread::JoinHandle<Result<(Connection, Vec<&'static str>), LoadError>> {
    std::thread::spawn(move || {
        conn.execute_batch("BEGIN")?;
        let mut indexed = Vec::new();
        for message in batches {
            match message {
                ToWriter::Rows { table, rows } => {
                    let names: Vec<&str> = table.stored_columns().map(|c| c.name).collect();
                    insert_all(&conn, &insert_sql(table.table, &names), &rows, names.len())?;
                }
                ToWriter::Runs { table, runs } => {
                    let runs_table = table.runs_table().expect("a dataset with runs");
                    let names = [&["first_id", "last_id"], table.run_columns].concat();
                    insert_all(&conn, &insert_sql(&runs_table, &names), &runs, names.len())?;
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
    let writer = spawn_writer(conn, rx);
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
            let mut table = TableLoader::new(dataset, opts.skip_bad_rows, opts.keep_first, bytes);
            for source in mine {
                table.load_source(
                    source,
                    &tx,
                    &progress,
                    &mut areas,
                    &mut aadf_points,
                    &mut report,
                )?;
            }
            duplicate_places.extend(table.finish(&tx, &mut report)?);
            tx.send(ToWriter::Finished(dataset))
                .map_err(|_| LoadError::Refused("the SQLite writer stopped".into()))?;
        }
        Ok(())
    })();
    drop(tx);
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
    let conn = Connection::open(partial)?;
    conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")?;
    let mut put = conn.prepare("INSERT INTO metadata (key, value) VALUES (?1, ?2)")?;
    for (key, value) in report.metadata() {
        put.execute((key, value))?;
    }
    drop(put);
    conn.close().map_err(|(_, e)| LoadError::Sqlite(e))
}
