//! `roadtraffic-load --fetch`: the national files of the current release downloaded from the
//! Department for Transport's published location (`--source`) into a cache folder, each
//! checked whole before it is kept, then loaded as any other input.
//!
//! - `cache`: the folder, its records and partial downloads;
//! - `download`: one file's transfer (conditional and ranged requests, retries);
//! - `partial`: the body written and hashed on a second thread as it arrives;
//! - `verify`: the zip check (structure only; the load checks every member's CRC-32);
//! - `progress`: what is shown meanwhile.

mod cache;
mod download;
mod partial;
mod progress;
mod verify;

use std::path::{Path, PathBuf};

use roadtraffic_catalog as catalog;

use crate::error::FetchError;
/// What the report and the metadata keep of each fetched file.
pub use crate::report::FetchedFile;
use cache::{Cache, Record};
use download::{Job, Outcome};
pub use progress::Show;
use progress::{transfer, FileProgress};

/// DfT's public bucket, where the downloads page (roadtraffic.dft.gov.uk/downloads) links
/// the national files.
pub const DEFAULT_SOURCE: &str =
    "https://storage.googleapis.com/dft-statistics/road-traffic/downloads/data-gov-uk/";
/// Failures in a row allowed per file before giving up.
pub const DEFAULT_RETRIES: u32 = 5;

#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// The base URL the files' names are appended to.
    pub source: String,
    pub cache_dir: PathBuf,
    pub retries: u32,
    pub show: Show,
}

/// The release in the cache: what each file was, and where it is.
#[derive(Debug, Default)]
pub struct Fetched {
    pub files: Vec<FetchedFile>,
    pub paths: Vec<PathBuf>,
}

/// The files of the current release: for each published dataset, its national file's name
/// with `.zip` for `.csv`, under `source`.
pub fn release_files(source: &str) -> Result<Vec<(String, String)>, FetchError> {
    let lower = source.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Err(FetchError::BadSource(source.to_string()));
    }
    let base = source.trim_end_matches('/');
    Ok(catalog::published()
        .filter_map(|d| d.national_file())
        .map(|f| {
            let stem = f.name.strip_suffix(".csv").unwrap_or(f.name);
            let name = format!("{stem}.zip");
            let url = format!("{base}/{name}");
            (name, url)
        })
        .collect())
}

/// The cache folder used when `--cache-dir` is not given: beside the file being built,
/// `<folder>/<name>-downloads` (`data/roadtraffic-downloads` for `data/roadtraffic.db`).
pub fn default_cache_dir(db: &Path) -> PathBuf {
    let stem = db
        .file_stem()
        .map_or("roadtraffic".into(), |s| s.to_string_lossy().into_owned());
    let dir = db.parent().unwrap_or(Path::new(""));
    dir.join(format!("{stem}-downloads"))
}

/// Fetches every file of the release into the cache, each checked whole. On any failure
/// nothing half-downloaded is kept as a complete file (a partial one is kept to be resumed),
/// and the cached copies of earlier fetches stay as they were.
pub fn fetch_release(opts: &FetchOptions) -> Result<Fetched, FetchError> {
    let files = release_files(&opts.source)?;
    let cache = Cache::open(&opts.cache_dir)?;
    let agent = download::agent();
    let mut fetched = Fetched::default();
    for (name, url) in &files {
        let (file, path) = fetch_one(opts, &agent, &cache, name, url)?.run(&cache)?;
        fetched.files.push(file);
        fetched.paths.push(path);
    }
    if opts.show != Show::Nothing {
        eprintln!(
            "{} files whole (zip structure, size, SHA-256) in {}",
            fetched.files.len(),
            opts.cache_dir.display()
        );
    }
    Ok(fetched)
}

