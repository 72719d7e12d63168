//! The releases folder as a load or a drop finds it once the lock is taken: the manifest
//! reconciled with `--db` (a run stopped mid-commit is undone or completed, as readers already
//! see it), and files no kept release reads removed.

use std::path::Path;

use roadtraffic_releases::copy::is_leftover;
use roadtraffic_releases::{check_name, folder, KeptRelease, Manifest};

use crate::error::{LoadError, ReleaseError};
use crate::target::open_built;

/// The kept releases found beside `--db`.
pub struct State {
    /// As readers see them: reconciled with the `--db` file, its entry last. A `--db` file
    /// loaded with a release label and no manifest is the one release kept so far.
    pub manifest: Manifest,
    /// Whether a manifest lists releases (then every load must name its release).
    pub listed: bool,
    /// Why the `--db` file will not be kept by a load that names its release.
    pub not_kept: Option<String>,
}

/// Reads the manifest, reconciles it with `db` and writes it back if it changed; removes what
/// an interrupted run left in the folder.
pub fn recover(db: &Path) -> Result<State, LoadError> {
    let listed = Manifest::read(db).map_err(ReleaseError::from)?;
    let exists = std::fs::metadata(db).is_ok_and(|m| m.len() > 0);
    if !exists {
        if listed.as_ref().is_some_and(|m| !m.releases.is_empty()) {
            return Err(ReleaseError::NoLatestFile(db.to_path_buf()).into());
        }
        return Ok(State {
            manifest: Manifest::default(),
            listed: false,
            not_kept: None,
        });
    }
    let latest = KeptRelease::of_latest_file(&open_built(db)?)?;
    let Some(listed) = listed else {
        return Ok(match check_name(&latest.name) {
            Ok(()) => State {
                manifest: Manifest {
                    releases: vec![latest],
                },
                listed: false,
                not_kept: None,
            },
            Err(_) => State {
                manifest: Manifest::default(),
                listed: false,
                not_kept: Some(format!(
                    "{} was replaced, not kept: it was loaded without a release name (--release)",
                    db.display()
                )),
            },
        });
    };
    let now = listed.reconcile(&latest);
    if listed.position_of(&latest.id).is_none() && check_name(&latest.name).is_err() {
        return Err(ReleaseError::Unlisted(db.to_path_buf()).into());
    }
    if now != listed {
        log::warn!(
            "releases: an interrupted run is undone: {} release(s) kept",
            now.releases.len()
        );
        now.write(db).map_err(ReleaseError::from)?;
    }
    remove_unused(db, &now);
    Ok(State {
        manifest: now,
        listed: true,
        not_kept: None,
    })
}

/// Removes the files of the releases folder that `manifest` does not name, and the temporary
/// files of interrupted runs. A reader that still has one open reads on: the file goes when
/// it closes it.
pub fn remove_unused(db: &Path, manifest: &Manifest) {
    let dir = folder(db);
    let used = manifest.files_used();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let unused = name.ends_with(".sqlite") && !used.contains(&name.as_str());
        if is_leftover(&name) || unused {
            log::info!("releases: removing {name}, which no kept release reads");
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
