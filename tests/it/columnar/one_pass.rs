//! The national files written by the load itself (issue 36), Parquet, CSV and zip: there
//! before the server starts, served as written, and the bytes the server writes from SQLite.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::*;

/// The national files of every dataset, as Parquet.
const NATIONAL: [&str; 7] = [
    "dft_traffic_counts_aadf.parquet",
    "dft_traffic_counts_aadf_by_direction.parquet",
    "count_points.parquet",
    "dft_traffic_counts_raw_counts.parquet",
    "local_authority_traffic.parquet",
    "region_traffic_by_road_type.parquet",
    "region_traffic_by_vehicle_type.parquet",
];

/// Every national file: each dataset's as Parquet, as CSV and zipped.
fn national_files() -> Vec<String> {
    let stems = NATIONAL.iter().map(|n| n.strip_suffix(".parquet").unwrap());
    let files = stems.flat_map(|stem| [".parquet", ".csv", ".zip"].map(|s| format!("{stem}{s}")));
    files.collect()
}

/// The one release folder under a downloads root (`{id}-v{version}`), and nothing else.
fn release_folder(root: &Path) -> PathBuf {
    let entries: Vec<PathBuf> = (std::fs::read_dir(root).unwrap().flatten())
        .map(|e| e.path())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries[0].clone()
}

/// pyarrow's reading of two files: whether their tables are equal, and their `geo` keys.
const SAME_DATA: &str = r#"
import json, sys
import pyarrow.parquet as pq
a, b = pq.read_table(sys.argv[1]), pq.read_table(sys.argv[2])
geo = lambda p: json.loads((pq.read_metadata(p).metadata or {}).get(b"geo", b"null"))
ga, gb = geo(sys.argv[1]), geo(sys.argv[2])
print(json.dumps({"equal": a.equals(b), "rows": a.num_rows, "same_geo": ga == gb,
                  "geo": ga is not None, "same_schema": a.schema.equals(b.schema)}))
"#;

/// Loads `input` into `db`: what the load logs of its national files.
fn load_logging(db: &Path, input: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_roadtraffic-load"))
        .env("RUST_LOG", "roadtraffic_loader::national=info")
        .args(["--quiet", "--db"])
        .args([db, input])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{log}");
    log
}

/// What the load logs of a CSV file it could not keep as written from the rows.
const FROM_THE_TABLE: &str = "its CSV file is written from the table";

#[test]
fn the_load_writes_every_national_file_that_the_server_serves_as_written() {
    let dir = scratch_dir();
    let db = dir.join("one-pass.db");
    let log = load_logging(&db, &repo_path("data/sample"));
    // Every row names its areas as the areas' tables do: each CSV file is whole as written.
    assert!(!log.contains(FROM_THE_TABLE), "{log}");
    assert!(
        log.contains("dft_traffic_counts_raw_counts.csv written"),
        "{log}"
    );
    served_as_written_and_as_the_server_writes(&dir, &db);
}

/// The sample's files written into `input`, each file's lines (header first) edited on the
/// way by `edit(file name, lines)`.
fn sample_edited(input: &Path, edit: impl Fn(&str, &mut Vec<String>)) -> PathBuf {
    std::fs::create_dir_all(input).unwrap();
    for entry in std::fs::read_dir(repo_path("data/sample"))
        .unwrap()
        .flatten()
    {
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        edit(entry.file_name().to_str().unwrap(), &mut lines);
        std::fs::write(input.join(entry.file_name()), lines.join("\n") + "\n").unwrap();
    }
    input.to_path_buf()
}

/// Rows that come scattered (each count point's here and there in the file), sorted through
/// runs of 4 KiB: a count point's rows are read back from many runs, and the files are still
/// the server's bytes.
#[test]
fn scattered_rows_sorted_through_many_runs_make_the_same_files() {
    let dir = scratch_dir();
    let input = sample_edited(&dir.join("scattered"), |_, lines| {
        // Every 7th row, from each of 7 starting rows in turn: a fixed scattering.
        let rows = lines.split_off(1);
        lines.extend((0..7).flat_map(|k| rows.iter().skip(k).step_by(7).cloned()));
    });
    let db = dir.join("scattered.db");
    stdout_of(
        Command::new(env!("CARGO_BIN_EXE_roadtraffic-load"))
            .env("ROADTRAFFIC_SPILL_BYTES", "4096")
            .args(["--quiet", "--db"])
            .args([&db, &input]),
    );
    served_as_written_and_as_the_server_writes(&dir, &db);
}

