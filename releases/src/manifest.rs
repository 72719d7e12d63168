//! `FILE.releases/releases.json`: the releases kept beside `FILE`, oldest first, the last of them
//! the latest (held by `FILE` itself). Written whole under another name and renamed over the
//! old one, so that a reader sees the list before a change or after it, never half of it.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The manifest's name in the releases folder.
pub const MANIFEST: &str = "releases.json";

/// Names a release cannot have: they are words of the paths that name releases.
pub const RESERVED_NAMES: &[&str] = &["latest"];

/// The releases folder of a `--db` file: `FILE.releases`, beside it.
pub fn folder(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".releases");
    db.with_file_name(name)
}

#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("{0}: not a releases manifest: {1}")]
    Invalid(PathBuf, String),
}

/// The kept releases, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub releases: Vec<KeptRelease>,
}

/// One kept release.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptRelease {
    /// `--release`, as given to the load that built it.
    pub name: String,
    /// The SHA-256 of its metadata ([`crate::metadata_id`]): the server's release id.
    pub id: String,
    /// When it was loaded (RFC 3339, from its metadata).
    pub loaded_at: String,
    /// The file of its own tables in the releases folder; `None` for the latest, which is the
    /// `--db` file itself.
    pub file: Option<String>,
    /// The groups ([`crate::Group`]) it shares with a newer release, each with the file that
    /// holds them: one in the releases folder, or `None` for the `--db` file.
    #[serde(default)]
    pub shared: BTreeMap<String, Option<String>>,
    /// The groups whose table it reads through layers ([`crate::layer`]), each with the files
    /// holding them: the files of the layers, topmost first (its own file's, if it has one of
    /// its own), then the file holding the table whole (`None` for the `--db` file).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub layered: BTreeMap<String, Vec<Option<String>>>,
    /// The hash of each of its groups that was hashed ([`crate::hash_group`]): a group is shared
    /// only between releases whose hashes of it are equal.
    #[serde(default)]
    pub hashes: BTreeMap<String, String>,
    /// Rows per table, from its metadata.
    pub row_counts: serde_json::Value,
    /// Its source files, with their sizes and SHA-256, from its metadata.
    pub sources: serde_json::Value,
}

impl KeptRelease {
    /// Every file of the releases folder it names: its own, and those of its shared and
    /// layered groups.
    pub fn files_named(&self) -> impl Iterator<Item = &String> {
        let layers = self.layered.values().flatten().flatten();
        (self.file.iter())
            .chain(self.shared.values().flatten())
            .chain(layers)
    }

    /// Reads from `file` (`None`: the `--db` file) each group it read from the `--db` file
    /// that `left` says the `--db` file no longer holds as it read it: a group shared whole,
    /// or the table below a layered group's layers.
    pub fn read_from_db_elsewhere(&mut self, left: impl Fn(&str) -> bool, file: &Option<String>) {
        for (group, f) in self.shared.iter_mut() {
            if f.is_none() && left(group) {
                f.clone_from(file);
            }
        }
        for (group, files) in self.layered.iter_mut() {
            if let Some(below) = files.last_mut().filter(|f| f.is_none() && left(group)) {
                below.clone_from(file);
            }
        }
    }
}

