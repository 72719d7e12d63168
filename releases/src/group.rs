//! A dataset's tables, stored and shared as one: its table, its runs, its own values and its
//! rendered records, with their indexes and statistics. Two releases share a group when every
//! table of it holds the same rows under the same ids ([`hash_group`]).

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

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
    /// The tables whose rows make its hash: all of them, but the dataset's own table where
    /// its runs and own values hold it whole (see [`group_of`]).
    pub hashed: Vec<String>,
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
    tables.extend(d.rollup_tables().map(|(table, _)| table));
    // A dataset that keeps own values holds each row twice: in its table, and as its runs
    // (the run columns, by id range) with its own values (every other stored column, by id).
    // Those two are the smaller (raw counts: 1 s to hash, against 4.8 s for the table), and
    // determine the table's rows and ids, which the loader writes from the same values.
    let whole_elsewhere = d.own_values_table().is_some() && d.runs_table().is_some();
    // The rollups are made from the table alone: they follow its hash.
    let rollups: Vec<String> = d.rollup_tables().map(|(table, _)| table).collect();
    let hashed = (tables.iter())
        .filter(|t| !(whole_elsewhere && t.as_str() == d.table))
        .filter(|t| !rollups.contains(t))
        .cloned()
        .collect();
    Group {
        name: d.table,
        tables,
        hashed,
    }
}

/// Rows hashed as one piece: a table's rows are hashed by ranges of this many rowids, each
/// range on its own, so that the ranges of a large table can be hashed on several threads
/// ([`hash_group_file`]) to the same result.
const CHUNK_ROWS: i64 = 1 << 19;

/// The SHA-256 of a group's rows as `conn` holds them: each of its [`Group::hashed`] tables
/// present (by name), then the
/// SHA-256 of each range of `CHUNK_ROWS` rowids that holds rows (its rows in rowid order,
/// every value tagged with its type). Equal hashes mean the same rows under the same ids: what
/// a page, a sort by id or a run lookup reads is then the same.
pub fn hash_group(conn: &Connection, group: &Group) -> rusqlite::Result<String> {
    let mut hash = Sha256::new();
    for table in &group.hashed {
        let Some(chunks) = chunks_of(conn, table)? else {
            continue;
        };
        hash.update(format!("table {table}\n"));
        for chunk in chunks {
            hash.update(chunk.to_le_bytes());
            hash.update(hash_chunk(conn, table, chunk)?);
        }
    }
    Ok(format!("{:x}", hash.finalize()))
}

/// [`hash_group`] of the file at `path`, its ranges of rows hashed on `threads` threads (each
/// with a connection of its own): the same hash, sooner.
pub fn hash_group_file(path: &Path, group: &Group, threads: usize) -> rusqlite::Result<String> {
    let conn = crate::sqlite::open_read_only(path)?;
    let mut work: Vec<(String, i64)> = Vec::new();
    let mut tables = Vec::new();
    for table in &group.hashed {
        if let Some(chunks) = chunks_of(&conn, table)? {
            work.extend(chunks.into_iter().map(|c| (table.clone(), c)));
            tables.push(table.clone());
        }
    }
    let next = AtomicUsize::new(0);
    let digests: Mutex<HashMap<(String, i64), [u8; 32]>> = Mutex::new(HashMap::new());
    std::thread::scope(|scope| -> rusqlite::Result<()> {
        let worker = || -> rusqlite::Result<()> {
            let conn = crate::sqlite::open_read_only(path)?;
            while let Some((table, chunk)) = work.get(next.fetch_add(1, Ordering::Relaxed)) {
                let digest = hash_chunk(&conn, table, *chunk)?;
                digests
                    .lock()
                    .expect("no worker panicked")
                    .insert((table.clone(), *chunk), digest);
            }
            Ok(())
        };
        let handles: Vec<_> = (0..threads.max(1)).map(|_| scope.spawn(worker)).collect();
        for h in handles {
            h.join().expect("a hashing thread panicked")?;
        }
        Ok(())
    })?;
    let digests = digests.into_inner().expect("no worker panicked");
    let mut hash = Sha256::new();
    for table in &tables {
        hash.update(format!("table {table}\n"));
        for (t, chunk) in work.iter().filter(|(t, _)| t == table) {
            hash.update(chunk.to_le_bytes());
            hash.update(digests[&(t.clone(), *chunk)]);
        }
    }
    Ok(format!("{:x}", hash.finalize()))
}

