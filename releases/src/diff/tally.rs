//! What the merge counts for one table: rows added, removed and changed (per column, per
//! year), the years present on each side, the largest revisions of the revised measure, and the
//! keys of the count points that came and went.

use std::collections::{BTreeMap, BTreeSet};

use roadtraffic_catalog::changes::{
    ColumnChanges, Revision, TableChanges, YearChanges, LARGEST_REVISIONS, LISTED_COUNT_POINTS,
};

use super::rows::Batch;

/// A row of one side: its batch and its place in it.
pub type Row<'a> = (&'a Batch, usize);

/// Where the values the tally reads are in a row: the key's first `key` values, then the
/// compared columns.
#[derive(Debug, Clone)]
pub struct Positions {
    /// The key's columns, in the order rows are merged.
    pub key_names: Vec<&'static str>,
    /// Where each column of the natural key is among them, in the catalogue's key order.
    pub natural: Vec<usize>,
    pub compared_names: Vec<&'static str>,
    pub year: Option<usize>,
    /// Where the revised measure is in a row, if the table has it.
    pub measure: Option<usize>,
    /// List the keys added and removed (a one-column integer key: the count points).
    pub list_keys: bool,
}

impl Positions {
    pub fn key(&self) -> usize {
        self.key_names.len()
    }
}

#[derive(Debug, Default)]
pub struct Tally {
    added: u64,
    removed: u64,
    changed: u64,
    per_column: Vec<u64>,
    by_year: BTreeMap<i64, YearChanges>,
    years_before: BTreeSet<i64>,
    years_after: BTreeSet<i64>,
    revisions: Vec<Revision>,
    listed: ListedKeys,
}

/// The keys added and removed, where [`Positions::list_keys`] asks for them: the first
/// [`LISTED_COUNT_POINTS`] of each.
#[derive(Debug, Default)]
pub struct ListedKeys {
    pub added: Vec<i64>,
    pub removed: Vec<i64>,
}

impl Tally {
    pub fn new(p: &Positions) -> Self {
        Tally {
            per_column: vec![0; p.compared_names.len()],
            ..Tally::default()
        }
    }

    fn year(p: &Positions, row: Row) -> Option<i64> {
        p.year.and_then(|y| row.0.value(row.1, y).as_int())
    }

    fn year_entry(&mut self, year: Option<i64>) -> Option<&mut YearChanges> {
        let year = year?;
        Some(self.by_year.entry(year).or_insert_with(|| YearChanges {
            year,
            ..YearChanges::default()
        }))
    }

    pub fn added(&mut self, p: &Positions, row: Row) {
        self.added += 1;
        let year = Self::year(p, row);
        self.years_after.extend(year);
        if let Some(y) = self.year_entry(year) {
            y.added += 1;
        }
        if p.list_keys && self.listed.added.len() < LISTED_COUNT_POINTS {
            self.listed.added.extend(row.0.value(row.1, 0).as_int());
        }
    }

    pub fn removed(&mut self, p: &Positions, row: Row) {
        self.removed += 1;
        let year = Self::year(p, row);
        self.years_before.extend(year);
        if let Some(y) = self.year_entry(year) {
            y.removed += 1;
        }
        if p.list_keys && self.listed.removed.len() < LISTED_COUNT_POINTS {
            self.listed.removed.extend(row.0.value(row.1, 0).as_int());
        }
    }

    /// A key in both files: which of the compared columns differ.
    pub fn matched(&mut self, p: &Positions, old: Row, new: Row) {
        let (before, after) = (Self::year(p, old), Self::year(p, new));
        self.years_before.extend(before);
        self.years_after.extend(after);
        let mut any = false;
        for (i, count) in self.per_column.iter_mut().enumerate() {
            let at = p.key() + i;
            if old.0.value(old.1, at) != new.0.value(new.1, at) {
                *count += 1;
                any = true;
            }
        }
        if !any {
            return;
        }
        self.changed += 1;
        if let Some(y) = self.year_entry(after) {
            y.changed += 1;
        }
        self.revision(p, old, new);
    }

    /// Keeps the change of the measure if it is among the largest so far (the first of equal
    /// ones, in key order).
    fn revision(&mut self, p: &Positions, old: Row, new: Row) {
        let Some(at) = p.measure else { return };
        let (Some(before), Some(after)) = (
            old.0.value(old.1, at).as_int(),
            new.0.value(new.1, at).as_int(),
        ) else {
            return;
        };
        let change = after.saturating_sub(before);
        let full = self.revisions.len() >= LARGEST_REVISIONS;
        let smallest = self.revisions.last().map_or(0, |r| r.change.unsigned_abs());
        if change == 0 || (full && change.unsigned_abs() <= smallest) {
            return;
        }
        let key = p
            .natural
            .iter()
            .map(|&i| (p.key_names[i].to_string(), new.0.value(new.1, i).to_json()))
            .collect();
        let at = self
            .revisions
            .partition_point(|r| r.change.unsigned_abs() >= change.unsigned_abs());
        self.revisions.insert(
            at,
            Revision {
                key,
                before,
                after,
                change,
            },
        );
        self.revisions.truncate(LARGEST_REVISIONS);
    }

    /// The table's changes (`rows`: rows before and after), and the keys listed.
    pub fn into_changes(
        self,
        p: &Positions,
        table: &str,
        rows: (u64, u64),
    ) -> (TableChanges, ListedKeys) {
        let changes = TableChanges {
            table: table.to_string(),
            key: p
                .natural
                .iter()
                .map(|&i| p.key_names[i].to_string())
                .collect(),
            rows_before: rows.0,
            rows_after: rows.1,
            added: self.added,
            removed: self.removed,
            changed: self.changed,
            changed_columns: p
                .compared_names
                .iter()
                .zip(self.per_column)
                .filter(|(_, rows)| *rows > 0)
                .map(|(c, rows)| ColumnChanges {
                    column: c.to_string(),
                    rows,
                })
                .collect(),
            by_year: self.by_year.into_values().collect(),
            years_before: self.years_before.into_iter().collect(),
            years_after: self.years_after.into_iter().collect(),
            largest_revisions: self.revisions,
            notes: Vec::new(),
        };
        (changes, self.listed)
    }
}
