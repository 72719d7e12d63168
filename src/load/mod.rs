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

/// The order in which kinds are loaded: count points first so that AADF can complete them.
const LOAD_ORDER: [&Dataset; 7] = [
    &catalog::COUNT_POINTS,
    &catalog::AADF,
    &catalog::AADF_BY_DIRECTION,
    &catalog::RAW_COUNTS,
    &catalog::LOCAL_AUTHORITY_TRAFFIC,
    &catalog::REGION_TRAFFIC_BY_ROAD_TYPE,
    &catalog::REGION_TRAFFIC_BY_VEHICLE_TYPE,
];

/// Rows travel to the SQLite thread in batches of this many.
const BATCH_ROWS: usize = 2048;

pub(crate) struct Batch {
    table: &'static Dataset,
    rows: Vec<Vec<Value>>,
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
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .read(true)
        .open(&partial)
        .map_err(|e| LoadError::io(&partial, e))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Err(LoadError::Busy(opts.db.clone())),
        Err(std::fs::TryLockError::Error(e)) => return Err(LoadError::io(&partial, e)),
    }
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

fn open_for_build(partial: &Path) -> Result<Connection, LoadError> {
    // Start from an empty file whatever an interrupted load left there.
    File::create(partial).map_err(|e| LoadError::io(partial, e))?;
    let conn = Connection::open(partial)?;
    // No journal and no syncs while building: the file is not the target until renamed, and a
    // crash just leaves a temporary file that the next load overwrites.
    conn.execute_batch(
        "PRAGMA page_size = 8192;
         PRAGMA journal_mode = OFF;
         PRAGMA synchronous = OFF;
         PRAGMA locking_mode = EXCLUSIVE;
         PRAGMA cache_size = -65536;
         PRAGMA threads = 2;",
    )?;
    for ddl in schema::create_all_tables() {
        conn.execute_batch(&ddl)?;
    }
    Ok(conn)
}

/// Inserts every batch it receives, in one transaction, on its own thread.
fn spawn_writer(
    conn: Connection,
    batches: mpsc::Receiver<Batch>,
) -> std::thread::JoinHandle<Result<Connection, LoadError>> {
    std::thread::spawn(move || {
        conn.execute_batch("BEGIN")?;
        for batch in batches {
            let names: Vec<&str> = batch.table.stored_columns().map(|c| c.name).collect();
            let sql = format!(
                "INSERT INTO {} ({}) VALUES ({})",
                batch.table.table,
                names.join(","),
                vec!["?"; names.len()].join(",")
            );
            let mut stmt = conn.prepare_cached(&sql)?;
            for row in &batch.rows {
                for (i, v) in row.iter().take(names.len()).enumerate() {
                    stmt.raw_bind_parameter(i + 1, v)?;
                }
                stmt.raw_execute()?;
            }
        }
        Ok(conn)
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
    let (tx, rx) = mpsc::sync_channel::<Batch>(8);
    let writer = spawn_writer(conn, rx);
    let progress = report::Progress::new(opts.progress, sources.iter().map(|s| s.size).sum());
    let mut report = LoadReport::default();
    let mut areas = areas::Areas::default();
    let mut aadf_points = areas::AadfPoints::default();
    let mut read_result = Ok(());
    for dataset in LOAD_ORDER {
        let mut table = TableLoader::new(dataset, opts.skip_bad_rows, opts.keep_first);
        for (source, _) in sources
            .iter()
            .zip(kinds)
            .filter(|(_, k)| k.table == dataset.table)
        {
            read_result = table.load_source(
                source,
                &tx,
                &progress,
                &mut areas,
                &mut aadf_points,
                &mut report,
            );
            if read_result.is_err() {
                break;
            }
        }
        table.finish(&mut report);
        if read_result.is_err() {
            break;
        }
    }
    drop(tx);
    progress.finish();
    // The writer's error, if any, is the cause of a closed channel: report it first.
    let conn = writer.join().expect("writer thread")?;
    read_result?;
    if !report.is_clean(opts.skip_bad_rows, opts.keep_first) {
        return Err(LoadError::BadRows(Box::new(report)));
    }
    conn.execute_batch("COMMIT")?;
    areas::complete_count_points(&conn, &aadf_points, &mut report)?;
    areas::write_derived(&conn, &areas, countries, &mut report)?;
    for d in catalog::DATASETS {
        for ddl in schema::create_indexes(d) {
            conn.execute_batch(&ddl)?;
        }
    }
    conn.execute_batch("ANALYZE")?;
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
