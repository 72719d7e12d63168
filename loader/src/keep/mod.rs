//! Releases kept beside `--db` (`--release NAME`): the load keeps the releases loaded before
//! it instead of replacing them. `FILE` stays the latest, complete; the outgoing latest moves
//! into `FILE.releases/` holding only the groups it does not share with the new file, and of
//! the AADF tables only the rows that differ from the new file's (see
//! `roadtraffic_releases`).
//!
//! A load commits in an order that readers reconcile ([`Manifest::reconcile`]) whatever moment
//! it is stopped at: (1) the outgoing latest's file in the folder, (2) the manifest of the new
//! state, (3) `FILE` swapped, (4) files no entry names removed.
//!
//! - `plan`: the manifests, worked out before any file is touched;
//! - `share`: which groups the outgoing latest shares with the new file;
//! - `folder`: the state found when the lock is taken, and what is left in the folder;
//! - `drop`: `--drop-release`;
//! - `listing`: `roadtraffic-load releases`.

mod drop;
mod folder;
mod listing;
mod plan;
mod share;

use std::path::{Path, PathBuf};

use roadtraffic_releases::copy::{copy_release, link_or_copy, write_durably, Layering};
use roadtraffic_releases::{folder as releases_folder, groups, layer, Group, KeptRelease};
use roadtraffic_releases::{Manifest, Storage};

use crate::error::{LoadError, ReleaseError};
use crate::options::LoadOptions;
use crate::report::{KeptReport, LoadReport};
use crate::target::{open_built, Target};

pub use drop::drop_release;
pub use listing::list;

/// A load that keeps releases, from the moment the lock is taken.
pub struct Keeping {
    /// `--db` as given: the releases folder is beside it, where the server looks.
    db: PathBuf,
    /// The file `--db` names (a symbolic link's target): the one linked, copied and hashed.
    file: PathBuf,
    /// The kept releases as they are (reconciled with `--db`), before this load.
    before: Manifest,
    name: String,
    /// The release of the same name this load replaces.
    replacing: Option<String>,
    not_kept: Option<String>,
    keep: Option<usize>,
    /// The outgoing latest's AADF tables stored as layers where they can be (unless
    /// `--whole-rows`).
    share_rows: bool,
}

/// Checks what the load asks of the kept releases before anything is read: `None` for a plain
/// load (no `--release`, nothing kept), which replaces `--db` as it always did.
pub fn begin(opts: &LoadOptions, target: &Target) -> Result<Option<Keeping>, LoadError> {
    let state = folder::recover(&opts.db)?;
    let Some(name) = opts.release.clone() else {
        return match state.listed {
            true => Err(ReleaseError::Unnamed(opts.db.clone()).into()),
            false => Ok(None),
        };
    };
    if let Err(why) = roadtraffic_releases::check_name(&name) {
        // A label that cannot name a release ("bundled sample") labels the file as it always
        // did, and keeps nothing; once releases are kept, a load must name its release.
        return match state.listed {
            true => Err(ReleaseError::BadName(why).into()),
            false => Ok(None),
        };
    }
    let taken = state.manifest.find(&name).is_some();
    if taken && !opts.replace_release {
        let db = opts.db.clone();
        return Err(ReleaseError::NameTaken { name, db }.into());
    }
    Ok(Some(Keeping {
        db: opts.db.clone(),
        file: target.path.clone(),
        before: state.manifest,
        replacing: taken.then(|| name.clone()),
        name,
        not_kept: state.not_kept,
        keep: opts.keep,
        share_rows: opts.share_rows,
    }))
}

/// Steps 1 and 2 done: what is left once `FILE` is swapped.
pub struct Committed {
    db: PathBuf,
    manifest: Manifest,
}

impl Committed {
    /// Step 4: files of the folder no kept release reads are removed.
    pub fn finish(self) {
        folder::remove_unused(&self.db, &self.manifest);
    }
}

/// What the report says of the releases kept: what the release before stores once is said
/// only when it is still kept.
fn kept_report(
    added: &plan::Added,
    outgoing: Option<&KeptRelease>,
    shared: Vec<String>,
    not_kept: Option<String>,
) -> KeptReport {
    let still_kept = outgoing.is_some_and(|o| added.manifest.position_of(&o.id).is_some());
    KeptReport {
        kept: (added.manifest.releases.iter())
            .map(|r| r.name.clone())
            .collect(),
        shared: if still_kept { shared } else { Vec::new() },
        dropped: added.dropped.clone(),
        not_kept,
    }
}

