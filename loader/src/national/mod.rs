//! The national files, Parquet, CSV and zip, written by the load from the rows it reads, so
//! that every one is ready when the load ends (the server would otherwise read each table back
//! out of SQLite and write it on its first start: seconds to a minute).
//!
//! The big tables (rows with places that no later step changes: AADF, AADF by direction, raw
//! counts) are copied as they go to SQLite to a thread of their own (the third core's worth of
//! work: the reader and SQLite have the other two), which sorts them by count point in bounded
//! memory (`spill`: sorted runs in temporary files beside the target, merged) and writes their
//! CSV files in id order as the rows come (`csv`: checked once the areas' names are settled).
//! Once every place is in the index, their curve positions are known, and the thread writes
//! each Parquet file in the server's order (`write`) and each CSV file's zip, while SQLite
//! finishes its indexes. The small tables a load
//! completes in SQLite (count points, the tables of totals) are written from their tables.
//!
//! The files go to a staging folder under the downloads root (`{pid}.loading`), and into the
//! release's folder (named by its id, where the server looks) only once the new file is in
//! place: a refused or killed load leaves no file the server would serve.

mod csv;
mod same_bytes;
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
use csv::Draft;
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

/// A batch of a streamed table's rows, and where its buffer goes back once sorted.
struct Batch {
    table: &'static Dataset,
    values: Vec<Value>,
    spare: SyncSender<Vec<Value>>,
}

/// What the national thread is sent as rows are read.
enum ToNational {
    Rows(Batch),
    /// Every row of the table was sent: its sort lets go of its buffer.
    Finished(&'static Dataset),
}

/// Every row is in: the count points' curve positions, and the areas' names.
type Placed = (HashMap<i64, u64>, AreaNames);

/// The link to the national thread, held by the thread that last handles each batch of rows
/// (it adds them up for the tables of totals): batches go on to it instead of being copied.
#[derive(Clone)]
pub struct Feed(SyncSender<ToNational>);

impl Feed {
    /// Hands over a batch of rows once inserted: to the national thread, if a national file is
    /// written from them, which gives the buffer back to `spare` once sorted; else straight
    /// back. A thread that stopped says why when it is joined.
    pub fn take(
        &self,
        table: &'static Dataset,
        mut values: Vec<Value>,
        spare: &SyncSender<Vec<Value>>,
    ) {
        if streamed(table) {
            let spare = spare.clone();
            let batch = Batch {
                table,
                values,
                spare,
            };
            match self.0.send(ToNational::Rows(batch)) {
                Ok(()) => return,
                Err(back) => match back.0 {
                    ToNational::Rows(batch) => values = batch.values,
                    ToNational::Finished(_) => return,
                },
            }
        }
        values.clear();
        let _ = spare.send(values);
    }

    /// Every row of `table` was handed over.
    pub fn finished(&self, table: &'static Dataset) {
        if streamed(table) {
            let _ = self.0.send(ToNational::Finished(table));
        }
    }
}

/// The national files being written.
pub struct National {
    feed: Option<Feed>,
    placed: Option<SyncSender<Placed>>,
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
        let (placed, placed_rx) = sync_channel(1);
        let (spill_dir, dir) = (spill_dir.to_path_buf(), staging.dir.clone());
        let thread = std::thread::spawn(move || sort_and_write(&rx, &placed_rx, &spill_dir, &dir));
        Ok(National {
            feed: Some(Feed(tx)),
            placed: Some(placed),
            thread: Some(thread),
            staging,
        })
    }

    pub fn feed(&self) -> Option<Feed> {
        self.feed.clone()
    }

