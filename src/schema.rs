//! SQLite DDL driven by the catalogue: tables, indexes, and the metadata table.

use crate::catalog::{Dataset, Source, ValueType, DATASETS};

/// `CREATE TABLE` for one dataset: its stored columns in record order, `id` as the rowid, and
/// case-insensitive collation on the text columns that are filtered ignoring case (so that the
/// indexes serve `=` directly).
pub fn create_table(d: &Dataset) -> String {
    let cols: Vec<String> = d
        .stored_columns()
        .map(|c| {
            if c.source == Source::Id {
                "id INTEGER PRIMARY KEY".to_string()
            } else if c.ty == ValueType::Text && d.is_filterable(c.name) {
                format!("{} {} COLLATE NOCASE", c.name, c.ty.sql())
            } else {
                format!("{} {}", c.name, c.ty.sql())
            }
        })
        .collect();
    format!("CREATE TABLE {} ({})", d.table, cols.join(", "))
}

/// One index per filterable column: every filter and sort of the API can seek. SQLite appends
/// the rowid to every index entry, so `WHERE col = ? ORDER BY id` needs nothing more.
pub fn create_indexes(d: &Dataset) -> Vec<String> {
    d.indexed_columns()
        .map(|c| format!("CREATE INDEX {t}_{c} ON {t} ({c})", t = d.table, c = c.name))
        .collect()
}

pub const CREATE_METADATA: &str =
    "CREATE TABLE metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL)";

/// Every statement that creates an empty database of the current schema.
pub fn create_all_tables() -> Vec<String> {
    let mut out: Vec<String> = DATASETS.iter().map(|d| create_table(d)).collect();
    out.push(CREATE_METADATA.to_string());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::AADF;

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
}
