//! `roadtraffic-load --db FILE --drop-release NAME`: one kept release no longer kept, under the
//! load's lock, committed in an order readers reconcile.
//!
//! An older release: its entry goes; its file stays while another entry reads a group from it.
//! The latest: the newest older release becomes `FILE` again, built complete beside it (its
//! own tables and the groups it shares) and swapped in; then the manifest. A crash between the
//! swap and the manifest leaves the file ahead of the manifest, which the reconcile rule reads
//! as the drop done.

use std::path::Path;

use roadtraffic_releases::copy::{copy_release, link_or_copy, write_durably};
use roadtraffic_releases::{folder as releases_folder, Manifest, Storage};

use super::{folder, plan};
use crate::error::{LoadError, ReleaseError};
use crate::target::Target;

/// Drops the release `name` kept beside `db`; returns the releases still kept, oldest first.
pub fn drop_release(db: &Path, name: &str) -> Result<Vec<String>, LoadError> {
    let target = Target::claim(db)?;
    let m = folder::recover(db)?.manifest;
    let names = || {
        m.releases
            .iter()
            .map(|r| r.name.clone())
            .collect::<Vec<_>>()
    };
    if m.find(name).is_none() {
        let (name, db, kept) = (name.to_string(), db.to_path_buf(), names());
        return Err(ReleaseError::Unknown { name, db, kept }.into());
    }
    if m.releases.len() == 1 {
        return Err(ReleaseError::OnlyOne(name.to_string()).into());
    }
    let after = match m.latest().is_some_and(|l| l.name == name) {
        true => drop_latest(db, &target, &m)?,
        false => {
            let after = plan::drop_older(&m, name);
            after.write(db).map_err(ReleaseError::from)?;
            after
        }
    };
    folder::remove_unused(db, &after);
    Ok(after.releases.iter().map(|r| r.name.clone()).collect())
}

/// The newest older release made `FILE` again, then the manifest written.
fn drop_latest(db: &Path, target: &Target, m: &Manifest) -> Result<Manifest, LoadError> {
    let moved = plan::groups_only_in_latest(m);
    let mut now = m.clone();
    let kept_file = match moved.is_empty() {
        true => None,
        false => Some(keep_latest_file(db, &target.path, &mut now, &moved)?),
    };
    let promoted = &now.releases[now.releases.len() - 2];
    let partial = target.create_partial()?;
    let started = std::time::Instant::now();
    copy_release(&Storage::of(db, promoted), partial.path(), &[], None)?;
    log::info!(
        "releases: {} made complete in {:.1} s",
        promoted.name,
        started.elapsed().as_secs_f64()
    );
    target.swap_in(partial)?;
    let after = plan::drop_latest(m, kept_file.as_deref(), &moved);
    after.write(db).map_err(ReleaseError::from)?;
    Ok(after)
}

/// Groups older releases read from `FILE` that the promoted release does not hold as they
/// read them: the latest's file is kept in the folder under a second name, and the manifest
/// (`now`, written) points them there before `FILE` is replaced.
fn keep_latest_file(
    db: &Path,
    file: &Path,
    now: &mut Manifest,
    moved: &[String],
) -> Result<String, LoadError> {
    let latest = now.latest().expect("a latest release");
    let name = plan::file_name(latest);
    let dir = releases_folder(db);
    write_durably(&dir, &name, |tmp| link_or_copy(file, tmp))
        .map_err(|e| LoadError::io(&dir.join(&name), e))?;
    let last = now.releases.len() - 1;
    let kept = Some(name.clone());
    for r in &mut now.releases[..last] {
        r.read_from_db_elsewhere(|g| moved.iter().any(|m| m == g), &kept);
    }
    now.write(db).map_err(ReleaseError::from)?;
    Ok(name)
}
