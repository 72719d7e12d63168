//! The report for people: what a load did, printed on stderr at its end, and why a load was
//! refused (its error's message).

use std::fmt::Write as _;

use super::data::{KeptReport, LoadReport, Problem, TableRows, WarningKind, LISTED};

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.column {
            Some(c) => write!(f, "{}: {}: {}", self.place, c, self.reason),
            None => write!(f, "{}: {}", self.place, self.reason),
        }
    }
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

impl LoadReport {
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
        if let Some(kept) = &self.releases {
            out.push_str(&kept.human());
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

impl KeptReport {
    /// The releases kept, what the one before shares with the new file, what was dropped.
    fn human(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Releases kept, oldest first: {} (latest)",
            self.kept.join(", ")
        );
        if !self.shared.is_empty() {
            let _ = writeln!(
                out,
                "  unchanged since the release before, stored once: {}",
                self.shared.join(", ")
            );
        }
        if !self.dropped.is_empty() {
            let _ = writeln!(out, "  dropped: {}", self.dropped.join(", "));
        }
        if let Some(why) = &self.not_kept {
            let _ = writeln!(out, "  {why}");
        }
        out
    }
}
