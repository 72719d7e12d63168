//! What changed: a load that replaces a file compares the two by natural key, prints the
//! report, writes it with `--report-json`, keeps it in the new file, and the server shows it at
//! `/api/releases/latest/changes`; `roadtraffic-load diff OLD NEW` compares any two files.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::support::*;

pub const AADF: &str = "dft_traffic_counts_aadf.csv";
pub const COUNT_POINTS: &str = "count_points.csv";

/// The files of the count point's rows (the first column of each), besides the count points.
pub const ROWS_OF_A_COUNT_POINT: [&str; 3] = [
    AADF,
    "dft_traffic_counts_aadf_by_direction.csv",
    "dft_traffic_counts_raw_counts.csv",
];

/// The bundled sample, revised as a new release revises one: a past year's AADF count of
/// count point 501 raised by 10,000, a year added (2025, that count point only), the last
/// count point retired (its rows gone from every file) and a new one (999999) counted.
struct Revised {
    dir: PathBuf,
    retired_id: i64,
    /// Rows of the retired count point, per file of [`ROWS_OF_A_COUNT_POINT`].
    retired_rows: Vec<u64>,
}

fn revised_sample() -> Revised {
    let dir = scratch_dir().join("revised");
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(repo_path("data/sample")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    let edit = |name: &str, change: &mut dyn FnMut(&mut Vec<String>)| {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        change(&mut lines);
        std::fs::write(dir.join(name), lines.join("\n") + "\n").unwrap();
    };
    let mut retired = String::new();
    edit(COUNT_POINTS, &mut |lines| {
        retired = lines.pop().unwrap();
        let (_, rest) = retired.split_once(',').unwrap();
        lines.push(format!("999999,{rest}"));
    });
    let retired_id: i64 = retired.split(',').next().unwrap().parse().unwrap();
    let mut retired_rows = Vec::new();
    for name in ROWS_OF_A_COUNT_POINT {
        edit(name, &mut |lines| {
            let before = lines.len();
            lines.retain(|l| !l.starts_with(&format!("{retired_id},")));
            retired_rows.push((before - lines.len()) as u64);
        });
    }
    edit(AADF, &mut |lines| {
        assert!(lines[1].starts_with("501,2019,") && lines[1].ends_with(",52290"));
        lines[1] = lines[1].replace(",52290", ",62290");
        let added = lines[1].replacen("501,2019,", "501,2025,", 1);
        lines.push(added);
    });
    assert!(retired_rows.iter().all(|&n| n > 0), "{retired_rows:?}");
    Revised {
        dir,
        retired_id,
        retired_rows,
    }
}

fn table<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table"] == name)
        .unwrap_or_else(|| panic!("no table {name} in {report}"))
}

fn stored_changes(db: &Path) -> Option<Value> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let text: Option<String> = conn
        .query_row(
            "SELECT value FROM metadata WHERE key = 'changes'",
            [],
            |r| r.get(0),
        )
        .ok();
    text.map(|t| serde_json::from_str(&t).unwrap())
}

fn counts(t: &Value) -> [u64; 3] {
    ["added", "removed", "changed"].map(|k| t[k].as_u64().unwrap())
}

fn check_report(changes: &Value, revised: &Revised) {
    let aadf = table(changes, "aadf");
    assert_eq!(aadf["key"], json!(["count_point_id", "year"]));
    assert_eq!(counts(aadf), [1, revised.retired_rows[0], 1]);
    assert_eq!(
        aadf["changed_columns"],
        json!([{"column": "all_motor_vehicles", "rows": 1}])
    );
    let by_year = aadf["by_year"].as_array().unwrap();
    assert!(by_year.contains(&json!({"year": 2025, "added": 1, "removed": 0, "changed": 0})));
    let revised_2019 = by_year.iter().find(|y| y["year"] == 2019).unwrap();
    assert_eq!(revised_2019["changed"], 1);
    assert_eq!(
        aadf["largest_revisions"],
        json!([{"key": {"count_point_id": 501, "year": 2019}, "before": 52290, "after": 62290, "change": 10000}])
    );
    for (name, rows) in ROWS_OF_A_COUNT_POINT
        .iter()
        .zip(&revised.retired_rows)
        .skip(1)
    {
        let t = table(
            changes,
            &name.replace("dft_traffic_counts_", "").replace(".csv", ""),
        );
        assert_eq!(counts(t), [0, *rows, 0], "{name}");
        assert_eq!(t["rows_after"], t["rows_before"].as_u64().unwrap() - rows);
    }
    let points = &changes["count_points"];
    assert_eq!((&points["new"], &points["retired"]), (&json!(1), &json!(1)));
    assert_eq!(points["new_ids"], json!([999999]));
    assert_eq!(points["retired_ids"], json!([revised.retired_id]));
    // Count point 501's latest AADF year is now 2025.
    let cp = table(changes, "count_points");
    assert_eq!(
        cp["changed_columns"],
        json!([{"column": "aadf_year", "rows": 1}])
    );
    let years = |k: &str| -> Vec<i64> {
        changes[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|y| y.as_i64().unwrap())
            .collect()
    };
    assert!(!years("years_before").contains(&2025) && years("years_after").contains(&2025));
    for unchanged in [
        "local_authority_traffic",
        "region_traffic_by_road_type",
        "regions",
    ] {
        let t = table(changes, unchanged);
        assert_eq!(counts(t), [0, 0, 0], "{unchanged}");
        assert_eq!(t["rows_before"], t["rows_after"]);
    }
    assert_eq!(changes["before"]["release"], "2024");
    assert_eq!(changes["after"]["release"], "2025");
}

