//! The files of a release's downloads, written once and kept on disk, so that every request
//! for one gets the very same bytes, with a length, a strong ETag and byte ranges (what query
//! engines reading Parquet in place need, and what resuming a big CSV download needs).
//!
//! Each release has its own folder under the store's root (`--downloads-dir`, by default
//! beside the database), named by the release's id (the same for every copy of one load) and
//! the layout version of this server's files, so a server never serves another version's
//! bytes. A file is written under a temporary name and renamed into place when whole, with its
//! SHA-256 (the ETag) beside it; a lock file keeps two servers sharing the folder (replicas)
//! from writing the same file at once. In one server, the first request for a file builds it
//! and the others wait for it, without holding a thread.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use sha2::{Digest, Sha256};
use tokio::sync::{OnceCell, Semaphore};

use crate::error::ApiError;
use crate::release::{Release, Tagging};

use roadtraffic_downloads::release_folder;

/// A file of the store, whole on disk.
#[derive(Debug, Clone)]
pub struct Stored {
    pub path: PathBuf,
    pub len: u64,
    /// Strong, quoted: the start of the bytes' SHA-256.
    pub etag: String,
    pub modified: SystemTime,
    /// The file mapped, for the whole tables (a handful per release, read at every range a
    /// query engine asks: a range then goes out without a copy into this process); the many
    /// split files are opened and read for each request.
    pub mapped: Option<Arc<memmap2::Mmap>>,
    /// The file open, for the same whole tables: their ranges go to the socket by `sendfile`
    /// (`crate::wire`) without opening the file for each request.
    pub opened: Option<Arc<File>>,
}

/// How a stored file is written: a download's rows into the writer.
pub type Build = Box<dyn FnOnce(&mut dyn Write) -> Result<(), ApiError> + Send>;

/// The stored files of one release.
pub struct Store {
    dir: PathBuf,
    cells: Mutex<HashMap<String, Arc<OnceCell<Stored>>>>,
    /// Whole national files are written one at a time (each reads a whole table), split files
    /// two at a time: a crawler asking for every area's file waits its turn rather than taking
    /// every connection. The permit goes with the writing thread, which a client's leaving
    /// does not stop.
    heavy: Arc<Semaphore>,
    light: Arc<Semaphore>,
    /// Files whose writing failed, and when: asked again within [`RETRY_AFTER`], a 503 rather
    /// than another whole export that fails the same way.
    failed: Mutex<HashMap<String, Instant>>,
}

/// How long a file whose writing failed is not tried again.
const RETRY_AFTER: Duration = Duration::from_secs(30);

impl Store {
    /// The store of `release` under `root`; when it is the latest, the folders of releases not
    /// used for a while go. A kept release served by name prunes nothing: it is opened beside
    /// the latest, whose files (written once, then only read) must stay.
    pub fn new(root: &Path, release: &Release) -> Store {
        let name = release_folder(&release.about.id);
        if release.tagging == Tagging::PerFile {
            prune(root, &name);
        }
        let dir = root.join(name);
        touch(&dir);
        Store {
            dir,
            cells: Mutex::default(),
            heavy: Arc::new(Semaphore::new(1)),
            light: Arc::new(Semaphore::new(2)),
            failed: Mutex::default(),
        }
    }

    /// The stored file at `key` if it is known to be whole already: the way of every request
    /// but the first, which needs nothing else of the download.
    pub fn ready(&self, key: &str) -> Option<Stored> {
        let cells = self.cells.lock().unwrap_or_else(PoisonError::into_inner);
        cells.get(key)?.get().cloned()
    }

    /// The stored file at `key` (a path under `/downloads/`), built by `build` if it is not
    /// there yet. `heavy`: a whole table, built one at a time (and then mapped).
    pub async fn get(&self, key: &str, heavy: bool, build: Build) -> Result<Stored, ApiError> {
        let cell = {
            let mut cells = self.cells.lock().unwrap_or_else(PoisonError::into_inner);
            cells.entry(key.to_string()).or_default().clone()
        };
        let stored = cell
            .get_or_try_init(|| self.write(key, heavy, build))
            .await?;
        Ok(stored.clone())
    }

