//! The loader's side of kept releases: each kept release reads exactly what a file loaded with
//! it alone holds; what is unchanged is stored once; names, `--keep`, `--drop-release`, the
//! listing; and a third load that fails or is killed leaves the first two as they were.

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use roadtraffic_releases::{folder, metadata_id, Manifest, Storage};

use super::fixtures::{inputs, load_alone, NAMES};
use crate::support::*;

/// Loads the first `n` releases, each kept, into `db`.
fn keep(db: &Path, n: usize) {
    for (name, input) in inputs().all().into_iter().take(n) {
        load_ok(db, &["--quiet", "--release", name], &[input]);
    }
}

fn manifest(db: &Path) -> Manifest {
    Manifest::current(db).unwrap().expect("releases kept")
}

fn names(m: &Manifest) -> Vec<&str> {
    m.releases.iter().map(|r| r.name.as_str()).collect()
}

/// Every table a file of the loader holds (virtual tables by their rows, not their storage),
/// each as its rows in id order; and the metadata but what differs from load to load.
fn contents(conn: &Connection) -> BTreeMap<String, Vec<String>> {
    let tables: Vec<String> = conn
        .prepare(
            "SELECT name FROM pragma_table_list WHERE schema = 'main' \
             AND type IN ('table', 'virtual') AND name NOT LIKE 'sqlite%' AND name <> 'metadata'",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = BTreeMap::new();
    for table in tables {
        out.insert(
            table.clone(),
            rows(conn, &format!("SELECT * FROM {table} ORDER BY rowid")),
        );
    }
    let meta =
        "SELECT key, value FROM metadata WHERE key NOT IN ('loaded_at', 'changes') ORDER BY key";
    out.insert("metadata".into(), rows(conn, meta));
    out
}

fn rows(conn: &Connection, sql: &str) -> Vec<String> {
    let mut stmt = conn.prepare(sql).unwrap();
    let width = stmt.column_count();
    let mut rows = stmt.query([]).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        let values: Vec<String> = (0..width)
            .map(|i| match row.get_ref(i).unwrap() {
                ValueRef::Null => "NULL".into(),
                ValueRef::Integer(n) => format!("i{n}"),
                ValueRef::Real(x) => format!("r{x:?}"),
                ValueRef::Text(t) => format!("t{}", String::from_utf8_lossy(t)),
                ValueRef::Blob(b) => format!("b{b:?}"),
            })
            .collect();
        out.push(values.join("|"));
    }
    out
}

/// What a kept release reads, through its storage, compared with the tables of the file loaded
/// with it alone (every table of that file, every row).
fn assert_as_alone(db: &Path, name: &str) {
    let which = NAMES.iter().position(|n| *n == name).unwrap();
    let m = manifest(db);
    let release = m.find(name).unwrap_or_else(|| panic!("{name} is not kept"));
    let kept = Storage::of(db, release).open().unwrap();
    let alone = Storage::file(load_alone(which)).open().unwrap();
    let (kept_rows, alone_rows) = (contents(&kept), contents(&alone));
    let alone_tables: Vec<&String> = alone_rows.keys().collect();
    for table in &alone_tables {
        let found = if kept_rows.contains_key(*table) {
            kept_rows[*table].clone()
        } else {
            // A shared group: found in an attached file, as the server's SQL finds it; a
            // layered table: its view (by id, its rowid: a view has none).
            rows(
                &kept,
                &format!("SELECT * FROM {table} ORDER BY {}", order_of(&kept, table)),
            )
        };
        assert!(
            found == alone_rows[*table],
            "release {name}: table {table} differs from its load alone"
        );
    }
}

/// How a table's rows are ordered as stored: by rowid, or by id for a layered table's view.
fn order_of(conn: &Connection, table: &str) -> &'static str {
    let view: bool = conn
        .query_row(
            "SELECT count(*) > 0 FROM sqlite_temp_master WHERE type = 'view' AND name = ?1",
            [table],
            |r| r.get(0),
        )
        .unwrap();
    if view {
        "id"
    } else {
        "rowid"
    }
}

/// The file of a kept release's own tables.
fn own_file(db: &Path, name: &str) -> PathBuf {
    let m = manifest(db);
    Storage::of(db, m.find(name).unwrap()).main
}

