//! Area sets added to a copy of a loaded file by the loader's `roadtraffic-load areas add`.

use std::path::{Path, PathBuf};

use crate::support::*;

/// A boundary file of `../shared/data/areas`, when it is there.
pub fn boundaries(file: &str) -> Option<PathBuf> {
    shared(&format!("data/areas/{file}"), "the checks of area sets")
}

/// Adds the set `name` from `file` (ids `code`, names `name`) to the file at `db`, with the
/// loader's `areas add`.
pub fn add_set(db: &Path, name: &str, file: &Path) {
    let fields = ["--id-field", "code", "--name-field", "name"];
    crate::areas_load::add_ok(db, name, file, &fields);
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