    /// Writes the file at `key` (or finds it written by another server), on a thread of its
    /// own: a build may take a minute, which the blocking pool's few threads (sized to the
    /// connections) cannot spare.
    async fn write(&self, key: &str, heavy: bool, build: Build) -> Result<Stored, ApiError> {
        if self.failed_lately(key) {
            return Err(ApiError::Unavailable);
        }
        let permits = if heavy { &self.heavy } else { &self.light };
        let permit = permits.clone().acquire_owned().await;
        let permit = permit.map_err(ApiError::internal)?;
        let (tx, rx) = tokio::sync::oneshot::channel();
        let path = self.dir.join(key);
        let written = path.clone();
        std::thread::spawn(move || {
            let _permit = permit;
            tx.send(stored_or_built(&written, build))
        });
        let result = rx
            .await
            .map_err(ApiError::internal)?
            .and_then(|mut stored| {
                if heavy && stored.len > 0 {
                    let (opened, map) = map(&path)?;
                    stored.len = map.len() as u64;
                    stored.mapped = Some(Arc::new(map));
                    stored.opened = Some(Arc::new(opened));
                }
                Ok(stored)
            });
        match &result {
            Ok(_) => touch(&self.dir),
            Err(_) => {
                let mut failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
                failed.insert(key.to_string(), Instant::now());
            }
        }
        result
    }

    fn failed_lately(&self, key: &str) -> bool {
        let failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
        failed.get(key).is_some_and(|at| at.elapsed() < RETRY_AFTER)
    }

    /// Forgets a stored file found gone (its folder pruned by another server): built again on
    /// the next request.
    pub fn forget(&self, key: &str) {
        let mut cells = self.cells.lock().unwrap_or_else(PoisonError::into_inner);
        cells.remove(key);
    }
}

/// The file at `path` if a whole one is there, else built now, under the folder's lock.
fn stored_or_built(path: &Path, build: Build) -> Result<Stored, ApiError> {
    if let Some(stored) = existing(path) {
        return Ok(stored);
    }
    let parent = path
        .parent()
        .ok_or_else(|| ApiError::internal("no folder"))?;
    fs::create_dir_all(parent).map_err(|e| io_error(parent, e))?;
    let lock_path = with_suffix(path, ".lock");
    let lock = File::create(&lock_path).map_err(|e| io_error(&lock_path, e))?;
    lock.lock().map_err(|e| io_error(&lock_path, e))?;
    // Another server may have built it while this one waited for the lock.
    if let Some(stored) = existing(path) {
        return Ok(stored);
    }
    let started = Instant::now();
    let stored = write(path, build)?;
    log::info!(
        "download {} written: {} bytes in {:.1} s",
        path.display(),
        stored.len,
        started.elapsed().as_secs_f64()
    );
    Ok(stored)
}

/// A whole file at `path`, with its ETag beside it (a quoted hexadecimal tag, as written).
fn existing(path: &Path) -> Option<Stored> {
    let etag = fs::read_to_string(with_suffix(path, ".etag")).ok()?;
    let hex = etag.strip_prefix('"')?.strip_suffix('"')?;
    if hex.len() != 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let meta = fs::metadata(path).ok()?;
    Some(Stored {
        path: path.to_path_buf(),
        len: meta.len(),
        etag,
        modified: meta.modified().ok()?,
        mapped: None,
        opened: None,
    })
}

/// The whole file at `path`, open and mapped read-only.
fn map(path: &Path) -> Result<(File, memmap2::Mmap), ApiError> {
    let file = File::open(path).map_err(|e| io_error(path, e))?;
    // SAFETY: a mapping is undefined behaviour if the file changes under it. A stored file is
    // never written again once renamed into place (each is written under a temporary name;
    // a rebuilt one replaces the name, not the bytes, so this mapping keeps the old inode),
    // and its folder is the store's own. Removing it (pruning) unlinks it; the mapping keeps
    // the inode alive. What is left is a process truncating it on purpose.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| io_error(path, e))?;
    Ok((file, map))
}

