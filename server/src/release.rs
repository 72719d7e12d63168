//! A loaded release: the SQLite file opened read-only behind a connection pool, with what the
//! server learns about it once (row counts, filter sets), and its replacement when
//! the loader renames a new file into place.

use std::collections::HashMap;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{OpenFlags, OptionalExtension};

use roadtraffic_catalog::changes::ChangeReport;
use roadtraffic_catalog::schema::{self, metadata};
use roadtraffic_catalog::DATASETS;

use crate::api::FilterSets;
use crate::cache::ResponseCache;
use crate::error::ApiError;

pub type Pool = r2d2::Pool<SqliteConnectionManager>;

/// How the file on disk is told apart from its replacement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileIdentity {
    dev: u64,
    ino: u64,
    size: u64,
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

pub struct Release {
    pub pool: Pool,
    /// Held open so that the pool's connections, opened through it, see this file.
    _file: File,
    pub identity: FileIdentity,
    /// Changes with every load: part of every ETag.
    pub tag: String,
    /// Rows per table, and whether its ids are exactly 1..rows (page N is then an id range).
    rows: HashMap<&'static str, (i64, bool)>,
    /// What has been learnt of the filter sets asked for.
    pub filter_sets: FilterSets,
    /// Finished responses of this file.
    pub responses: ResponseCache,
    /// What the website learns of the file once (its map data, areas, headline figures).
    pub site: std::sync::OnceLock<Arc<crate::site::Summary>>,
}

/// How each loaded file is served.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// SQLite connections: queries run at once.
    pub connections: u32,
    /// The response cache's bound, in bytes (0: none).
    pub response_cache_bytes: u64,
}

impl Release {
    pub fn open(path: &Path, settings: Settings) -> Result<Release, OpenError> {
        let io = |e| OpenError::Io(path.to_path_buf(), e);
        // Every connection of this release opens this very file, through the descriptor held
        // here: one renamed over the path later is another release, never mixed into this one.
        let file = File::open(path).map_err(io)?;
        let identity = FileIdentity::from_metadata(&file.metadata().map_err(io)?);
        let pinned = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        let pinned = if pinned.exists() {
            pinned
        } else {
            path.to_path_buf()
        };
        let not_ours = |why: String| OpenError::NotOurs(path.to_path_buf(), why);
        // immutable=1: the loader never writes a served file in place (it renames a new one
        // over it), so SQLite can skip all locking.
        let uri = format!(
            "file:{}?mode=ro&immutable=1",
            roadtraffic_catalog::schema::uri_path(&pinned)
        );
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let manager = SqliteConnectionManager::file(&uri)
            .with_flags(flags)
            .with_init(|c| {
                c.execute_batch(
                    "PRAGMA query_only = ON; PRAGMA cache_size = -8192; PRAGMA mmap_size = 0;",
                )
            });
        let pool = r2d2::Pool::builder()
            .max_size(settings.connections)
            .min_idle(Some(settings.connections))
            .idle_timeout(None)
            .max_lifetime(None)
            .connection_timeout(Duration::from_secs(10))
            .build(manager)
            .map_err(|e| not_ours(e.to_string()))?;
        let conn = pool.get().map_err(|e| not_ours(e.to_string()))?;
        let meta = |key: &str| -> Result<String, OpenError> {
            conn.query_row("SELECT value FROM metadata WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .map_err(|e| not_ours(format!("metadata {key}: {e}")))
        };
        let version = meta(metadata::SCHEMA_VERSION)?;
        let expected = schema::version();
        if version != expected {
            return Err(not_ours(format!(
                "schema version {version}, this server reads version {expected}: reload it with this version's roadtraffic-load"
            )));
        }
        let loaded_at = meta(metadata::LOADED_AT)?;
        let mut rows = HashMap::new();
        for d in DATASETS {
            let (count, max): (i64, Option<i64>) = conn
                .query_row(
                    &format!("SELECT count(*), max(id) FROM {}", d.table),
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .map_err(|e| not_ours(format!("table {}: {e}", d.table)))?;
            rows.insert(d.table, (count, max.unwrap_or(0) == count));
        }
        drop(conn);
        let tag = format!(
            "{:x}",
            roadtraffic_catalog::stable_hash(&format!(
                "{loaded_at}/{}/{}/{}",
                identity.ino, identity.size, identity.mtime
            ))
        );
        Ok(Release {
            pool,
            _file: file,
            identity,
            tag,
            rows,
            filter_sets: FilterSets::default(),
            responses: ResponseCache::new(settings.response_cache_bytes),
            site: std::sync::OnceLock::new(),
        })
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
        let conn = self.pool.get()?;
        let stored: Option<String> = conn
            .query_row(
                "SELECT value FROM metadata WHERE key = ?1",
                [metadata::CHANGES],
                |r| r.get(0),
            )
            .optional()?;
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
}

/// The release being served, replaced when a new file appears at the same path.
pub struct Current {
    path: PathBuf,
    settings: Settings,
    release: RwLock<Arc<Release>>,
    /// A file found not servable, not tried again until another takes its place.
    refused: Mutex<Option<FileIdentity>>,
}

impl Current {
    pub fn open(path: &Path, settings: Settings) -> Result<Current, OpenError> {
        let release = Release::open(path, settings)?;
        Ok(Current {
            path: path.to_path_buf(),
            settings,
            release: RwLock::new(Arc::new(release)),
            refused: Mutex::new(None),
        })
    }

    /// The release a request works on from start to end: a swap never mixes two files in one
    /// response, and the old file stays open until its last request is done.
    pub fn get(&self) -> Result<Arc<Release>, ApiError> {
        self.release
            .read()
            .map(|r| r.clone())
            .map_err(|_| ApiError::internal("the release lock is poisoned"))
    }

    /// Opens the file again if it is not the one being served; keeps the old one (and says
    /// why) if the new one cannot be served.
    pub fn refresh(&self) {
        let Ok(identity) = FileIdentity::of(&self.path) else {
            return; // mid-rename or removed: keep serving what we have
        };
        // This thread alone writes these locks: a poisoned one still holds a whole value.
        let mut refused = self.refused.lock().unwrap_or_else(PoisonError::into_inner);
        let serving = self
            .release
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .identity;
        if identity == serving || *refused == Some(identity) {
            return;
        }
        match Release::open(&self.path, self.settings) {
            Ok(new) => {
                log::info!(
                    "serving the new release at {} ({} bytes)",
                    self.path.display(),
                    new.identity.size
                );
                let mut release = self.release.write().unwrap_or_else(PoisonError::into_inner);
                *release = Arc::new(new);
            }
            Err(e) => {
                log::error!("not switching to the new file: {e}");
                *refused = Some(identity);
            }
        }
    }

    /// Checks for a new file every `every`, on a thread of its own.
    pub fn watch(self: &Arc<Self>, every: Duration) {
        let me = Arc::downgrade(self);
        std::thread::spawn(move || loop {
            std::thread::sleep(every);
            let Some(current) = me.upgrade() else { return };
            current.refresh();
        });
    }
}
