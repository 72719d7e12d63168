//! SQLite DDL driven by the catalogue: tables, indexes, and the metadata table.

use std::path::Path;

use crate::{Column, Dataset, Rollup, Source, ValueType, DATASETS};

/// `CREATE TABLE` for one dataset: its stored columns in record order, `id` as the rowid, and
/// case-insensitive collation on the text columns that are filtered ignoring case (so that the
/// indexes serve `=` directly).
pub fn create_table(d: &Dataset) -> String {
    let cols: Vec<String> = d.stored_columns().map(|c| column_ddl(d, c)).collect();
    format!("CREATE TABLE {} ({})", d.table, cols.join(", "))
}

/// A column's definition in a table of the dataset (`CREATE TABLE`).
pub fn column_ddl(d: &Dataset, c: &Column) -> String {
    if c.source == Source::Id {
        "id INTEGER PRIMARY KEY".to_string()
    } else if ignores_case(d, c) {
        format!("{} {} COLLATE NOCASE", c.name, c.ty.sql())
    } else {
        format!("{} {}", c.name, c.ty.sql())
    }
}

/// Whether a column's table compares it ignoring letter case (`COLLATE NOCASE`): the text
/// columns the API filters on, as the public service does, so that their indexes serve `=`.
pub fn ignores_case(d: &Dataset, c: &Column) -> bool {
    c.source != Source::Id && c.ty == ValueType::Text && d.is_filterable(c.name)
}

/// The runs table of a dataset with run columns: one row per run of consecutive ids that share
/// their run columns' values, keyed by its first id.
pub fn create_runs_table(d: &Dataset) -> Option<String> {
    let runs = d.runs_table()?;
    let cols: Vec<String> = d
        .run_columns
        .iter()
        .map(|name| column_ddl(d, d.column(name).expect("run column")))
        .collect();
    Some(format!(
        "CREATE TABLE {runs} (first_id INTEGER PRIMARY KEY, last_id INTEGER NOT NULL, {})",
        cols.join(", ")
    ))
}

/// The own values table of a dataset that keeps them (see `Dataset::own_values`): each row's
/// id and the JSON text of its own values (see `record::write_own_values`).
pub fn create_own_values_table(d: &Dataset) -> Option<String> {
    let table = d.own_values_table()?;
    Some(format!(
        "CREATE TABLE {table} (id INTEGER PRIMARY KEY, json BLOB NOT NULL)"
    ))
}

/// One index per filterable column (in the runs table for run columns): every filter and sort
/// of the API can seek. SQLite appends the rowid to every index entry, so
/// `WHERE col = ? ORDER BY id` needs nothing more.
pub fn create_indexes(d: &Dataset) -> Vec<String> {
    let index =
        |table: &str, column: &str| format!("CREATE INDEX {table}_{column} ON {table} ({column})");
    let mut out: Vec<String> = d
        .indexed_columns()
        .map(|c| index(d.table, c.name))
        .collect();
    if let Some(runs) = d.runs_table() {
        let filtered = d.run_columns.iter().filter(|c| d.is_filterable(c));
        out.extend(filtered.map(|c| index(&runs, c)));
    }
    out.extend(create_measures_index(d));
    out
}

/// The area whose summaries of derived measures are read from an index: a local authority.
const MEASURED_AREA: &str = "local_authority_id";

/// An index of a daily-flow table by local authority that holds what its derived measures are
/// made of (the year, the count, the lengths), so that an authority's vehicle-km by year is
/// read from the index alone, where no table of totals keeps it: the busiest authority's 15,385
/// AADF records, scattered through the table, took 22 ms read row by row, 2.3 ms from this
/// index. Beside the column's own index, whose entries go by id within an authority, as its
/// pages are read.
fn create_measures_index(d: &Dataset) -> Option<String> {
    d.column(MEASURED_AREA).filter(|c| c.stored)?;
    let mut columns = vec![MEASURED_AREA, "year"];
    for m in d.derived_measures() {
        for c in [m.count, m.length] {
            if !columns.contains(&c) {
                columns.push(c);
            }
        }
    }
    (columns.len() > 2).then(|| {
        let table = d.table;
        let on = columns.join(", ");
        format!("CREATE INDEX {table}_{MEASURED_AREA}_measures ON {table} ({on})")
    })
}

/// `CREATE TABLE` of a rollup: its `by` columns typed (and collated) as in the dataset's
/// table, so that a filter compares the same way in both.
pub fn create_rollup_table(d: &Dataset, table: &str, rollup: &Rollup) -> String {
    use crate::totals::{stat_column, RECORDS, STATS};
    let mut columns: Vec<String> = (rollup.by.iter())
        .map(|name| column_ddl(d, d.column(name).expect("rollup column")))
        .collect();
    columns.push(format!("{RECORDS} INTEGER NOT NULL"));
    for m in d.measure_columns() {
        for stat in STATS {
            let ty = match stat {
                "count" => ValueType::Integer,
                _ => m.ty,
            };
            columns.push(format!("{} {}", stat_column(stat, m.name), ty.sql()));
        }
    }
    format!("CREATE TABLE {table} ({})", columns.join(", "))
}

/// An index per column of a rollup that names an area (a region, a local authority), so that
/// a summary of one seeks its rows. None on the years, hours and codes: each keeps a large
/// share of a table of thousands of rows, which a scan reads in a millisecond or two.
pub fn create_rollup_indexes(d: &Dataset, table: &str, rollup: &Rollup) -> Vec<String> {
    let areas = ["region_id", "local_authority_id"];
    let names_an_area = |c: &&&str| areas.contains(c) && d.column(c).is_some();
    (rollup.by.iter().filter(names_an_area))
        .map(|c| format!("CREATE INDEX {table}_{c} ON {table} ({c})"))
        .collect()
}

