//! The national Parquet files, written by the load from the rows it reads, so that every one
//! is ready when the load ends (the server would otherwise read each table back out of SQLite
//! and write it on its first start: seconds to a minute).
//!
//! The big tables (rows with places that no later step changes: AADF, AADF by direction, raw
//! counts) are copied as they go to SQLite to a thread of their own (the third core's worth of
//! work: the reader and SQLite have the other two), which sorts them by count point in bounded
//! memory (`spill`: sorted runs in temporary files beside the target, merged). Once every place
//! is in the index, their curve positions are known and the thread writes each file in the
//! server's order (`write`) while SQLite finishes its indexes. The small tables a load
//! completes in SQLite (count points, the tables of totals) are written from their tables.
//!
//! The files go to a staging folder under the downloads root (`{pid}.loading`), and into the
//! release's folder (named by its id, where the server looks) only once the new file is in
//! place: a refused or killed load leaves no file the server would serve.

mod spill;
mod write;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;
use std::time::Instant;

use rusqlite::Connection;

use roadtraffic_catalog::places::{Places, PLACE_KEY};
use roadtraffic_catalog::{self as catalog, Dataset};
use roadtraffic_downloads::{order, release_folder, AreaNames, DownloadError};

use crate::value::Value;
use spill::{Sorted, Spill};
use write::Staged;

/// Batches of rows waiting for the national thread: a few, so that a slow sort holds the
/// reader back rather than filling memory.
const QUEUE: usize = 4;

/// Whether a dataset's national file is written from its rows as they are read: rows with
/// places that nothing completes afterwards.
fn streamed(d: &'static Dataset) -> bool {
    d.national_file().is_some() && Places::of(d).is_some() && d.completion.is_none()
}

enum ToNational {
    Rows(&'static Dataset, Vec<Value>),
    /// Every row is in: the count points' curve positions, and the areas' names.
    Write(HashMap<i64, u64>, AreaNames),
}

/// The reader's end of the link to the national thread.
#[derive(Clone)]
pub struct Feed(SyncSender<ToNational>);

impl Feed {
    /// Copies rows on their way to SQLite, if a national file is written from them. A thread
    /// that stopped says why when it is joined.
    pub fn see(&self, table: &'static Dataset, values: &[Value]) {
        if streamed(table) {
            let _ = self.0.send(ToNational::Rows(table, values.to_vec()));
        }
    }
}

/// The national files being written.
pub struct National {
    feed: Option<Feed>,
    thread: Option<JoinHandle<Result<Vec<Staged>, DownloadError>>>,
    staging: Staging,
}

/// The files written, waiting in the staging folder for the new release to be in place.
pub struct Prepared {
    files: Vec<Staged>,
    staging: Staging,
}

impl National {
    /// Starts the national thread; its runs spill into `spill_dir`, its files into a staging
    /// folder under `root` (the server's downloads folder).
    pub fn start(spill_dir: &Path, root: &Path) -> std::io::Result<National> {
        let staging = Staging::new(root)?;
        let (tx, rx) = sync_channel(QUEUE);
        let (spill_dir, dir) = (spill_dir.to_path_buf(), staging.dir.clone());
        let thread = std::thread::spawn(move || sort_and_write(&rx, &spill_dir, &dir));
        Ok(National {
            feed: Some(Feed(tx)),
            thread: Some(thread),
            staging,
        })
    }

    pub fn feed(&self) -> Option<Feed> {
        self.feed.clone()
    }

    /// Every row is in `conn` (and its places index): the streamed files are written on the
    /// national thread from now on.
    pub fn rows_done(&mut self, conn: &Connection) -> Result<(), DownloadError> {
        let positions = order::positions(conn)?;
        let areas = AreaNames::read(conn)?;
        if let Some(Feed(tx)) = self.feed.take() {
            let _ = tx.send(ToNational::Write(positions, areas));
        }
        Ok(())
    }

