//! Downloads (issue 9): the national files round trip through the loader to the same tables;
//! the bundled sample's big files and the real split files come back byte for byte; every
//! listing whole as CSV and NDJSON; a national zip is the same from its CSV as from the rows;
//! unknown areas are 404s; an abandoned download costs nothing more.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::types::Value;
use rusqlite::Connection;

use crate::support::*;

/// Every table of a file, every row in id order, every value.
fn tables(db: &Path) -> Vec<(String, Vec<Vec<Value>>)> {
    let conn = Connection::open(db).unwrap();
    roadtraffic_catalog::DATASETS
        .iter()
        .map(|d| {
            let mut stmt = conn
                .prepare(&format!("SELECT * FROM {} ORDER BY id", d.table))
                .unwrap();
            let width = stmt.column_count();
            let rows = stmt
                .query_map([], |r| (0..width).map(|i| r.get::<_, Value>(i)).collect())
                .unwrap()
                .collect::<Result<Vec<Vec<Value>>, _>>()
                .unwrap();
            (d.table.to_string(), rows)
        })
        .collect()
}

fn national_names() -> Vec<&'static str> {
    roadtraffic_catalog::published()
        .map(|d| d.national_file().unwrap().name)
        .collect()
}

fn download_all(server: &TestServer, dir: &Path, zipped: bool) {
    for name in national_names() {
        let file = if zipped {
            name.replace(".csv", ".zip")
        } else {
            name.to_string()
        };
        let reply = get(server, &format!("/downloads/{file}"));
        assert_eq!(reply.status, 200, "{file}");
        std::fs::write(dir.join(&file), reply.body).unwrap();
    }
}

#[test]
fn national_files_and_their_zips_load_back_to_the_same_tables() {
    let server = sample_server();
    let original = tables(sample_db());
    for zipped in [false, true] {
        let dir = scratch_dir();
        let files = dir.join("files");
        std::fs::create_dir(&files).unwrap();
        download_all(server, &files, zipped);
        let db = dir.join("again.db");
        load_ok(&db, &["--quiet"], &[&files]);
        for ((table, want), (_, got)) in original.iter().zip(tables(&db)) {
            assert_eq!(want.len(), got.len(), "{table}: rows (zipped: {zipped})");
            assert!(*want == got, "{table}: values differ (zipped: {zipped})");
        }
    }
}

#[test]
fn a_national_zip_written_from_its_csv_is_the_zip_written_from_the_rows() {
    let server = |dir: &Path| {
        let dir = dir.to_str().unwrap();
        serve(sample_db(), &["--lazy-downloads", "--downloads-dir", dir])
    };
    let (from_rows, from_csv) = (server(&scratch_dir()), server(&scratch_dir()));
    for name in national_names() {
        let zip = format!("/downloads/{}", name.replace(".csv", ".zip"));
        let of_rows = get(&from_rows, &zip);
        assert_eq!(get(&from_csv, &format!("/downloads/{name}")).status, 200);
        let before = queries_run(&from_csv);
        let of_csv = get(&from_csv, &zip);
        assert_eq!(queries_run(&from_csv), before, "{zip}: the rows read again");
        assert_eq!((of_rows.status, of_csv.status), (200, 200), "{zip}");
        assert!(of_rows.body == of_csv.body, "{zip}: other bytes");
        assert_eq!(of_rows.header("etag"), of_csv.header("etag"), "{zip}");
    }
}

#[test]
fn the_samples_big_national_files_come_back_byte_for_byte() {
    let server = sample_server();
    // The sample is written as DfT writes its national files; the summary tables' totals come
    // back as whole numbers (the published ones are sometimes in exponent form).
    for name in [
        "dft_traffic_counts_aadf.csv",
        "dft_traffic_counts_aadf_by_direction.csv",
        "dft_traffic_counts_raw_counts.csv",
        "count_points.csv",
    ] {
        let published = std::fs::read(repo_path(&format!("data/sample/{name}"))).unwrap();
        assert!(
            get(server, &format!("/downloads/{name}")).body == published,
            "{name}"
        );
    }
    let alias = get(server, "/downloads/dft_count_points.csv").body;
    assert!(alias == get(server, "/downloads/count_points.csv").body);
}

/// A real split file loaded alone, and its area's split downloaded.
fn round_trip(real: &Path, file: &str, path: &str) {
    let db = scratch_dir().join("one.db");
    load_ok(&db, &["--quiet"], &[&real.join(file)]);
    let server = serve(&db, &[]);
    let reply = get(&server, &format!("/downloads/{path}"));
    assert_eq!(reply.status, 200, "{path}");
    assert!(
        reply.body == std::fs::read(real.join(file)).unwrap(),
        "{path} differs from {file}"
    );
}

#[test]
fn real_split_files_come_back_byte_for_byte() {
    let Some(real) = real_data() else { return };
    for (file, path) in [
        (
            "aadf/dft_aadf_local_authority_id_129__p379572102.csv",
            "aadf/local_authority_id/dft_aadf_local_authority_id_129.csv",
        ),
        (
            "aadf/dft_aadf_local_authority_id_63__mahardi89.csv",
            "aadf/local_authority_id/dft_aadf_local_authority_id_63.csv",
        ),
        (
            "count_points/dft_countpoints_region_id_6__ashwin-v4.csv",
            "countpoints/region_id/dft_countpoints_region_id_6.csv",
        ),
        (
            "raw_counts/dft_rawcount_local_authority_id_31__williamjones7.csv",
            "rawcount/local_authority_id/dft_rawcount_local_authority_id_31.csv",
        ),
    ] {
        round_trip(&real, file, path);
    }
}

