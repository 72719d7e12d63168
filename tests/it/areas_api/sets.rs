//! Area sets added to a copy of a loaded file, as `roadtraffic-load areas add` stores them:
//! through the areas crate's own reader, store, membership and totals (a test-only stand-in
//! until the loader's command is merged, then the same steps through it).

use std::path::{Path, PathBuf};

use roadtraffic_areas::{membership, read_boundaries, store, totals, Fields, Membership};

use crate::support::*;

/// A boundary file of `../shared/data/areas`, when it is there.
pub fn boundaries(file: &str) -> Option<PathBuf> {
    shared(&format!("data/areas/{file}"), "the checks of area sets")
}

/// Adds the set `name` from `file` (ids `code`, names `name`) to the file at `db`.
pub fn add_set(db: &Path, name: &str, file: &Path) {
    let fields = Fields {
        id: Some("code".into()),
        name: Some("name".into()),
        ..Fields::default()
    };
    let set = read_boundaries(file, name, &fields).expect("a valid boundary file");
    let conn = rusqlite::Connection::open(db).unwrap();
    store::create_tables(&conn).unwrap();
    store::drop_set(&conn, name).unwrap();
    totals::forget(&conn, name).unwrap();
    store::write_set(&conn, &set, "2026-01-01T00:00:00Z").unwrap();
    let places = membership::release_places(&conn).unwrap();
    let members = Membership::assign(&set, &places);
    store::write_membership(&conn, &set, &members).unwrap();
    totals::fill(&conn, name).unwrap();
}

/// A copy of `db` in a folder of its own, with these sets (name, boundary file) added.
pub fn copy_with_sets(db: &Path, sets: &[(&str, &Path)]) -> PathBuf {
    let copy = scratch_dir().join("with-areas.db");
    std::fs::copy(db, &copy).unwrap();
    for (name, file) in sets {
        add_set(&copy, name, file);
    }
    copy
}