    /// Writes the small tables' files from `conn` (finished), and waits for the others.
    pub fn finish(mut self, conn: &Connection) -> Result<Prepared, DownloadError> {
        let started = Instant::now();
        let areas = AreaNames::read(conn)?;
        let mut files = Vec::new();
        let small = catalog::DATASETS.iter().filter(|d| !streamed(d));
        for d in small {
            files.extend(write::from_table(conn, d, &areas, &self.staging.dir)?);
        }
        self.feed = None;
        let thread = self.thread.take();
        let joined = thread.map(|t| t.join());
        let streamed = match joined {
            Some(Ok(result)) => result?,
            Some(Err(_)) => return Err(DownloadError::parquet("the national thread panicked")),
            None => Vec::new(),
        };
        files.extend(streamed);
        log::info!(
            "national Parquet files: {} ready {:.1} s after the rows",
            files.len(),
            started.elapsed().as_secs_f64()
        );
        Ok(Prepared {
            files,
            staging: std::mem::replace(&mut self.staging, Staging::none()),
        })
    }
}

impl Drop for National {
    fn drop(&mut self) {
        self.feed = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The national thread: sorts the streamed rows as they come, then writes their files.
fn sort_and_write(
    rx: &Receiver<ToNational>,
    spill_dir: &Path,
    dir: &Path,
) -> Result<Vec<Staged>, DownloadError> {
    let mut spills: Vec<(&'static Dataset, Spill)> = Vec::new();
    for message in rx {
        let (d, values) = match message {
            ToNational::Rows(d, values) => (d, values),
            ToNational::Write(positions, areas) => {
                return write_sorted(spills, spill_dir, dir, &positions, &areas);
            }
        };
        let at = spills.iter().position(|(s, _)| std::ptr::eq(*s, d));
        let at = match at {
            Some(at) => at,
            None => {
                let (width, position) = (d.columns().count(), |name| d.position(name));
                let (Some(key), Some(id)) = (position(PLACE_KEY), position("id")) else {
                    continue;
                };
                let budget = spill::BUFFER_VALUES;
                spills.push((d, Spill::new(spill_dir, width, key, id, budget)?));
                spills.len() - 1
            }
        };
        spills[at].1.add(&values)?;
    }
    Ok(Vec::new()) // the load stopped before its rows were all in
}

fn write_sorted(
    spills: Vec<(&'static Dataset, Spill)>,
    spill_dir: &Path,
    dir: &Path,
    positions: &HashMap<i64, u64>,
    areas: &AreaNames,
) -> Result<Vec<Staged>, DownloadError> {
    let mut files = Vec::new();
    for (d, spill) in spills {
        let started = Instant::now();
        if spill.placeless > 0 {
            log::warn!(
                "{}: {} rows without a count point",
                d.table,
                spill.placeless
            );
        }
        let sorted: Sorted = spill.finish(spill_dir)?;
        let seconds = started.elapsed().as_secs_f64();
        log::info!("{}: rows sorted by count point in {seconds:.1} s", d.table);
        files.extend(write::from_sorted(d, &sorted, positions, areas, dir)?);
    }
    Ok(files)
}

impl Prepared {
    /// Moves the files into the folder of the release `release_id` under the root: each with
    /// its ETag beside it first (the server takes a file as whole once it has both).
    pub fn commit(self, release_id: &str) -> std::io::Result<()> {
        let Some(root) = self.staging.dir.parent() else {
            return Ok(());
        };
        let folder = root.join(release_folder(release_id));
        std::fs::create_dir_all(&folder)?;
        for file in &self.files {
            let target = folder.join(&file.key);
            let mut etag_path = target.as_os_str().to_owned();
            etag_path.push(".etag");
            let etag = format!("\"{}\"", &file.sha256[..32]);
            std::fs::write(&etag_path, etag)?;
            std::fs::rename(&file.path, &target)?;
        }
        Ok(())
    }
}

/// The folder the files are written into before the release is in place; removed with what
/// is left in it when dropped (and the downloads root, if then empty).
struct Staging {
    dir: PathBuf,
}

impl Staging {
    fn new(root: &Path) -> std::io::Result<Staging> {
        std::fs::create_dir_all(root)?;
        remove_abandoned(root);
        let dir = root.join(format!("{}.loading", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        Ok(Staging { dir })
    }

    fn none() -> Staging {
        Staging {
            dir: PathBuf::new(),
        }
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.dir.as_os_str().is_empty() {
            let _ = std::fs::remove_dir_all(&self.dir);
            // The root too, if this left it empty: a refused load leaves nothing beside --db.
            if let Some(root) = self.dir.parent() {
                let _ = std::fs::remove_dir(root);
            }
        }
    }
}

/// Staging folders of loads that were killed (their process gone).
fn remove_abandoned(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name.to_str().and_then(|n| n.strip_suffix(".loading"));
        let gone = pid.is_some_and(|pid| {
            pid.bytes().all(|b| b.is_ascii_digit()) && !Path::new("/proc").join(pid).exists()
        });
        if gone {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
