//! `roadtraffic-load areas add|list|drop --db FILE`: the area sets kept in the mirror's file
//! (`roadtraffic_areas`), and their carrying over to each new file a load builds.
//!
//! The server reads `FILE` as immutable and the loader never writes a served file in place: an
//! add or a drop copies `FILE` to a partial beside it (under the load's lock, `target.rs`),
//! changes the copy, and renames it over `FILE` once it is durable. A refused or interrupted
//! one leaves `FILE` as it was, byte for byte. The file's metadata is not touched: the release
//! it holds keeps its id.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use roadtraffic_areas::{read_boundaries, store, Fields, SetInfo};

use crate::error::{AreaError, LoadError};
use crate::report::LoadReport;
use crate::target::{open_built, Target};

/// What `areas add` is asked.
#[derive(Debug, Clone)]
pub struct AddOptions {
    pub db: PathBuf,
    pub name: String,
    pub file: PathBuf,
    pub fields: Fields,
    /// Replace a set of that name instead of refusing.
    pub replace: bool,
}

/// What an add did: the set's areas and how many count points fell in them.
#[derive(Debug, Clone)]
pub struct Added {
    pub areas: usize,
    pub crs: &'static str,
    /// (area, count point) pairs: a count point on a shared edge counts in each area.
    pub memberships: usize,
}

/// `areas add NAME FILE`: reads and checks FILE, then writes the set, its count points and its
/// totals by area into a copy of `--db` swapped in whole.
pub fn add(opts: &AddOptions) -> Result<Added, LoadError> {
    check_name(&opts.name)?;
    let set = read_boundaries(&opts.file, &opts.name, &opts.fields).map_err(|error| {
        AreaError::Boundary {
            file: opts.file.clone(),
            error,
        }
    })?;
    let target = claim(&opts.db)?;
    let stored = sets_of(&target.path)?;
    if !opts.replace && stored.iter().any(|s| s.name == opts.name) {
        return Err(AreaError::NameTaken {
            name: opts.name.clone(),
            db: opts.db.clone(),
        }
        .into());
    }
    let mut memberships = 0;
    rewrite(&target, |conn| {
        store::create_tables(conn)?;
        store::drop_set(conn, &set.name)?;
        store::write_set(conn, &set, &now())?;
        let places = roadtraffic_areas::membership::release_places(conn)?;
        memberships = store::write_count_points(conn, &set, &places)?;
        Ok(())
    })?;
    Ok(Added {
        areas: set.areas.len(),
        crs: set.crs.code(),
        memberships,
    })
}

/// `areas drop NAME`.
pub fn drop_set(db: &Path, name: &str) -> Result<(), LoadError> {
    let target = claim(db)?;
    let stored = sets_of(&target.path)?;
    if !stored.iter().any(|s| s.name == name) {
        return Err(AreaError::Unknown {
            name: name.to_string(),
            db: db.to_path_buf(),
            kept: stored.into_iter().map(|s| s.name).collect(),
        }
        .into());
    }
    rewrite(&target, |conn| store::drop_set(conn, name).map(|_| ()))
}

/// `areas list`: the sets in `--db`, as a table or as JSON.
pub fn list(db: &Path, json: bool) -> Result<String, LoadError> {
    if !db.is_file() {
        return Err(AreaError::NoFile(db.to_path_buf()).into());
    }
    let sets = sets_of(db)?;
    if json {
        let listed: Vec<serde_json::Value> = (sets.iter())
            .map(|s| {
                serde_json::json!({"name": s.name, "features": s.features, "crs": s.crs.code(),
                    "source": s.source, "sha256": s.sha256, "added_at": s.added_at})
            })
            .collect();
        return Ok(serde_json::to_string_pretty(&listed).expect("the listing serialises") + "\n");
    }
    if sets.is_empty() {
        return Ok(format!("no area sets in {}\n", db.display()));
    }
    Ok(table(&sets))
}

