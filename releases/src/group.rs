//! A dataset's tables, stored and shared as one: its table, its runs, its own values and its
//! rendered records, with their indexes and statistics. Two releases share a group when every
//! table of it holds the same rows under the same ids ([`hash_group`]).

use rusqlite::types::ValueRef;
use rusqlite::Connection;
use sha2::{Digest, Sha256};

use roadtraffic_catalog::{record, Dataset, DATASETS};

/// One dataset's tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The dataset's table, which names the group.
    pub name: &'static str,
    /// Every table of the group that a file may hold, the dataset's own first.
    pub tables: Vec<String>,
}

/// Every dataset's group, in the catalogue's order.
pub fn groups() -> Vec<Group> {
    DATASETS.iter().map(|d| group_of(d)).collect()
}

/// The group of one dataset.
pub fn group_of(d: &Dataset) -> Group {
    let mut tables = vec![d.table.to_string()];
    tables.extend(d.runs_table());
    tables.extend(d.own_values_table());
    tables.push(record::rendered_table(d));
    Group {
        name: d.table,
        tables,
    }
}

/// The SHA-256 of a group's rows as `conn` holds them: each table present (by name), then its
/// rows in rowid order, every value tagged with its type. Equal hashes mean the same rows under
/// the same ids: what a page, a sort by id or a run lookup reads is then the same.
pub fn hash_group(conn: &Connection, group: &Group) -> rusqlite::Result<String> {
    let mut hash = Sha256::new();
    for table in &group.tables {
        if !has_table(conn, table)? {
            continue;
        }
        hash.update(format!("table {table}\n"));
        hash_rows(conn, table, &mut hash)?;
    }
    Ok(format!("{:x}", hash.finalize()))
}

/// Whether the schema `conn` reads first names a table of this name.
pub(crate) fn has_table(conn: &Connection, table: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
        [table],
        |r| r.get(0),
    )
}

fn hash_rows(conn: &Connection, table: &str, hash: &mut Sha256) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(&format!("SELECT rowid, * FROM \"{table}\" ORDER BY rowid"))?;
    let width = stmt.column_count();
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        for i in 0..width {
            match row.get_ref(i)? {
                ValueRef::Null => hash.update([0u8]),
                ValueRef::Integer(n) => {
                    hash.update([1u8]);
                    hash.update(n.to_le_bytes());
                }
                ValueRef::Real(x) => {
                    hash.update([2u8]);
                    hash.update(x.to_bits().to_le_bytes());
                }
                ValueRef::Text(b) | ValueRef::Blob(b) => {
                    hash.update([3u8]);
                    hash.update((b.len() as u64).to_le_bytes());
                    hash.update(b);
                }
            }
        }
    }
    Ok(())
}