    /// Every row is in `conn` (and its places index): the streamed files are written on the
    /// national thread from now on, once the last batch has reached it.
    pub fn rows_done(&mut self, conn: &Connection) -> Result<(), DownloadError> {
        self.feed = None;
        let positions = order::positions(conn)?;
        let areas = AreaNames::read(conn)?;
        if let Some(placed) = self.placed.take() {
            let _ = placed.send((positions, areas));
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
            files.extend(csv::from_table(conn, d, &areas, &self.staging.dir)?);
        }
        self.feed = None;
        self.placed = None;
        let thread = self.thread.take();
        let joined = thread.map(|t| t.join());
        let written = match joined {
            Some(Ok(result)) => result?,
            Some(Err(_)) => return Err(DownloadError::parquet("the national thread panicked")),
            None => Vec::new(),
        };
        files.extend(written);
        // A streamed table's CSV file not whole as written (`csv`), or of no rows.
        for d in catalog::DATASETS.iter().filter(|d| streamed(d)) {
            let key = csv::csv_key(d);
            if !files.iter().any(|f| Some(f.key.as_str()) == key) {
                files.extend(csv::from_table(conn, d, &areas, &self.staging.dir)?);
            }
        }
        log::info!(
            "national files: {} ready {:.1} s after the rows",
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
        self.placed = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The national thread: sorts the streamed rows as they come and drafts their CSV files,
/// then, once every batch is in and the places are known, writes their files.
fn sort_and_write(
    rx: &Receiver<ToNational>,
    placed: &Receiver<Placed>,
    spill_dir: &Path,
    dir: &Path,
) -> Result<Vec<Staged>, DownloadError> {
    let mut spills: Vec<(&'static Dataset, Spill)> = Vec::new();
    let mut drafts: Vec<Draft> = Vec::new();
    for message in rx {
        match message {
            ToNational::Rows(mut batch) => {
                let (d, values) = (batch.table, &batch.values);
                let added = sort_batch(&mut spills, d, values, spill_dir)
                    .map_err(DownloadError::from)
                    .and_then(|()| draft_batch(&mut drafts, d, values, dir));
                batch.values.clear();
                let _ = batch.spare.send(batch.values);
                added?;
            }
            ToNational::Finished(d) => match spills.last_mut() {
                Some((s, spill)) if std::ptr::eq(*s, d) => spill.release()?,
                _ => {}
            },
        }
    }
    let mut jobs: Vec<Job> = spills
        .into_iter()
        .map(|(d, s)| Job::Parquet(d, s))
        .collect();
    jobs.extend(drafts.into_iter().map(|d| Job::Csv(Box::new(d))));
    match placed.recv() {
        Ok((positions, areas)) => write_all(jobs, dir, &positions, &areas),
        Err(_) => Ok(Vec::new()), // the load stopped before its rows were all in
    }
}

/// Adds a batch to its table's CSV file, begun with the table's first batch.
fn draft_batch(
    drafts: &mut Vec<Draft>,
    d: &'static Dataset,
    values: &[Value],
    dir: &Path,
) -> Result<(), DownloadError> {
    if !drafts
        .last()
        .is_some_and(|draft| std::ptr::eq(draft.dataset(), d))
    {
        match Draft::new(d, dir)? {
            Some(draft) => drafts.push(draft),
            None => return Ok(()),
        }
    }
    match drafts.last_mut() {
        Some(draft) => Ok(draft.add(values)?),
        None => Ok(()),
    }
}

/// Adds a batch to its table's sort. Tables come one after another: the one before lets go of
/// its buffer, so that only one is held.
fn sort_batch(
    spills: &mut Vec<(&'static Dataset, Spill)>,
    d: &'static Dataset,
    values: &[Value],
    spill_dir: &Path,
) -> std::io::Result<()> {
    if !spills.last().is_some_and(|(s, _)| std::ptr::eq(*s, d)) {
        if let Some((_, previous)) = spills.last_mut() {
            previous.release()?;
        }
        let (width, position) = (d.columns().count(), |name| d.position(name));
        let (Some(key), Some(id)) = (position(PLACE_KEY), position("id")) else {
            return Ok(());
        };
        let budget = spill::buffer_bytes();
        spills.push((d, Spill::new(spill_dir, width, key, id, budget)?));
    }
    match spills.last_mut() {
        Some((_, spill)) => spill.add(values),
        None => Ok(()),
    }
}

/// Threads writing the streamed files once the rows are in: the load's other work is done by
/// then, so both cores write.
const WRITERS: usize = 2;

/// A streamed table's file to write once the rows are in: its Parquet file from its sorted
/// rows, or its CSV file (and zip) from its draft.
enum Job {
    Parquet(&'static Dataset, Spill),
    Csv(Box<Draft>),
}

impl Job {
    fn bytes(&self) -> u64 {
        match self {
            Job::Parquet(_, spill) => spill.bytes(),
            Job::Csv(draft) => draft.bytes(),
        }
    }

    fn run(
        self,
        dir: &Path,
        positions: &HashMap<i64, u64>,
        areas: &AreaNames,
    ) -> Result<Vec<Staged>, DownloadError> {
        let started = Instant::now();
        let (d, files) = match self {
            Job::Parquet(d, spill) => (d, write_one(d, spill, dir, positions, areas)?),
            Job::Csv(draft) => (draft.dataset(), draft.finish(areas, dir)?),
        };
        let seconds = started.elapsed().as_secs_f64();
        for file in &files {
            log::info!("{}: {} written in {seconds:.1} s", d.table, file.key);
        }
        Ok(files)
    }
}

/// Writes each streamed table's files, the biggest first, on [`WRITERS`] threads.
fn write_all(
    mut jobs: Vec<Job>,
    dir: &Path,
    positions: &HashMap<i64, u64>,
    areas: &AreaNames,
) -> Result<Vec<Staged>, DownloadError> {
    jobs.sort_by_key(Job::bytes);
    let jobs = std::sync::Mutex::new(jobs);
    let next = || jobs.lock().ok().and_then(|mut jobs| jobs.pop());
    let written: Vec<Result<Vec<Staged>, DownloadError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..WRITERS)
            .map(|_| {
                scope.spawn(|| {
                    let mut files = Vec::new();
                    while let Some(job) = next() {
                        files.extend(job.run(dir, positions, areas)?);
                    }
                    Ok(files)
                })
            })
            .collect();
        let joined = workers.into_iter().map(|w| w.join());
        joined
            .map(|j| j.unwrap_or_else(|_| Err(DownloadError::parquet("a writer panicked"))))
            .collect()
    });
    let mut files = Vec::new();
    for w in written {
        files.extend(w?);
    }
    Ok(files)
}

/// A streamed table's Parquet file from its sorted rows.
fn write_one(
    d: &'static Dataset,
    spill: Spill,
    dir: &Path,
    positions: &HashMap<i64, u64>,
    areas: &AreaNames,
) -> Result<Vec<Staged>, DownloadError> {
    if spill.placeless > 0 {
        let placeless = spill.placeless;
        log::warn!("{}: {placeless} rows without a count point", d.table);
    }
    let sorted: Sorted = spill.finish()?;
    let file = write::from_sorted(d, &sorted, positions, areas, dir)?;
    Ok(file.into_iter().collect())
}

impl Prepared {
    /// Moves the files into the folder of the release `release_id` under the root: each with
    /// its ETag beside it first (the server takes a file as whole once it has both).
    pub fn commit(self, release_id: &str) -> std::io::Result<()> {
        let Some(root) = self.staging.dir.parent() else {
            return Ok(());
        };
        let own = release_folder(release_id);
        let folder = root.join(&own);
        std::fs::create_dir_all(&folder)?;
        let mut linked = 0;
        for file in &self.files {
            let target = folder.join(&file.key);
            let mut etag_path = target.as_os_str().to_owned();
            etag_path.push(".etag");
            let etag = format!("\"{}\"", &file.sha256[..32]);
            let len = std::fs::metadata(&file.path)?.len();
            if let Some(kept) = same_bytes::kept_elsewhere(root, &own, &file.key, &etag, len) {
                linked += usize::from(same_bytes::link_over(&kept, &file.path));
            }
            std::fs::write(&etag_path, etag)?;
            std::fs::rename(&file.path, &target)?;
        }
        if linked > 0 {
            log::info!("downloads: {linked} file(s) the same as another release's, stored once");
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
