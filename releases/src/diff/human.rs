//! The change report for people: a short summary on stderr after a load, or from
//! `roadtraffic-load diff`. The whole report (every column, every year, the 20 largest
//! revisions of each table) is its JSON.

use std::fmt::Write as _;

use roadtraffic_catalog::changes::{ChangeReport, FileSummary, TableChanges, REVISED_MEASURE};

/// Columns, years and revisions shown per table; the JSON has them all.
const SHOWN: usize = 5;

pub fn human(r: &ChangeReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Changes from {} to {}:",
        describe(&r.before),
        describe(&r.after)
    );
    if r.is_empty() {
        out.push_str("  none: every table holds the same rows\n");
        return out;
    }
    rows_table(&mut out, &r.tables);
    let cp = &r.count_points;
    if cp.new + cp.retired > 0 {
        let _ = writeln!(
            out,
            "Count points: {} new{}, {} retired{}",
            cp.new,
            examples(&cp.new_ids),
            cp.retired,
            examples(&cp.retired_ids)
        );
    }
    years(&mut out, &r.years_before, &r.years_after);
    for t in r.tables.iter().filter(|t| t.changed > 0) {
        details(&mut out, t);
    }
    for t in &r.tables {
        for note in &t.notes {
            let _ = writeln!(out, "Note: {}: {note}", t.table);
        }
    }
    out
}

fn describe(f: &FileSummary) -> String {
    let loaded = f.loaded_at.as_deref().unwrap_or("at an unknown time");
    match &f.release {
        Some(r) => format!("release {r} (loaded {loaded})"),
        None => format!("the file loaded {loaded}"),
    }
}

fn rows_table(out: &mut String, tables: &[TableChanges]) {
    let _ = writeln!(
        out,
        "  {:<32} {:>10} {:>10} {:>9} {:>9} {:>9}",
        "table", "before", "after", "added", "removed", "changed"
    );
    for t in tables {
        let _ = writeln!(
            out,
            "  {:<32} {:>10} {:>10} {:>9} {:>9} {:>9}",
            t.table, t.rows_before, t.rows_after, t.added, t.removed, t.changed
        );
    }
}

/// ` (e.g. 1, 2, 3, ...)`
fn examples(ids: &[i64]) -> String {
    if ids.is_empty() {
        return String::new();
    }
    let shown: Vec<String> = ids.iter().take(SHOWN).map(i64::to_string).collect();
    let more = if ids.len() > SHOWN { ", ..." } else { "" };
    format!(" ({}{more})", shown.join(", "))
}

/// `2000-2019, 2021`
pub fn spans(years: &[i64]) -> String {
    let mut spans: Vec<(i64, i64)> = Vec::new();
    for &y in years {
        match spans.last_mut() {
            Some((_, end)) if *end + 1 == y => *end = y,
            _ => spans.push((y, y)),
        }
    }
    let text: Vec<String> = spans
        .iter()
        .map(|&(a, b)| match a == b {
            true => a.to_string(),
            false => format!("{a}-{b}"),
        })
        .collect();
    match text.is_empty() {
        true => "none".to_string(),
        false => text.join(", "),
    }
}

fn years(out: &mut String, before: &[i64], after: &[i64]) {
    let added: Vec<i64> = after
        .iter()
        .filter(|y| !before.contains(y))
        .copied()
        .collect();
    let dropped: Vec<i64> = before
        .iter()
        .filter(|y| !after.contains(y))
        .copied()
        .collect();
    let _ = write!(
        out,
        "Years: {} before, {} after",
        spans(before),
        spans(after)
    );
    if !added.is_empty() {
        let _ = write!(out, "; new: {}", spans(&added));
    }
    if !dropped.is_empty() {
        let _ = write!(out, "; gone: {}", spans(&dropped));
    }
    out.push('\n');
}

/// A table's changed rows: the columns most changed, the years most revised, the largest
/// revisions.
fn details(out: &mut String, t: &TableChanges) {
    let mut columns: Vec<(&str, u64)> = t
        .changed_columns
        .iter()
        .map(|c| (c.column.as_str(), c.rows))
        .collect();
    columns.sort_by_key(|c| std::cmp::Reverse(c.1));
    let mut revised: Vec<(i64, u64)> = t
        .by_year
        .iter()
        .filter(|y| y.changed > 0)
        .map(|y| (y.year, y.changed))
        .collect();
    revised.sort_by_key(|y| std::cmp::Reverse(y.1));
    let _ = writeln!(out, "{}: {} rows changed", t.table, t.changed);
    let listed = |items: Vec<String>, total: usize| {
        let more = if total > SHOWN { ", ..." } else { "" };
        format!("{}{more}", items.join(", "))
    };
    let cols = columns.iter().take(SHOWN).map(|(c, n)| format!("{c} {n}"));
    let _ = writeln!(out, "  columns: {}", listed(cols.collect(), columns.len()));
    if !revised.is_empty() {
        let years = revised.iter().take(SHOWN).map(|(y, n)| format!("{y} {n}"));
        let _ = writeln!(
            out,
            "  years revised: {}",
            listed(years.collect(), revised.len())
        );
    }
    if !t.largest_revisions.is_empty() {
        let _ = writeln!(out, "  largest revisions of {REVISED_MEASURE}:");
    }
    for r in t.largest_revisions.iter().take(SHOWN) {
        let key: Vec<String> = r.key.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(
            out,
            "    {}: {} -> {} ({:+})",
            key.join(", "),
            r.before,
            r.after,
            r.change
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn year_spans() {
        assert_eq!(
            spans(&[2000, 2001, 2002, 2005, 2007, 2008]),
            "2000-2002, 2005, 2007-2008"
        );
        assert_eq!(spans(&[]), "none");
    }
}
