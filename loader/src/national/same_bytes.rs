//! A national file identical to one already kept for another release is stored once: the new
//! release's name for it is a hard link to the kept file. Releases mostly revise the AADF
//! tables, so each kept release's raw counts (CSV, zip and Parquet: about 1 GB of the 1.5 GB of
//! a full-size release's downloads) would otherwise be the same bytes again.
//!
//! Stored files are never written in place (each is written under a temporary name and
//! renamed, by the loader and by the server alike), so two names for one inode never see each
//! other change; removing one release's folder unlinks its names only.

use std::path::{Path, PathBuf};

/// The file `key` of another release's folder under `root` (not `own`) with the same ETag and
/// length: the same bytes, since the ETag is the first 128 bits of the SHA-256 of its bytes.
pub fn kept_elsewhere(root: &Path, own: &str, key: &str, etag: &str, len: u64) -> Option<PathBuf> {
    let folders = std::fs::read_dir(root).ok()?;
    folders.flatten().find_map(|folder| {
        let name = folder.file_name();
        let release_folder = name
            .to_str()
            .is_some_and(|n| n != own && !n.ends_with(".loading"));
        if !release_folder {
            return None;
        }
        let path = folder.path().join(key);
        let mut etag_path = path.clone().into_os_string();
        etag_path.push(".etag");
        let same_etag = std::fs::read(&etag_path).is_ok_and(|e| e == etag.as_bytes());
        let same_len = || std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() == len);
        (same_etag && same_len()).then_some(path)
    })
}

/// Puts a hard link to `kept` at `staged` (a file of the staging folder) in place of the
/// staged copy. On any failure (another file system, links refused) the copy stays as it is.
pub fn link_over(kept: &Path, staged: &Path) -> bool {
    let mut link = staged.as_os_str().to_owned();
    link.push(".link");
    let link = PathBuf::from(link);
    let _ = std::fs::remove_file(&link);
    let linked = std::fs::hard_link(kept, &link).and_then(|()| std::fs::rename(&link, staged));
    if linked.is_err() {
        let _ = std::fs::remove_file(&link);
    }
    linked.is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_kept_for_another_release_with_the_same_etag_and_length_is_linked() {
        let root = tempfile::tempdir().unwrap();
        let (old, new) = (root.path().join("aaaa-v1"), root.path().join("1.loading"));
        std::fs::create_dir_all(&old).unwrap();
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(old.join("f.csv"), b"a,b\n1,2\n").unwrap();
        std::fs::write(old.join("f.csv.etag"), b"\"e1\"").unwrap();
        std::fs::write(old.join("g.csv"), b"a,b\n1,3\n").unwrap();
        std::fs::write(old.join("g.csv.etag"), b"\"e2\"").unwrap();
        let found = |key: &str, etag: &str, len: u64| {
            kept_elsewhere(root.path(), "bbbb-v1", key, etag, len)
        };
        assert_eq!(found("f.csv", "\"e1\"", 8), Some(old.join("f.csv")));
        assert_eq!(found("f.csv", "\"e1\"", 9), None);
        assert_eq!(found("g.csv", "\"e1\"", 8), None);
        assert_eq!(found("h.csv", "\"e1\"", 8), None);
        assert_eq!(
            kept_elsewhere(root.path(), "aaaa-v1", "f.csv", "\"e1\"", 8),
            None
        );
        let staged = new.join("f.csv");
        std::fs::write(&staged, b"a,b\n1,2\n").unwrap();
        assert!(link_over(&old.join("f.csv"), &staged));
        use std::os::unix::fs::MetadataExt;
        let inode = |p: &Path| std::fs::metadata(p).unwrap().ino();
        assert_eq!(inode(&staged), inode(&old.join("f.csv")));
        assert_eq!(std::fs::read(&staged).unwrap(), b"a,b\n1,2\n");
    }
}
