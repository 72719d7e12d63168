//! A new release renamed into place under concurrent requests: no request fails, each answer
//! comes wholly from the old file or wholly from the new one, and the server moves to the new.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

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

    // What the clients have seen, old answers and new; each phase waits for them to see
    // some, rather than for a time that a slow machine may not fill.
    let stop = Arc::new(AtomicBool::new(false));
    let seen = Arc::new([AtomicU32::new(0), AtomicU32::new(0)]);
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let (server, stop, seen) = (server.clone(), stop.clone(), seen.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let reply = get(&server, target);
                    assert_eq!(reply.status, 200, "{}", reply.text());
                    let body = reply.json();
                    let total = body["total"].as_i64().unwrap();
                    let rows = body["data"].as_array().unwrap().len() as i64;
                    // One file per answer: the page agrees with its own total.
                    assert_eq!(rows, total.min(50), "{body}");
                    seen[usize::from(total != 0)].fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    wait_for("the clients' answers from the old release", || {
        seen[0].load(Ordering::Relaxed) >= 20
    });
    load_ok(&db, &["--quiet"], &[&sample]);
    wait_for("the new release picked up", || {
        get(&server, target).json()["total"] != 0
    });
    wait_for("the clients' answers from the new release", || {
        seen[1].load(Ordering::Relaxed) >= 20
    });
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.join().expect("no client failed");
    }
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
    // Once the server has looked at the file and refused it.
    wait_for("the file refused", || {
        let metrics = get(&server, "/metrics").text();
        metrics.contains("\nroadtraffic_release_refusals_total 1\n")
    });
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