fn has_table(path: &Path, table: &str) -> bool {
    Storage::file(path)
        .open()
        .unwrap()
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = ?1",
            [table],
            |r| r.get::<_, i64>(0),
        )
        .unwrap()
        > 0
}

fn size(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().len()
}

#[test]
fn two_then_three_releases_kept_each_as_loaded_alone() {
    let db = scratch_dir().join("kept.db");
    keep(&db, 2);
    let m = manifest(&db);
    assert_eq!(names(&m), ["2024", "2025"]);
    let a = &m.releases[0];
    // B changed AADF and count points only: the rest is read from the --db file.
    for group in ["raw_counts", "aadf_by_direction", "local_authority_traffic"] {
        assert_eq!(a.shared.get(group), Some(&None), "{group}: {:?}", a.shared);
    }
    assert!(!a.shared.contains_key("aadf") && !a.shared.contains_key("count_points"));
    // B retires a count point, so the ids of A's AADF rows after it differ from B's: more than
    // half of A's rows would be a layer, and A keeps its table whole.
    assert!(a.layered.is_empty(), "{:?}", a.layered);
    let a_file = own_file(&db, "2024");
    assert!(!has_table(&a_file, "raw_counts") && !has_table(&a_file, "raw_counts_own_values"));
    assert!(has_table(&a_file, "aadf") && has_table(&a_file, "places"));
    assert!(
        size(&a_file) * 2 < size(&db),
        "{} vs {}",
        size(&a_file),
        size(&db)
    );
    assert_as_alone(&db, "2024");
    assert_as_alone(&db, "2025");
    national_files_stored_once(&db, &m);

    keep_third(&db);
    let m = manifest(&db);
    assert_eq!(names(&m), NAMES);
    let b_file = m.releases[1].file.clone().unwrap();
    // C revised raw counts and AADF by direction: B's file holds them, and A reads them there.
    assert_eq!(
        m.releases[0].shared.get("raw_counts"),
        Some(&Some(b_file.clone()))
    );
    assert_eq!(
        m.releases[0].shared.get("local_authority_traffic"),
        Some(&None)
    );
    assert!(has_table(&own_file(&db, "2025"), "raw_counts"));
    for name in NAMES {
        assert_as_alone(&db, name);
    }
    // The latest's id is the file's own: the server's release id.
    let latest_id = metadata_id(&Storage::file(&db).open().unwrap()).unwrap();
    assert_eq!(m.latest().unwrap().id, latest_id);
    listing(&db);
}

/// The national files of A and B: B's raw counts (CSV, zip and Parquet) are A's bytes, one
/// file under two names; its AADF files, revised, are files of their own.
fn national_files_stored_once(db: &Path, m: &Manifest) {
    use std::os::unix::fs::MetadataExt;
    let mut root = db.as_os_str().to_owned();
    root.push(".downloads");
    let folder =
        |i: usize| Path::new(&root).join(roadtraffic_downloads::release_folder(&m.releases[i].id));
    let (a, b) = (folder(0), folder(1));
    let inode = |p: &Path| std::fs::metadata(p).unwrap().ino();
    for suffix in ["csv", "zip", "parquet"] {
        let raw = format!("dft_traffic_counts_raw_counts.{suffix}");
        assert_eq!(inode(&a.join(&raw)), inode(&b.join(&raw)), "{raw}");
        let aadf = format!("dft_traffic_counts_aadf.{suffix}");
        assert_ne!(inode(&a.join(&aadf)), inode(&b.join(&aadf)), "{aadf}");
        assert_ne!(
            std::fs::read(a.join(&aadf)).unwrap(),
            std::fs::read(b.join(&aadf)).unwrap()
        );
    }
}

