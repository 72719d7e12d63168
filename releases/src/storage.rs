//! Where a kept release's tables are, and how a connection finds them all.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use sha2::{Digest, Sha256};

use crate::manifest::{folder, KeptRelease};
use crate::sqlite::{open_read_only, read_only_uri};

/// The files a kept release is read from: its own, and those holding the groups it shares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Storage {
    /// The file of its own tables (and its metadata): opened as the connection's `main`.
    pub main: PathBuf,
    /// Files holding the groups it shares, each attached once: the folder's, then the `--db`
    /// file (which holds every table) last.
    pub attached: Vec<PathBuf>,
    /// Each shared group, with the file of [`Storage::attached`] it is read from.
    pub shared: Vec<(String, PathBuf)>,
    /// Each group whose table is read through layers ([`crate::layer`]), with the files holding
    /// them (its own or attached ones): the layers' topmost first, the table's whole last.
    pub layered: Vec<(String, Vec<PathBuf>)>,
}

impl Storage {
    /// A file that holds every table itself (a `--db` file, or one being built).
    pub fn file(path: &Path) -> Storage {
        Storage {
            main: path.to_path_buf(),
            attached: Vec::new(),
            shared: Vec::new(),
            layered: Vec::new(),
        }
    }

    /// Opens the release for reading only, on one thread, its shared groups attached: never
    /// written, never locked (files of releases are replaced by renaming, never in place).
    pub fn open(&self) -> rusqlite::Result<Connection> {
        let conn = open_read_only(&self.main)?;
        self.attach(&conn, "main", read_only_uri)?;
        Ok(conn)
    }

    /// Where `release`, kept beside `db`, is stored.
    pub fn of(db: &Path, release: &KeptRelease) -> Storage {
        let dir = folder(db);
        let path = |file: &Option<String>| match file {
            Some(f) => dir.join(f),
            None => db.to_path_buf(),
        };
        // The --db file last: it holds every table, other releases' versions too.
        let layers = release.layered.values().flatten();
        let mut files: Vec<&Option<String>> = release.shared.values().chain(layers).collect();
        files.sort_by_key(|f| f.is_none());
        let main = path(&release.file);
        let mut attached: Vec<PathBuf> = Vec::new();
        for file in files {
            let p = path(file);
            if p != main && !attached.contains(&p) {
                attached.push(p);
            }
        }
        let shared = (release.shared.iter())
            .map(|(group, file)| (group.clone(), path(file)))
            .collect();
        let layered = (release.layered.iter())
            .map(|(group, files)| (group.clone(), files.iter().map(path).collect()))
            .collect();
        Storage {
            main,
            attached,
            shared,
            layered,
        }
    }

    /// The statements making the views of the layered groups' tables (temporary: each
    /// connection makes its own), given the schema each file is attached as: `main_schema`
    /// for [`Storage::main`], `schema_of_attached[i]` for [`Storage::attached`]`[i]`.
    pub fn layer_views(&self, main_schema: &str, schema_of_attached: &[String]) -> Vec<String> {
        let schema = |p: &PathBuf| match self.attached.iter().position(|a| a == p) {
            Some(i) if *p != self.main => schema_of_attached[i].clone(),
            _ => main_schema.to_string(),
        };
        (self.layered.iter())
            .filter_map(|(group, files)| {
                let (whole, layers) = files.split_last()?;
                let layers: Vec<String> = layers.iter().map(schema).collect();
                Some(crate::layer::view_sql(group, &layers, &schema(whole)))
            })
            .collect()
    }

    /// Attaches the files holding the shared groups to `conn` (opened on [`Storage::main`] with
    /// `SQLITE_OPEN_URI`), each by the URI `uri_of` gives its path (e.g. read-only, immutable).
    /// SQL naming a table without its schema finds it in `main` first, then in the attached
    /// files in the order they were attached: the queries written for one complete file read
    /// a kept release unchanged. Two attached files may both hold a group (another release's
    /// version of it in one): the files are attached in an order where the one each group is
    /// read from comes before every other that holds it.
    ///
    /// The tables of layered groups are temporary views ([`Storage::layer_views`]), found
    /// before any schema's; `main_schema` names the schema [`Storage::main`] is (`main` when
    /// `conn` was opened on it).
    pub fn attach(
        &self,
        conn: &Connection,
        main_schema: &str,
        uri_of: impl Fn(&Path) -> String,
    ) -> rusqlite::Result<()> {
        let attach_all = |order: &[usize]| -> rusqlite::Result<()> {
            for (i, &file) in order.iter().enumerate() {
                let uri = uri_of(&self.attached[file]);
                conn.execute("ATTACH DATABASE ?1 AS ?2", (uri, format!("shared{i}")))?;
            }
            Ok(())
        };
        let first: Vec<usize> = (0..self.attached.len()).collect();
        attach_all(&first)?;
        let order = self.resolving_order(conn)?;
        if order != first {
            for i in 0..first.len() {
                conn.execute("DETACH DATABASE ?1", [format!("shared{i}")])?;
            }
            attach_all(&order)?;
        }
        // attached[file] is shared{i} where order[i] == file.
        let mut schemas = vec![String::new(); order.len()];
        for (i, &file) in order.iter().enumerate() {
            schemas[file] = format!("shared{i}");
        }
        for view in self.layer_views(main_schema, &schemas) {
            conn.execute_batch(&view)?;
        }
        Ok(())
    }