#[test]
fn splits_of_every_kind_and_unknown_areas() {
    let server = sample_server();
    let cp = sample_rows("count_points"); // any count: the first count point is 501
    assert!(cp > 0);
    for path in [
        "aadf/count_point_id/dft_aadf_count_point_id_501.csv",
        "aadfbydirection/region_id/dft_aadfbydirection_region_id_4.csv",
        "rawcount/local_authority_id/dft_rawcount_local_authority_id_6.csv",
        "countpoints/local_authority_id/dft_countpoints_local_authority_id_6.csv",
        "traffic/local_authority_id/dft_traffic_local_authority_id_6.csv",
    ] {
        let reply = get(server, &format!("/downloads/{path}"));
        assert_eq!(reply.status, 200, "{path}");
        assert!(reply.text().lines().count() > 1, "{path} has no rows");
        let header = reply.text().lines().next().unwrap().to_string();
        assert!(
            header == header.to_ascii_lowercase()
                && !header.contains("ons_code")
                && !header.contains("road_category"),
            "{header}"
        );
    }
    for path in [
        "aadf/local_authority_id/dft_aadf_local_authority_id_999999.csv",
        "rawcount/count_point_id/dft_rawcount_count_point_id_501.csv",
        "aadf/local_authority_id/dft_aadf_region_id_6.csv",
        "nope.csv",
        "aadf/local_authority_id/dft_aadf_local_authority_id_x.csv",
    ] {
        let reply = get(server, &format!("/downloads/{path}"));
        assert_eq!(reply.status, 404, "{path}");
        assert!(reply.json()["message"]
            .as_str()
            .unwrap()
            .contains("could not be found"));
    }
}

#[test]
fn every_listing_whole_as_csv_and_ndjson() {
    let server = sample_server();
    let query =
        "filter%5Blocal_authority_id%5D=6&sort=-hour,id&fields=id,hour,road_name,cars_and_taxis";
    let pages = get(
        server,
        &format!("/api/raw-counts?{query}&page%5Bsize%5D=100000"),
    )
    .json();
    let records = pages["data"].as_array().unwrap();
    assert!(!records.is_empty());
    let ndjson = get(server, &format!("/api/raw-counts.ndjson?{query}"));
    assert_eq!(ndjson.header("content-type"), Some("application/x-ndjson"));
    let lines: Vec<serde_json::Value> = ndjson
        .text()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(&lines, records);
    let csv = get(server, &format!("/api/raw-counts.csv?{query}"));
    assert!(csv.header("content-type").unwrap().starts_with("text/csv"));
    let text = csv.text();
    let mut rows = text.lines();
    assert_eq!(rows.next(), Some("id,hour,road_name,cars_and_taxis"));
    let first = &records[0];
    assert_eq!(
        rows.next().unwrap(),
        format!(
            "{},{},{},{}",
            first["id"],
            first["hour"],
            first["road_name"].as_str().unwrap(),
            first["cars_and_taxis"]
        )
    );
    assert_eq!(text.lines().count(), records.len() + 1);
    // Unpaginated lists too, and bad parameters are 400s as in JSON.
    assert_eq!(
        get(server, "/api/regions.csv").text().lines().count() as i64,
        sample_rows("regions") + 1
    );
    assert_eq!(
        get(server, "/api/raw-counts.csv?filter%5Byear%5D=abc").status,
        400
    );
}

/// A raw counts file of `days` count days: enough rows for a download of many chunks.
fn many_raw_counts(dir: &Path, days: usize) -> PathBuf {
    let mut text = String::from("count_point_id,direction_of_travel,year,count_date,hour,region_id,local_authority_id,road_name,road_type,all_motor_vehicles\n");
    for day in 0..days {
        let date = format!("2019-0{}-1{}", 3 + day % 6, day % 10);
        for hour in 7..19 {
            // (day % 6, day % 10) repeats every 30 days: a new count point every 30.
            text.push_str(&format!(
                "{},N,2019,{date},{hour},9,110,A1,Major,{}\n",
                1000 + day / 30,
                hour * 10
            ));
        }
    }
    let path = dir.join("raw.csv");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn an_abandoned_download_costs_nothing_more() {
    let dir = scratch_dir();
    let db = dir.join("big.db");
    load_ok(&db, &["--quiet"], &[&many_raw_counts(&dir, 20_000)]);
    // One connection, so one heavy permit: a download that kept its permit would stop the next.
    let server = serve(&db, &["--connections", "2"]);
    for _ in 0..5 {
        let mut stream = std::net::TcpStream::connect(server.addr).unwrap();
        stream
            .write_all(
                b"GET /downloads/dft_traffic_counts_raw_counts.csv HTTP/1.1\r\nHost: x\r\n\r\n",
            )
            .unwrap();
        let mut some = vec![0u8; 64 * 1024];
        stream.read_exact(&mut some).unwrap();
        drop(stream);
    }
    let started = Instant::now();
    let whole = get(&server, "/downloads/dft_traffic_counts_raw_counts.csv");
    assert_eq!(whole.status, 200);
    assert_eq!(whole.text().lines().count(), 20_000 * 12 + 1);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}
