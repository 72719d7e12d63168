//! What changed between two files built by roadtraffic-load: each table's rows matched by the
//! natural key the catalogue declares, in one merge over both files read in key order (each
//! on a thread of its own, in batches: memory stays bounded whatever the size), counting rows
//! added, removed and changed per column and per year, the years on each side, the largest
//! revisions of the revised measure and the count points that came and went.
//!
//! - `side`: a file's rows of a table, in key order;
//! - `rows`: the batches they travel in;
//! - `tally`: what the merge counts;
//! - `human`: the report for people.

mod human;
mod rows;
mod side;
mod tally;

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use roadtraffic_catalog::changes::{
    ChangeReport, CountPointChanges, FileSummary, TableChanges, REVISED_MEASURE,
};
use roadtraffic_catalog::schema::metadata;
use roadtraffic_catalog::{Dataset, Source, COUNT_POINTS, DATASETS};

pub use human::human;
use side::Cursor;
use tally::{ListedKeys, Positions, Tally};

use crate::Storage;

/// Why two releases could not be compared.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error("{0}: not a file built by roadtraffic-load ({1})")]
    NotOurs(PathBuf, String),
    #[error("{0}: SQLite: {1}")]
    Sqlite(PathBuf, rusqlite::Error),
    /// A reading thread stopped early; its own error says why.
    #[error("a reader of {0} stopped")]
    ReaderStopped(PathBuf),
}

/// Compares two files built by roadtraffic-load: `old`, then `new`.
pub fn compare_files(old: &Path, new: &Path) -> Result<ChangeReport, DiffError> {
    compare(&Storage::file(old), &Storage::file(new))
}

/// Compares two releases, each read from its storage (a file, or a kept release with the files
/// it shares): `old`, then `new`.
pub fn compare(old: &Storage, new: &Storage) -> Result<ChangeReport, DiffError> {
    let (old, new) = (FileSchema::read(old)?, FileSchema::read(new)?);
    let mut report = ChangeReport {
        before: old.summary.clone(),
        after: new.summary.clone(),
        ..ChangeReport::default()
    };
    for d in DATASETS {
        let Some((changes, listed)) = compare_table(d, &old, &new)? else {
            continue;
        };
        if std::ptr::eq(d, &COUNT_POINTS) {
            report.count_points = CountPointChanges {
                new: changes.added,
                retired: changes.removed,
                new_ids: listed.added,
                retired_ids: listed.removed,
            };
        }
        report.tables.push(changes);
    }
    let years = |pick: fn(&TableChanges) -> &Vec<i64>| -> Vec<i64> {
        let all: BTreeSet<i64> = report.tables.iter().flat_map(pick).copied().collect();
        all.into_iter().collect()
    };
    report.years_before = years(|t| &t.years_before);
    report.years_after = years(|t| &t.years_after);
    Ok(report)
}

/// What a file holds: its tables' columns, and what its metadata says of it.
struct FileSchema {
    storage: Storage,
    tables: HashMap<String, Vec<String>>,
    summary: FileSummary,
}

impl FileSchema {
    fn read(storage: &Storage) -> Result<FileSchema, DiffError> {
        let path = storage.main.as_path();
        let sqlite = |e| DiffError::Sqlite(path.to_path_buf(), e);
        let conn = storage.open().map_err(sqlite)?;
        // Every schema's tables: a kept release's shared groups are in attached files, its
        // layered tables are temporary views.
        let names: Vec<String> = conn
            .prepare(
                "SELECT name FROM pragma_table_list WHERE (type = 'table' AND schema <> 'temp') \
                 OR (type = 'view' AND schema = 'temp')",
            )
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .map_err(|e| DiffError::NotOurs(path.to_path_buf(), e.to_string()))?;
        if !names.iter().any(|n| n == "metadata") {
            let why = "it has no metadata table".to_string();
            return Err(DiffError::NotOurs(path.to_path_buf(), why));
        }
        let mut tables = HashMap::new();
        for name in names {
            let columns = table_columns(&conn, &name).map_err(sqlite)?;
            tables.insert(name, columns);
        }
        let summary = FileSummary {
            release: meta(&conn, metadata::RELEASE).filter(|r| !r.is_empty()),
            loaded_at: meta(&conn, metadata::LOADED_AT),
            schema_version: meta(&conn, metadata::SCHEMA_VERSION),
        };
        Ok(FileSchema {
            storage: storage.clone(),
            tables,
            summary,
        })
    }

    fn columns(&self, table: &str) -> Option<&Vec<String>> {
        self.tables.get(table)
    }

    fn has_column(&self, table: &str, column: &str) -> bool {
        self.columns(table)
            .is_some_and(|c| c.iter().any(|n| n == column))
    }
}

fn table_columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let names = stmt.query_map([table], |r| r.get(0))?;
    names.collect()
}

fn meta(conn: &Connection, key: &str) -> Option<String> {
    conn.query_row("SELECT value FROM metadata WHERE key = ?1", [key], |r| {
        r.get(0)
    })
    .ok()
}

/// How one table is compared: which columns, read how from each file.
struct TablePlan {
    positions: Positions,
    /// How each file is read, `None` where the file lacks the table.
    old: Option<side::KeyOrder>,
    new: Option<side::KeyOrder>,
    notes: Vec<String>,
}

