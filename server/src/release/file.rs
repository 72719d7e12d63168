//! The loaded file: opened read-only through the descriptor it holds, checked (schema version,
//! metadata), its rows counted, behind a connection pool.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{OpenFlags, OptionalExtension};

use roadtraffic_catalog::changes::ChangeReport;
use roadtraffic_catalog::record::RecordLayout;
use roadtraffic_catalog::schema::{self, metadata};
use roadtraffic_catalog::{Dataset, DATASETS};
use roadtraffic_releases::Storage;

use super::{DbMetrics, Kept};
use crate::error::ApiError;

pub type Pool = r2d2::Pool<SqliteConnectionManager>;
pub type PooledConnection = r2d2::PooledConnection<SqliteConnectionManager>;

/// How the file on disk is told apart from its replacement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileIdentity {
    dev: u64,
    ino: u64,
    pub size: u64,
    mtime: i64,
}

impl FileIdentity {
    pub fn of(path: &Path) -> std::io::Result<Self> {
        Ok(Self::from_metadata(&std::fs::metadata(path)?))
    }

    fn from_metadata(m: &std::fs::Metadata) -> Self {
        FileIdentity {
            dev: m.dev(),
            ino: m.ino(),
            size: m.len(),
            mtime: m.mtime(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("{0}: not a database built by roadtraffic-load: {1}")]
    NotOurs(PathBuf, String),
}

/// How every release is opened: from the configuration, the same for each file served.
#[derive(Clone)]
pub struct Settings {
    /// SQLite connections: queries run at once.
    pub connections: u32,
    /// SQLite's page cache, per connection, in KiB.
    pub cache_kib: u64,
    /// How much of each file SQLite reads through a memory map, in bytes (0: all by `pread`).
    /// A cold page reads tens of pages that the page cache cannot hold; through the map they
    /// are not copied into it, nor asked for one system call each.
    pub mmap_bytes: u64,
    pub metrics: Arc<DbMetrics>,
    /// Connections opened at once and kept open; all of them when `None`.
    pub min_idle: Option<u32>,
}

/// What a release says of itself in its metadata, and since when this server answers from it.
#[derive(Debug, Clone)]
pub struct About {
    /// `--release` given to the loader, if any.
    pub label: Option<String>,
    /// When the loader built the file (RFC 3339, as the loader wrote it).
    pub loaded_at: Option<SystemTime>,
    /// SHA-256 of the file's metadata, as `key<TAB>value<LF>` lines in key order (every source
    /// file's SHA-256, the row counts, the load time, the schema version): the same for every
    /// copy of one load, another for each load.
    pub id: String,
    pub schema_version: String,
    pub serving_since: SystemTime,
}

pub struct Release {
    pub pool: Pool,
    /// A connection of its own for the readiness probe, which never waits behind queries.
    probe: Mutex<rusqlite::Connection>,
    /// Held open so that the pool's connections, opened through them, see these files: the
    /// release's own, then those it shares groups of (a kept release's, see
    /// `roadtraffic_releases::Storage`).
    _files: Vec<File>,
    pub identity: FileIdentity,
    /// Changes with every load: part of every ETag.
    pub tag: String,
    /// Whether it is served at the plain paths (`PerFile`) or by name (`PerLoad`).
    pub tagging: Tagging,
    pub about: About,
    /// Rows per table, and whether its ids are exactly 1..rows (page N is then an id range).
    rows: HashMap<&'static str, (i64, bool)>,
    metrics: Arc<DbMetrics>,
    /// What the layers above learn of this file and keep while it is served.
    pub kept: Kept,
    /// The datasets whose whole records the file holds ready-written, in today's layout.
    rendered: HashSet<&'static str>,
    /// The datasets whose runs are long enough for records to be written run by run.
    long_runs: HashSet<&'static str>,
}

/// The mean rows a run of a dataset must have for its records to be written run by run (see
/// `record::SplitLayout`): each run is looked up once, a seek in the runs table, which runs
/// of a few rows (a file in another order than DfT's) would not repay.
const LONG_RUN_ROWS: i64 = 8;

const FLAGS: OpenFlags = OpenFlags::SQLITE_OPEN_READ_ONLY
    .union(OpenFlags::SQLITE_OPEN_URI)
    .union(OpenFlags::SQLITE_OPEN_NO_MUTEX);

/// How a release's responses are tagged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tagging {
    /// By the load and the file on disk: another copy of one load, or the same load renamed in
    /// again, is revalidated (`/api`).
    PerFile,
    /// By the load alone: a named release's responses never change, on any replica.
    PerLoad,
}

impl Release {
    /// Opens the release held by one complete file.
    pub fn open(path: &Path, settings: &Settings) -> Result<Release, OpenError> {
        Release::open_kept(&Storage::file(path), settings, Tagging::PerFile)
    }

