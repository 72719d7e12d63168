//! Where a kept release's tables are, and how a connection finds them all.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use roadtraffic_catalog::schema;
use sha2::{Digest, Sha256};

use crate::manifest::{folder, KeptRelease};

/// The files a kept release is read from: its own, and those holding the groups it shares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Storage {
    /// The file of its own tables (and its metadata): opened as the connection's `main`.
    pub main: PathBuf,
    /// Files holding the groups it shares, each attached once, in the manifest's order.
    pub attached: Vec<PathBuf>,
}

impl Storage {
    /// A file that holds every table itself (a `--db` file, or one being built).
    pub fn file(path: &Path) -> Storage {
        Storage {
            main: path.to_path_buf(),
            attached: Vec::new(),
        }
    }

    /// Opens the release for reading only, on one thread, its shared groups attached: never
    /// written, never locked (files of releases are replaced by renaming, never in place).
    pub fn open(&self) -> rusqlite::Result<Connection> {
        let uri = |path: &Path| format!("file:{}?mode=ro&immutable=1", schema::uri_path(path));
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(uri(&self.main), flags)?;
        self.attach(&conn, uri)?;
        Ok(conn)
    }

    /// Where `release`, kept beside `db`, is stored.
    pub fn of(db: &Path, release: &KeptRelease) -> Storage {
        let dir = folder(db);
        let path = |file: &Option<String>| match file {
            Some(f) => dir.join(f),
            None => db.to_path_buf(),
        };
        let mut attached: Vec<PathBuf> = Vec::new();
        for file in release.shared.values() {
            let p = path(file);
            if !attached.contains(&p) {
                attached.push(p);
            }
        }
        Storage {
            main: path(&release.file),
            attached,
        }
    }

    /// Attaches the files holding the shared groups to `conn` (opened on [`Storage::main`] with
    /// `SQLITE_OPEN_URI`), each by the URI `uri_of` gives its path (e.g. read-only, immutable).
    /// SQL naming a table without its schema finds it in `main` first, then in the attached
    /// files: the queries written for one complete file read a kept release unchanged.
    pub fn attach(
        &self,
        conn: &Connection,
        uri_of: impl Fn(&Path) -> String,
    ) -> rusqlite::Result<()> {
        for (i, path) in self.attached.iter().enumerate() {
            conn.execute(
                "ATTACH DATABASE ?1 AS ?2",
                (uri_of(path), format!("shared{i}")),
            )?;
        }
        Ok(())
    }
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