/// Text that must be quoted (quotes, a comma, a backslash, a line end), written into the CSV
/// file as the rows come; and an area named by an earlier row otherwise than by its latest
/// year's, whose file is written again from its table: both still the server's bytes.
#[test]
fn quoted_text_and_renamed_areas_make_the_same_csv_files() {
    let dir = scratch_dir();
    let input = sample_edited(&dir.join("odd"), |file, lines| match file {
        "dft_traffic_counts_aadf.csv" => {
            let quoted = ",\"Junction \"\"A\"\", B\\C\",27,";
            lines[1] = lines[1].replacen(",28,27,", quoted, 1);
            lines[2] = lines[2].replacen(",A891,", ",\"line one\nline two\",", 1);
        }
        // The first row's local authority (Newport, of 2019, not its latest year).
        "dft_traffic_counts_aadf_by_direction.csv" => {
            lines[1] = lines[1].replacen(",Newport,", ",\"Newport, \"\"old\"\"\",", 1);
        }
        _ => {}
    });
    let db = dir.join("odd.db");
    let log = load_logging(&db, &input);
    // The renamed area's file is written again from its table; the others stand as written.
    let again = format!("aadf_by_direction: areas named otherwise by some rows, or ids out of order: {FROM_THE_TABLE}");
    assert!(log.contains(&again), "{log}");
    assert_eq!(log.matches(FROM_THE_TABLE).count(), 1, "{log}");
    served_as_written_and_as_the_server_writes(&dir, &db);
    let mut root = db.as_os_str().to_owned();
    root.push(".downloads");
    let folder = release_folder(Path::new(&root));
    let csv = std::fs::read_to_string(folder.join("dft_traffic_counts_aadf.csv")).unwrap();
    assert!(csv.contains(",\"Junction \"\"A\"\", B\\C\",27,"), "{csv}");
    assert!(csv.contains(",\"line one\nline two\",A8118,"), "{csv}");
    // The latest year's name, on every row of the area.
    let file = folder.join("dft_traffic_counts_aadf_by_direction.csv");
    let csv = std::fs::read_to_string(file).unwrap();
    assert!(
        csv.contains(",Newport,") && !csv.contains("Newport, "),
        "{csv}"
    );
}

/// The national files a load left beside `db`: each with its tag, served as written by a
/// server of `db`, and byte for byte what a server writes of them from SQLite.
fn served_as_written_and_as_the_server_writes(dir: &Path, db: &Path) {
    let mut root = db.as_os_str().to_owned();
    root.push(".downloads");
    let folder = release_folder(Path::new(&root));
    let names = national_files();
    let written: Vec<Vec<u8>> = (names.iter())
        .map(|name| std::fs::read(folder.join(name)).unwrap())
        .collect();
    // Served as written: the very bytes, with the tag the load gave them.
    let server = serve(db, &["--lazy-downloads"]);
    for (name, bytes) in names.iter().zip(&written) {
        let etag = std::fs::read_to_string(folder.join(format!("{name}.etag"))).unwrap();
        assert_eq!(etag.len(), 34, "{name}: {etag}");
        let reply = get(&server, &format!("/downloads/{name}"));
        assert_eq!(reply.status, 200, "{name}");
        assert!(reply.body == *bytes, "{name}: not the bytes the load wrote");
        assert_eq!(reply.header("etag"), Some(etag.as_str()), "{name}");
    }
    // The server's own writing of them from SQLite (another downloads folder): one writer of
    // each form for both programs, so the same bytes.
    let own = dir.join("written-by-the-server");
    let own_arg = own.display().to_string();
    let writer = serve(db, &["--lazy-downloads", "--downloads-dir", &own_arg]);
    for (name, bytes) in names.iter().zip(&written) {
        let reply = get(&writer, &format!("/downloads/{name}"));
        assert_eq!(reply.status, 200, "{name}");
        assert!(reply.body.len() > 100, "{name}: {} bytes", reply.body.len());
        assert!(
            reply.body == *bytes,
            "{name}: not the bytes the server writes"
        );
    }
    let Some(python) = python_with("pyarrow", "pip install pyarrow") else {
        return;
    };
    for name in NATIONAL {
        let theirs = own.join(name);
        let theirs = match theirs.exists() {
            true => theirs,
            false => {
                let body = get(&writer, &format!("/downloads/{name}")).body;
                let path = dir.join(format!("server-{name}"));
                std::fs::write(&path, body).unwrap();
                path
            }
        };
        let out = stdout_of(
            Command::new(&python)
                .args(["-c", SAME_DATA])
                .args([&folder.join(name), &theirs]),
        );
        let got: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(got["equal"], true, "{name}: {got}");
        assert_eq!(got["same_geo"], true, "{name}: {got}");
        assert_eq!(got["same_schema"], true, "{name}: {got}");
        assert!(got["rows"].as_u64() > Some(0), "{name}: {got}");
        let places = !name.starts_with("region") && !name.starts_with("local");
        assert_eq!(got["geo"], places, "{name}: {got}");
    }
}

/// A refused load leaves nothing in the downloads folder but what was there.
#[test]
fn a_refused_load_leaves_no_national_file() {
    let dir = scratch_dir();
    let db = dir.join("refused.db");
    let bad = dir.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    let sample = repo_path("data/sample/dft_traffic_counts_aadf.csv");
    let mut text = std::fs::read_to_string(sample).unwrap();
    text.push_str("not,a,row,of,aadf\n");
    std::fs::write(bad.join("dft_traffic_counts_aadf.csv"), text).unwrap();
    let run = load(&db, &["--quiet"], &[&bad]);
    assert!(!run.ok, "{}", run.stderr);
    let left: Vec<_> = (std::fs::read_dir(&dir).unwrap().flatten())
        .map(|e| e.file_name())
        .filter(|name| name != "bad")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
