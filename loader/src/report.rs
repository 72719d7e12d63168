//! The load report (human on stderr, JSON on request), the metadata it leaves in the file, and
//! the progress bar.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use roadtraffic_catalog::changes::ChangeReport;
use roadtraffic_catalog::schema::{self, metadata};

/// How many problems of each sort are listed; the rest are counted.
const LISTED: usize = 20;

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

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.column {
            Some(c) => write!(f, "{}: {}: {}", self.place, c, self.reason),
            None => write!(f, "{}: {}", self.place, self.reason),
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

impl std::fmt::Display for WarningKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            WarningKind::IgnoredColumns => "columns not read (no record has them)",
            WarningKind::MissingColumn => "columns missing from the file (left empty)",
            WarningKind::NegativeCount => "negative counts (kept)",
            WarningKind::HourZero => "counts at hour 0 (kept)",
            WarningKind::TotalMismatch => {
                "totals that differ from the sum of their parts (kept: independent rounding)"
            }
            WarningKind::NotUtf8 => "bytes that are not UTF-8 (read as Windows-1252)",
            WarningKind::QuoteInField => "a quote character inside a field (a quoting mistake?)",
            WarningKind::TextAfterQuote => {
                "text after a closing quote (merged into the field: a quoting mistake?)"
            }
            WarningKind::NoFinalLineEnd => {
                "no line end after the last line: the file may have been cut short"
            }
            WarningKind::UnknownCode => "values outside their column's known codes (kept)",
        })
    }
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
    pub elapsed_seconds: f64,
}

impl LoadReport {
    pub fn reject(&mut self, p: Problem) {
        self.rejected_count += 1;
        if self.rejected.len() < LISTED {
            self.rejected.push(p);
        }
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
                if w.examples.len() < 5 {
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

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serialises")
    }

    /// The report for people, as printed on stderr at the end of a load.
    pub fn human(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Loaded in {:.1} s:", self.elapsed_seconds);
        out.push_str(&self.rows_table());
        if self.rejected_count > 0 {
            let _ = writeln!(out, "Rows skipped (unreadable): {}", self.rejected_count);
            for p in &self.rejected {
                let _ = writeln!(out, "  {p}");
            }
        }
        if self.duplicate_count > 0 {
            let _ = writeln!(
                out,
                "Duplicate rows dropped (first kept): {}",
                self.duplicate_count
            );
            for p in &self.duplicates {
                let _ = writeln!(out, "  {p}");
            }
        }
        for w in &self.warnings {
            let _ = writeln!(out, "Warning: {} ({})", w.kind, w.count);
            for e in &w.examples {
                let _ = writeln!(out, "  {e}");
            }
        }
        listed(&mut out, "Not read", &self.skipped_inputs);
        for n in &self.notes {
            let _ = writeln!(out, "Note: {n}");
        }
        out
    }

    /// Rows per table, and, when the load replaces a file, that file's rows beside them.
    pub fn rows_table(&self) -> String {
        let mut out = String::new();
        let before = |table: &str| {
            self.previous_rows
                .as_ref()
                .map(|p| p.iter().find(|t| t.table == table).map_or(0, |t| t.rows))
        };
        if self.previous_rows.is_some() {
            let _ = writeln!(out, "  {:<32} {:>10} {:>10}", "table", "before", "after");
        }
        for TableRows { table, rows } in &self.rows {
            match before(table) {
                Some(b) => {
                    let _ = writeln!(out, "  {table:<32} {b:>10} {rows:>10}");
                }
                None => {
                    let _ = writeln!(out, "  {table:<32} {rows:>10} rows");
                }
            }
        }
        out
    }

    /// Key/value rows of the metadata table.
    pub fn metadata(&self) -> Vec<(&'static str, String)> {
        let counts: serde_json::Map<String, serde_json::Value> = self
            .rows
            .iter()
            .map(|t| (t.table.clone(), t.rows.into()))
            .collect();
        let mut rows = vec![
            (metadata::SCHEMA_VERSION, schema::version()),
            (metadata::RELEASE, self.release.clone().unwrap_or_default()),
            (
                metadata::LOADED_AT,
                humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            ),
            (
                metadata::LOADER_VERSION,
                env!("CARGO_PKG_VERSION").to_string(),
            ),
            (
                metadata::ROW_COUNTS,
                serde_json::Value::Object(counts).to_string(),
            ),
            (
                metadata::SOURCES,
                serde_json::to_string(&self.sources).expect("sources serialise"),
            ),
        ];
        if !self.fetched.is_empty() {
            let fetched = serde_json::to_string(&self.fetched).expect("fetched files serialise");
            rows.push((metadata::FETCHED, fetched));
        }
        if !self.rendered_records.is_empty() {
            let tags = serde_json::to_string(&self.rendered_records).expect("tags serialise");
            rows.push((metadata::RENDERED_RECORDS, tags));
        }
        rows
    }
}

/// Why a load with bad rows was refused: the first problems and a count of the rest.
pub fn bad_rows_message(report: &LoadReport) -> String {
    let mut out = String::new();
    for (problems, count, what, fix) in [
        (
            &report.rejected,
            report.rejected_count,
            "unreadable row(s)",
            "--skip-bad-rows skips them",
        ),
        (
            &report.duplicates,
            report.duplicate_count,
            "duplicate key(s)",
            "--keep-first keeps the first",
        ),
    ] {
        if count == 0 {
            continue;
        }
        for p in problems {
            let _ = writeln!(out, "{p}");
        }
        let more = count - problems.len() as u64;
        if more > 0 {
            let _ = writeln!(out, "... and {more} more");
        }
        let _ = writeln!(out, "load refused: {count} {what} ({fix})");
    }
    out.trim_end().to_string()
}

/// Why a load that would replace a file with much less was refused.
pub fn shrink_message(report: &LoadReport) -> String {
    let mut out =
        String::from("load refused: the new file would hold much less than the one it replaces:\n");
    for s in &report.shrunk {
        let what = if s.after == 0 { "none" } else { "under half" };
        let _ = writeln!(
            out,
            "  {:<32} {:>10} -> {:>10} ({what})",
            s.table, s.before, s.after
        );
    }
    out.push_str("Rows per table:\n");
    out.push_str(&report.rows_table());
    out.push_str("--allow-shrink replaces it all the same");
    out
}

/// Lines under a heading: the first [`LISTED`], then a count of the rest.
pub fn listed(out: &mut String, heading: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "{heading}: {}", lines.len());
    for l in lines.iter().take(LISTED) {
        let _ = writeln!(out, "  {l}");
    }
    if lines.len() > LISTED {
        let _ = writeln!(out, "  ... and {} more", lines.len() - LISTED);
    }
}