/// The third release, with its report.
fn keep_third(db: &Path) {
    let (name, input) = inputs().all()[2];
    let stderr = load_ok(db, &["--release", name], &[input]);
    assert!(
        stderr.contains("Releases kept, oldest first: 2024, 2025, 2026 (latest)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("stored once: ") && stderr.contains("local_authority_traffic"),
        "{stderr}"
    );
}

/// `roadtraffic-load releases`, as text and as JSON.
fn listing(db: &Path) {
    let run = |json: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_roadtraffic-load"));
        cmd.args(["releases", "--db"]).arg(db);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run(false);
    assert!(
        text.contains("2026 (latest)") && text.contains("2024: loaded"),
        "{text}"
    );
    assert!(
        text.contains("raw_counts: shared, read from 2025."),
        "{text}"
    );
    assert!(text.contains("3 releases in "), "{text}");
    let json: serde_json::Value = serde_json::from_str(&run(true)).unwrap();
    let releases = json["releases"].as_array().unwrap();
    let listed: Vec<&str> = releases
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, NAMES);
    assert_eq!(releases[2]["latest"], true);
    assert_eq!(releases[0]["latest"], false);
    assert_eq!(releases[1]["row_counts"]["count_points"], 12);
    let ratio = json["ratio"].as_f64().unwrap();
    assert!(ratio > 1.0 && ratio < 3.0, "{json}");
    assert_eq!(json["latest_file_bytes"], size(db));
}

#[test]
fn a_kept_name_is_refused_unless_replaced() {
    let db = scratch_dir().join("names.db");
    keep(&db, 2);
    let before = std::fs::read(&db).unwrap();
    let c = &inputs().c;
    let run = load(&db, &["--quiet", "--release", "2025"], &[c]);
    assert!(
        !run.ok && run.stderr.contains("--replace-release"),
        "{}",
        run.stderr
    );
    assert!(
        std::fs::read(&db).unwrap() == before,
        "a refused load changed the file"
    );
    let run = load(&db, &["--quiet"], &[c]);
    assert!(
        !run.ok && run.stderr.contains("name this one with --release NAME"),
        "{}",
        run.stderr
    );
    let run = load(&db, &["--quiet", "--release", "next year"], &[c]);
    assert!(
        !run.ok && run.stderr.contains("cannot name a release"),
        "{}",
        run.stderr
    );

    // The latest replaced: C's rows under B's name.
    load_ok(
        &db,
        &["--quiet", "--release", "2025", "--replace-release"],
        &[c],
    );
    assert_eq!(names(&manifest(&db)), ["2024", "2025"]);
    let file = contents(&Storage::file(&db).open().unwrap());
    let alone = contents(&Storage::file(load_alone(2)).open().unwrap());
    for (table, rows) in &alone {
        if table != "metadata" {
            assert!(file[table] == *rows, "{table}");
        }
    }
    assert_as_alone(&db, "2024");
    // An older one replaced: dropped, and loaded as the latest.
    let stderr = load_ok(
        &db,
        &["--release", "2024", "--replace-release"],
        &[&inputs().a],
    );
    assert!(stderr.contains("dropped: 2024"), "{stderr}");
    assert_eq!(names(&manifest(&db)), ["2025", "2024"]);
    assert_as_alone(&db, "2024");
}

#[test]
fn keep_drops_the_oldest_and_says_so() {
    let db = scratch_dir().join("keep.db");
    keep(&db, 2);
    let (name, input) = inputs().all()[2];
    let stderr = load_ok(&db, &["--release", name, "--keep", "2"], &[input]);
    assert!(stderr.contains("dropped: 2024"), "{stderr}");
    let m = manifest(&db);
    assert_eq!(names(&m), ["2025", "2026"]);
    assert_as_alone(&db, "2025");
    assert_as_alone(&db, "2026");
    let files: Vec<String> = std::fs::read_dir(folder(&db))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sqlite"))
        .collect();
    assert_eq!(
        files,
        [m.releases[0].file.clone().unwrap()],
        "2024's file is removed"
    );
}

fn drop_release(db: &Path, name: &str) -> LoadRun {
    load(db, &["--quiet", "--drop-release", name], &[])
}

