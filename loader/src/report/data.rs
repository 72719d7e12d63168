//! The load report's data: what every stage saw, and how the stages record into it.

use std::collections::BTreeMap;

use serde::Serialize;

use roadtraffic_catalog::changes::ChangeReport;

/// How many problems of each sort are listed; the rest are counted.
pub(super) const LISTED: usize = 20;

/// How many places of each warning are kept.
const EXAMPLES: usize = 5;

#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    /// `file:line`
    pub place: String,
    pub column: Option<String>,
    pub reason: String,
}

impl Problem {
    pub fn new(file: &str, line: u64, column: Option<&str>, reason: String) -> Self {
        Problem {
            place: format!("{file}:{line}"),
            column: column.map(str::to_string),
            reason,
        }
    }
}

/// What a warning is about. Each is kept and counted, with its first places.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// Columns no dataset reads (e.g. `sequence`, `ramp`).
    IgnoredColumns,
    /// A column of the records the file does not have: left null.
    MissingColumn,
    NegativeCount,
    HourZero,
    /// A total that differs from the sum of its parts (independent rounding).
    TotalMismatch,
    /// Bytes that are not UTF-8, read as Windows-1252.
    NotUtf8,
    /// A `"` left inside a field after parsing.
    QuoteInField,
    /// Text after a closing quote, merged into the field (`"Isles of Scilly"x`).
    TextAfterQuote,
    /// The last line has no line end: the file may have been cut short.
    NoFinalLineEnd,
    /// A code outside its column's known vocabulary.
    UnknownCode,
}

#[derive(Debug, Clone, Serialize)]
pub struct Warning {
    pub kind: WarningKind,
    pub count: u64,
    /// The first places it was seen, with what was seen there.
    pub examples: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SourceReport {
    pub file: String,
    pub bytes: u64,
    pub sha256: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct TableRows {
    pub table: String,
    pub rows: u64,
}

/// A table the new file would hold far less of than the one it replaces.
#[derive(Debug, Clone, Serialize)]
pub struct Shrunk {
    pub table: String,
    pub before: u64,
    pub after: u64,
}

/// One file of the release as fetched (`--fetch`), as the metadata keeps it.
#[derive(Debug, Clone, Serialize)]
pub struct FetchedFile {
    pub url: String,
    pub file: String,
    pub bytes: u64,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub sha256: String,
    /// False when the server said the cached copy was current (it was not fetched again).
    pub downloaded: bool,
}

/// What the load did with the releases kept beside `--db`, for the report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct KeptReport {
    /// The releases kept once the load is done, oldest first; the last is the new latest.
    pub kept: Vec<String>,
    /// The groups the release before stores no copy of: the new file holds them identically.
    pub shared: Vec<String>,
    /// Releases no longer kept: the one replaced (`--replace-release`), the oldest beyond
    /// `--keep`.
    pub dropped: Vec<String>,
    /// Why the file this load replaced was not kept, when it was not.
    pub not_kept: Option<String>,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct LoadReport {
    pub release: Option<String>,
    pub rows: Vec<TableRows>,
    pub rejected_count: u64,
    pub rejected: Vec<Problem>,
    pub duplicate_count: u64,
    pub duplicates: Vec<Problem>,
    /// Duplicates dropped because the user asked to keep the first row.
    pub duplicates_kept_first: bool,
    pub warnings: Vec<Warning>,
    pub notes: Vec<String>,
    /// Entries of input folders not read (not regular files, loops), and repeated inputs.
    pub skipped_inputs: Vec<String>,
    pub sources: Vec<SourceReport>,
    /// Rows per table of the file this load replaces.
    pub previous_rows: Option<Vec<TableRows>>,
    /// Tables the new file holds under half of (or none of) the old one's rows.
    pub shrunk: Vec<Shrunk>,
    /// The files `--fetch` downloaded (or found current in its cache).
    pub fetched: Vec<FetchedFile>,
    /// What changed since the file this load replaced, if it replaced one.
    pub changes: Option<ChangeReport>,
    /// The tables whose records were rendered (`--rendered-records`), with their layout's tag.
    pub rendered_records: BTreeMap<String, String>,
    /// What the load did with the releases kept beside `--db` (`--release`), if it keeps them;
    /// absent from the JSON of a plain load, which is as it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub releases: Option<KeptReport>,
    pub elapsed_seconds: f64,
}

impl LoadReport {
    pub fn reject(&mut self, p: Problem) {
        self.rejected_count += 1;
        if self.rejected.len() < LISTED {
            self.rejected.push(p);
        }
    }

    /// Counts an unreadable row without its problem when the listing is full already (false
    /// otherwise: then `reject` it): a file of millions of bad rows need not word each one.
    pub fn reject_unlisted(&mut self) -> bool {
        let full = self.rejected.len() >= LISTED;
        self.rejected_count += u64::from(full);
        full
    }

    /// Counts a duplicate without its problem when the listing is full already (false
    /// otherwise: then `duplicate` it).
    pub fn duplicate_unlisted(&mut self, keep_first: bool) -> bool {
        let full = self.duplicates.len() >= LISTED;
        if full {
            self.duplicate_count += 1;
            self.duplicates_kept_first = keep_first;
        }
        full
    }

    pub fn duplicate(&mut self, p: Problem, keep_first: bool) {
        self.duplicate_count += 1;
        self.duplicates_kept_first = keep_first;
        if self.duplicates.len() < LISTED {
            self.duplicates.push(p);
        }
    }

    /// No problem so far that will make the load fail.
    pub fn is_clean(&self, skip_bad_rows: bool, keep_first: bool) -> bool {
        (skip_bad_rows || self.rejected_count == 0) && (keep_first || self.duplicate_count == 0)
    }

    pub fn warn(&mut self, kind: WarningKind, place: &str, detail: Option<String>) {
        let example = match detail {
            Some(d) => format!("{place}: {d}"),
            None => place.to_string(),
        };
        match self.warnings.iter_mut().find(|w| w.kind == kind) {
            Some(w) => {
                w.count += 1;
                if w.examples.len() < EXAMPLES {
                    w.examples.push(example);
                }
            }
            None => self.warnings.push(Warning {
                kind,
                count: 1,
                examples: vec![example],
            }),
        }
    }

    pub fn note(&mut self, note: String) {
        self.notes.push(note);
    }

    pub fn add_rows(&mut self, table: &str, rows: u64) {
        match self.rows.iter_mut().find(|t| t.table == table) {
            Some(t) => t.rows += rows,
            None => self.rows.push(TableRows {
                table: table.to_string(),
                rows,
            }),
        }
    }
}
