//! A release bigger than the sample: a national file of megabytes, whose bodies the server
//! streams a chunk (256 KiB) at a time, and a Parquet file of several row groups (131,072 rows
//! each), whose order and statistics then matter.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::*;

/// Count days (12 hours each) of the generated raw counts: 144,000 rows, two row groups.
const DAYS: usize = 12_000;

const CSV: &str = "/downloads/dft_traffic_counts_raw_counts.csv";
const PARQUET: &str = "/downloads/dft_traffic_counts_raw_counts.parquet";

/// Raw counts whose years, local authorities and places jump about in file (id) order, so
/// that the Parquet file's order (by place) differs from the CSV's. Each day is a count point
/// of its own, on a line north to south (its hours a little apart east to west).
fn raw_counts(dir: &Path) -> PathBuf {
    let mut text = String::from(
        "count_point_id,direction_of_travel,year,count_date,hour,region_id,\
         local_authority_id,road_name,road_type,latitude,longitude,all_motor_vehicles\n",
    );
    for day in 0..DAYS {
        let year = 2015 + (day * 7) % 10;
        let date = format!("{year}-0{}-1{}", 3 + day % 6, day % 10);
        let area = 100 + (day * 5) % 13;
        let road = ["A1", "M4", "B1234", "High Street"][day % 4];
        let north = (day * 7_919) % DAYS;
        for hour in 7..19 {
            text.push_str(&format!(
                "{},N,{year},{date},{hour},9,{area},\"{road}\",Major,51.{north:05},-3.{hour:02}1,{}\n",
                10_000 + day,
                day * 3 + hour
            ));
        }
    }
    let path = dir.join("raw.csv");
    std::fs::write(&path, text).unwrap();
    path
}

/// The release's file, loaded once for the whole run.
pub(super) fn big_db() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = scratch_dir();
        let db = dir.join("big.db");
        load_ok(&db, &["--quiet"], &[&raw_counts(&dir)]);
        db
    })
}

pub(super) fn big_server() -> &'static TestServer {
    static SERVER: OnceLock<TestServer> = OnceLock::new();
    // Only the files asked for are written: the zip is not.
    SERVER.get_or_init(|| serve(big_db(), &["--lazy-downloads"]))
}

const CHUNK: usize = 256 * 1024;

#[test]
fn ranges_of_a_file_streamed_in_chunks() {
    let server = big_server();
    let full = download(server, CSV);
    let len = full.len();
    assert!(len > 4 * CHUNK, "{len} bytes");
    // Single parts across chunk boundaries, and one of many chunks.
    for (first, last) in [
        (CHUNK - 10, CHUNK + 10),
        (1, 3 * CHUNK + 7),
        (len - CHUNK - 1, len - 1),
    ] {
        let reply = request(
            server,
            "GET",
            CSV,
            &[("Range", &format!("bytes={first}-{last}"))],
        );
        assert_eq!(reply.status, 206);
        let content_range = format!("bytes {first}-{last}/{len}");
        assert_eq!(reply.header("content-range"), Some(content_range.as_str()));
        assert!(reply.body == full[first..=last], "{content_range}");
    }
    // Several parts, each bigger than a chunk.
    let range = format!("bytes=0-{},{}-{}", CHUNK + 1, 2 * CHUNK, 3 * CHUNK + 5);
    let reply = request(server, "GET", CSV, &[("Range", &range)]);
    let parts = super::ranges::parts(&reply);
    assert_eq!(parts.len(), 2, "{range}");
    for ((first, last, total), bytes) in parts {
        assert_eq!(total, len);
        assert!(bytes[..] == full[first..=last], "{first}-{last}");
    }
}

/// The covering box's statistics of each row group (xmin, ymin, xmax, ymax), checked to bound
/// its rows' points.
fn box_bounds(file: &Parquet) -> Vec<[f64; 4]> {
    let leaf = |name: &str| {
        let columns = file
            .metadata
            .file_metadata()
            .schema_descr()
            .columns()
            .to_vec();
        (columns.iter().position(|c| c.path().string() == name))
            .unwrap_or_else(|| panic!("no {name}"))
    };
    let leaves = ["bbox.xmin", "bbox.ymin", "bbox.xmax", "bbox.ymax"].map(leaf);
    let mut places = file.places.iter().flatten();
    let groups = file.metadata.row_groups().iter().map(|group| {
        let stat = |at: usize, min: bool| match group.column(at).statistics() {
            Some(Statistics::Double(s)) => *(if min { s.min_opt() } else { s.max_opt() }).unwrap(),
            other => panic!("no DOUBLE statistics of the box: {other:?}"),
        };
        let bounds = [
            stat(leaves[0], true),
            stat(leaves[1], true),
            stat(leaves[2], false),
            stat(leaves[3], false),
        ];
        for place in places.by_ref().take(group.num_rows() as usize) {
            let (x, y) = place.point.expect("a point");
            assert!(bounds[0] <= x && x <= bounds[2] && bounds[1] <= y && y <= bounds[3]);
        }
        bounds
    });
    groups.collect()
}

/// The rows go by place: each row group covers a part of the map the others barely enter, so
/// a box skips most of them; the year statistics still bound their rows.
#[test]
fn row_groups_by_place_bound_their_rows() {
    let server = big_server();
    let file = Parquet::read(&download(server, PARQUET));
    let csv = Csv::read(&download(server, CSV));
    assert_eq!(csv.rows.len(), DAYS * 12);
    assert_same_rows(
        &file,
        &csv.sorted_as_national_parquet(&file),
        "the big raw counts",
    );
    year_bounds(&file);
    let boxes = box_bounds(&file);
    assert!(boxes.len() >= 2, "{boxes:?}");
    // The count points lie along a line north to south, every year at each: in year order
    // each group would span the whole line; by place at least one group's worth of the line
    // is skipped (the curve crosses a line of cells back and forth, so not more here).
    let span = |b: &[f64; 4]| b[3] - b[1];
    let whole = boxes
        .iter()
        .fold([f64::MAX, f64::MAX, f64::MIN, f64::MIN], |a, b| {
            [
                a[0].min(b[0]),
                a[1].min(b[1]),
                a[2].max(b[2]),
                a[3].max(b[3]),
            ]
        });
    let covered: f64 = boxes.iter().map(span).sum();
    let year_order = boxes.len() as f64 * span(&whole);
    assert!(covered <= year_order - span(&whole), "{boxes:?}");
}
