//! The one rule that tells which kept releases are real, whatever moment a load or a drop was
//! stopped at. A load commits in this order: (1) the outgoing latest's file in the releases
//! folder, (2) the manifest of the new state, (3) the `--db` file swapped, (4) unused files
//! removed. A reader that finds the manifest ahead of the file (stopped between 2 and 3) or the
//! file ahead of the manifest (a drop stopped between its swap and its manifest) trusts the
//! file: the release whose id is the file's metadata id is the latest, and what the manifest
//! lists after it never happened. The loader applies the rule when it starts; the server
//! applies it each time it reads the manifest.

use std::path::Path;

use rusqlite::Connection;

use roadtraffic_catalog::schema::metadata;

use crate::manifest::{KeptRelease, Manifest, ManifestError};
use crate::storage::{metadata_id, Storage};

impl KeptRelease {
    /// The `--db` file as the latest release, from its metadata: named by its `release`
    /// label (empty when it has none: a plain load), its id its [`metadata_id`].
    pub fn of_latest_file(conn: &Connection) -> rusqlite::Result<KeptRelease> {
        let meta = |key: &str| -> rusqlite::Result<String> {
            let value = conn.query_row("SELECT value FROM metadata WHERE key = ?1", [key], |r| {
                r.get::<_, String>(0)
            });
            match value {
                Err(rusqlite::Error::QueryReturnedNoRows) => Ok(String::new()),
                other => other,
            }
        };
        let json = |key: &str| -> rusqlite::Result<serde_json::Value> {
            Ok(serde_json::from_str(&meta(key)?).unwrap_or(serde_json::Value::Null))
        };
        Ok(KeptRelease {
            name: meta(metadata::RELEASE)?,
            id: metadata_id(conn)?,
            loaded_at: meta(metadata::LOADED_AT)?,
            file: None,
            shared: Default::default(),
            layered: Default::default(),
            hashes: Default::default(),
            row_counts: json(metadata::ROW_COUNTS)?,
            sources: json(metadata::SOURCES)?,
        })
    }
}

impl Manifest {
    /// The kept releases as they really are, given `latest`: the `--db` file's own entry
    /// ([`KeptRelease::of_latest_file`]).
    ///
    /// - The entry whose id is `latest.id` is the latest: its `file` becomes `None` (everything
    ///   it holds is in the `--db` file) and nothing is shared any more; the entries after it
    ///   (a load stopped after writing the manifest, before the swap) are discarded.
    /// - When no entry has that id (the file was replaced by other means), the entries that
    ///   read a group from the `--db` file (`shared` naming `None`) cannot be served, nor one
    ///   of the file's name: they are discarded, and the file is the latest under its label.
    ///
    /// The entries before the latest are kept as listed: every commit leaves the files they
    /// name in place before the manifest names them, and removes none it still names.
    pub fn reconcile(&self, latest: &KeptRelease) -> Manifest {
        let mut releases: Vec<KeptRelease> = match self.position_of(&latest.id) {
            Some(i) => self.releases[..=i].to_vec(),
            None => {
                let standalone = |r: &&KeptRelease| {
                    let layers = r.layered.values().flatten();
                    r.file.is_some()
                        && r.shared.values().all(Option::is_some)
                        && layers.clone().all(Option::is_some)
                };
                let mut kept: Vec<KeptRelease> = (self.releases.iter())
                    .filter(standalone)
                    .filter(|r| r.name != latest.name)
                    .cloned()
                    .collect();
                kept.push(latest.clone());
                kept
            }
        };
        if let Some(last) = releases.last_mut() {
            last.file = None;
            last.shared.clear();
            last.layered.clear();
        }
        Manifest { releases }
    }

    /// Where the entry with this id is in the list.
    pub fn position_of(&self, id: &str) -> Option<usize> {
        self.releases.iter().position(|r| r.id == id)
    }

    /// The releases kept beside `db` as a reader must serve them: the manifest reconciled
    /// with the `--db` file ([`Manifest::reconcile`]); without a manifest, the file alone (its
    /// name its label, empty when it has none). `Ok(None)` when `db` does not exist.
    pub fn current(db: &Path) -> Result<Option<Manifest>, ManifestError> {
        if !db.exists() {
            return Ok(None);
        }
        let invalid = |e: rusqlite::Error| ManifestError::Invalid(db.to_path_buf(), e.to_string());
        let conn = Storage::file(db).open().map_err(invalid)?;
        let latest = KeptRelease::of_latest_file(&conn).map_err(invalid)?;
        let listed = Manifest::read(db)?.unwrap_or_default();
        Ok(Some(listed.reconcile(&latest)))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn release(name: &str, file: Option<&str>, shared: &[(&str, Option<&str>)]) -> KeptRelease {
        KeptRelease {
            name: name.into(),
            id: format!("id-{name}"),
            loaded_at: "2025-01-01T00:00:00Z".into(),
            file: file.map(str::to_string),
            shared: (shared.iter())
                .map(|(g, f)| (g.to_string(), f.map(str::to_string)))
                .collect(),
            layered: Default::default(),
            hashes: BTreeMap::new(),
            row_counts: serde_json::json!({}),
            sources: serde_json::json!([]),
        }
    }

    /// Two releases kept, the third loaded up to its manifest: 2025 is still in the file.
    fn manifest_ahead_of_the_file() -> Manifest {
        Manifest {
            releases: vec![
                release("2024", Some("2024.a.sqlite"), &[("raw_counts", None)]),
                release("2025", Some("2025.b.sqlite"), &[("raw_counts", None)]),
                release("2026", None, &[]),
            ],
        }
    }

    #[test]
    fn a_load_stopped_between_manifest_and_swap_never_happened() {
        let m = manifest_ahead_of_the_file();
        let file = release("2025", None, &[]);
        let now = m.reconcile(&file);
        assert_eq!(now.releases.len(), 2);
        assert_eq!(now.releases[0], m.releases[0]);
        assert_eq!(now.latest().unwrap().name, "2025");
        assert_eq!(now.latest().unwrap().file, None);
        assert!(now.latest().unwrap().shared.is_empty());
    }

    #[test]
    fn a_finished_load_is_as_listed() {
        let m = manifest_ahead_of_the_file();
        let file = release("2026", None, &[]);
        assert_eq!(m.reconcile(&file), m);
    }

    #[test]
    fn a_drop_stopped_between_swap_and_manifest_is_done() {
        // 2026 dropped: the file is 2025's complete copy, the manifest not yet rewritten.
        let m = manifest_ahead_of_the_file();
        let now = m.reconcile(&release("2025", None, &[]));
        assert_eq!(
            now.releases.iter().map(|r| &r.name).collect::<Vec<_>>(),
            ["2024", "2025"]
        );
    }

    #[test]
    fn a_file_replaced_by_other_means_serves_what_stands_alone() {
        let mut m = manifest_ahead_of_the_file();
        m.releases[1].shared = BTreeMap::from([("raw_counts".into(), Some("x.sqlite".into()))]);
        let stranger = release("2030", None, &[]);
        let now = m.reconcile(&stranger);
        let names: Vec<&str> = now.releases.iter().map(|r| r.name.as_str()).collect();
        // 2024 read its raw counts from the file that was replaced: not served.
        assert_eq!(names, ["2025", "2030"]);
        assert_eq!(now.latest().unwrap().file, None);
    }

    #[test]
    fn no_manifest_is_the_file_alone() {
        let m = Manifest::default();
        let file = release("2024", None, &[]);
        assert_eq!(m.reconcile(&file).releases, [file]);
    }
}
