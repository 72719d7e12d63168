//! What a load is asked to do: the options of `roadtraffic-load`, as the library takes them.

use std::path::PathBuf;

use crate::fetch;

#[derive(Debug, Clone)]
pub struct LoadOptions {
    pub db: PathBuf,
    pub inputs: Vec<PathBuf>,
    /// Skip rows that cannot be read (and list them) instead of refusing the load.
    pub skip_bad_rows: bool,
    /// On a repeated natural key keep the first row instead of refusing the load.
    pub keep_first: bool,
    /// A label for the release, kept in the metadata table. Also its name among the releases
    /// kept beside `db`: the releases loaded before it are kept (see `keep/`).
    pub release: Option<String>,
    /// Replace the kept release of the same name instead of refusing the load.
    pub replace_release: bool,
    /// Keep at most this many releases (the new one included): the oldest beyond are dropped.
    pub keep: Option<usize>,
    /// The release moved aside keeps of the AADF tables only its rows that differ from the
    /// new release's (`roadtraffic_releases::layer`); the default. `false`: kept whole.
    pub share_rows: bool,
    /// The countries reference file (id, name, ons_code); the bundled one by default.
    pub countries: Option<PathBuf>,
    /// Draw a progress bar on stderr.
    pub progress: bool,
    /// Replace the file even if the new one lacks a table the old one has, or holds less than
    /// half of one's rows.
    pub allow_shrink: bool,
    /// A record longer than this is refused at its line, unread.
    pub max_record_bytes: u64,
    /// Download the current release first, and load it besides `inputs` (`--fetch`).
    pub fetch: Option<fetch::FetchOptions>,
    /// Also keep every record's JSON, written once, for the server to copy (a larger file,
    /// faster pages: see `rendered.rs`).
    pub rendered_records: bool,
    /// Where the national files (Parquet, CSV and zip) go (the server's `--downloads-dir`); by default
    /// beside the database, as the server looks for them (`FILE.downloads`).
    pub downloads_dir: Option<std::path::PathBuf>,
}

impl LoadOptions {
    /// The folder of the downloads the load writes: `--downloads-dir`, or `FILE.downloads`.
    pub fn downloads_root(&self) -> std::path::PathBuf {
        self.downloads_dir.clone().unwrap_or_else(|| {
            let mut name = self.db.as_os_str().to_owned();
            name.push(".downloads");
            std::path::PathBuf::from(name)
        })
    }
}

/// Real records are under 2 KB.
pub const DEFAULT_MAX_RECORD_BYTES: u64 = 1 << 20;

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            db: PathBuf::new(),
            inputs: Vec::new(),
            skip_bad_rows: false,
            keep_first: false,
            release: None,
            replace_release: false,
            keep: None,
            share_rows: true,
            countries: None,
            progress: false,
            allow_shrink: false,
            max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
            fetch: None,
            rendered_records: false,
            downloads_dir: None,
        }
    }
}
