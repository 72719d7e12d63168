//! The loader: published CSV files in, one indexed SQLite file out, atomically.
//!
//! A load goes through its stages in order, each in a module of its own with the errors it can
//! stop on (`error.rs`):
//!
//! 1. **inputs** (`input.rs`, `guard.rs`): the command line's files, folders and zips, opened
//!    only if they are regular files, their bytes watched for records of no end;
//! 2. **recognise** (`recognise.rs`): each file's kind from its header (the second half of
//!    the files on a thread of their own);
//! 3. **read rows** (`rows.rs`, `cells.rs`, `keys.rs`, `runs.rs`): every cell checked against
//!    its column's domain, rows completed, keys and ids, on this thread, while `ahead.rs`
//!    inflates a table's next small zip member on another;
//! 4. **write** (`writer.rs`): SQLite inserts and indexes on a thread of its own, then the
//!    derived tables and completions (`derived.rs`);
//! 5. **swap** (`target.rs`): the new file, built beside the target under a name of its own,
//!    renamed over it only when complete and no smaller than what it replaces; with
//!    `--release`, the release it replaces kept beside it first (`keep/`).
//!
//! The report (`report/`) gathers what every stage saw: its data in `report/data.rs`, its forms
//! (text, JSON, metadata, progress bar) beside it. What a load is asked is `options.rs`. The
//! report and the errors sit below the stages, which import them, never the reverse:
//! `cli -> run -> stages -> error -> report -> releases -> catalogue`. `cli.rs` is the command line.

mod ahead;
pub mod areas;
mod cells;
pub mod cli;
mod derived;
mod error;
pub mod fetch;
mod guard;
mod input;
mod keep;
mod keys;
mod national;
mod options;
mod places;
mod recognise;
mod rendered;
mod repeats;
mod report;
mod rows;
mod runs;
mod target;
mod totals;
mod value;
mod writer;

use std::path::{Path, PathBuf};
use std::time::Instant;

use roadtraffic_catalog::{self as catalog, Dataset};
pub use roadtraffic_releases::diff;

pub use error::{
    AreaError, DiffError, FetchError, FileRefusal, InputError, LoadError, Refusal, Refusals,
    ReleaseError, TargetError,
};
pub use keep::{drop_release, list as list_releases};
pub use options::{LoadOptions, DEFAULT_MAX_RECORD_BYTES};
pub use report::{LoadReport, Problem, SourceReport};
use rows::TableLoader;
use target::Target;

/// Runs a whole load. On success the target file has been replaced; on failure it is untouched
/// and nothing is left behind.
pub fn run(opts: &LoadOptions) -> Result<LoadReport, LoadError> {
    let started = Instant::now();
    if opts.inputs.is_empty() && opts.fetch.is_none() {
        return Err(InputError::NoInputs.into());
    }
    let target = Target::claim(&opts.db)?;
    let keeping = keep::begin(opts, &target)?;
    let fetched = match &opts.fetch {
        Some(f) => fetch::fetch_release(f)?,
        None => fetch::Fetched::default(),
    };
    let loaded = load(opts, target, keeping, fetched, started);
    if let (Err(e), Some(f)) = (&loaded, &opts.fetch) {
        fetch::forget_damaged(f, &e.damaged_sources());
    }
    loaded
}