    /// Opens a release from its storage: its own file, and those it shares groups of, attached
    /// on every connection.
    pub fn open_kept(
        storage: &Storage,
        settings: &Settings,
        tagging: Tagging,
    ) -> Result<Release, OpenError> {
        let path = storage.main.as_path();
        let not_ours = |why: String| OpenError::NotOurs(path.to_path_buf(), why);
        let (files, uris) = open_files(storage)?;
        let identity = FileIdentity::from_metadata(
            &files[0]
                .metadata()
                .map_err(|e| OpenError::Io(path.to_path_buf(), e))?,
        );
        let uri = uris[0].clone();
        let attach = attach_sql(&uris[1..]);
        // The tables read through layers: temporary views over the files as attached, made
        // before the connection is made read-only.
        let schemas: Vec<String> = (0..storage.attached.len())
            .map(|i| format!("shared{i}"))
            .collect();
        let views: String = (storage.layer_views("main", &schemas).iter())
            .map(|v| format!(" {v};"))
            .collect();
        let init = format!(
            "{attach}{views} PRAGMA query_only = ON; PRAGMA cache_size = -{}; PRAGMA mmap_size = {};",
            settings.cache_kib, settings.mmap_bytes
        );
        // One connection checks the file before the pool is built: a pool would retry a file
        // that is not SQLite for its whole connection timeout before giving up.
        let probe = rusqlite::Connection::open_with_flags(&uri, FLAGS)
            .and_then(|c| c.execute_batch(&init).map(|()| c))
            .map_err(|e| not_ours(e.to_string()))?;
        let about = read_about(&probe).map_err(not_ours)?;
        let rows = count_rows(&probe).map_err(not_ours)?;
        let rendered = rendered_records(&probe).map_err(not_ours)?;
        let long_runs = long_runs(&probe, &rows).map_err(not_ours)?;
        let manager = SqliteConnectionManager::file(&uri)
            .with_flags(FLAGS)
            .with_init(move |c| {
                c.execute_batch(&init)?;
                crate::sql_functions::register(c)
            });
        // No check on checkout: r2d2_sqlite's runs a statement each time (about 7% of the
        // CPU of a small page), and a connection to a local read-only file does not go stale.
        let pool = r2d2::Pool::builder()
            .test_on_check_out(false)
            .max_size(settings.connections)
            .min_idle(Some(settings.min_idle.unwrap_or(settings.connections)))
            .idle_timeout(None)
            .max_lifetime(None)
            .connection_timeout(Duration::from_secs(10))
            .build(manager)
            .map_err(|e| not_ours(e.to_string()))?;
        let tag = match tagging {
            Tagging::PerFile => format!(
                "{:x}",
                roadtraffic_catalog::stable_hash(&format!(
                    "{}/{}/{}/{}",
                    about.id, identity.ino, identity.size, identity.mtime
                ))
            ),
            Tagging::PerLoad => about.id[..32].to_string(),
        };
        Ok(Release {
            pool,
            probe: Mutex::new(probe),
            _files: files,
            tagging,
            identity,
            tag,
            about,
            rows,
            metrics: settings.metrics.clone(),
            kept: Kept::default(),
            rendered,
            long_runs,
        })
    }

    /// Whether the dataset's records are written run by run (its runs are long).
    pub fn has_long_runs(&self, dataset: &Dataset) -> bool {
        self.long_runs.contains(dataset.table)
    }

    /// Whether the file holds the dataset's whole records ready-written (see
    /// `roadtraffic_catalog::record`).
    pub fn has_rendered_records(&self, dataset: &Dataset) -> bool {
        self.rendered.contains(dataset.table)
    }

    /// Whether the table has a record of this id.
    pub fn has_record(&self, table: &str, id: i64) -> Result<bool, ApiError> {
        let conn = self.pool.get()?;
        let sql = format!("SELECT EXISTS (SELECT 1 FROM {table} WHERE id = ?1)");
        Ok(conn.query_row(&sql, [id], |r| r.get(0))?)
    }