/// Writes the file under a temporary name, then its ETag, then renames it into place: a file
/// at `path` is always whole and has its ETag.
fn write(path: &Path, build: Build) -> Result<Stored, ApiError> {
    let temporary = with_suffix(path, &format!(".{}.partial", std::process::id()));
    let file = File::create(&temporary).map_err(|e| io_error(&temporary, e))?;
    let mut out = Hashing {
        inner: BufWriter::with_capacity(1 << 20, file),
        hash: Sha256::new(),
        failed: None,
    };
    // A write that failed (a full disk) fails the build as the client's going would: the
    // file's own error is the one to report.
    let written = build(&mut out).map_err(|e| match out.failed.take() {
        Some(failed) => io_error(&temporary, failed),
        None => e,
    });
    let written = written.and_then(|()| {
        let file = out
            .inner
            .into_inner()
            .map_err(|e| ApiError::internal(e.error()))?;
        file.sync_data().map_err(|e| io_error(&temporary, e))
    });
    if let Err(e) = written {
        let _ = fs::remove_file(&temporary);
        return Err(e);
    }
    let etag = format!("\"{:.32}\"", format!("{:x}", out.hash.finalize()));
    let etag_path = with_suffix(path, ".etag");
    let synced = File::create(&etag_path).and_then(|mut f| {
        f.write_all(etag.as_bytes())?;
        f.sync_data()
    });
    synced.map_err(|e| io_error(&etag_path, e))?;
    fs::rename(&temporary, path).map_err(|e| io_error(path, e))?;
    existing(path).ok_or_else(|| ApiError::internal(format!("{} vanished", path.display())))
}

/// A writer that hashes what it writes, and keeps the error of a write that failed.
struct Hashing {
    inner: BufWriter<File>,
    hash: Sha256,
    failed: Option<std::io::Error>,
}

impl Write for Hashing {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        match self.inner.write(data) {
            Ok(n) => {
                self.hash.update(&data[..n]);
                Ok(n)
            }
            Err(e) => {
                self.failed = Some(std::io::Error::new(e.kind(), e.to_string()));
                Err(e)
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Marks a release's folder as used now (its modification time), making it if need be.
fn touch(dir: &Path) {
    let now = fs::create_dir_all(dir)
        .and_then(|()| File::open(dir))
        .and_then(|f| f.set_modified(std::time::SystemTime::now()));
    if let Err(e) = now {
        log::warn!("{}: {e}", dir.display());
    }
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn io_error(path: &Path, e: std::io::Error) -> ApiError {
    ApiError::internal(format!("{}: {e}", path.display()))
}

/// Folders of other releases (or other versions) unused for this long are removed when a
/// release is opened; a replica still serving one a little longer builds again what it needs.
/// A folder is used when its store opens and when a file is written in it (`touch`).
const UNUSED: Duration = Duration::from_secs(600);

fn prune(root: &Path, keep: &str) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    // Only the store's own folders, named as `Store::new` names them: the root may be shared.
    let ours = |name: &str| {
        let (id, version) = name.split_once("-v").unwrap_or_default();
        id.len() == 16
            && id.bytes().all(|b| b.is_ascii_hexdigit())
            && !version.is_empty()
            && version.bytes().all(|b| b.is_ascii_digit())
    };
    let entries = entries
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(ours));
    for entry in entries {
        let unused = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > UNUSED);
        if entry.file_name() != keep && unused && entry.path().is_dir() {
            match fs::remove_dir_all(entry.path()) {
                Ok(()) => log::info!("removed old downloads {}", entry.path().display()),
                Err(e) => log::warn!("could not remove {}: {e}", entry.path().display()),
            }
        }
    }
}
