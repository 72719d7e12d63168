//! The store the files are kept in (`--downloads-dir`): written once per release whoever
//! asks first, and shared by the servers of one file (replicas behind one name, whose
//! validators must agree for a client's `If-Range` to hold from one to the other).

use std::path::Path;

use super::*;

const PARQUET: &str = "/downloads/dft_traffic_counts_raw_counts.parquet";

/// Every file under `dir`, by its path below it.
fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            match entry.file_type().unwrap().is_dir() {
                true => folders.push(entry.path()),
                false => found.push(
                    (entry.path().strip_prefix(dir).unwrap())
                        .display()
                        .to_string(),
                ),
            }
        }
    }
    found
}

#[test]
fn first_requests_at_once_share_one_written_file() {
    let dir = scratch_dir();
    let db = dir.join("lazy.db");
    load_ok(&db, &["--quiet"], &[&repo_path("data/sample")]);
    let store = dir.join("kept");
    let store_arg = store.display().to_string();
    let server = std::sync::Arc::new(serve(
        &db,
        &["--lazy-downloads", "--downloads-dir", &store_arg],
    ));
    let clients: Vec<_> = (0..6)
        .map(|i| {
            let server = server.clone();
            std::thread::spawn(move || {
                let range = format!("bytes={}-{}", i * 100, i * 100 + 99);
                let whole = get(&server, PARQUET);
                let part = request(&server, "GET", PARQUET, &[("Range", &range)]);
                (i * 100, whole, part)
            })
        })
        .collect();
    let replies: Vec<_> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    let full = &replies[0].1;
    assert_eq!(full.status, 200);
    for (first, whole, part) in &replies {
        assert!(whole.body == full.body);
        assert_eq!(whole.header("etag"), full.header("etag"));
        assert_eq!(part.status, 206);
        assert!(part.body == full.body[*first..first + 100]);
    }
    Parquet::read(&full.body);
    let kept = files_under(&store);
    let written: Vec<&String> = kept.iter().filter(|f| f.ends_with(".parquet")).collect();
    assert_eq!(written.len(), 1, "{kept:?}");
    assert!(!kept.iter().any(|f| f.contains(".partial")), "{kept:?}");
    let on_disk = std::fs::read(store.join(written[0])).unwrap();
    assert!(on_disk == full.body, "the file kept is the file served");
}

/// A second server of the same file finds the files the first one wrote: the same bytes and
/// the same validators, so a range asked of one with the other's validator is honoured.
#[test]
fn a_second_server_of_the_same_file_serves_the_kept_files() {
    let first = sample_server();
    let second = serve(sample_db(), &["--lazy-downloads"]);
    let one = download(first, PARQUET);
    let (a, b) = (get(first, PARQUET), get(&second, PARQUET));
    assert!(a.body == one && b.body == one);
    for header in ["etag", "last-modified", "content-length"] {
        assert_eq!(a.header(header), b.header(header), "{header}");
    }
    let if_range = [
        ("Range", "bytes=4-7"),
        ("If-Range", a.header("etag").unwrap()),
    ];
    let part = request(&second, "GET", PARQUET, &if_range);
    assert_eq!(part.status, 206);
    assert!(part.body == one[4..8]);
}