/// A progress bar on stderr: bytes read, rows, rows per second, ETA.
pub struct Progress {
    bar: Option<ProgressBar>,
    done_bytes: Cell<u64>,
    rows: Cell<u64>,
    started: Instant,
}

impl Progress {
    pub fn new(enabled: bool, total_bytes: u64) -> Self {
        let bar = enabled.then(|| {
            let bar = ProgressBar::with_draw_target(
                Some(total_bytes),
                ProgressDrawTarget::stderr_with_hz(4),
            );
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {bytes}/{total_bytes} {msg} ETA {eta}",
                )
                .expect("template")
                .progress_chars("=> "),
            );
            bar
        });
        Progress {
            bar,
            done_bytes: Cell::new(0),
            rows: Cell::new(0),
            started: Instant::now(),
        }
    }

    /// `new_rows` more rows read, and the reader is this far into the current source.
    pub fn update(&self, bytes_in_source: u64, new_rows: u64) {
        self.rows.set(self.rows.get() + new_rows);
        if let Some(bar) = &self.bar {
            bar.set_position(self.done_bytes.get() + bytes_in_source);
            let rows = self.rows.get();
            let rate = rows as f64 / self.started.elapsed().as_secs_f64().max(1e-3);
            bar.set_message(format!("{rows} rows, {rate:.0} rows/s"));
        }
    }

    /// A source of `source_bytes` read to its end.
    pub fn source_done(&self, source_bytes: u64) {
        self.done_bytes.set(self.done_bytes.get() + source_bytes);
        if let Some(bar) = &self.bar {
            bar.set_position(self.done_bytes.get());
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
