//! Which groups the outgoing latest shares with the new file: those whose dataset's table the
//! change report found unchanged, and whose rows, ids and derived tables hash the same. Only
//! those candidates are hashed, the two files at once, on a thread each.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use roadtraffic_catalog::changes::{ChangeReport, TableChanges};
use roadtraffic_releases::{groups, hash_group_file, Group};

use crate::error::LoadError;

/// Threads hashing each file: most of a group's rows are one table (raw counts), hashed by
/// ranges of rows at once.
const HASHING_THREADS: usize = 2;

/// What the hashing found.
#[derive(Debug, Default)]
pub struct Sharing {
    /// The groups both files hold identically.
    pub shared: Vec<Group>,
    /// The `--db` file's hashes, those known before and those computed now.
    pub old_hashes: BTreeMap<String, String>,
    /// The new file's hashes, computed now.
    pub new_hashes: BTreeMap<String, String>,
}

/// Whether the change report says a table is the same in both files.
fn unchanged(t: &TableChanges) -> bool {
    t.added == 0
        && t.removed == 0
        && t.changed == 0
        && t.rows_before == t.rows_after
        && t.notes.is_empty()
}

/// The groups the `--db` file `old` (its hashes known so far: `known`) and the new file share.
pub fn decide(
    old: &Path,
    known: &BTreeMap<String, String>,
    new: &Path,
    changes: Option<&ChangeReport>,
) -> Result<Sharing, LoadError> {
    let started = Instant::now();
    let candidates: Vec<Group> = match changes {
        Some(report) => groups()
            .into_iter()
            .filter(|g| {
                (report.tables.iter())
                    .any(|t| t.table == g.name && unchanged(t) && t.rows_after > 0)
            })
            .collect(),
        None => Vec::new(),
    };
    let to_hash: Vec<Group> = (candidates.iter())
        .filter(|g| !known.contains_key(g.name))
        .cloned()
        .collect();
    let old_path = old.to_path_buf();
    let old_side = std::thread::spawn(move || hash_all(&old_path, &to_hash));
    let new_hashes = hash_all(new, &candidates)?;
    let mut old_hashes = known.clone();
    old_hashes.extend(old_side.join().map_err(|_| LoadError::WriterStopped)??);
    let shared = (candidates.into_iter())
        .filter(|g| {
            old_hashes
                .get(g.name)
                .is_some_and(|h| new_hashes.get(g.name) == Some(h))
        })
        .collect::<Vec<_>>();
    log::info!(
        "releases: {} group(s) shared with the kept release, hashed in {:.1} s",
        shared.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(Sharing {
        shared,
        old_hashes,
        new_hashes,
    })
}

fn hash_all(path: &Path, groups: &[Group]) -> Result<BTreeMap<String, String>, LoadError> {
    let mut out = BTreeMap::new();
    if groups.is_empty() {
        return Ok(out);
    }
    for g in groups {
        out.insert(
            g.name.to_string(),
            hash_group_file(path, g, HASHING_THREADS)?,
        );
    }
    Ok(out)
}
