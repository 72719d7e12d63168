//! What can stop a load, stage by stage: reaching the inputs, recognising each file, reading
//! its rows, the rows themselves, writing SQLite, replacing the target. Each prints the
//! message a person reads (file, line, column, value), never debug text.
//!
//! The errors sit below the stages, which import them, never the reverse; above only the
//! report's data, since a load refused for its rows or its size carries the report (and prints
//! it with the report's own text, `report/text.rs`).

use std::path::{Path, PathBuf};

use crate::report::{self, LoadReport};
pub use roadtraffic_releases::diff::DiffError;

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// An input or the target could not be reached, or is not something a load reads.
    #[error(transparent)]
    Input(#[from] InputError),
    /// Files that are not data of a kind the loader knows, or cannot be read to the end.
    #[error(transparent)]
    Files(#[from] Refusals),
    /// Rows that cannot be kept: unreadable, or a natural key seen twice.
    #[error("{}", report::bad_rows_message(.0))]
    BadRows(Box<LoadReport>),
    /// `--db` names something a load must not replace, or another load holds it.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// The new file would hold far less than the one it replaces.
    #[error("{}", report::shrink_message(.0))]
    Shrinks(Box<LoadReport>),
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The SQLite thread stopped early; its own error says why.
    #[error("the SQLite writer stopped")]
    WriterStopped,
    /// The release could not be downloaded whole (`--fetch`).
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// Two files could not be compared (`roadtraffic-load diff`).
    #[error(transparent)]
    Diff(#[from] DiffError),
    /// What `--release`, `--replace-release` or `--drop-release` asked cannot be done with the
    /// releases kept beside `--db`.
    #[error(transparent)]
    Releases(#[from] ReleaseError),
    /// What `roadtraffic-load areas` asked cannot be done: a bad name or boundary file, a set
    /// that is there (or not).
    #[error(transparent)]
    Areas(#[from] AreaError),
}

/// Why an area set cannot be added or dropped. Nothing was changed.
#[derive(Debug, thiserror::Error)]
pub enum AreaError {
    #[error(
        "area set name {0:?}: a name is a lower-case letter, then up to 63 lower-case letters, \
         digits or underscores"
    )]
    BadName(String),
    #[error("area set {name} is already in {}: --replace replaces it", .db.display())]
    NameTaken { name: String, db: PathBuf },
    #[error("no area set {name} in {}; there are: {}", .db.display(),
        if .kept.is_empty() { "none".to_string() } else { .kept.join(", ") })]
    Unknown {
        name: String,
        db: PathBuf,
        kept: Vec<String>,
    },
    /// The boundary file is refused: the feature and the fault.
    #[error("{}: refused: {error}", .file.display())]
    Boundary {
        file: PathBuf,
        error: roadtraffic_areas::BoundaryError,
    },
    #[error("--db {}: no file built by roadtraffic-load there: load a release first", .0.display())]
    NoFile(PathBuf),
}

/// Why the releases kept beside `--db` cannot be changed as asked. Nothing was changed.
#[derive(Debug, thiserror::Error)]
pub enum ReleaseError {
    #[error("--release {0}")]
    BadName(String),
    #[error(
        "release {name} is already kept beside {}: --replace-release replaces it",
        .db.display()
    )]
    NameTaken { name: String, db: PathBuf },
    #[error("releases are kept beside {}: name this one with --release NAME", .0.display())]
    Unnamed(PathBuf),
    #[error("no release {name} is kept beside {}; kept: {}", .db.display(), .kept.join(", "))]
    Unknown {
        name: String,
        db: PathBuf,
        kept: Vec<String>,
    },
    #[error("{0} is the only release kept: it cannot be dropped (load another one first)")]
    OnlyOne(String),
    #[error(
        "{} is missing but {} lists releases: restore it, or move that folder away",
        .0.display(), roadtraffic_releases::folder(.0).display()
    )]
    NoLatestFile(PathBuf),
    /// The `--db` file is none of the releases its folder lists, and has no release name.
    #[error(
        "{} is none of the releases {} lists, and has no release name: move that folder away, \
         or load a release into {} with --release NAME",
        .0.display(), roadtraffic_releases::folder(.0).display(), .0.display()
    )]
    Unlisted(PathBuf),
    #[error(transparent)]
    Manifest(#[from] roadtraffic_releases::ManifestError),
}

