//! Files of kept releases, written whole: a release's tables but the groups it shares (the
//! outgoing latest, moved into the releases folder), or all of them (a kept release made
//! complete again, to become the `--db` file). Tables are created from the source's own SQL
//! with their indexes before any row is copied, so that SQLite's transfer optimisation copies
//! each table and index b-tree record by record, without decoding or sorting anything.

use std::fs::File;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use roadtraffic_catalog::schema;

use crate::group::Group;
use crate::layer;
use crate::storage::Storage;

/// The page size the loader builds files with.
const PAGE_SIZE: u32 = 32768;

/// A table to copy, and the schema it is read from.
struct TableToCopy {
    schema: String,
    table: String,
    virtual_table: bool,
    /// Where its rows are read when not from `schema`'s table: a layered group's view.
    rows_from: Option<String>,
}

/// Groups of the release copied to store as layers ([`crate::layer`]) over the tables of the
/// file `base` holds (a newer release, whole).
pub struct Layering<'a> {
    pub base: &'a Path,
    pub groups: &'a [Group],
}

/// Writes into `dest` (absent, or an empty file the caller created) every table of the
/// release stored in `from`, as a reader finds them (its own file first, then the files of its
/// shared groups), but the tables of the groups in `skip`: each table with its indexes, its
/// rows under the same ids, its statistics (`sqlite_stat1`, `sqlite_stat4`) and the metadata
/// unchanged (so its [`crate::metadata_id`] is unchanged). The tables `from` reads through
/// layers are written whole. With `layering`, the tables of its groups are written as layers
/// over `base`'s where they can be: the groups so written are returned. `dest` is not synced.
pub fn copy_release(
    from: &Storage,
    dest: &Path,
    skip: &[Group],
    layering: Option<&Layering>,
) -> rusqlite::Result<Vec<Group>> {
    let conn = open_dest(dest)?;
    let uri = |path: &Path| format!("file:{}?mode=ro&immutable=1", schema::uri_path(path));
    conn.execute("ATTACH DATABASE ?1 AS src", [uri(&from.main)])?;
    from.attach(&conn, "src", uri)?;
    let to_layer = layering.map_or(&[][..], |l| l.groups);
    if let Some(l) = layering {
        conn.execute("ATTACH DATABASE ?1 AS base", [uri(l.base)])?;
    }
    let mut skipped: Vec<String> = (skip.iter())
        .flat_map(|g| g.tables.iter().cloned())
        .collect();
    let read_through_layers: Vec<String> = from.layered.iter().map(|(g, _)| g.clone()).collect();
    let layered_here = to_layer.iter().map(|g| g.name.to_string());
    for group in read_through_layers.iter().cloned().chain(layered_here) {
        skipped.extend([layer::own_table(&group), layer::hide_table(&group), group]);
    }
    let mut schemas = vec!["src".to_string()];
    schemas.extend((0..from.attached.len()).map(|i| format!("shared{i}")));
    let mut sources = tables_to_copy(&conn, &schemas, &skipped)?;
    for table in read_through_layers {
        let schema = holder_of(&conn, &schemas, &table)?;
        sources.push(TableToCopy {
            schema,
            rows_from: Some(format!("temp.\"{table}\" ORDER BY id")),
            table,
            virtual_table: false,
        });
    }
    for s in &sources {
        create_table(&conn, s)?;
    }
    // The statistics tables, made by SQLite as it makes them, emptied for the source's rows.
    conn.execute_batch("ANALYZE main; DELETE FROM main.sqlite_stat1;")?;
    let stat4 = has_table(&conn, "main", "sqlite_stat4")?;
    if stat4 {
        conn.execute_batch("DELETE FROM main.sqlite_stat4")?;
    }
    conn.execute_batch("BEGIN")?;
    for s in &sources {
        copy_rows(&conn, s, stat4)?;
    }
    let layered = write_layers(&conn, to_layer, stat4)?;
    conn.execute_batch("COMMIT")?;
    conn.close().map_err(|(_, e)| e)?;
    Ok(layered)
}

/// Each group's table written as a layer over `base`'s, or whole where it cannot be: the
/// groups written as layers.
fn write_layers(conn: &Connection, groups: &[Group], stat4: bool) -> rusqlite::Result<Vec<Group>> {
    let mut layered = Vec::new();
    for group in groups {
        let table = group.name;
        if layer::write_layer(conn, "src", "base", table)? {
            conn.execute_batch(&format!("ANALYZE main.\"{}\"", layer::own_table(table)))?;
            layered.push(group.clone());
            continue;
        }
        let whole = TableToCopy {
            schema: "src".to_string(),
            table: table.to_string(),
            virtual_table: false,
            rows_from: None,
        };
        if has_table(conn, "src", table)? {
            create_table(conn, &whole)?;
            copy_rows(conn, &whole, stat4)?;
        }
    }
    Ok(layered)
}