    /// An order of the attached files (attached as `shared{i}` in their own order) in which
    /// each shared group's file comes before every other file holding a table of the group.
    fn resolving_order(&self, conn: &Connection) -> rusqlite::Result<Vec<usize>> {
        let n = self.attached.len();
        let mut before: Vec<Vec<usize>> = vec![Vec::new(); n]; // before[j]: files that must precede j
        for (group, path) in &self.shared {
            let Some(from) = self.attached.iter().position(|p| p == path) else {
                continue;
            };
            let tables = crate::groups().into_iter().find(|g| g.name == group);
            let tables = tables.map(|g| g.tables).unwrap_or_default();
            for other in (0..n).filter(|&j| j != from) {
                if holds_any(conn, &format!("shared{other}"), &tables)? {
                    before[other].push(from);
                }
            }
        }
        let mut order = Vec::with_capacity(n);
        while order.len() < n {
            let next =
                (0..n).find(|j| !order.contains(j) && before[*j].iter().all(|b| order.contains(b)));
            match next {
                Some(j) => order.push(j),
                // Contradictory sharing (not written by the loader): keep the given order.
                None => return Ok((0..n).collect()),
            }
        }
        Ok(order)
    }
}

/// Whether the schema holds any of these tables.
fn holds_any(conn: &Connection, schema: &str, tables: &[String]) -> rusqlite::Result<bool> {
    let sql = format!(
        "SELECT count(*) FROM \"{schema}\".sqlite_master WHERE type = 'table' AND name = ?1"
    );
    for table in tables {
        if conn.query_row(&sql, [table], |r| r.get::<_, i64>(0))? > 0 {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The SHA-256 of a file's metadata, as `key<TAB>value<LF>` lines in key order: the id the
/// server gives a release, the same for every copy of one load.
pub fn metadata_id(conn: &Connection) -> rusqlite::Result<String> {
    let mut stmt = conn.prepare("SELECT key, value FROM main.metadata ORDER BY key")?;
    let mut rows = stmt.query([])?;
    let mut id = Sha256::new();
    while let Some(row) = rows.next()? {
        let (key, value): (String, String) = (row.get(0)?, row.get(1)?);
        id.update(format!("{key}\t{value}\n"));
    }
    Ok(format!("{:x}", id.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file holding these tables, each with one row naming the file.
    fn file(dir: &Path, name: &str, tables: &[&str]) -> PathBuf {
        let path = dir.join(name);
        let conn = Connection::open(&path).unwrap();
        for t in tables {
            conn.execute_batch(&format!(
                "CREATE TABLE {t} (v TEXT); INSERT INTO {t} VALUES ('{name}');"
            ))
            .unwrap();
        }
        path
    }

    #[test]
    fn each_shared_group_is_read_from_its_own_file() {
        let dir = tempfile::tempdir().unwrap();
        let main = file(dir.path(), "own.sqlite", &["metadata"]);
        // The newer file holds its own AADF and its own raw counts; the release reads AADF
        // from it, and raw counts from an older file: named in that order, the newer file's
        // raw counts would be found first.
        let newer = file(dir.path(), "newer.sqlite", &["aadf", "raw_counts"]);
        let older = file(dir.path(), "older.sqlite", &["raw_counts"]);
        let storage = Storage {
            main,
            attached: vec![newer.clone(), older.clone()],
            shared: vec![("aadf".into(), newer), ("raw_counts".into(), older)],
            layered: Vec::new(),
        };
        let conn = storage.open().unwrap();
        let read = |t: &str| -> String {
            conn.query_row(&format!("SELECT v FROM {t}"), [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(read("aadf"), "newer.sqlite");
        assert_eq!(read("raw_counts"), "older.sqlite");
    }
}
