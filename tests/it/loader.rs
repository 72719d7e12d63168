//! The loader contract (../shared/spec/LOADER.md): real files, the quirks of every format,
//! bad input, duplicates and atomicity.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use crate::support::*;

const AADF_HEADER: &str = "count_point_id,year,region_id,region_name,region_ons_code,local_authority_id,local_authority_name,local_authority_code,road_name,road_category,road_type,start_junction_road_name,end_junction_road_name,easting,northing,latitude,longitude,link_length_km,link_length_miles,estimation_method,estimation_method_detailed,pedal_cycles,two_wheeled_motor_vehicles,cars_and_taxis,buses_and_coaches,LGVs,HGVs_2_rigid_axle,HGVs_3_rigid_axle,HGVs_4_or_more_rigid_axle,HGVs_3_or_4_articulated_axle,HGVs_5_articulated_axle,HGVs_6_articulated_axle,all_HGVs,all_motor_vehicles";

fn aadf_row(cp: i64, year: i64) -> String {
    format!("{cp},{year},9,South East,E12000008,110,\"Brighton and Hove\",E06000043,A23,PA,Major,\"A27, Patcham\",B2036,530000,110000,50.85,-0.14,2.10,1.30,Counted,Manual count,5,10,1000,20,200,10,5,5,5,5,5,35,1265")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn db_in(dir: &Path) -> PathBuf {
    dir.join("t.db")
}

fn query_i64(db: &Path, sql: &str) -> i64 {
    Connection::open(db)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

fn query_text(db: &Path, sql: &str) -> Option<String> {
    Connection::open(db)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

/// Every real file loads with its row count, and a sample of rows equals the CSV cell by cell.
#[test]
fn real_files_load_with_equal_values() {
    let Some(real) = real_data() else { return };
    let files = [
        (
            "aadf/dft_aadf_local_authority_id_129__p379572102.csv",
            "aadf",
            1955,
        ),
        (
            "aadf/dft_aadf_local_authority_id_63__mahardi89.csv",
            "aadf",
            5416,
        ),
        (
            "count_points/dft_countpoints_region_id_6__ashwin-v4.csv",
            "count_points",
            3630,
        ),
        (
            "raw_counts/dft_rawcount_local_authority_id_31__williamjones7.csv",
            "raw_counts",
            13116,
        ),
        (
            "local_authority_traffic/local_authority_traffic__HBudnitz_2023release.csv",
            "local_authority_traffic",
            6353,
        ),
        (
            "local_authority_traffic/local_authority_traffic__sbabatunde20_2019release.csv",
            "local_authority_traffic",
            5529,
        ),
        (
            "region_traffic/region_traffic_by_road_type__as_region_traffic_csv__neze-papreja.csv",
            "region_traffic_by_road_type",
            1645,
        ),
        (
            "region_traffic/region_traffic_by_vehicle_type__dariatcch_2023release.csv",
            "region_traffic_by_vehicle_type",
            341,
        ),
        (
            "region_traffic/region_traffic_by_vehicle_type__saturnlighting_2022-09.csv",
            "region_traffic_by_vehicle_type",
            308,
        ),
    ];
    let dir = scratch_dir();
    for (file, table, rows) in files {
        let db = dir.join(format!("{table}-{rows}.db"));
        let csv_path = real.join(file);
        load_ok(&db, &["--quiet"], &[&csv_path]);
        let count = query_i64(&db, &format!("SELECT count(*) FROM {table}"));
        assert_eq!(count, rows, "{file}");
        compare_rows(&db, table, &csv_path);
    }
}

/// Compares rows 1, 2, the middle and the last of a CSV with the loaded rows, for every column
/// the two share by name (count points are looked up by count_point_id, others by file order).
fn compare_rows(db: &Path, table: &str, csv_path: &Path) {
    let conn = Connection::open(db).unwrap();
    let mut rdr = csv::Reader::from_path(csv_path).unwrap();
    let headers: Vec<String> = rdr
        .headers()
        .unwrap()
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').to_lowercase())
        .collect();
    let records: Vec<csv::StringRecord> = rdr.records().map(|r| r.unwrap()).collect();
    let columns: Vec<String> = conn
        .prepare(&format!("SELECT * FROM {table} LIMIT 0"))
        .unwrap()
        .column_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    for i in [0, 1, records.len() / 2, records.len() - 1] {
        let record = &records[i];
        let key = if table == "count_points" {
            let at = headers.iter().position(|h| h == "count_point_id").unwrap();
            record[at].to_string()
        } else {
            (i + 1).to_string()
        };
        let mut stmt = conn
            .prepare(&format!("SELECT * FROM {table} WHERE id = ?1"))
            .unwrap();
        let mut rows = stmt.query([key.parse::<i64>().unwrap()]).unwrap();
        let row = rows
            .next()
            .unwrap()
            .unwrap_or_else(|| panic!("{table} row {key}"));
        let mut compared = 0;
        for (h, cell) in headers.iter().zip(record.iter()) {
            // The columns that are published under another name, per LOADER.md.
            let name = match (table, h.as_str()) {
                ("local_authority_traffic", "local_authority_code") => "ons_code",
                ("region_traffic_by_road_type", "road_category_name") => "road_category",
                (_, "link_length_km" | "link_length_miles") if table.starts_with("region_") => {
                    if h == "link_length_km" {
                        "total_link_length_km"
                    } else {
                        "total_link_length_miles"
                    }
                }
                _ => h.as_str(),
            };
            let Some(at) = columns
                .iter()
                .position(|c| c == name)
                .filter(|_| name != "id")
            else {
                continue;
            };
            let stored = row.get_ref(at).unwrap();
            let ok = match stored {
                ValueRef::Null => cell.trim().is_empty(),
                // Dates lose a published time part (`2000-05-03 00:00:00`); text is verbatim.
                ValueRef::Text(t) => {
                    let t = std::str::from_utf8(t).unwrap();
                    t == cell || (name == "count_date" && cell.split(' ').next() == Some(t))
                }
                ValueRef::Integer(v) => cell
                    .trim()
                    .parse::<f64>()
                    .map(|c| c.round() as i64 == v)
                    .unwrap_or(false),
                ValueRef::Real(v) => cell
                    .trim()
                    .parse::<f64>()
                    .map(|c| (c - v).abs() < 1e-9)
                    .unwrap_or(false),
                ValueRef::Blob(_) => false,
            };
            assert!(
                ok,
                "{} row {}: {name}: stored {stored:?}, published {cell:?}",
                csv_path.display(),
                i + 2
            );
            compared += 1;
        }
        assert!(compared >= 3, "{table}: compared only {compared} columns");
    }
}

#[test]
fn old_eras_are_refused_naming_the_era() {
    let Some(real) = real_data() else { return };
    let db = scratch_dir().join("old.db");
    for (file, era) in [
        (
            "old_eras/Devon__api_v2_export_la_2017-01-22__louMoxy.csv",
            "CamelCase",
        ),
        (
            "old_eras/gaffer_roadTrafficSampleData__2015issue_rawcount_major_roads.csv",
            "short-code",
        ),
    ] {
        let run = load(&db, &["--quiet"], &[&real.join(file)]);
        assert!(!run.ok);
        assert!(
            run.stderr.contains(era) && run.stderr.contains("2015-2019"),
            "{}",
            run.stderr
        );
        assert!(!db.exists());
    }
}

#[test]
fn national_file_quirks_bom_crlf_capitals_quoting_notation() {
    let dir = scratch_dir();
    // 2022/2023 style: BOM, CRLF, Capitalised names, every field quoted, no final newline.
    let header: String = AADF_HEADER
        .split(',')
        .map(|h| {
            let mut c = h.chars();
            let first = c.next().unwrap().to_ascii_uppercase();
            format!("\"{first}{}\"", c.as_str())
        })
        .collect::<Vec<_>>()
        .join(",");
    let row = |cp: i64| {
        let line = aadf_row(cp, 2022);
        let record = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(line.as_bytes())
            .records()
            .next()
            .unwrap()
            .unwrap();
        let mut w = csv::WriterBuilder::new()
            .quote_style(csv::QuoteStyle::Always)
            .terminator(csv::Terminator::CRLF)
            .from_writer(vec![]);
        w.write_record(&record).unwrap();
        String::from_utf8(w.into_inner().unwrap())
            .unwrap()
            .trim_end()
            .to_string()
    };
    let text = format!("\u{feff}{header}\r\n{}\r\n{}", row(1), row(2));
    let a = write(&dir, "national.csv", &text);
    // Only text with spaces quoted, numbers in exponent and odd notations, dates with times.
    let raw = "count_point_id,direction_of_travel,year,count_date,hour,region_id,region_name,local_authority_id,local_authority_name,road_name,road_type,start_junction_road_name,end_junction_road_name,easting,northing,latitude,longitude,link_length_km,link_length_miles,pedal_cycles,two_wheeled_motor_vehicles,cars_and_taxis,buses_and_coaches,lgvs,hgvs_2_rigid_axle,hgvs_3_rigid_axle,hgvs_4_or_more_rigid_axle,hgvs_3_or_4_articulated_axle,hgvs_5_articulated_axle,hgvs_6_articulated_axle,all_hgvs,all_motor_vehicles,sequence,ramp\n\
        7,N,2000,2000-05-03 00:00:00,7,9,\"South East\",110,\"Bristol, City of\",A4,Major,\"O'Neill & Sons\",A38,1,2,51.1,-2.5,.12000000000000000,0.1,0,1,1.2e+02,8.00E+00,0,0,0,0,0,0,0,0,130,1,\n";
    let b = write(&dir, "raw.csv", raw);
    let db = db_in(&dir);
    let stderr = load_ok(&db, &[], &[&a, &b]);
    assert_eq!(query_i64(&db, "SELECT count(*) FROM aadf"), 2);
    assert_eq!(
        query_text(
            &db,
            "SELECT start_junction_road_name FROM aadf WHERE id = 2"
        )
        .unwrap(),
        "A27, Patcham"
    );
    assert_eq!(query_i64(&db, "SELECT cars_and_taxis FROM raw_counts"), 120);
    assert_eq!(
        query_i64(&db, "SELECT buses_and_coaches FROM raw_counts"),
        8
    );
    assert_eq!(
        query_text(&db, "SELECT count_date FROM raw_counts").unwrap(),
        "2000-05-03"
    );
    assert_eq!(
        query_text(&db, "SELECT link_length_km FROM raw_counts").unwrap(),
        ".12000000000000000"
    );
    assert_eq!(
        query_text(&db, "SELECT start_junction_road_name FROM raw_counts").unwrap(),
        "O'Neill & Sons"
    );
    assert_eq!(
        query_text(&db, "SELECT name FROM local_authorities WHERE id = 110").unwrap(),
        "Brighton and Hove",
        "latest year's name wins"
    );
    assert_eq!(
        query_text(&db, "SELECT road_category FROM raw_counts"),
        None,
        "split files have no road category"
    );
    assert!(
        stderr.contains("sequence, ramp"),
        "ignored columns reported: {stderr}"
    );
    assert_eq!(
        query_i64(&db, "SELECT country_id FROM regions WHERE id = 9"),
        1
    );
}

#[test]
fn raw_counts_2020_typo_and_capitalised_la_traffic() {
    let dir = scratch_dir();
    let raw = "\"count_point_id\",\"direction_of_travel\",\"year\",\"count_date\",\"hour\",\"region_id\",\"region_name\",\"region_ons_code\",\"local_authority_id\",\"local_authority_name\",\"local_authoirty_ons_code\",\"road_name\",\"road_category\",\"road_type\",\"start_junction_road_name\",\"end_junction_road_name\",\"easting\",\"northing\",\"latitude\",\"longitude\",\"link_length_km\",\"link_length_miles\",\"pedal_cycles\",\"two_wheeled_motor_vehicles\",\"cars_and_taxis\",\"buses_and_coaches\",\"lgvs\",\"hgvs_2_rigid_axle\",\"hgvs_3_rigid_axle\",\"hgvs_4_or_more_rigid_axle\",\"hgvs_3_or_4_articulated_axle\",\"hgvs_5_articulated_axle\",\"hgvs_6_articulated_axle\",\"all_hgvs\",\"all_motor_vehicles\"\n\
        \"51\",\"E\",\"2020\",\"2020-06-17\",\"0\",\"4\",\"Wales\",\"W92000004\",\"9\",\"Isle of Anglesey\",\"W06000001\",\"A5025\",\"PA\",\"Major\",\"A5\",\"B5111\",\"1\",\"2\",\"53.2\",\"-4.3\",\"1.0\",\"0.6\",\"0\",\"-1\",\"50\",\"0\",\"5\",\"0\",\"0\",\"0\",\"0\",\"0\",\"0\",\"0\",\"55\"\n";
    let la = "\u{feff}Local_authority_id,Local_authority_name,Local_authority_code,Year,Link_length_km,Link_length_miles,Cars_and_taxis,All_motor_vehicles\r\n9,Isle of Anglesey,W06000001,2020,1200.5,745.9,918298.653,1.2e+06\r\n";
    let db = db_in(&dir);
    let report = dir.join("report.json");
    load_ok(
        &db,
        &["--report-json", report.to_str().unwrap()],
        &[&write(&dir, "raw.csv", raw), &write(&dir, "la.csv", la)],
    );
    assert_eq!(
        query_text(&db, "SELECT ons_code FROM local_authorities WHERE id = 9").unwrap(),
        "W06000001"
    );
    assert_eq!(
        query_i64(&db, "SELECT cars_and_taxis FROM local_authority_traffic"),
        918299,
        "rounded"
    );
    assert_eq!(
        query_i64(
            &db,
            "SELECT all_motor_vehicles FROM local_authority_traffic"
        ),
        1_200_000
    );
    assert_eq!(
        query_i64(&db, "SELECT region_id FROM local_authority_traffic"),
        4,
        "region taken from the other files"
    );
    assert_eq!(
        query_i64(&db, "SELECT country_id FROM regions WHERE id = 4"),
        3
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let kinds: Vec<&str> = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"negative_count")
            && kinds.contains(&"hour_zero")
            && kinds.contains(&"total_mismatch"),
        "{kinds:?}"
    );
    assert_eq!(
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["table"] == "raw_counts")
            .unwrap()["rows"],
        1
    );
}

/// Each bad input refuses the load with `file:line: column: reason` and changes nothing; with
/// --skip-bad-rows the bad rows are skipped and listed.
#[test]
fn bad_rows_refused_with_their_place_or_skipped() {
    let dir = scratch_dir();
    let cases = [
        (
            "fields.csv",
            format!(
                "{AADF_HEADER}\n{}\n{},extra\n",
                aadf_row(1, 2020),
                aadf_row(2, 2020)
            ),
            "fields.csv:3: expected 34 fields",
        ),
        (
            "text.csv",
            format!(
                "{AADF_HEADER}\n{}\n",
                aadf_row(1, 2020).replace(",1000,", ",lots,")
            ),
            "text.csv:2: cars_and_taxis: value 'lots' is not a whole number",
        ),
        (
            "fraction.csv",
            format!(
                "{AADF_HEADER}\n{}\n",
                aadf_row(1, 2020).replace(",1000,", ",1000.5,")
            ),
            "fraction.csv:2: cars_and_taxis: value '1000.5' is not a whole number (it is a fraction)",
        ),
    ];
    let good = write(
        &dir,
        "good.csv",
        &format!("{AADF_HEADER}\n{}\n", aadf_row(1, 2020)),
    );
    for (name, text, expected) in &cases {
        let db = db_in(&dir);
        load_ok(&db, &["--quiet"], &[&good]);
        let previous = std::fs::read(&db).unwrap();
        let file = write(&dir, name, text);
        let run = load(&db, &["--quiet"], &[&file]);
        assert!(
            !run.ok && run.stderr.contains(expected),
            "{name}: {}",
            run.stderr
        );
        assert_eq!(std::fs::read(&db).unwrap(), previous);
        let report = dir.join("r.json");
        load_ok(
            &db,
            &[
                "--quiet",
                "--skip-bad-rows",
                // The one good row of text.csv and fraction.csv is skipped: fewer rows than
                // the file replaced.
                "--allow-shrink",
                "--report-json",
                report.to_str().unwrap(),
            ],
            &[&file],
        );
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        assert_eq!(json["rejected_count"], 1, "{name}");
        assert!(json["rejected"][0]["place"]
            .as_str()
            .unwrap()
            .ends_with(&format!(
                "{name}:{}",
                if *name == "fields.csv" { 3 } else { 2 }
            )));
    }
}

#[test]
fn files_that_are_not_data_are_refused_by_name() {
    let dir = scratch_dir();
    let db = db_in(&dir);
    for (name, text, expected) in [
        ("lfs.csv", "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 240497\n", "Git LFS pointer"),
        ("page.csv", "<!DOCTYPE html>\n<html><body>Not found</body></html>\n", "HTML"),
        ("other.csv", "name,colour\nx,red\n", "not a recognised"),
        ("missing.csv", "count_point_id,year,region_id,local_authority_id,road_name,road_type,estimation_method,direction_of_travel\n1,2020,1,1,A1,Major,Counted,N\n", "all_motor_vehicles"),
        ("empty.csv", "", "empty"),
    ] {
        let run = load(&db, &["--quiet"], &[&write(&dir, name, text)]);
        assert!(!run.ok && run.stderr.contains(name) && run.stderr.contains(expected), "{name}: {}", run.stderr);
        assert!(!db.exists());
    }
}

#[test]
fn duplicates_across_a_national_and_a_split_file() {
    let dir = scratch_dir();
    let national = write(
        &dir,
        "national.csv",
        &format!(
            "{AADF_HEADER}\n{}\n{}\n",
            aadf_row(1, 2020),
            aadf_row(2, 2020)
        ),
    );
    let split = write(
        &dir,
        "dft_aadf_local_authority_id_110.csv",
        &format!(
            "{AADF_HEADER}\n{}\n{}\n",
            aadf_row(3, 2020),
            aadf_row(2, 2020)
        ),
    );
    let db = db_in(&dir);
    let run = load(&db, &["--quiet"], &[&national, &split]);
    assert!(!run.ok);
    assert!(
        run.stderr.contains("dft_aadf_local_authority_id_110.csv:3")
            && run.stderr.contains("national.csv:3")
            && run.stderr.contains("--keep-first"),
        "{}",
        run.stderr
    );
    load_ok(&db, &["--quiet", "--keep-first"], &[&national, &split]);
    assert_eq!(query_i64(&db, "SELECT count(*) FROM aadf"), 3);
    assert_eq!(
        query_i64(&db, "SELECT max(id) FROM aadf"),
        3,
        "ids stay dense"
    );
}

#[test]
fn zips_read_in_place_and_directories_walked() {
    let dir = scratch_dir();
    let zip_path = dir.join("release.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("aadf/dft_traffic_counts_aadf.csv", opts)
        .unwrap();
    zip.write_all(
        format!(
            "{AADF_HEADER}\n{}\n{}\n",
            aadf_row(1, 2020),
            aadf_row(1, 2021)
        )
        .as_bytes(),
    )
    .unwrap();
    zip.start_file("readme.txt", opts).unwrap();
    zip.write_all(b"not data").unwrap();
    zip.finish().unwrap();
    std::fs::create_dir_all(dir.join("more/deeper")).unwrap();
    write(
        &dir.join("more/deeper"),
        "aadf_2.csv",
        &format!("{AADF_HEADER}\n{}\n", aadf_row(2, 2021)),
    );
    let db = db_in(&dir);
    load_ok(
        &db,
        &["--quiet", "--release", "test-2021"],
        &[&zip_path, &dir.join("more")],
    );
    assert_eq!(query_i64(&db, "SELECT count(*) FROM aadf"), 3);
    assert_eq!(
        query_i64(&db, "SELECT aadf_year FROM count_points WHERE id = 1"),
        2021
    );
    assert_eq!(
        query_text(&db, "SELECT value FROM metadata WHERE key = 'release'").unwrap(),
        "test-2021"
    );
    let sources = query_text(&db, "SELECT value FROM metadata WHERE key = 'sources'").unwrap();
    assert!(
        sources.contains("release.zip") && sources.contains("sha256"),
        "{sources}"
    );
}

#[test]
fn a_failed_load_leaves_the_old_file_byte_identical() {
    let dir = scratch_dir();
    let db = db_in(&dir);
    let good = write(
        &dir,
        "good.csv",
        &format!("{AADF_HEADER}\n{}\n", aadf_row(1, 2020)),
    );
    load_ok(&db, &["--quiet"], &[&good]);
    let before = std::fs::read(&db).unwrap();
    let bad = write(
        &dir,
        "bad.csv",
        &format!(
            "{AADF_HEADER}\n{}\n{}\n",
            aadf_row(2, 2020),
            aadf_row(3, 2020).replace("2020", "twenty")
        ),
    );
    assert!(!load(&db, &["--quiet"], &[&good, &bad]).ok);
    assert_eq!(std::fs::read(&db).unwrap(), before);
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().contains(".partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // A temporary file left by a killed load does not get in the way of the next one.
    std::fs::write(dir.join("t.db.partial"), b"debris of a killed load").unwrap();
    load_ok(&db, &["--quiet"], &[&good]);
    assert!(!dir.join("t.db.partial").exists());
}

#[test]
fn older_summary_table_variants() {
    let dir = scratch_dir();
    // LA traffic with `name` and `ONS_code`; region by road type with only road_category_id.
    let la = write(&dir, "la.csv", "local_authority_id,name,ONS_code,year,link_length_km,link_length_miles,cars_and_taxis,all_motor_vehicles\n7,Bridgend,W06000013,2018,1000.5,621.7,8.00E+05,1000000\n");
    let road = write(&dir, "road.csv", "year,region_id,region_name,ons_code,road_category_id,total_link_length_km,total_link_length_miles,all_motor_vehicles\n2018,4,Wales,W92000004,6,20000.1,12427.5,2.28e+08\n");
    let db = db_in(&dir);
    load_ok(&db, &["--quiet"], &[&la, &road]);
    assert_eq!(
        query_text(
            &db,
            "SELECT local_authority_name || ' ' || ons_code FROM local_authority_traffic"
        )
        .unwrap(),
        "Bridgend W06000013"
    );
    assert_eq!(
        query_i64(&db, "SELECT cars_and_taxis FROM local_authority_traffic"),
        800_000
    );
    assert_eq!(
        query_text(&db, "SELECT road_category FROM region_traffic_by_road_type").unwrap(),
        "MCU"
    );
    assert_eq!(
        query_i64(
            &db,
            "SELECT all_motor_vehicles FROM region_traffic_by_road_type"
        ),
        228_000_000
    );
    assert_eq!(
        query_text(
            &db,
            "SELECT name || ' ' || ons_code FROM regions WHERE id = 4"
        )
        .unwrap(),
        "Wales W92000004"
    );
    assert_eq!(
        query_text(&db, "SELECT name FROM local_authorities WHERE id = 7").unwrap(),
        "Bridgend"
    );
}

/// Raw counts keep their keys per count day (the grouped key set): duplicates across files are
/// found all the same, in the same run of rows or in another.
#[test]
fn raw_count_duplicates_across_files() {
    let dir = scratch_dir();
    let header = "count_point_id,direction_of_travel,year,count_date,hour,region_id,local_authority_id,road_name,road_type,all_motor_vehicles";
    let row = |cp: i64, dir: &str, date: &str, hour: i64| {
        format!("{cp},{dir},2020,{date},{hour},9,110,A23,Major,100")
    };
    let csv = |name: &str, rows: &[(i64, &str, &str, i64)]| {
        let lines: Vec<String> = rows
            .iter()
            .map(|(cp, d, date, h)| row(*cp, d, date, *h))
            .collect();
        write(&dir, name, &format!("{header}\n{}\n", lines.join("\n")))
    };
    let a = csv(
        "national.csv",
        &[
            (1, "N", "2020-05-01", 7),
            (1, "N", "2020-05-01", 8),
            (1, "S", "2020-05-01", 8),
            (2, "N", "2020-05-02", 7),
        ],
    );
    // The split repeats (1, S, 2020-05-01, 8) in a run of its own, and (2, N, 2020-05-02, 7)
    // after a new hour of the same day.
    let b = csv(
        "split.csv",
        &[
            (1, "S", "2020-05-01", 8),
            (2, "N", "2020-05-02", 9),
            (2, "N", "2020-05-02", 7),
            (3, "E", "2020-05-01", 8),
        ],
    );
    let db = db_in(&dir);
    let run = load(&db, &["--quiet"], &[&a, &b]);
    assert!(!run.ok);
    assert!(
        run.stderr.contains("split.csv:2") && run.stderr.contains("national.csv:4"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("split.csv:4") && run.stderr.contains("national.csv:5"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("2 duplicate key(s)"), "{}", run.stderr);
    load_ok(&db, &["--quiet", "--keep-first"], &[&a, &b]);
    assert_eq!(query_i64(&db, "SELECT count(*) FROM raw_counts"), 6);
    assert_eq!(query_i64(&db, "SELECT max(id) FROM raw_counts"), 6);
}