/// Compares one dataset's table, if either file has it.
fn compare_table(
    d: &'static Dataset,
    old: &FileSchema,
    new: &FileSchema,
) -> Result<Option<(TableChanges, ListedKeys)>, DiffError> {
    if old.columns(d.table).is_none() && new.columns(d.table).is_none() {
        return Ok(None);
    }
    let plan = match plan_table(d, old, new) {
        Ok(plan) => plan,
        Err(missing_key) => return uncomparable(d, old, new, missing_key).map(Some),
    };
    let p = &plan.positions;
    let width = p.key() + p.compared_names.len();
    let old_rows = side::read(&old.storage, plan.old, width, p.key());
    let new_rows = side::read(&new.storage, plan.new, width, p.key());
    let (mut old_rows, mut new_rows) = (
        Cursor::new(old_rows, &old.storage.main),
        Cursor::new(new_rows, &new.storage.main),
    );
    let mut tally = Tally::new(p);
    let started = std::time::Instant::now();
    merge(p, &mut old_rows, &mut new_rows, &mut tally)?;
    log::info!(
        "compared {}: {:.2} s",
        d.table,
        started.elapsed().as_secs_f64()
    );
    let (mut changes, listed) = tally.into_changes(p, d.table, (old_rows.seen, new_rows.seen));
    changes.notes = plan.notes;
    Ok(Some((changes, listed)))
}

/// Which columns both files give (a file that lacks the table gives no say), the order rows
/// are merged in and each file's query; or the key column a file lacks.
fn plan_table(
    d: &'static Dataset,
    old: &FileSchema,
    new: &FileSchema,
) -> Result<TablePlan, String> {
    let files: Vec<&FileSchema> = [old, new]
        .into_iter()
        .filter(|f| f.columns(d.table).is_some())
        .collect();
    let everywhere = |c: &str| files.iter().all(|f| f.has_column(d.table, c));
    if let Some(k) = d.natural_key.iter().find(|k| !everywhere(k)) {
        return Err(k.to_string());
    }
    // Run columns first: rows are then read run by run (see `side::select_sql`).
    let (runs, rest): (Vec<&str>, Vec<&str>) = d
        .natural_key
        .iter()
        .partition(|k| d.run_columns.contains(k));
    let order: Vec<&'static str> = runs.iter().chain(&rest).copied().collect();
    let candidates = d
        .stored_columns()
        .filter(|c| c.source != Source::Id && !d.natural_key.contains(&c.name));
    let (compared, one_sided): (Vec<&'static str>, Vec<&'static str>) =
        candidates.map(|c| c.name).partition(|c| everywhere(c));
    let mut notes: Vec<String> = one_sided
        .iter()
        .filter(|c| files.iter().any(|f| f.has_column(d.table, c)))
        .map(|c| format!("column {c} is in one file only: not compared"))
        .collect();
    if files.len() == 1 {
        let which = if std::ptr::eq(files[0], old) {
            "old"
        } else {
            "new"
        };
        notes.push(format!("the table is in the {which} file only"));
    }
    let sql = |f: &FileSchema| {
        let run_keys = order.iter().filter(|k| d.run_columns.contains(k));
        let with_runs = !runs.is_empty()
            && d.runs_table()
                .is_some_and(|t| run_keys.clone().all(|k| f.has_column(&t, k)));
        f.columns(d.table)
            .map(|_| side::reading(d, &order, &compared, with_runs))
    };
    let row: Vec<&str> = order.iter().chain(&compared).copied().collect();
    let (old_reading, new_reading) = (sql(old), sql(new));
    let positions = Positions {
        natural: d
            .natural_key
            .iter()
            .filter_map(|k| order.iter().position(|o| o == k))
            .collect(),
        year: row.iter().position(|c| *c == "year"),
        measure: row.iter().position(|c| *c == REVISED_MEASURE),
        list_keys: std::ptr::eq(d, &COUNT_POINTS) && order.len() == 1,
        key_names: order,
        compared_names: compared,
    };
    Ok(TablePlan {
        old: old_reading,
        new: new_reading,
        positions,
        notes,
    })
}

/// A table whose rows cannot be matched (a file lacks a key column): rows counted, no more.
fn uncomparable(
    d: &Dataset,
    old: &FileSchema,
    new: &FileSchema,
    missing_key: String,
) -> Result<(TableChanges, ListedKeys), DiffError> {
    let count = |f: &FileSchema| -> Result<u64, DiffError> {
        if f.columns(d.table).is_none() {
            return Ok(0);
        }
        let sqlite = |e| DiffError::Sqlite(f.storage.main.clone(), e);
        let conn = f.storage.open().map_err(sqlite)?;
        let sql = format!("SELECT count(*) FROM {}", d.table);
        let rows: i64 = conn.query_row(&sql, [], |r| r.get(0)).map_err(sqlite)?;
        Ok(rows.max(0) as u64)
    };
    let changes = TableChanges {
        table: d.table.to_string(),
        key: d.natural_key.iter().map(|k| k.to_string()).collect(),
        rows_before: count(old)?,
        rows_after: count(new)?,
        notes: vec![format!(
            "rows not compared: a file lacks the key column {missing_key}"
        )],
        ..TableChanges::default()
    };
    Ok((changes, ListedKeys::default()))
}

/// Walks both files' rows in key order at once.
fn merge(
    p: &Positions,
    old: &mut Cursor,
    new: &mut Cursor,
    tally: &mut Tally,
) -> Result<(), DiffError> {
    loop {
        let order = match (old.fill()?, new.fill()?) {
            (false, false) => return Ok(()),
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (true, true) => rows::compare_keys(old.row()?, new.row()?, 0..p.key()),
        };
        match order {
            Ordering::Less => {
                tally.removed(p, old.row()?);
                old.advance();
            }
            Ordering::Greater => {
                tally.added(p, new.row()?);
                new.advance();
            }
            Ordering::Equal => {
                tally.matched(p, old.row()?, new.row()?);
                old.advance();
                new.advance();
            }
        }
    }
}
