//! The change report: what changed between two files built by roadtraffic-load, table by table,
//! by natural key. The loader makes it (a load that replaces a file keeps it in the new file's
//! metadata under [`crate::schema::metadata::CHANGES`]; `roadtraffic-load diff OLD NEW` prints
//! it) and the server reads it back to show it: declared here, so that both read one
//! description of it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The measure whose largest revisions of past years the report lists.
pub const REVISED_MEASURE: &str = "all_motor_vehicles";
/// How many of the largest revisions are kept per table.
pub const LARGEST_REVISIONS: usize = 20;
/// New and retired count points are all counted; this many of each are listed by id.
pub const LISTED_COUNT_POINTS: usize = 1000;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChangeReport {
    /// The file compared against: the one a load replaced.
    pub before: FileSummary,
    pub after: FileSummary,
    /// Every table of either file, in the catalogue's order.
    pub tables: Vec<TableChanges>,
    pub count_points: CountPointChanges,
    /// Years with any row in a table that has a year, before and after.
    pub years_before: Vec<i64>,
    pub years_after: Vec<i64>,
}

/// What a file's metadata says of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileSummary {
    pub release: Option<String>,
    pub loaded_at: Option<String>,
    pub schema_version: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TableChanges {
    pub table: String,
    /// The natural key rows are matched by.
    pub key: Vec<String>,
    pub rows_before: u64,
    pub rows_after: u64,
    /// Keys only in the new file.
    pub added: u64,
    /// Keys only in the old file.
    pub removed: u64,
    /// Keys in both whose rows differ in any column compared (ids aside: they are file
    /// positions).
    pub changed: u64,
    /// Per column, the rows whose value changed; only columns with changes, in record order.
    pub changed_columns: Vec<ColumnChanges>,
    /// Rows added, removed and changed per year, for tables with a year column (a removed row
    /// counts in its old year, the others in their new year).
    pub by_year: Vec<YearChanges>,
    pub years_before: Vec<i64>,
    pub years_after: Vec<i64>,
    /// The largest changes of [`REVISED_MEASURE`] in rows of both files, largest first.
    pub largest_revisions: Vec<Revision>,
    /// What could not be compared: a table or a column in one file only.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnChanges {
    pub column: String,
    pub rows: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct YearChanges {
    pub year: i64,
    pub added: u64,
    pub removed: u64,
    pub changed: u64,
}

/// One row's value of [`REVISED_MEASURE`] before and after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Revision {
    /// The row's natural key, column by column.
    pub key: Map<String, Value>,
    pub before: i64,
    pub after: i64,
    pub change: i64,
}

/// The count points table's keys added (new count points) and removed (retired).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CountPointChanges {
    pub new: u64,
    pub retired: u64,
    /// The first [`LISTED_COUNT_POINTS`] new ids, in order.
    pub new_ids: Vec<i64>,
    pub retired_ids: Vec<i64>,
}

impl ChangeReport {
    pub fn table(&self, name: &str) -> Option<&TableChanges> {
        self.tables.iter().find(|t| t.table == name)
    }

    /// Whether anything at all differs.
    pub fn is_empty(&self) -> bool {
        self.tables
            .iter()
            .all(|t| t.added == 0 && t.removed == 0 && t.changed == 0 && t.notes.is_empty())
    }
}
