//! The manifests a load or a drop writes, worked out from the one before, before any file is
//! touched: pure functions of the manifest, tested on their own.

use std::collections::BTreeMap;

use roadtraffic_releases::{KeptRelease, Manifest};

/// The file name of a kept release in the releases folder: its name and the start of its id
/// (a release loaded again under its name gets a file of its own).
pub fn file_name(release: &KeptRelease) -> String {
    let id: String = release.id.chars().take(16).collect();
    format!("{}.{id}.sqlite", release.name)
}

/// What adding a new latest release makes of the manifest.
#[derive(Debug)]
pub struct Added {
    pub manifest: Manifest,
    /// Releases dropped under `--keep` (oldest first), and the one replaced, if any.
    pub dropped: Vec<String>,
}

/// What the outgoing latest (the `--db` file before the load) keeps of its groups.
#[derive(Debug, Clone, Copy)]
pub struct Outgoing<'a> {
    /// Its file in the releases folder.
    pub file: &'a str,
    /// The groups it shares with the new `--db` file, whole.
    pub shared: &'a [String],
    /// The groups its file holds as layers over the new `--db` file's tables.
    pub layered: &'a [String],
}

/// The manifest once `new` (its hashes in) is the latest: the outgoing latest, if any, stored
/// in `outgoing.file`, reading the groups it shares from the new `--db` file and its layered
/// groups through its layers over it; entries that read from the `--db` file a group it no
/// longer holds as they do read it from `outgoing.file` (through its layer, when it holds
/// one); the release named `replacing` dropped; then the oldest beyond `keep` dropped.
pub fn add_latest(
    before: &Manifest,
    outgoing: Outgoing,
    new: KeptRelease,
    replacing: Option<&str>,
    keep: Option<usize>,
) -> Added {
    let mut releases = before.releases.clone();
    let last = releases.len().checked_sub(1);
    let file = Some(outgoing.file.to_string());
    let over_new = || vec![file.clone(), None];
    for (i, r) in releases.iter_mut().enumerate() {
        if Some(i) == last {
            r.file = file.clone();
            r.shared = outgoing.shared.iter().map(|g| (g.clone(), None)).collect();
            r.layered = outgoing
                .layered
                .iter()
                .map(|g| (g.clone(), over_new()))
                .collect();
            continue;
        }
        let moved = |g: &str| !outgoing.shared.iter().any(|s| s == g);
        let layered_now: Vec<String> = (r.shared.iter())
            .filter(|(g, f)| f.is_none() && moved(g) && outgoing.layered.contains(g))
            .map(|(g, _)| g.clone())
            .collect();
        for g in layered_now {
            r.shared.remove(&g);
            r.layered.insert(g, vec![None]);
        }
        r.read_from_db_elsewhere(moved, &file);
        // A table below layers that the outgoing release now holds as a layer itself: the
        // new `--db` file's table is below it.
        for (group, files) in r.layered.iter_mut() {
            if files.last() == Some(&file) && outgoing.layered.contains(group) {
                files.push(None);
            }
        }
    }
    releases.push(new);
    let mut dropped = Vec::new();
    if let Some(name) = replacing {
        let older = releases.len() - 1;
        if let Some(i) = releases[..older].iter().position(|r| r.name == name) {
            dropped.push(releases.remove(i).name);
        }
    }
    let excess = keep.map_or(0, |n| releases.len().saturating_sub(n.max(1)));
    dropped.extend(releases.drain(..excess).map(|r| r.name));
    Added {
        manifest: Manifest { releases },
        dropped,
    }
}

/// The manifest without the older release `name` (not the latest): its file stays while
/// another entry reads a group from it.
pub fn drop_older(before: &Manifest, name: &str) -> Manifest {
    let latest = before.releases.len().saturating_sub(1);
    let releases = (before.releases.iter().enumerate())
        .filter(|(i, r)| *i == latest || r.name != name)
        .map(|(_, r)| r.clone())
        .collect();
    Manifest { releases }
}

/// The manifest once the latest is dropped and the newest older release is the `--db` file
/// again, complete. Entries that read a group from the dropped latest's file and that the new
/// `--db` file does not hold as they read it (`kept_file`: the dropped file's new name in the
/// folder) read it from there; entries that read a group from the promoted release's own file
/// read it from the `--db` file, which now holds it.
pub fn drop_latest(before: &Manifest, kept_file: Option<&str>, moved: &[String]) -> Manifest {
    let mut releases = before.releases.clone();
    releases.pop();
    let promoted_file = releases.last().and_then(|r| r.file.clone());
    let kept_file = kept_file.map(str::to_string);
    for r in &mut releases {
        r.read_from_db_elsewhere(|g| moved.iter().any(|m| m == g), &kept_file);
        for file in r.shared.values_mut() {
            if file.is_some() && *file == promoted_file {
                *file = None;
            }
        }
        for files in r.layered.values_mut() {
            let promoted_layer = files
                .iter()
                .position(|f| f.is_some() && *f == promoted_file);
            if let Some(k) = promoted_layer {
                // The layers below the promoted release's make its table: `FILE` holds it.
                files.truncate(k);
                files.push(None);
            }
        }
        let whole_in_file: Vec<String> = (r.layered.iter())
            .filter(|(_, files)| files.as_slice() == [None])
            .map(|(g, _)| g.clone())
            .collect();
        for g in whole_in_file {
            r.layered.remove(&g);
            r.shared.insert(g, None);
        }
    }
    if let Some(last) = releases.last_mut() {
        last.file = None;
        last.shared = BTreeMap::new();
        last.layered = BTreeMap::new();
    }
    Manifest { releases }
}