impl Keeping {
    /// Steps 1 and 2 of the commit, once the new file (`partial`, its metadata written) has
    /// passed every check: the outgoing latest's file in the folder, then the manifest.
    pub fn commit(self, partial: &Path, report: &mut LoadReport) -> Result<Committed, LoadError> {
        let mut new = KeptRelease::of_latest_file(&open_built(partial)?)?;
        new.name = self.name.clone();
        let outgoing = self.before.latest().cloned();
        let (outgoing_file, sharing) = match &outgoing {
            Some(o) => (
                plan::file_name(o),
                share::decide(&self.file, &o.hashes, partial, report.changes.as_ref())?,
            ),
            None => (String::new(), share::Sharing::default()),
        };
        new.hashes = sharing.new_hashes.clone();
        let shared: Vec<String> = sharing.shared.iter().map(|g| g.name.to_string()).collect();
        let mut before = self.before.clone();
        if let Some(last) = before.releases.last_mut() {
            last.hashes = sharing.old_hashes.clone();
        }
        let replacing = self.replacing.as_deref();
        // Unless --whole-rows, the AADF groups it does not share whole are stored as layers
        // where they can be: which are is known once its file is written (a table revised
        // past the half is whole).
        let mut layered: Vec<String> = match outgoing {
            Some(_) if self.share_rows => (groups().iter())
                .filter(|g| layer::layerable(g) && !shared.iter().any(|s| s == g.name))
                .map(|g| g.name.to_string())
                .collect(),
            _ => Vec::new(),
        };
        let manifest_with = |layered: &[String]| {
            let outgoing = plan::Outgoing {
                file: &outgoing_file,
                shared: &shared,
                layered,
            };
            plan::add_latest(&before, outgoing, new.clone(), replacing, self.keep)
        };
        let mut added = manifest_with(&layered);
        if (added.manifest.files_used()).contains(&outgoing_file.as_str()) {
            let written =
                self.write_outgoing(&outgoing_file, &sharing.shared, &layered, partial)?;
            if written != layered {
                layered = written;
                added = manifest_with(&layered);
            }
        }
        added.manifest.write(&self.db).map_err(ReleaseError::from)?;
        log::info!("releases: manifest written");
        report.releases = Some(kept_report(
            &added,
            outgoing.as_ref(),
            shared,
            self.not_kept,
        ));
        Ok(Committed {
            db: self.db,
            manifest: added.manifest,
        })
    }

    /// Step 1: the `--db` file as an older release, in the folder: its tables but the shared
    /// groups, the `layered` ones as layers over the new file's (`partial`) where they can
    /// be; or, when it shares and layers none, a second name for the file itself. The groups
    /// written as layers are returned.
    fn write_outgoing(
        &self,
        name: &str,
        shared: &[Group],
        layered: &[String],
        partial: &Path,
    ) -> Result<Vec<String>, LoadError> {
        let dir = releases_folder(&self.db);
        std::fs::create_dir_all(&dir).map_err(|e| LoadError::io(&dir, e))?;
        let started = std::time::Instant::now();
        let db = self.file.clone();
        let to_layer: Vec<Group> = (groups().into_iter())
            .filter(|g| layered.iter().any(|l| l == g.name))
            .collect();
        let layering = Layering {
            base: partial,
            groups: &to_layer,
        };
        let mut written = Vec::new();
        write_durably(&dir, name, |tmp| {
            if shared.is_empty() && to_layer.is_empty() {
                return link_or_copy(&db, tmp);
            }
            let copied = copy_release(&Storage::file(&db), tmp, shared, Some(&layering));
            written = copied.map_err(std::io::Error::other)?;
            Ok(())
        })
        .map_err(|e| LoadError::io(&dir.join(name), e))?;
        log::info!(
            "releases: {name} written in {:.1} s, {} table(s) as layers",
            started.elapsed().as_secs_f64(),
            written.len()
        );
        Ok(written.iter().map(|g| g.name.to_string()).collect())
    }
}
