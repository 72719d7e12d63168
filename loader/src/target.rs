//! The file a load replaces (`--db`): checked before anything is read, locked against a second
//! load, built beside it under a name of its own, and swapped in only when complete and no
//! smaller than what it replaces.
//!
//! The new file is created exclusively (`O_EXCL`, a unique name: never an existing path or a
//! symbolic link) in the target's folder, so that the final rename is atomic and nothing is
//! written anywhere else.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use crate::error::{LoadError, TargetError};
use crate::input::{self, FileId};
use crate::report::{Shrunk, TableRows};

/// The new file is refused if a table falls under this share of its old row count.
const SHRINK_SHARE: u64 = 2;

/// A file the loader may replace, locked for this load.
pub struct Target {
    /// The path the new file is renamed to (a symbolic link's target, when `--db` is one).
    pub path: PathBuf,
    dir: PathBuf,
    /// The row counts of the file it replaces, if there is one.
    pub previous: Option<Vec<TableRows>>,
    id: Option<FileId>,
    _lock: Lock,
}

impl Target {
    /// Checks `--db` and takes the lock. `--db` must be absent or a regular file built by
    /// roadtraffic-load (or empty); never a folder, device, FIFO or socket, nor anyone's CSV.
    pub fn claim(db: &Path) -> Result<Target, LoadError> {
        let refuse = |why: String| LoadError::from(TargetError::Refused(db.to_path_buf(), why));
        let path = match std::fs::symlink_metadata(db) {
            Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(db)
                .map_err(|_| refuse("a symbolic link to nothing".into()))?,
            _ => db.to_path_buf(),
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !dir.is_dir() {
            return Err(refuse(format!(
                "its folder {} does not exist",
                dir.display()
            )));
        }
        let existing = match std::fs::metadata(&path) {
            Ok(m) => Some(m),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(LoadError::io(&path, e)),
        };
        if let Some(m) = existing.as_ref().filter(|m| !m.is_file()) {
            return Err(refuse(format!(
                "{}, not a file a load can replace",
                input::kind_of(m)
            )));
        }
        let lock = Lock::take(&dir, &path, db)?;
        let previous = match &existing {
            Some(m) if m.len() > 0 => Some(row_counts(&path).map_err(|why| {
                refuse(format!(
                    "exists and is not a database built by roadtraffic-load ({why}): refusing to \
                     replace it; move it away or choose another --db"
                ))
            })?),
            _ => None,
        };
        let target = Target {
            id: existing.as_ref().map(input::file_id),
            path,
            dir,
            previous,
            _lock: lock,
        };
        target.remove_leftovers();
        Ok(target)
    }

    /// Refuses a load that would read the file it replaces.
    pub fn check_not_an_input(&self, db: &Path, inputs: &[FileId]) -> Result<(), LoadError> {
        match self.id {
            Some(id) if inputs.contains(&id) => {
                let why = "is also one of the inputs: the load would replace what it reads";
                Err(TargetError::Refused(db.to_path_buf(), why.into()).into())
            }
            _ => Ok(()),
        }
    }

    fn file_name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The new file, created exclusively under a unique name beside the target.
    pub fn create_partial(&self) -> Result<tempfile::NamedTempFile, LoadError> {
        let partial = tempfile::Builder::new()
            .prefix(&format!(".{}.", self.file_name()))
            .suffix(PARTIAL_SUFFIX)
            .tempfile_in(&self.dir)
            .map_err(|e| LoadError::io(&self.dir, e))?;
        // Readable by a server running as another user, as the file it replaces was.
        let mode = std::fs::metadata(&self.path).map_or(0o644, |m| m.mode() & 0o777);
        std::fs::set_permissions(partial.path(), std::fs::Permissions::from_mode(mode))
            .map_err(|e| LoadError::io(partial.path(), e))?;
        Ok(partial)
    }

    /// The tables the new file would hold less than half of (or none), if any.
    pub fn shrinks(&self, after: &[TableRows]) -> Vec<Shrunk> {
        let Some(before) = &self.previous else {
            return Vec::new();
        };
        before
            .iter()
            .filter_map(|b| {
                let now = after
                    .iter()
                    .find(|a| a.table == b.table)
                    .map_or(0, |a| a.rows);
                (b.rows > 0 && now * SHRINK_SHARE < b.rows).then(|| Shrunk {
                    table: b.table.clone(),
                    before: b.rows,
                    after: now,
                })
            })
            .collect()
    }

    /// Makes the complete new file durable and renames it over the target.
    pub fn swap_in(&self, partial: tempfile::NamedTempFile) -> Result<(), LoadError> {
        partial
            .as_file()
            .sync_all()
            .map_err(|e| LoadError::io(partial.path(), e))?;
        partial
            .persist(&self.path)
            .map_err(|e| LoadError::io(&self.path, e.error))?;
        // The rename itself is durable once the folder is synced.
        let _ = File::open(&self.dir).and_then(|d| d.sync_all());
        Ok(())
    }

    /// Files a killed load left behind (it could not remove them): ours to remove, now that
    /// we hold the lock. A link is only ever unlinked, never followed.
    fn remove_leftovers(&self) {
        let prefix = format!(".{}.", self.file_name());
        let legacy = format!("{}.partial", self.file_name());
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let ours = name.starts_with(&prefix) && name.ends_with(PARTIAL_SUFFIX);
            let regular = entry.file_type().is_ok_and(|t| t.is_file());
            if ours || (name == legacy && regular) {
                log::info!("removing {name}, left by an interrupted load");
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

const PARTIAL_SUFFIX: &str = ".partial";

/// Opens a file built by roadtraffic-load for reading only, on one thread: never written,
/// never locked (the loader replaces such files by renaming, never in place).
pub fn open_built(path: &Path) -> rusqlite::Result<Connection> {
    let uri = format!(
        "file:{}?mode=ro&immutable=1",
        roadtraffic_catalog::schema::uri_path(path)
    );
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Connection::open_with_flags(uri, flags)
}

/// Row counts of a file built by roadtraffic-load, from its metadata, without writing to it.
fn row_counts(path: &Path) -> Result<Vec<TableRows>, String> {
    let conn = open_built(path).map_err(|e| e.to_string())?;
    let counts: String = conn
        .query_row(
            "SELECT value FROM metadata WHERE key = 'row_counts'",
            [],
            |r| r.get(0),
        )
        .map_err(|e| e.to_string())?;
    let map: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&counts).map_err(|e| e.to_string())?;
    Ok(map
        .into_iter()
        .map(|(table, rows)| TableRows {
            table,
            rows: rows.as_u64().unwrap_or(0),
        })
        .collect())
}

/// The lock that keeps two loads from building the same file: a lock file beside it, opened
/// without following links. Another load may remove the file between our open and our lock,
/// so the lock counts only if the locked file is still the one at that path. Removed when the
/// load ends.
struct Lock {
    path: PathBuf,
    file: File,
}

impl Lock {
    fn take(dir: &Path, target: &Path, db: &Path) -> Result<Lock, LoadError> {
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let path = dir.join(format!(".{name}.lock"));
        for _ in 0..10 {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .custom_flags(libc::O_NOFOLLOW)
                .mode(0o644)
                .open(&path)
                .map_err(|e| LoadError::io(&path, e))?;
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(TargetError::Busy(db.to_path_buf()).into())
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(LoadError::io(&path, e)),
            }
            let locked = file.metadata().map_err(|e| LoadError::io(&path, e))?;
            match std::fs::symlink_metadata(&path) {
                Ok(now) if input::file_id(&now) == input::file_id(&locked) => {
                    return Ok(Lock { path, file })
                }
                _ => continue, // removed under us: open the new one
            }
        }
        Err(TargetError::Busy(db.to_path_buf()).into())
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Unlinked while still held, so that a load waiting on this file retries on a new one.
        let ours = std::fs::symlink_metadata(&self.path)
            .ok()
            .zip(self.file.metadata().ok())
            .is_some_and(|(now, held)| input::file_id(&now) == input::file_id(&held));
        if ours {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