fn table(sets: &[SetInfo]) -> String {
    let header = ["name", "features", "crs", "source", "sha256", "added"].map(String::from);
    let mut rows = vec![header];
    for s in sets {
        rows.push([
            s.name.clone(),
            s.features.to_string(),
            s.crs.code().to_string(),
            s.source.clone(),
            s.sha256.clone(),
            s.added_at.clone(),
        ]);
    }
    let widths: Vec<usize> = (0..6)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in rows {
        let cells: Vec<String> = (r.iter().zip(&widths))
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    out
}

/// A new load's file gets the sets of the file it replaces (`old`), with the new release's
/// count points and totals by area. A file without sets costs one look at its schema.
pub(crate) fn carry(old: &Path, partial: &Path, report: &mut LoadReport) -> Result<(), LoadError> {
    if !old.is_file() || std::fs::metadata(old).is_ok_and(|m| m.len() == 0) {
        return Ok(());
    }
    if !store::has_tables(&open_built(old)?)? {
        return Ok(());
    }
    let started = std::time::Instant::now();
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(partial, flags)?;
    conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN")?;
    let old_uri = format!(
        "file:{}?mode=ro&immutable=1",
        roadtraffic_catalog::schema::uri_path(old)
    );
    conn.execute("ATTACH DATABASE ?1 AS old", [old_uri])?;
    store::create_tables(&conn)?;
    conn.execute_batch(
        "INSERT INTO area_sets (name, source, sha256, features, crs, added_at)
           SELECT name, source, sha256, features, crs, added_at FROM old.area_sets;
         INSERT INTO areas (set_name, id, name, min_x, min_y, max_x, max_y, geometry)
           SELECT set_name, id, name, min_x, min_y, max_x, max_y, geometry FROM old.areas
           ORDER BY rowid;",
    )?;
    let sets = store::list_sets(&conn)?;
    let places = roadtraffic_areas::membership::release_places(&conn)?;
    let mut carried = Vec::new();
    for info in &sets {
        let set = store::read_set(&conn, &info.name)?.expect("just copied");
        let pairs = store::write_count_points(&conn, &set, &places)?;
        carried.push(format!("{} ({pairs} count points in its areas)", info.name));
    }
    conn.execute_batch("COMMIT; DETACH DATABASE old")?;
    report.note(format!("area sets carried over: {}", carried.join(", ")));
    log::info!(
        "area sets carried over: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `[a-z][a-z0-9_]{0,63}`.
fn check_name(name: &str) -> Result<(), AreaError> {
    let mut chars = name.chars();
    let first = chars.next().is_some_and(|c| c.is_ascii_lowercase());
    let rest = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    match first && rest && name.len() <= 64 {
        true => Ok(()),
        false => Err(AreaError::BadName(name.to_string())),
    }
}

/// The lock on `--db`, which must be a file a load built.
fn claim(db: &Path) -> Result<Target, LoadError> {
    let target = Target::claim(db)?;
    match target.previous {
        Some(_) => Ok(target),
        None => Err(AreaError::NoFile(db.to_path_buf()).into()),
    }
}

fn sets_of(db: &Path) -> Result<Vec<SetInfo>, LoadError> {
    Ok(store::list_sets(&open_built(db)?)?)
}

/// Copies the target to a partial, changes the copy in one transaction, and swaps it in.
fn rewrite(
    target: &Target,
    change: impl FnOnce(&Connection) -> rusqlite::Result<()>,
) -> Result<(), LoadError> {
    let partial = target.create_partial()?;
    std::fs::copy(&target.path, partial.path()).map_err(|e| LoadError::io(partial.path(), e))?;
    {
        let conn = Connection::open(partial.path())?;
        conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN")?;
        change(&conn)?;
        conn.execute_batch("COMMIT")?;
    }
    target.swap_in(partial)
}

fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn set_names() {
        for good in ["zones", "a", "wards_2023", &format!("a{}", "b".repeat(63))] {
            assert!(super::check_name(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "Zones",
            "2024",
            "_a",
            "a-b",
            "a b",
            "é",
            &"a".repeat(65),
        ] {
            assert!(super::check_name(bad).is_err(), "{bad}");
        }
    }
}
