//! A new release renamed into place under concurrent requests: no request fails, each answer
//! comes wholly from the old file or wholly from the new one, and the server moves to the new.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::*;

#[test]
fn release_swapped_under_concurrent_requests() {
    let dir = scratch_dir();
    let db = dir.join("live.db");
    let sample = repo_path("data/sample");
    // The old release: AADF only. The new one: the whole sample.
    load_ok(
        &db,
        &["--quiet"],
        &[&sample.join("dft_traffic_counts_aadf.csv")],
    );
    let server = Arc::new(serve(&db, &[]));
    let target = "/api/raw-counts?page%5Bsize%5D=50";
    assert_eq!(get(&server, target).json()["total"], 0);
    let old_etag = get(&server, target).header("etag").unwrap().to_string();

    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let (server, stop) = (server.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut seen = (0u32, 0u32);
                while !stop.load(Ordering::Relaxed) {
                    let reply = get(&server, target);
                    assert_eq!(reply.status, 200, "{}", reply.text());
                    let body = reply.json();
                    let total = body["total"].as_i64().unwrap();
                    let rows = body["data"].as_array().unwrap().len() as i64;
                    // One file per answer: the page agrees with its own total.
                    assert_eq!(rows, total.min(50), "{body}");
                    if total == 0 {
                        seen.0 += 1
                    } else {
                        seen.1 += 1
                    }
                }
                seen
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    load_ok(&db, &["--quiet"], &[&sample]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while get(&server, target).json()["total"] == 0 {
        assert!(
            Instant::now() < deadline,
            "the new release was not picked up"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    stop.store(true, Ordering::Relaxed);
    let mut total_seen = (0, 0);
    for c in clients {
        let (old, new) = c.join().expect("no client failed");
        total_seen = (total_seen.0 + old, total_seen.1 + new);
    }
    assert!(total_seen.0 > 0 && total_seen.1 > 0, "{total_seen:?}");
    let new_etag = get(&server, target).header("etag").unwrap().to_string();
    assert_ne!(old_etag, new_etag, "ETags change with the release");
}

#[test]
fn refuses_to_serve_what_the_loader_did_not_build() {
    let dir = scratch_dir();
    let not_sqlite = dir.join("junk.db");
    std::fs::write(&not_sqlite, b"this is not a database").unwrap();
    let plain = dir.join("plain.db");
    rusqlite::Connection::open(&plain)
        .unwrap()
        .execute_batch("CREATE TABLE x (a)")
        .unwrap();
    for path in [not_sqlite, plain, dir.join("missing.db")] {
        let err = refused_to_start(&path);
        assert!(
            err.to_string()
                .contains(path.file_name().unwrap().to_str().unwrap()),
            "{err}"
        );
    }
}

/// A file renamed over the served one that cannot be served is not switched to, and the
/// release being served keeps answering from its own file.
#[test]
fn an_unservable_file_renamed_in_does_not_disturb_the_release() {
    let dir = scratch_dir();
    let db = dir.join("live.db");
    load_ok(&db, &["--quiet"], &[&repo_path("data/sample")]);
    let server = serve(&db, &["--connections", "4"]);
    let target = "/api/raw-counts?page%5Bsize%5D=5&page%5Bnumber%5D=3";
    let before = get(&server, target).text();
    let junk = dir.join("junk.db");
    file_of_schema_version(&junk, 2);
    std::fs::rename(&junk, &db).unwrap();
    // Concurrent requests make the pool use every connection.
    for _ in 0..3 {
        let handles: Vec<_> = (0..6)
            .map(|_| {
                let url = server.url(target);
                std::thread::spawn(move || {
                    ureq::get(&url)
                        .call()
                        .unwrap()
                        .into_body()
                        .read_to_string()
                        .unwrap()
                })
            })
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), before);
        }
        std::thread::sleep(Duration::from_millis(150));
    }
}