/// The load proper, once the release (if asked for) is in the cache.
fn load(
    opts: &LoadOptions,
    target: Target,
    keeping: Option<keep::Keeping>,
    fetched: fetch::Fetched,
    started: Instant,
) -> Result<LoadReport, LoadError> {
    let named: Vec<PathBuf> = opts.inputs.iter().chain(&fetched.paths).cloned().collect();
    let inputs = input::expand(&named)?;
    target.check_not_an_input(&opts.db, &inputs.ids)?;
    // Hash the input files on the side while the rows are read.
    let files = inputs.files.clone();
    let hashing = std::thread::spawn(move || input::describe(&files));
    let kinds = recognise::classify(&inputs.sources, opts.max_record_bytes)?;
    let countries = derived::read_countries(opts.countries.as_deref())?;

    let partial = target.create_partial()?;
    let spill_dir = partial.path().parent().unwrap_or(Path::new("."));
    let root = opts.downloads_root();
    let national =
        national::National::start(spill_dir, &root).map_err(|e| LoadError::io(&root, e))?;
    let (mut report, national) = build(
        opts,
        partial.path(),
        &inputs.sources,
        &kinds,
        &countries,
        national,
    )?;
    report.skipped_inputs = inputs.skipped;
    report.previous_rows = target.previous.clone();
    report.sources = hashing.join().map_err(|_| LoadError::WriterStopped)??;
    report.shrunk = target.shrinks(&report.rows);
    report.fetched = fetched.files;
    if !report.shrunk.is_empty() && !opts.allow_shrink {
        return Err(LoadError::Shrinks(Box::new(report)));
    }
    writer::write_metadata(partial.path(), &report.metadata())?;
    if target.previous.is_some() {
        compare_with_replaced(&target, partial.path(), &mut report)?;
    }
    areas::carry(&target.path, partial.path(), &mut report)?;
    let committed = match keeping {
        Some(k) => Some(k.commit(partial.path(), &mut report)?),
        None => None,
    };
    let release_id = rusqlite::Connection::open(partial.path())
        .and_then(|conn| roadtraffic_downloads::release_id_of(&conn));
    target.swap_in(partial)?;
    // The release is in place: its national files go where the server looks for them. A
    // failure leaves the server to write them itself, as before.
    if let (Some(national), Ok(id)) = (national, release_id) {
        if let Err(e) = national.commit(&id) {
            log::warn!("national files not put in place: {e}");
        }
    }
    if let Some(c) = committed {
        c.finish();
    }
    report.elapsed_seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// What changed since the file the new one replaces, kept in the new file's metadata. A
/// comparison that fails does not stop the load: the report says why there is none.
fn compare_with_replaced(
    target: &Target,
    partial: &Path,
    report: &mut LoadReport,
) -> Result<(), LoadError> {
    let started = Instant::now();
    match diff::compare_files(&target.path, partial) {
        Ok(changes) => {
            let json =
                serde_json::to_string(&changes).map_err(|e| LoadError::io(partial, e.into()))?;
            writer::write_metadata(partial, &[(catalog::schema::metadata::CHANGES, json)])?;
            report.changes = Some(changes);
        }
        Err(e) => report.note(format!(
            "the new file could not be compared with the one it replaces: {e}"
        )),
    }
    log::info!(
        "compared with the replaced file: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// What reading every file gathers besides the rows.
#[derive(Default)]
struct Gathered {
    report: LoadReport,
    areas: derived::Areas,
    places: places::PlaceSet,
    completions: derived::Completions,
    duplicate_places: Vec<keys::DuplicatePlaces>,
}

/// Reads and writes every row, then completes the file: duplicates named, derived tables,
/// completions, indexes.
fn build(
    opts: &LoadOptions,
    partial: &Path,
    sources: &[input::InputSource],
    kinds: &[&'static Dataset],
    countries: &[derived::Country],
    mut national: national::National,
) -> Result<(LoadReport, Option<national::Prepared>), LoadError> {
    let started = Instant::now();
    let (link, writer) = writer::start(partial, national.feed())?;
    let mut gathered = Gathered::default();
    let read = read_all(opts, sources, kinds, &link, &mut gathered);
    drop(link);
    // The writer's error, if any, is the cause of a closed channel: report it first.
    let (conn, completed) = writer.join().map_err(|_| LoadError::WriterStopped)??;
    read?;
    log::info!(
        "rows read and inserted: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let mut report = gathered.report;
    for places in gathered.duplicate_places {
        places.resolve(&conn, &mut report)?;
    }
    if !report.is_clean(opts.skip_bad_rows, opts.keep_first) {
        return Err(LoadError::BadRows(Box::new(report)));
    }
    gathered.completions.apply(&conn, &mut report)?;
    derived::write_derived(&conn, &gathered.areas, countries, &mut report)?;
    gathered.places.write(&conn)?;
    let rows_done = national.rows_done(&conn);
    if opts.rendered_records {
        report.rendered_records = rendered::render_all(&conn)?;
    }
    writer::finish_tables(&conn, &completed)?;
    log::info!(
        "indexes and ANALYZE: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    report.release = opts.release.clone();
    let prepared = rows_done.and_then(|()| national.finish(&conn));
    let prepared =
        prepared.map_err(|e| report.note(format!("the national files were not written: {e}")));
    Ok((report, prepared.ok()))
}

/// Reads every source, dataset by dataset in the catalogue's load order.
fn read_all(
    opts: &LoadOptions,
    sources: &[input::InputSource],
    kinds: &[&'static Dataset],
    link: &writer::WriterLink,
    gathered: &mut Gathered,
) -> Result<(), LoadError> {
    let progress = report::Progress::new(opts.progress, sources.iter().map(|s| s.size).sum());
    // The batch buffer left empty by a table's loader goes to the next one's.
    let mut buffer = Vec::new();
    for dataset in catalog::published() {
        let mine: Vec<&input::InputSource> = sources
            .iter()
            .zip(kinds)
            .filter(|(_, k)| std::ptr::eq(**k, dataset))
            .map(|(s, _)| s)
            .collect();
        let bytes = mine.iter().map(|s| s.size).sum();
        let mut table = TableLoader::new(dataset, opts, bytes).with_buffer(buffer);
        let mut sinks = rows::Sinks {
            link,
            progress: &progress,
            areas: &mut gathered.areas,
            places: &mut gathered.places,
            completions: &mut gathered.completions,
            report: &mut gathered.report,
        };
        ahead::reading_ahead(&mine, |ahead| {
            mine.iter()
                .try_for_each(|source| table.load_source(source, ahead.next(), &mut sinks))
        })?;
        buffer = table.take_buffer();
        gathered
            .duplicate_places
            .extend(table.finish(link, &mut gathered.report)?);
        link.send(writer::ToWriter::Finished(dataset))?;
    }
    progress.finish();
    Ok(())
}
