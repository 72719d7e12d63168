//! `roadtraffic-load releases --db FILE [--json]`: the releases kept beside `FILE`, oldest
//! first, what each reads and what they cost on disk beside one complete file.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use roadtraffic_releases::{folder, Manifest, Storage};

use crate::error::{LoadError, ReleaseError};

/// One kept release, as listed.
#[derive(Debug, Serialize)]
struct Listed {
    name: String,
    loaded_at: String,
    latest: bool,
    row_counts: serde_json::Value,
    /// Its own file, then the files of the groups it shares.
    files: Vec<PathBuf>,
    /// Each shared group, with the file it is read from.
    shared: Vec<(String, PathBuf)>,
    /// Each group whose table is read through layers, with the files holding them: the
    /// layers' topmost first, the table's whole last.
    layered: Vec<(String, Vec<PathBuf>)>,
    /// The bytes of its own file.
    own_bytes: u64,
}

/// Every kept release and the disk they take.
#[derive(Debug, Serialize)]
struct Listing {
    releases: Vec<Listed>,
    /// Every file read by a kept release, each counted once.
    total_bytes: u64,
    /// The `--db` file: one complete release.
    latest_file_bytes: u64,
    /// `total_bytes` over `latest_file_bytes`.
    ratio: f64,
}

/// The listing, as text or as JSON.
pub fn list(db: &Path, json: bool) -> Result<String, LoadError> {
    let Some(m) = Manifest::current(db).map_err(ReleaseError::from)? else {
        return Ok(format!(
            "no releases kept: {} does not exist\n",
            db.display()
        ));
    };
    let listing = listing(db, &m)?;
    if json {
        return Ok(serde_json::to_string_pretty(&listing).expect("the listing serialises") + "\n");
    }
    Ok(text(db, &listing))
}

fn listing(db: &Path, m: &Manifest) -> Result<Listing, LoadError> {
    let size = |p: &Path| std::fs::metadata(p).map_err(|e| LoadError::io(p, e));
    let mut releases = Vec::new();
    let mut inodes = BTreeSet::new();
    let mut total_bytes = 0;
    for (i, r) in m.releases.iter().enumerate() {
        let storage = Storage::of(db, r);
        let mut files = vec![storage.main.clone()];
        files.extend(
            storage
                .attached
                .iter()
                .filter(|p| **p != storage.main)
                .cloned(),
        );
        for f in &files {
            let meta = size(f)?;
            if inodes.insert((meta.dev(), meta.ino())) {
                total_bytes += meta.len();
            }
        }
        releases.push(Listed {
            name: r.name.clone(),
            loaded_at: r.loaded_at.clone(),
            latest: i + 1 == m.releases.len(),
            row_counts: r.row_counts.clone(),
            own_bytes: size(&storage.main)?.len(),
            files,
            shared: storage.shared,
            layered: storage.layered,
        });
    }
    let latest_file_bytes = size(db)?.len();
    Ok(Listing {
        releases,
        total_bytes,
        latest_file_bytes,
        ratio: total_bytes as f64 / latest_file_bytes.max(1) as f64,
    })
}

fn text(db: &Path, l: &Listing) -> String {
    let mb = |b: u64| b as f64 / 1e6;
    let mut out = String::new();
    let _ = writeln!(out, "Releases kept beside {}, oldest first:", db.display());
    let dir = folder(db);
    for r in &l.releases {
        let latest = if r.latest { " (latest)" } else { "" };
        // A file loaded without --release has no name: it is listed, never addressed.
        let name = if r.name.is_empty() {
            "(no name)"
        } else {
            &r.name
        };
        let _ = writeln!(
            out,
            "  {}{latest}: loaded {}, {:.1} MB of its own",
            name,
            r.loaded_at,
            mb(r.own_bytes)
        );
        let shown = |p: &PathBuf| {
            p.strip_prefix(&dir)
                .map_or(p.display().to_string(), |f| f.display().to_string())
        };
        let _ = writeln!(out, "    file: {}", shown(&r.files[0]));
        for (group, file) in &r.shared {
            let _ = writeln!(out, "    {group}: shared, read from {}", shown(file));
        }
        for (group, files) in &r.layered {
            // Topmost first, the table held whole last.
            let files: Vec<String> = files.iter().map(shown).collect();
            let _ = writeln!(
                out,
                "    {group}: read through layers, {} (whole)",
                files.join(", then ")
            );
        }
        if let Some(counts) = r.row_counts.as_object() {
            let rows: Vec<String> = counts.iter().map(|(t, n)| format!("{t} {n}")).collect();
            let _ = writeln!(out, "    rows: {}", rows.join(", "));
        }
    }
    let n = l.releases.len();
    let plural = if n == 1 { "release" } else { "releases" };
    let _ = writeln!(
        out,
        "{n} {plural} in {:.2}x the disk of one ({:.1} MB in all, {:.1} MB for {})",
        l.ratio,
        mb(l.total_bytes),
        mb(l.latest_file_bytes),
        db.display()
    );
    out
}