    /// What changed since the file this one replaced, as the loader kept it in the metadata;
    /// `None` when the load that built this file replaced none. For `/releases/latest/changes`
    /// and the pages that show it.
    pub fn changes(&self) -> Result<Option<ChangeReport>, ApiError> {
        let stored = metadata_value(&*self.pool.get()?, metadata::CHANGES)?;
        let Some(stored) = stored else {
            return Ok(None);
        };
        let report = serde_json::from_str(&stored)
            .map_err(|e| ApiError::internal(format!("metadata {}: {e}", metadata::CHANGES)))?;
        Ok(Some(report))
    }

    /// Rows in a table, and whether its ids are dense (1..rows).
    pub fn rows(&self, table: &str) -> (i64, bool) {
        self.rows.get(table).copied().unwrap_or((0, false))
    }

    /// Rows per table, as the loader's `row_counts` metadata has them (a JSON object).
    pub fn row_counts_json(&self) -> serde_json::Value {
        let rows = self.table_rows().map(|(t, n)| (t.to_string(), n.into()));
        serde_json::Value::Object(rows.collect())
    }

    /// The source files the loader read, with their sizes and SHA-256 (a JSON array), from the
    /// metadata; `null` when it holds none.
    pub fn sources_json(&self) -> serde_json::Value {
        let stored = (self.probe.lock().ok())
            .and_then(|c| metadata_value(&c, metadata::SOURCES).ok().flatten());
        stored
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or(serde_json::Value::Null)
    }

    /// Rows per table, in the catalogue's order.
    pub fn table_rows(&self) -> impl Iterator<Item = (&'static str, i64)> + '_ {
        DATASETS.iter().map(|d| (d.table, self.rows(d.table).0))
    }

    /// A connection from the pool; the wait is measured, and a wait past the pool's limit is a
    /// 503.
    pub fn connection(&self) -> Result<PooledConnection, ApiError> {
        let waiting = Instant::now();
        let conn = self.pool.get();
        self.metrics
            .pool_wait
            .observe(waiting.elapsed().as_secs_f64());
        conn.map_err(|e| {
            self.metrics.pool_timeouts.inc();
            ApiError::from(e)
        })
    }

    /// What the SQLite layer counts, for the queries run on this release.
    pub fn metrics(&self) -> &DbMetrics {
        &self.metrics
    }

    /// Whether the file still answers a query: the readiness probe's check.
    pub fn check(&self) -> Result<(), String> {
        let probe = self
            .probe
            .lock()
            .map_err(|_| "the probe connection's lock is poisoned".to_string())?;
        probe
            .query_row("SELECT count(*) FROM metadata", [], |r| r.get::<_, i64>(0))
            .map(drop)
            .map_err(|e| e.to_string())
    }
}

/// The files of a release opened, and the URI of each through its descriptor: the release's
/// own first.
fn open_files(storage: &Storage) -> Result<(Vec<File>, Vec<String>), OpenError> {
    let paths = std::iter::once(&storage.main).chain(&storage.attached);
    let mut files = Vec::new();
    let mut uris = Vec::new();
    for path in paths {
        let file = File::open(path).map_err(|e| OpenError::Io(path.clone(), e))?;
        uris.push(pinned_uri(path, &file));
        files.push(file);
    }
    Ok((files, uris))
}

/// The statements that attach the files a release shares groups from: SQL naming a table
/// finds it in the release's own file first, then in these.
fn attach_sql(uris: &[String]) -> String {
    let quoted = |uri: &str| uri.replace('\'', "''");
    (uris.iter().enumerate())
        .map(|(i, uri)| format!(" ATTACH DATABASE '{}' AS shared{i};", quoted(uri)))
        .collect()
}

/// An SQLite URI that opens this very file, through the descriptor held: one renamed over the
/// path later is another release, never mixed into this one.
fn pinned_uri(path: &Path, file: &File) -> String {
    let pinned = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
    let pinned = if pinned.exists() {
        pinned
    } else {
        path.to_path_buf()
    };
    // immutable=1: the loader never writes a served file in place (it renames a new one
    // over it), so SQLite can skip all locking.
    format!(
        "file:{}?mode=ro&immutable=1",
        roadtraffic_catalog::schema::uri_path(&pinned)
    )
}

/// The file's metadata, checked: of this schema version, with a load time.
fn read_about(conn: &rusqlite::Connection) -> Result<About, String> {
    let entries: Vec<(String, String)> = conn
        .prepare("SELECT key, value FROM metadata ORDER BY key")
        .and_then(|mut stmt| {
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect()
        })
        .map_err(|e| format!("metadata: {e}"))?;
    let meta = |key: &str| entries.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    let version = meta(metadata::SCHEMA_VERSION)
        .ok_or_else(|| format!("metadata {}: missing", metadata::SCHEMA_VERSION))?;
    let expected = schema::version();
    if *version != expected {
        return Err(format!(
            "schema version {version}, this server reads version {expected}: reload it with this version's roadtraffic-load"
        ));
    }
    let loaded_at = meta(metadata::LOADED_AT)
        .ok_or_else(|| format!("metadata {}: missing", metadata::LOADED_AT))?;
    // `sqlite3 -readonly -separator "$(printf '\t')" FILE "SELECT key, value FROM metadata
    // ORDER BY key" | sha256sum` gives the same, so a rollout can tell which file a replica has.
    let id = roadtraffic_downloads::release_id(entries.iter().map(|(k, v)| (&**k, &**v)));
    Ok(About {
        label: meta(metadata::RELEASE).filter(|l| !l.is_empty()).cloned(),
        loaded_at: humantime::parse_rfc3339(loaded_at).ok(),
        id,
        schema_version: version.clone(),
        serving_since: SystemTime::now(),
    })
}

/// Rows per table, and whether its ids are exactly 1..rows.
fn count_rows(conn: &rusqlite::Connection) -> Result<HashMap<&'static str, (i64, bool)>, String> {
    let mut rows = HashMap::new();
    for d in DATASETS {
        let (count, max): (i64, Option<i64>) = conn
            .query_row(
                &format!("SELECT count(*), max(id) FROM {}", d.table),
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| format!("table {}: {e}", d.table))?;
        rows.insert(d.table, (count, max.unwrap_or(0) == count));
    }
    Ok(rows)
}

/// The datasets written run by run (those that keep own values) whose runs hold at least
/// [`LONG_RUN_ROWS`] rows on average.
fn long_runs(
    conn: &rusqlite::Connection,
    rows: &HashMap<&'static str, (i64, bool)>,
) -> Result<HashSet<&'static str>, String> {
    let mut long = HashSet::new();
    for d in DATASETS {
        let Some(runs) = d.own_values_table().and(d.runs_table()) else {
            continue; // never written run by run: its runs need not be counted
        };
        let count: i64 = conn
            .query_row(&format!("SELECT count(*) FROM {runs}"), [], |r| r.get(0))
            .map_err(|e| format!("table {runs}: {e}"))?;
        let (rows, _) = rows.get(d.table).copied().unwrap_or_default();
        if count > 0 && rows >= LONG_RUN_ROWS * count {
            long.insert(d.table);
        }
    }
    Ok(long)
}

