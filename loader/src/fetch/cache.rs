//! The download cache (`--cache-dir`): each file of the release as last checked, with a record
//! of where it came from, and at most one partial download per file, with the validators that
//! let the next attempt resume it. A file is only ever replaced by a complete, checked one;
//! a lock keeps two fetches out of one folder.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::FetchError;

/// What the server said of a file's content: what a conditional or ranged request names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Validators {
    pub url: String,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

impl Validators {
    /// What `If-Range` may name: a strong ETag, else the Last-Modified date. A weak ETag
    /// (`W/"..."`) cannot say that two byte ranges belong to one content.
    pub fn if_range(&self) -> Option<&str> {
        self.etag
            .as_deref()
            .filter(|e| !e.starts_with("W/"))
            .or(self.last_modified.as_deref())
    }
}

/// A complete file in the cache, as checked when it was downloaded.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    #[serde(flatten)]
    pub validators: Validators,
    pub bytes: u64,
    pub sha256: String,
}

/// The cache folder, locked for this fetch.
pub struct Cache {
    dir: PathBuf,
    _lock: File,
}

impl Cache {
    /// Creates the folder if needed and takes its lock.
    pub fn open(dir: &Path) -> Result<Cache, FetchError> {
        std::fs::create_dir_all(dir).map_err(|e| FetchError::cache(dir, e))?;
        let path = dir.join(".lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| FetchError::cache(&path, e))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(FetchError::Busy(dir.to_path_buf()))
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(FetchError::cache(&path, e)),
        }
        Ok(Cache {
            dir: dir.to_path_buf(),
            _lock: lock,
        })
    }

    /// Where the complete file lives.
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Where its download in progress lives.
    pub fn partial(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.part"))
    }

    fn record_path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.json"))
    }

    fn partial_record_path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.part.json"))
    }

    /// The record of the complete file, if it is there and whole (its size as recorded).
    pub fn record(&self, name: &str) -> Option<Record> {
        let record: Record = read_json(&self.record_path(name))?;
        let size = std::fs::metadata(self.file(name)).ok()?.len();
        (size == record.bytes).then_some(record)
    }

    /// The partial download and its validators, if there is one worth resuming: it has bytes,
    /// came from `url`, and the server gave a validator to resume it against.
    pub fn resumable(&self, name: &str, url: &str) -> Option<(u64, Validators)> {
        let validators: Validators = read_json(&self.partial_record_path(name))?;
        let size = std::fs::metadata(self.partial(name)).ok()?.len();
        (size > 0 && validators.url == url && validators.if_range().is_some())
            .then_some((size, validators))
    }

    /// Notes what the partial download holds, before its bytes are written.
    pub fn start_partial(&self, name: &str, validators: &Validators) -> Result<(), FetchError> {
        write_json(&self.partial_record_path(name), validators)
    }

    /// Removes a partial download that cannot be resumed or turned out bad.
    pub fn discard_partial(&self, name: &str) {
        let _ = std::fs::remove_file(self.partial(name));
        let _ = std::fs::remove_file(self.partial_record_path(name));
    }

    /// Makes the checked partial download the cached file, with its record.
    pub fn commit(&self, name: &str, record: &Record) -> Result<(), FetchError> {
        let (from, to) = (self.partial(name), self.file(name));
        // The record goes first: a crash in between leaves a record whose size does not
        // match the old file, which is then simply fetched again.
        write_json(&self.record_path(name), record)?;
        std::fs::rename(&from, &to).map_err(|e| FetchError::cache(&to, e))?;
        let _ = std::fs::remove_file(self.partial_record_path(name));
        Ok(())
    }

    /// Forgets a cached file that no longer matches its record.
    pub fn forget(&self, name: &str) {
        let _ = std::fs::remove_file(self.record_path(name));
    }
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Option<T> {
    let text = std::fs::read(path).ok()?;
    serde_json::from_slice(&text).ok()
}

/// Writes a small JSON file whole or not at all (a temporary file renamed over it).
fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), FetchError> {
    let text = serde_json::to_vec_pretty(value).map_err(|e| FetchError::cache(path, e))?;
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text).map_err(|e| FetchError::cache(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| FetchError::cache(path, e))
}