#[test]
fn releases_dropped_older_then_latest_never_the_only_one() {
    let db = scratch_dir().join("drop.db");
    keep(&db, 3);
    let run = drop_release(&db, "2019");
    assert!(
        !run.ok && run.stderr.contains("no release 2019"),
        "{}",
        run.stderr
    );
    // B dropped: A still reads B's raw counts, whose file stays.
    assert!(drop_release(&db, "2025").ok);
    assert_eq!(names(&manifest(&db)), ["2024", "2026"]);
    assert_as_alone(&db, "2024");
    assert_as_alone(&db, "2026");
    // The latest dropped: A is the --db file again, complete, its id unchanged.
    let a_id = manifest(&db).releases[0].id.clone();
    let run = drop_release(&db, "2026");
    assert!(run.ok, "{}", run.stderr);
    let m = manifest(&db);
    assert_eq!(names(&m), ["2024"]);
    let file = Storage::file(&db).open().unwrap();
    assert_eq!(metadata_id(&file).unwrap(), a_id);
    assert!(has_table(&db, "raw_counts"));
    assert_as_alone(&db, "2024");
    let left: Vec<String> = std::fs::read_dir(folder(&db))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "releases.json")
        .collect();
    assert!(left.is_empty(), "left in the folder: {left:?}");
    let run = drop_release(&db, "2024");
    assert!(
        !run.ok && run.stderr.contains("only release"),
        "{}",
        run.stderr
    );
    assert_as_alone(&db, "2024");
}

/// The first two releases as they are on disk: the --db file and every file of the folder.
fn snapshot(db: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::from([("db".to_string(), std::fs::read(db).unwrap())]);
    for e in std::fs::read_dir(folder(db)).unwrap() {
        let e = e.unwrap();
        files.insert(
            e.file_name().to_string_lossy().into_owned(),
            std::fs::read(e.path()).unwrap(),
        );
    }
    files
}

#[test]
fn a_failed_or_killed_third_load_leaves_the_first_two() {
    let dir = scratch_dir();
    let db = dir.join("safe.db");
    keep(&db, 2);
    let before = snapshot(&db);
    let bad = dir.join("bad.csv");
    std::fs::write(
        &bad,
        "count_point_id,year,all_motor_vehicles\n1,2020,many\n",
    )
    .unwrap();
    let run = load(&db, &["--quiet", "--release", "2026"], &[&inputs().c, &bad]);
    assert!(
        !run.ok && run.stderr.contains("nothing was changed"),
        "{}",
        run.stderr
    );
    assert!(
        snapshot(&db) == before,
        "a failed load changed the releases"
    );

    killed_mid_load(&dir, &db);
    assert!(
        snapshot(&db) == before,
        "a killed load changed the releases"
    );
    assert_eq!(names(&manifest(&db)), ["2024", "2025"]);

    // Stopped between the manifest and the swap: the manifest lists 2026, the file is 2025's.
    let kept_file = dir.join("safe.db.before");
    std::fs::copy(&db, &kept_file).unwrap();
    keep_third(&db);
    std::fs::rename(&kept_file, &db).unwrap();
    assert_eq!(Manifest::read(&db).unwrap().unwrap().releases.len(), 3);
    assert_eq!(names(&manifest(&db)), ["2024", "2025"]);
    assert_as_alone(&db, "2024");
    assert_as_alone(&db, "2025");
    // The next load reconciles, and keeps the third.
    keep_third(&db);
    for name in NAMES {
        assert_as_alone(&db, name);
    }
}

/// A third load killed (SIGKILL) once its new file exists, reading a large extra file.
fn killed_mid_load(dir: &Path, db: &Path) {
    let big = dir.join("big_aadf.csv");
    let mut text = String::from("count_point_id,year,region_id,local_authority_id,road_name,road_type,estimation_method,all_motor_vehicles\n");
    for i in 0..400_000 {
        text.push_str(&format!(
            "{},{},9,110,A1,Major,Counted,{}\n",
            5_000_000 + i / 20,
            2000 + i % 20,
            i % 5000
        ));
    }
    std::fs::write(&big, text).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_roadtraffic-load"))
        .args(["--quiet", "--release", "2026", "--db"])
        .arg(db)
        .arg(&inputs().c)
        .arg(&big)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let partial = std::fs::read_dir(dir).unwrap().flatten().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(".safe.db.") && name.ends_with(".partial")
        });
        if partial {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the load ended before it was killed"
        );
        assert!(Instant::now() < deadline, "no new file in 120 s");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL), "{status}");
}