/// Whether the file is the bundled sample built by another version of the loader, whose
/// schema this server does not read: it holds nothing but the sample, so it can be built again.
pub fn is_stale_sample(path: &Path) -> bool {
    let Ok(conn) = rusqlite::Connection::open_with_flags(path, FLAGS) else {
        return false;
    };
    let value = |key| metadata_value(&conn, key).ok().flatten();
    value(metadata::RELEASE).as_deref() == Some(crate::configuration::SAMPLE_RELEASE)
        && value(metadata::SCHEMA_VERSION) != Some(schema::version())
}

/// One value of the metadata table.
fn metadata_value(conn: &rusqlite::Connection, key: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row("SELECT value FROM metadata WHERE key = ?1", [key], |r| {
        r.get(0)
    })
    .optional()
}

/// The datasets whose rendered records are laid out as this server lays out records: a file
/// loaded by another version, whose records differ, is served from its columns instead.
fn rendered_records(conn: &rusqlite::Connection) -> Result<HashSet<&'static str>, String> {
    let stored =
        metadata_value(conn, metadata::RENDERED_RECORDS).map_err(|e| format!("metadata: {e}"))?;
    let tags: HashMap<String, String> = match stored {
        Some(json) => serde_json::from_str(&json)
            .map_err(|e| format!("metadata {}: {e}", metadata::RENDERED_RECORDS))?,
        None => HashMap::new(),
    };
    Ok(DATASETS
        .iter()
        .filter(|d| tags.get(d.table) == Some(&RecordLayout::whole(d).tag()))
        .map(|d| d.table)
        .collect())
}