/// The groups some older entry reads from the `--db` file that the promoted release (the
/// newest older one) does not hold as they read them: after a drop of the latest, only the
/// dropped file has them. A group the promoted release reads from the `--db` file itself is
/// the same in both.
pub fn groups_only_in_latest(before: &Manifest) -> Vec<String> {
    let n = before.releases.len();
    let Some(promoted) = n.checked_sub(2).map(|i| &before.releases[i]) else {
        return Vec::new();
    };
    let differs = |g: &String| promoted.shared.get(g) != Some(&None);
    let mut groups: Vec<String> = (before.releases[..n - 2].iter())
        .flat_map(|r| r.shared.iter())
        .filter(|(g, file)| file.is_none() && differs(g))
        .map(|(g, _)| g.clone())
        .collect();
    // A table read through layers down to `FILE`'s, not through the promoted release's.
    let promoted_file = &promoted.file;
    groups.extend(
        (before.releases[..n - 2].iter())
            .flat_map(|r| r.layered.iter())
            .filter(|(g, files)| {
                files.last() == Some(&None) && !files.contains(promoted_file) && differs(g)
            })
            .map(|(g, _)| g.clone()),
    );
    groups.sort();
    groups.dedup();
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn release(name: &str, file: Option<&str>, shared: &[(&str, Option<&str>)]) -> KeptRelease {
        KeptRelease {
            name: name.into(),
            id: format!("{name}0123456789abcdef"),
            loaded_at: String::new(),
            file: file.map(str::to_string),
            shared: (shared.iter())
                .map(|(g, f)| (g.to_string(), f.map(str::to_string)))
                .collect(),
            layered: Default::default(),
            hashes: BTreeMap::new(),
            row_counts: serde_json::Value::Null,
            sources: serde_json::Value::Null,
        }
    }

    fn outgoing<'a>(file: &'a str, shared: &'a [String], layered: &'a [String]) -> Outgoing<'a> {
        Outgoing {
            file,
            shared,
            layered,
        }
    }

    fn names(m: &Manifest) -> Vec<&str> {
        m.releases.iter().map(|r| r.name.as_str()).collect()
    }

    #[test]
    fn the_outgoing_latest_moves_to_the_folder_sharing_what_is_unchanged() {
        let before = Manifest {
            releases: vec![
                release(
                    "a",
                    Some("a.sqlite"),
                    &[("raw_counts", None), ("aadf", None)],
                ),
                release("b", None, &[]),
            ],
        };
        let shared = vec!["raw_counts".to_string()];
        let added = add_latest(
            &before,
            outgoing("b.sqlite", &shared, &[]),
            release("c", None, &[]),
            None,
            None,
        );
        let m = added.manifest;
        assert_eq!(names(&m), ["a", "b", "c"]);
        // a's AADF is b's, which the new file no longer holds: b's file does.
        assert_eq!(m.releases[0].shared["aadf"], Some("b.sqlite".into()));
        assert_eq!(m.releases[0].shared["raw_counts"], None);
        assert_eq!(m.releases[1].file, Some("b.sqlite".into()));
        assert_eq!(m.releases[1].shared["raw_counts"], None);
        assert!(added.dropped.is_empty());
    }

    #[test]
    fn keep_drops_the_oldest_and_replace_drops_the_name() {
        let before = Manifest {
            releases: vec![release("a", Some("a.sqlite"), &[]), release("b", None, &[])],
        };
        let added = add_latest(
            &before,
            outgoing("b.sqlite", &[], &[]),
            release("c", None, &[]),
            None,
            Some(2),
        );
        assert_eq!(names(&added.manifest), ["b", "c"]);
        assert_eq!(added.dropped, ["a"]);
        let new_b = release("b", None, &[]);
        let added = add_latest(
            &before,
            outgoing("b.sqlite", &[], &[]),
            new_b,
            Some("b"),
            None,
        );
        assert_eq!(names(&added.manifest), ["a", "b"]);
        assert_eq!(added.manifest.releases[1].file, None);
        assert_eq!(added.dropped, ["b"]);
    }

    #[test]
    fn dropping_the_latest_promotes_the_newest_older_one() {
        let before = Manifest {
            releases: vec![
                release(
                    "a",
                    Some("a.sqlite"),
                    &[("aadf", Some("b.sqlite")), ("raw_counts", None)],
                ),
                release("b", Some("b.sqlite"), &[("raw_counts", None)]),
                release("c", None, &[]),
            ],
        };
        assert!(groups_only_in_latest(&before).is_empty());
        let m = drop_latest(&before, None, &[]);
        assert_eq!(names(&m), ["a", "b"]);
        assert_eq!(m.releases[1].file, None);
        assert_eq!(m.releases[0].shared["aadf"], None);
        assert_eq!(m.releases[0].shared["raw_counts"], None);
        assert_eq!(drop_older(&before, "b").releases.len(), 2);
        assert_eq!(drop_older(&before, "c"), before);
    }

    #[test]
    fn a_group_only_the_latest_holds_stays_in_its_file() {
        let before = Manifest {
            releases: vec![
                release("a", Some("a.sqlite"), &[("raw_counts", None)]),
                release("b", Some("b.sqlite"), &[]),
                release("c", None, &[]),
            ],
        };
        let moved = groups_only_in_latest(&before);
        assert_eq!(moved, ["raw_counts"]);
        let m = drop_latest(&before, Some("c.sqlite"), &moved);
        assert_eq!(m.releases[0].shared["raw_counts"], Some("c.sqlite".into()));
        assert_eq!(m.files_used(), ["a.sqlite", "c.sqlite"]);
    }
}