pub const CREATE_METADATA: &str =
    "CREATE TABLE metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL)";

/// Every statement that creates an empty database of the current schema.
pub fn create_all_tables() -> Vec<String> {
    let mut out: Vec<String> = DATASETS.iter().map(|d| create_table(d)).collect();
    out.extend(DATASETS.iter().filter_map(|d| create_runs_table(d)));
    out.extend(DATASETS.iter().filter_map(|d| create_own_values_table(d)));
    for d in DATASETS {
        let rollups = d.rollup_tables();
        out.extend(rollups.map(|(table, r)| create_rollup_table(d, &table, r)));
    }
    out.push(crate::places::CREATE_INDEX.to_string());
    out.push(CREATE_METADATA.to_string());
    out
}

/// The version of the schema: a hash of every statement that builds it and of the JSON
/// writer's version, so that any change to a table, a column, an index or the bytes of the own
/// values makes files of the old schema refused (and reloaded) rather than misread. Kept in
/// each file's metadata as `schema_version`.
pub fn version() -> String {
    let mut ddl = create_all_tables();
    for d in DATASETS {
        ddl.extend(create_indexes(d));
        for (table, rollup) in d.rollup_tables() {
            ddl.extend(create_rollup_indexes(d, &table, rollup));
        }
    }
    ddl.push(crate::record::WRITER_VERSION.to_string());
    format!("{:016x}", crate::stable_hash(&ddl.join(";\n")))
}

/// The metadata table's keys that every file of ours has.
pub mod metadata {
    pub const SCHEMA_VERSION: &str = "schema_version";
    pub const RELEASE: &str = "release";
    pub const LOADED_AT: &str = "loaded_at";
    pub const LOADER_VERSION: &str = "loader_version";
    /// Rows per table, as a JSON object.
    pub const ROW_COUNTS: &str = "row_counts";
    /// Each source file's name, size and SHA-256, as a JSON array.
    pub const SOURCES: &str = "sources";
    /// What changed since the file this one replaced (`crate::changes::ChangeReport`, JSON);
    /// absent when the load replaced no file.
    pub const CHANGES: &str = "changes";
    /// Each file `roadtraffic-load --fetch` downloaded: URL, size, ETag, Last-Modified and
    /// SHA-256, as a JSON array; absent when the inputs were local files.
    pub const FETCHED: &str = "fetched";
    /// The tables whose records were rendered at load time (`--rendered-records`), each with
    /// the tag of its records' layout (`crate::record::RecordLayout::tag`), as a JSON object;
    /// absent when none were.
    pub const RENDERED_RECORDS: &str = "rendered_records";
}

/// A path as written in an SQLite `file:` URI (absolute, `?`, `#` and `%` escaped).
pub fn uri_path(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = String::new();
    for c in abs.to_string_lossy().chars() {
        match c {
            '?' | '#' | '%' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AADF;

    #[test]
    fn the_version_follows_the_ddl() {
        assert_eq!(version(), version());
        assert_eq!(version().len(), 16);
    }

    #[test]
    fn ddl_is_valid_sqlite() {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        for s in create_all_tables() {
            db.execute_batch(&s).unwrap();
        }
        for d in DATASETS {
            for s in create_indexes(d) {
                db.execute_batch(&s).unwrap();
            }
        }
        assert!(create_table(&AADF)
            .starts_with("CREATE TABLE aadf (id INTEGER PRIMARY KEY, count_point_id INTEGER"));
    }

    /// A local authority's vehicle-km by year, of either daily-flow table, is read from its
    /// measures index alone; a page of its records, by id, from the column's own index.
    #[test]
    fn an_authoritys_derived_measures_are_read_from_an_index() {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        let plan = |sql: &str| {
            let mut stmt = db.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let rows = stmt.query_map([], |r| r.get::<_, String>(3)).unwrap();
            rows.map(Result::unwrap).collect::<Vec<_>>().join("; ")
        };
        for d in DATASETS.iter().filter(|d| d.derived_measures().count() > 0) {
            db.execute_batch(&create_table(d)).unwrap();
            for s in create_runs_table(d).into_iter().chain(create_indexes(d)) {
                db.execute_batch(&s).unwrap();
            }
            let t = d.table;
            for m in d.derived_measures() {
                let sum = m.thousandths_sql("r");
                let summary = format!(
                    "SELECT year, count(*), sum({sum}) FROM {t} r \
                     WHERE local_authority_id = 35 GROUP BY year"
                );
                let expected = format!("COVERING INDEX {t}_local_authority_id_measures");
                assert!(plan(&summary).contains(&expected), "{}", plan(&summary));
            }
            let page = format!("SELECT * FROM {t} WHERE local_authority_id = 35 ORDER BY id");
            let expected = format!("USING INDEX {t}_local_authority_id (");
            assert!(plan(&page).contains(&expected), "{}", plan(&page));
        }
    }

    #[test]
    fn rollups_build_in_sqlite() {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        for d in DATASETS {
            db.execute_batch(&crate::schema::create_table(d)).unwrap();
            for (table, r) in d.rollup_tables() {
                db.execute_batch(&create_rollup_table(d, &table, r))
                    .unwrap();
                db.execute_batch(&crate::totals::fill_rollup(d, &table, r))
                    .unwrap();
                let parts = format!("{table}_parts");
                db.execute_batch(&create_rollup_table(d, &parts, r))
                    .unwrap();
                db.execute_batch(&crate::totals::regroup_rollup(d, &table, r, &parts))
                    .unwrap();
            }
        }
    }
}