/// The ranges of rowids (by number) a table's rows fall in, or `None` when there is no such
/// table. An empty table has none.
fn chunks_of(conn: &Connection, table: &str) -> rusqlite::Result<Option<Vec<i64>>> {
    if !has_table(conn, table)? {
        return Ok(None);
    }
    let sql = format!("SELECT min(rowid), max(rowid) FROM \"{table}\"");
    let (min, max): (Option<i64>, Option<i64>) =
        conn.query_row(&sql, [], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(Some(match (min, max) {
        (Some(min), Some(max)) => {
            (min.div_euclid(CHUNK_ROWS)..=max.div_euclid(CHUNK_ROWS)).collect()
        }
        _ => Vec::new(),
    }))
}

/// The SHA-256 of a table's rows in one range of rowids.
fn hash_chunk(conn: &Connection, table: &str, chunk: i64) -> rusqlite::Result<[u8; 32]> {
    let mut hash = Sha256::new();
    hash_rows(conn, table, chunk * CHUNK_ROWS, &mut hash)?;
    Ok(hash.finalize().into())
}

/// Whether the schema `conn` reads first names a table of this name.
pub(crate) fn has_table(conn: &Connection, table: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
        [table],
        |r| r.get(0),
    )
}

fn hash_rows(conn: &Connection, table: &str, from: i64, hash: &mut Sha256) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT rowid, * FROM \"{table}\" WHERE rowid >= ?1 AND rowid < ?2 ORDER BY rowid"
    ))?;
    let width = stmt.column_count();
    let mut rows = stmt.query([from, from + CHUNK_ROWS])?;
    // Values are gathered and hashed 64 KiB at a time: an update per value cost more than
    // the hashing itself.
    let mut bytes: Vec<u8> = Vec::with_capacity(FLUSH_BYTES + 4096);
    while let Some(row) = rows.next()? {
        for i in 0..width {
            tagged(row.get_ref(i)?, &mut bytes);
        }
        if bytes.len() >= FLUSH_BYTES {
            hash.update(&bytes);
            bytes.clear();
        }
    }
    hash.update(&bytes);
    Ok(())
}

/// How many bytes of values are gathered before they are hashed.
const FLUSH_BYTES: usize = 1 << 16;

/// A value as hashed: its type's tag, then its bytes (text and blobs after their length).
fn tagged(value: ValueRef, out: &mut Vec<u8>) {
    match value {
        ValueRef::Null => out.push(0),
        ValueRef::Integer(n) => {
            out.push(1);
            out.extend_from_slice(&n.to_le_bytes());
        }
        ValueRef::Real(x) => {
            out.push(2);
            out.extend_from_slice(&x.to_bits().to_le_bytes());
        }
        ValueRef::Text(b) | ValueRef::Blob(b) => {
            out.push(3);
            out.extend_from_slice(&(b.len() as u64).to_le_bytes());
            out.extend_from_slice(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use roadtraffic_catalog::AADF;

    #[test]
    fn a_group_hashes_the_same_on_one_thread_or_several() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sqlite");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE aadf (id INTEGER PRIMARY KEY, v TEXT);
             CREATE TABLE aadf_runs (first_id INTEGER PRIMARY KEY, last_id INTEGER);",
        )
        .unwrap();
        let mut insert = conn.prepare("INSERT INTO aadf VALUES (?1, ?2)").unwrap();
        for id in (1..3 * CHUNK_ROWS).step_by(997) {
            insert.execute((id, format!("row {id}"))).unwrap();
        }
        let group = group_of(&AADF);
        let one = hash_group(&conn, &group).unwrap();
        assert_eq!(hash_group_file(&path, &group, 3).unwrap(), one);
        conn.execute("UPDATE aadf SET v = 'x' WHERE id = 1995", [])
            .unwrap();
        assert_ne!(hash_group(&conn, &group).unwrap(), one);
    }
}