#[test]
fn a_load_that_replaces_a_file_says_what_changed_and_keeps_it() {
    let dir = scratch_dir();
    let (db, old) = (dir.join("traffic.db"), dir.join("old.db"));
    let sample = repo_path("data/sample");
    let first = load_ok(&db, &["--release", "2024"], &[&sample]);
    assert!(
        !first.contains("Changes from"),
        "nothing replaced:\n{first}"
    );
    assert_eq!(stored_changes(&db), None);
    std::fs::copy(&db, &old).unwrap();

    let revised = revised_sample();
    let report_json = dir.join("report.json");
    let args = [
        "--release",
        "2025",
        "--report-json",
        report_json.to_str().unwrap(),
    ];
    let stderr = load_ok(&db, &args, &[&revised.dir]);
    assert!(
        stderr.contains("Changes from release 2024")
            && stderr.contains(&format!(
                "Count points: 1 new (999999), 1 retired ({})",
                revised.retired_id
            ))
            && stderr.contains("new: 2025")
            && stderr.contains("count_point_id 501, year 2019: 52290 -> 62290 (+10000)"),
        "{stderr}"
    );
    let report: Value = serde_json::from_slice(&std::fs::read(&report_json).unwrap()).unwrap();
    check_report(&report["changes"], &revised);
    let kept = stored_changes(&db).expect("the changes are kept in the new file");
    assert_eq!(kept, report["changes"]);

    // `diff OLD NEW` on the same two files says the same.
    let diff_json = dir.join("diff.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_roadtraffic-load"))
        .args(["diff", old.to_str().unwrap(), db.to_str().unwrap()])
        .args(["--report-json", diff_json.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("Count points: 1 new"));
    let diff: Value = serde_json::from_slice(&std::fs::read(&diff_json).unwrap()).unwrap();
    assert_eq!(diff, kept);

    // The server shows it.
    let server = serve(&db, &[]);
    let reply = get(&server, "/api/releases/latest/changes");
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json(), kept);
    let etag = reply.header("etag").unwrap();
    assert!(etag.starts_with('"'), "{etag}");
    assert_eq!(
        request(&server, "POST", "/api/releases/latest/changes", &[]).status,
        405
    );
    // Gzipped with --compress, under a weak tag: other bytes than the plain body's.
    let compressing = serve(&db, &["--compress"]);
    let target = b"/api/releases/latest/changes";
    let gz = raw_request(&compressing, target, "Accept-Encoding: gzip\r\n");
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    assert_eq!(gz.header("etag"), Some(format!("W/{etag}").as_str()));
    // And the about page, in words: the revision of count point 501's 2019 count among them.
    let about = get(&server, "/about").text();
    assert!(about.contains("What changed with this release"), "{about}");
    assert!(about.contains("1 count points new, 1 retired"), "{about}");
    assert!(
        about.contains("count_point_id 501, year 2019")
            && about.contains("52,290")
            && about.contains("62,290"),
        "{about}"
    );
}

#[test]
fn the_same_release_again_changes_nothing_and_a_first_load_has_no_report() {
    let dir = scratch_dir();
    let db = dir.join("traffic.db");
    let sample = repo_path("data/sample");
    load_ok(&db, &["--quiet"], &[&sample]);
    let stderr = load_ok(&db, &[], &[&sample]);
    assert!(
        stderr.contains("none: every table holds the same rows"),
        "{stderr}"
    );
    let kept = stored_changes(&db).unwrap();
    assert!(kept["tables"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["added"] == 0 && t["removed"] == 0 && t["changed"] == 0));

    let first_load = sample_server();
    let reply = get(first_load, "/api/releases/latest/changes");
    assert_eq!(reply.status, 404);
    assert!(get(first_load, "/about")
        .text()
        .contains("replaced no earlier one"));
    assert!(reply.json()["message"]
        .as_str()
        .unwrap()
        .contains("replaced no earlier file"));
}

#[test]
fn diff_refuses_what_is_not_a_loaded_file() {
    let dir = scratch_dir();
    let not_ours = dir.join("notes.db");
    rusqlite::Connection::open(&not_ours)
        .unwrap()
        .execute_batch("CREATE TABLE notes (x)")
        .unwrap();
    for (old, new) in [
        (sample_db().to_path_buf(), not_ours.clone()),
        (dir.join("absent.db"), sample_db().to_path_buf()),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_roadtraffic-load"))
            .args(["diff", old.to_str().unwrap(), new.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert!(stderr.contains("roadtraffic-load diff:"), "{stderr}");
    }
}