impl Manifest {
    /// The manifest kept beside `db`, or `None` when no release has been kept there.
    pub fn read(db: &Path) -> Result<Option<Manifest>, ManifestError> {
        let path = folder(db).join(MANIFEST);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(ManifestError::Io(path, e)),
        };
        let manifest: Manifest = serde_json::from_str(&text)
            .map_err(|e| ManifestError::Invalid(path.clone(), e.to_string()))?;
        manifest
            .check()
            .map_err(|why| ManifestError::Invalid(path, why))?;
        Ok(Some(manifest))
    }

    /// Replaces the manifest beside `db` with this one, durably: written under a name of its
    /// own, synced, renamed over the old one, the folder synced.
    pub fn write(&self, db: &Path) -> Result<(), ManifestError> {
        let dir = folder(db);
        let io = |e| ManifestError::Io(dir.clone(), e);
        std::fs::create_dir_all(&dir).map_err(io)?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".releases.")
            .suffix(".json.partial")
            .tempfile_in(&dir)
            .map_err(io)?;
        let json = serde_json::to_vec_pretty(self).expect("a manifest serialises");
        tmp.write_all(&json).map_err(io)?;
        // Readable by a server running as another user (a temporary file is the owner's only).
        let readable = std::os::unix::fs::PermissionsExt::from_mode(0o644);
        tmp.as_file().set_permissions(readable).map_err(io)?;
        tmp.as_file().sync_all().map_err(io)?;
        tmp.persist(dir.join(MANIFEST)).map_err(|e| io(e.error))?;
        File::open(&dir).and_then(|d| d.sync_all()).map_err(io)?;
        Ok(())
    }

    /// The latest release: the one the `--db` file holds.
    pub fn latest(&self) -> Option<&KeptRelease> {
        self.releases.last()
    }

    /// The kept release of this name.
    pub fn find(&self, name: &str) -> Option<&KeptRelease> {
        self.releases.iter().find(|r| r.name == name)
    }

    /// Every file in the releases folder that a kept release reads.
    pub fn files_used(&self) -> Vec<&str> {
        let mut files: Vec<&str> = (self.releases.iter())
            .flat_map(KeptRelease::files_named)
            .map(String::as_str)
            .collect();
        files.sort_unstable();
        files.dedup();
        files
    }

    /// What a manifest must be: names valid and distinct, the latest (and only it) in the
    /// `--db` file, files named as this crate names them.
    fn check(&self) -> Result<(), String> {
        for (i, r) in self.releases.iter().enumerate() {
            check_name(&r.name)?;
            if self.releases[..i].iter().any(|o| o.name == r.name) {
                return Err(format!("release {:?} is listed twice", r.name));
            }
            let last = i + 1 == self.releases.len();
            if r.file.is_none() != last {
                return Err(format!(
                    "release {:?}: only the latest is the --db file",
                    r.name
                ));
            }
            for file in r.files_named() {
                check_file_name(file)?;
            }
        }
        Ok(())
    }
}

/// Whether `name` can name a release: 1 to 64 letters, digits, `.`, `_` or `-`, not starting
/// with `.` or `-`, and none of [`RESERVED_NAMES`]. Names are path segments and parts of file
/// names: nothing else may reach either.
pub fn check_name(name: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    let fine = (1..=64).contains(&name.len())
        && name.chars().all(allowed)
        && !name.starts_with(['.', '-']);
    if !fine {
        return Err(format!(
            "{name:?} cannot name a release: use 1 to 64 letters, digits, '.', '_' or '-', \
             starting with a letter or digit (e.g. 2025)"
        ));
    }
    if RESERVED_NAMES.contains(&name) {
        return Err(format!(
            "{name:?} cannot name a release: it names the latest in paths"
        ));
    }
    Ok(())
}

/// A file of the releases folder, as the manifest names it: a plain name, no path.
fn check_file_name(file: &str) -> Result<(), String> {
    let plain = !file.is_empty()
        && !file.starts_with('.')
        && !file.contains(['/', '\\', '\0'])
        && file.ends_with(".sqlite");
    plain
        .then_some(())
        .ok_or_else(|| format!("{file:?} is not a file of the releases folder"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_path_segments() {
        for good in ["2024", "2025-provisional", "v1.2_b"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            ".",
            "..",
            "-x",
            "a/b",
            "a b",
            "latest",
            "é",
            &"x".repeat(65),
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_folder_is_beside_the_file() {
        assert_eq!(folder(Path::new("/d/t.db")), Path::new("/d/t.db.releases"));
        assert_eq!(folder(Path::new("t.db")), Path::new("t.db.releases"));
    }

    #[test]
    fn a_manifest_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("t.db");
        assert_eq!(Manifest::read(&db).unwrap(), None);
        let release = |name: &str, file: Option<&str>| KeptRelease {
            name: name.into(),
            id: "ab".into(),
            loaded_at: "2025-01-01T00:00:00Z".into(),
            file: file.map(str::to_string),
            shared: BTreeMap::from([("raw_counts".to_string(), None)]),
            layered: Default::default(),
            hashes: BTreeMap::new(),
            row_counts: serde_json::json!({"aadf": 3}),
            sources: serde_json::json!([]),
        };
        let m = Manifest {
            releases: vec![
                release("2024", Some("2024.ab.sqlite")),
                release("2025", None),
            ],
        };
        m.write(&db).unwrap();
        assert_eq!(Manifest::read(&db).unwrap(), Some(m.clone()));
        assert_eq!(m.files_used(), ["2024.ab.sqlite"]);
        let bad = Manifest {
            releases: vec![release("2024", Some("../x.sqlite")), release("2025", None)],
        };
        bad.write(&db).unwrap();
        assert!(Manifest::read(&db).is_err());
    }
}
