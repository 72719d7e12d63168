//! How every file of a release is opened for reading: read-only, `immutable` (files of
//! releases are replaced by renaming, never written in place, so SQLite may skip all locking),
//! through a URI.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use roadtraffic_catalog::schema;

/// The URI that opens `path` for reading only.
pub fn read_only_uri(path: &Path) -> String {
    format!("file:{}?mode=ro&immutable=1", schema::uri_path(path))
}

/// One file opened for reading only, on one thread.
pub fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Connection::open_with_flags(read_only_uri(path), flags)
}