/// The first schema holding a table.
fn holder_of(conn: &Connection, schemas: &[String], table: &str) -> rusqlite::Result<String> {
    for schema in schemas {
        if has_table(conn, schema, table)? {
            return Ok(schema.clone());
        }
    }
    Err(rusqlite::Error::QueryReturnedNoRows)
}

fn open_dest(dest: &Path) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NOFOLLOW
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(dest, flags)?;
    // Not the file anyone reads until it is renamed into place: no journal, no syncs.
    conn.execute_batch(&format!(
        "PRAGMA page_size = {PAGE_SIZE};
         PRAGMA journal_mode = OFF;
         PRAGMA synchronous = OFF;
         PRAGMA locking_mode = EXCLUSIVE;
         PRAGMA cache_size = -32768;"
    ))?;
    Ok(conn)
}

/// Every table (and R*Tree) to copy, each from the first schema that holds it, in each
/// schema's own order; SQLite's own tables and a virtual table's shadow tables are left to
/// SQLite.
fn tables_to_copy(
    conn: &Connection,
    schemas: &[String],
    skipped: &[String],
) -> rusqlite::Result<Vec<TableToCopy>> {
    let mut out: Vec<TableToCopy> = Vec::new();
    for schema in schemas {
        let mut stmt = conn.prepare(&format!(
            "SELECT m.name, l.type FROM \"{schema}\".sqlite_master m \
             JOIN pragma_table_list l ON l.schema = ?1 AND l.name = m.name \
             WHERE m.type = 'table' AND l.type IN ('table', 'virtual') \
             AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY m.rowid"
        ))?;
        let rows = stmt.query_map([schema], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        for row in rows {
            let (table, kind) = row?;
            if skipped.contains(&table) || out.iter().any(|s| s.table == table) {
                continue;
            }
            out.push(TableToCopy {
                schema: schema.clone(),
                table,
                virtual_table: kind == "virtual",
                rows_from: None,
            });
        }
    }
    Ok(out)
}

/// The table and its indexes, from the source's SQL, in the new file.
fn create_table(conn: &Connection, s: &TableToCopy) -> rusqlite::Result<()> {
    let sql = format!(
        "SELECT type, name, sql FROM \"{}\".sqlite_master WHERE tbl_name = ?1 \
         AND sql IS NOT NULL AND type IN ('table', 'index') ORDER BY type = 'index', rowid",
        s.schema
    );
    let mut stmt = conn.prepare(&sql)?;
    let ddl: Vec<(String, String, String)> = stmt
        .query_map([&s.table], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (kind, name, statement) in ddl {
        // An index's table is found by name, and a temporary view of a layered table (made
        // when the source was attached) would shadow the new table: the index is named in
        // `main`, where its table is then looked up.
        match kind.as_str() {
            "index" => conn.execute_batch(&layer::index_sql(&statement, &name, &s.table))?,
            _ => conn.execute_batch(&statement)?,
        }
    }
    Ok(())
}

/// The table's rows, then its statistics. An R*Tree is refilled in id order, the order the
/// loader filled it in: the same rows make the same tree.
fn copy_rows(conn: &Connection, s: &TableToCopy, stat4: bool) -> rusqlite::Result<()> {
    let (schema, table) = (&s.schema, &s.table);
    let order = if s.virtual_table {
        " ORDER BY rowid"
    } else {
        ""
    };
    let rows = match &s.rows_from {
        Some(from) => from.clone(),
        None => format!("\"{schema}\".\"{table}\"{order}"),
    };
    conn.execute_batch(&format!(
        "INSERT INTO main.\"{table}\" SELECT * FROM {rows}"
    ))?;
    if s.rows_from.is_some() {
        // Rows of its own: its statistics made as the loader makes them.
        return conn.execute_batch(&format!(
            "PRAGMA analysis_limit = 1000; ANALYZE main.\"{table}\""
        ));
    }
    let stats = [("sqlite_stat1", true), ("sqlite_stat4", stat4)];
    for (stat, wanted) in stats {
        if wanted && has_table(conn, schema, stat)? {
            conn.execute(
                &format!(
                    "INSERT INTO main.{stat} SELECT * FROM \"{schema}\".{stat} WHERE tbl = ?1"
                ),
                [table],
            )?;
        }
    }
    Ok(())
}

fn has_table(conn: &Connection, schema: &str, table: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        &format!(
            "SELECT count(*) FROM \"{schema}\".sqlite_master WHERE type = 'table' AND name = ?1"
        ),
        [table],
        |r| r.get::<_, i64>(0).map(|n| n > 0),
    )
}

/// Writes `name` in `dir` durably: `write` fills a path of its own (absent when called) in
/// the same folder, which is synced and renamed to `name`, the folder synced. A crash leaves
/// at most the temporary file, `.{name}.*.partial`, which [`is_leftover`] recognises.
pub fn write_durably(
    dir: &Path,
    name: &str,
    write: impl FnOnce(&Path) -> std::io::Result<()>,
) -> std::io::Result<PathBuf> {
    let tmp = dir.join(format!(".{name}.{}.partial", std::process::id()));
    match std::fs::remove_file(&tmp) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let written = write(&tmp).and_then(|()| File::open(&tmp)?.sync_all());
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    let path = dir.join(name);
    std::fs::rename(&tmp, &path)?;
    File::open(dir)?.sync_all()?;
    Ok(path)
}

/// A second name for `src` at `dest` (absent): a hard link, or a copy where the file system
/// has none.
pub fn link_or_copy(src: &Path, dest: &Path) -> std::io::Result<()> {
    match std::fs::hard_link(src, dest) {
        Ok(()) => Ok(()),
        Err(_) => std::fs::copy(src, dest).map(|_| ()),
    }
}

/// Whether a file of the releases folder is a temporary file of [`write_durably`] or of the
/// manifest's writing: left by an interrupted run, never named by a manifest.
pub fn is_leftover(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".partial")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{group_of, hash_group, metadata_id};
    use roadtraffic_catalog::{AADF, RAW_COUNTS};

    /// A file with two groups' tables, an index, statistics, an R*Tree and metadata.
    fn source(dir: &Path) -> PathBuf {
        let path = dir.join("src.sqlite");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "PRAGMA page_size = 32768;
             CREATE TABLE aadf (id INTEGER PRIMARY KEY, count_point_id INTEGER, year INTEGER);
             CREATE INDEX aadf_count_point_id ON aadf (count_point_id);
             CREATE TABLE raw_counts (id INTEGER PRIMARY KEY, hour INTEGER);
             CREATE VIRTUAL TABLE places USING rtree(id, min_lon, max_lon);
             CREATE TABLE metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             INSERT INTO metadata VALUES ('release', '2024'), ('loaded_at', 'x');
             INSERT INTO places (min_lon, max_lon) VALUES (1, 1), (2, 2);",
        )
        .unwrap();
        for i in 0..500 {
            conn.execute("INSERT INTO aadf VALUES (?1, ?2, 2020)", [i, i % 37])
                .unwrap();
            conn.execute("INSERT INTO raw_counts VALUES (?1, ?2)", [i, i % 24])
                .unwrap();
        }
        conn.execute_batch("ANALYZE").unwrap();
        path
    }

    #[test]
    fn a_copy_without_a_group_keeps_everything_else_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let src = source(dir.path());
        let dest = dir.path().join("dest.sqlite");
        copy_release(&Storage::file(&src), &dest, &[group_of(&RAW_COUNTS)], None).unwrap();
        let (a, b) = (
            Connection::open(&src).unwrap(),
            Connection::open(&dest).unwrap(),
        );
        assert!(!crate::group::has_table(&b, "raw_counts").unwrap());
        let aadf = group_of(&AADF);
        assert_eq!(
            hash_group(&a, &aadf).unwrap(),
            hash_group(&b, &aadf).unwrap()
        );
        assert_eq!(metadata_id(&a).unwrap(), metadata_id(&b).unwrap());
        let stats = |c: &Connection| -> Vec<(String, String)> {
            let mut s = c
                .prepare("SELECT tbl, stat FROM sqlite_stat1 WHERE tbl = 'aadf' ORDER BY idx")
                .unwrap();
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        assert_eq!(stats(&a), stats(&b));
        assert!(!stats(&b).is_empty());
        let places: i64 = b
            .query_row("SELECT count(*) FROM places WHERE min_lon > 1.5", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(places, 1);
        let page: i64 = b.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
        assert_eq!(page, i64::from(PAGE_SIZE));
    }
}