/// Forgets the cache's records of the fetched files a load refused as damaged (a member whose
/// bytes fail its CRC-32, which the fetch does not inflate to see): the next fetch downloads
/// them again instead of finding the cached copies current.
pub fn forget_damaged(opts: &FetchOptions, sources: &[&str]) {
    let (Ok(files), Ok(cache)) = (release_files(&opts.source), Cache::open(&opts.cache_dir)) else {
        return;
    };
    for (name, _) in files {
        let path = cache.file(&name);
        let member_of = format!("{}!", path.display());
        if sources.iter().any(|s| s.starts_with(&member_of)) {
            cache.forget(&name);
            log::warn!(
                "{}: damaged; the next --fetch downloads it again",
                path.display()
            );
        }
    }
}

/// What is left to do with a transferred file.
enum Check {
    /// The server said the cached copy (checked against its record) is current.
    Cached { name: String, record: Record },
    /// A new download, in the cache's partial file.
    Fresh {
        name: String,
        validators: cache::Validators,
        bytes: u64,
        sha256: String,
    },
}

fn fetch_one(
    opts: &FetchOptions,
    agent: &ureq::Agent,
    cache: &Cache,
    name: &str,
    url: &str,
) -> Result<Check, FetchError> {
    let progress = FileProgress::new(opts.show, name);
    let cached = current_copy(cache, name, url)?;
    let job = Job {
        agent,
        cache,
        name,
        url,
        cached: cached.as_ref().map(|r| &r.validators),
        retries: opts.retries,
        progress: &progress,
    };
    match download::fetch(&job)? {
        Outcome::Unchanged => {
            let record = cached.ok_or_else(|| FetchError::cache(&cache.file(name), "vanished"))?;
            progress.done(&format!(
                "{name}: unchanged upstream, the cached copy is used ({})",
                indicatif::HumanBytes(record.bytes)
            ));
            Ok(Check::Cached {
                name: name.to_string(),
                record,
            })
        }
        Outcome::Downloaded {
            validators,
            bytes,
            sha256,
            resumed_from,
            seconds,
        } => {
            let mut line = format!("{name}: {}", transfer(bytes - resumed_from, seconds));
            if resumed_from > 0 {
                line.push_str(&format!(
                    ", resumed at {}",
                    indicatif::HumanBytes(resumed_from)
                ));
            }
            progress.done(&line);
            Ok(Check::Fresh {
                name: name.to_string(),
                validators,
                bytes,
                sha256,
            })
        }
    }
}

/// The cached copy of a file from `url`, if its bytes still match its record (so that the
/// server may be asked whether it is current); one that does not is forgotten.
fn current_copy(cache: &Cache, name: &str, url: &str) -> Result<Option<Record>, FetchError> {
    let Some(record) = cache.record(name).filter(|r| r.validators.url == url) else {
        return Ok(None);
    };
    let path = cache.file(name);
    let sha256 = crate::input::sha256_file(&path).map_err(|e| FetchError::cache(&path, e))?;
    if sha256 == record.sha256 {
        return Ok(Some(record));
    }
    log::warn!(
        "{}: changed since it was fetched; fetching it again",
        path.display()
    );
    cache.forget(name);
    Ok(None)
}

impl Check {
    /// Checks a new download whole and makes it the cached file; a cached copy was checked
    /// already.
    fn run(self, cache: &Cache) -> Result<(FetchedFile, PathBuf), FetchError> {
        let (name, record, downloaded) = match self {
            Check::Cached { name, record } => (name, record, false),
            Check::Fresh {
                name,
                validators,
                bytes,
                sha256,
            } => {
                let partial = cache.partial(&name);
                if let Err(e) = verify::check_zip(&partial, &validators.url) {
                    cache.discard_partial(&name);
                    return Err(e);
                }
                let record = Record {
                    validators,
                    bytes,
                    sha256,
                };
                cache.commit(&name, &record)?;
                (name, record, true)
            }
        };
        let file = FetchedFile {
            url: record.validators.url,
            file: name.clone(),
            bytes: record.bytes,
            etag: record.validators.etag,
            last_modified: record.validators.last_modified,
            sha256: record.sha256,
            downloaded,
        };
        Ok((file, cache.file(&name)))
    }
}