impl LoadError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        InputError::Io {
            path: path.to_path_buf(),
            source,
        }
        .into()
    }

    /// The sources (`archive.zip!member.csv`) refused as damaged zip members.
    pub fn damaged_sources(&self) -> Vec<&str> {
        match self {
            LoadError::Files(Refusals(refusals)) => refusals
                .iter()
                .filter(|r| matches!(r.reason, Refusal::Damaged(_)))
                .map(|r| r.name.as_str())
                .collect(),
            _ => Vec::new(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no input files given")]
    NoInputs,
    /// An input named on the command line that cannot be read as data.
    #[error("{0}: not a regular file ({1})")]
    NotRegular(PathBuf, &'static str),
    #[error("no CSV file found in {0}")]
    NoCsv(PathBuf),
    #[error("{0}: not a readable zip archive: {1}")]
    Zip(PathBuf, String),
    /// The countries reference file (`--countries`) could not be read.
    #[error("{0}: {1}")]
    Countries(String, String),
}

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("--db {0}: {1}")]
    Refused(PathBuf, String),
    #[error("another load into {0} is in progress")]
    Busy(PathBuf),
}

/// One file refused, with where and why.
#[derive(Debug, thiserror::Error)]
#[error("{name}{}: {reason}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct FileRefusal {
    /// The file, or `archive.zip!member.csv`.
    pub name: String,
    pub line: Option<u64>,
    pub reason: Refusal,
}

impl FileRefusal {
    pub fn new(name: &str, line: Option<u64>, reason: Refusal) -> Self {
        FileRefusal {
            name: name.to_string(),
            line,
            reason,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("refused: this file is {0}")]
    NotCsv(&'static str),
    #[error("refused: the file is empty")]
    Empty,
    #[error("{0}")]
    TooLong(RecordTooLong),
    #[error("unreadable: {0}")]
    Unreadable(String),
    /// A zip member that does not inflate to the bytes its headers promise.
    #[error("unreadable: {0}")]
    Damaged(String),
    #[error("unreadable CSV: {0}")]
    Csv(String),
    #[error("refused: the header names {name} twice (columns {first} and {second})")]
    HeaderTwice {
        name: String,
        first: usize,
        second: usize,
    },
    #[error(
        "refused: the header gives {column} twice: column {} ({}) and column {} ({})",
        .first.0, .first.1, .second.0, .second.1
    )]
    ColumnTwice {
        column: &'static str,
        first: (usize, String),
        second: (usize, String),
    },
    #[error(
        "refused: this is {0}. It names regions, local authorities and roads instead of giving \
         their ids, and uses the old road category codes, so it cannot be mapped onto the \
         current records; load a current release (2020 onward) instead"
    )]
    OldEra(&'static str),
    #[error(
        "not a recognised road traffic CSV file: closest kind is {title} ({table}), but the \
         column(s) {} are missing", .missing.join(", ")
    )]
    Unrecognised {
        title: &'static str,
        table: &'static str,
        missing: Vec<&'static str>,
    },
}

/// A record longer than the limit (`--max-record-bytes`): the guard (`guard.rs`) fails the
/// read with this inside the `io::Error`, before the CSV parser holds the record whole.
#[derive(Debug, thiserror::Error)]
#[error("a record longer than {max_bytes} bytes starts here (the limit is --max-record-bytes)")]
pub struct RecordTooLong {
    /// The line the record starts on (1-based).
    pub line: u64,
    pub max_bytes: u64,
}

/// Every file refused, the first few listed and how many more.
#[derive(Debug, thiserror::Error)]
#[error("{}", listed(.0))]
pub struct Refusals(pub Vec<FileRefusal>);

fn listed(refusals: &[FileRefusal]) -> String {
    if let [one] = refusals {
        return one.to_string();
    }
    let mut out = String::new();
    let lines: Vec<String> = refusals.iter().map(|r| r.to_string()).collect();
    report::listed(&mut out, "Files refused", &lines);
    out.trim_end().to_string()
}

impl From<FileRefusal> for LoadError {
    fn from(refusal: FileRefusal) -> Self {
        LoadError::Files(Refusals(vec![refusal]))
    }
}

/// Why a release could not be downloaded whole. Each names the URL (or the cache file) and is
/// final: transient failures have been retried before one of these is returned.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The server answered with a status that no retry will change (404, 403...), or with a
    /// 5xx or 429 every time.
    #[error("{url}: the server answered {status}{}", attempts_note(*.attempts))]
    Status {
        url: String,
        status: String,
        attempts: u32,
    },
    /// No answer: the host is unknown, the connection was refused, reset or cut short.
    #[error("{url}: {detail}{}", attempts_note(*.attempts))]
    Network {
        url: String,
        detail: String,
        attempts: u32,
    },
    /// Something that is not the zip archive asked for (an HTML error page, a damaged or
    /// incomplete archive): discarded, and the cached copy, if any, kept.
    #[error("{url}: {detail}")]
    NotZip { url: String, detail: String },
    /// The download cache could not be read or written.
    #[error("{path}: {detail}")]
    Cache { path: PathBuf, detail: String },
    #[error("{0}: another download into this cache folder is in progress")]
    Busy(PathBuf),
    #[error("--source {0}: not an http:// or https:// URL")]
    BadSource(String),
}

fn attempts_note(attempts: u32) -> String {
    match attempts {
        0 | 1 => String::new(),
        n => format!(" (after {n} attempts)"),
    }
}

impl FetchError {
    pub fn cache(path: &Path, e: impl std::fmt::Display) -> Self {
        FetchError::Cache {
            path: path.to_path_buf(),
            detail: e.to_string(),
        }
    }
}
