//! Every Parquet download read back with the `parquet` crate says what its CSV form says, cell
//! by cell: the national files, the split files, the API's listings, and the real files.

use std::path::Path;

use arrow_schema::DataType;

use super::*;

#[test]
fn each_national_parquet_holds_its_csvs_rows() {
    for (stem, rows) in assert_national_parquet_is_the_csv(sample_server()) {
        assert!(rows > 0, "{stem} has no rows");
    }
}

#[test]
fn national_parquet_columns_have_their_types() {
    let server = sample_server();
    let aadf = Parquet::read(&download(
        server,
        "/downloads/dft_traffic_counts_aadf.parquet",
    ));
    let raw = Parquet::read(&download(
        server,
        "/downloads/dft_traffic_counts_raw_counts.parquet",
    ));
    let by_road = Parquet::read(&download(
        server,
        "/downloads/region_traffic_by_road_type.parquet",
    ));
    for (file, column, want) in [
        (&aadf, "count_point_id", DataType::Int64),
        (&aadf, "year", DataType::Int32),
        (&aadf, "region_id", DataType::Int64),
        (&aadf, "easting", DataType::Int32),
        (&aadf, "northing", DataType::Int32),
        (&aadf, "latitude", DataType::Float64),
        (&aadf, "link_length_km", DataType::Float64),
        (&aadf, "road_name", DataType::Utf8),
        (&aadf, "local_authority_name", DataType::Utf8),
        (&aadf, "LGVs", DataType::Int64),
        (&aadf, "all_motor_vehicles", DataType::Int64),
        (&raw, "count_date", DataType::Date32),
        (&raw, "hour", DataType::Int32),
        (&raw, "direction_of_travel", DataType::Utf8),
        (&by_road, "road_category_id", DataType::Int32),
        (&by_road, "link_length_km", DataType::Float64),
    ] {
        assert_eq!(file.type_of(column), &want, "{column}");
    }
}

/// A file of records without places declares its sort (year, then local authority), and each
/// row group's year statistics bound its rows' years, so that a reader filtering on the year
/// skips the groups outside it. (Records with places go by place: `geo`.)
#[test]
fn row_groups_carry_year_statistics_and_the_sort() {
    let server = sample_server();
    let file = Parquet::read(&download(
        server,
        "/downloads/local_authority_traffic.parquet",
    ));
    let bounds = year_bounds(&file);
    assert!(bounds.iter().any(|(min, max)| min < max), "{bounds:?}");
    let (year, area) = (file.position("year"), file.position("local_authority_id"));
    for group in file.metadata.row_groups() {
        let sorting = group.sorting_columns().expect("the sort declared");
        let sorted_by: Vec<usize> = sorting.iter().map(|s| s.column_idx as usize).collect();
        assert_eq!(sorted_by, [year, area]);
        assert!(sorting.iter().all(|s| !s.descending));
    }
}

/// A listing's `.parquet` and `.csv` forms of one query (its part after `?`).
fn assert_listing_parquet_is_its_csv(server: &TestServer, endpoint: &str, query: &str) -> Parquet {
    let parquet = get(server, &format!("/api/{endpoint}.parquet?{query}"));
    assert_eq!(
        parquet.status,
        200,
        "{endpoint}?{query}: {}",
        parquet.text()
    );
    assert_eq!(
        parquet.header("content-type"),
        Some("application/vnd.apache.parquet")
    );
    let file = Parquet::read(&parquet.body);
    let csv = Csv::read(&download(server, &format!("/api/{endpoint}.csv?{query}")));
    assert_same_rows(&file, &csv, &format!("{endpoint}?{query}"));
    file
}

#[test]
fn listings_as_parquet_hold_their_csvs_rows() {
    let server = sample_server();
    let aadf = assert_listing_parquet_is_its_csv(
        server,
        "average-annual-daily-flow",
        "filter%5Byear%5D=2019&fields=count_point_id,year,all_motor_vehicles&sort=-count_point_id",
    );
    assert!(aadf.rows.len() > 1);
    let ids: Vec<&Value> = aadf.rows.iter().map(|r| &r[0]).collect();
    assert!(ids.windows(2).all(|w| match (w[0], w[1]) {
        (Value::Int(a), Value::Int(b)) => a >= b,
        _ => false,
    }));
    for (endpoint, query) in [
        (
            "raw-counts",
            "filter%5Blocal_authority_id%5D=6&sort=-hour,id&fields=id,count_date,hour,road_name,latitude,cars_and_taxis",
        ),
        ("average-annual-daily-flow-by-direction", "filter%5Bdirection_of_travel%5D=N"),
        ("local-authority-traffic", "filter%5Byear%5D=2020"),
        ("region-traffic-by-road-type", "sort=-year"),
        ("count-points", ""),
        ("regions", ""),
    ] {
        let file = assert_listing_parquet_is_its_csv(server, endpoint, query);
        assert!(!file.rows.is_empty(), "{endpoint}?{query}: no rows");
    }
}

/// `filter[near]` adds `distance_m` last, a double, in the Parquet form as in the CSV.
#[test]
fn a_listing_near_a_point_has_its_distances_last() {
    let server = sample_server();
    for (endpoint, query) in [
        (
            "count-points",
            "filter%5Bnear%5D=-3.03,51.577,50000&fields=count_point_id,road_name,latitude",
        ),
        (
            "raw-counts",
            "filter%5Bnear%5D=-3.03,51.577,50000&sort=-hour&fields=id,hour,count_date",
        ),
    ] {
        let file = assert_listing_parquet_is_its_csv(server, endpoint, query);
        assert!(!file.rows.is_empty(), "{endpoint}: nothing near");
        assert_eq!(file.names.last().unwrap(), "distance_m");
        assert_eq!(file.type_of("distance_m"), &DataType::Float64);
        let within = |r: &Vec<Value>| matches!(r.last(), Some(Value::Float(d)) if *d <= 50_000.0);
        assert!(file.rows.iter().all(within), "{endpoint}");
    }
}

#[test]
fn an_empty_listing_is_a_parquet_file_of_no_rows() {
    let server = sample_server();
    let query = "filter%5Bcount_point_id%5D=1&fields=count_point_id,count_date,latitude,road_name";
    let file = assert_listing_parquet_is_its_csv(server, "raw-counts", query);
    assert!(file.rows.is_empty());
    for (column, want) in [
        ("count_point_id", DataType::Int64),
        ("count_date", DataType::Date32),
        ("latitude", DataType::Float64),
        ("road_name", DataType::Utf8),
    ] {
        assert_eq!(file.type_of(column), &want, "{column}");
    }
    assert_eq!(file.names.len(), 4);
    assert_eq!(file.metadata.file_metadata().num_rows(), 0);
    // A bad parameter is refused before anything is written, as in the other forms.
    let bad = get(server, "/api/raw-counts.parquet?filter%5Byear%5D=abc");
    assert_eq!(bad.status, 400);
    assert!(bad.json()["message"].is_string());
}

/// The national CSV files of a release loaded again make the same Parquet bytes: the
/// Parquet files depend on the data alone (no time or path in them), and the CSV files lose
/// nothing of it.
#[test]
fn a_release_loaded_from_its_own_csv_files_writes_the_same_parquet() {
    let first = sample_server();
    let dir = scratch_dir();
    let files = dir.join("files");
    std::fs::create_dir(&files).unwrap();
    for stem in national_stems() {
        let csv = download(first, &format!("/downloads/{stem}.csv"));
        std::fs::write(files.join(format!("{stem}.csv")), csv).unwrap();
    }
    let db = dir.join("again.db");
    load_ok(&db, &["--quiet"], &[&files]);
    let second = serve(&db, &["--lazy-downloads"]);
    for stem in national_stems() {
        let target = format!("/downloads/{stem}.parquet");
        let (want, got) = (get(first, &target), get(&second, &target));
        assert!(
            want.body == got.body,
            "{target}: {} bytes, then {} bytes",
            want.body.len(),
            got.body.len()
        );
        assert_eq!(want.header("etag"), got.header("etag"), "{target}");
    }
}

/// The sample's first AADF row with these cells changed (by header), as a CSV file.
fn aadf_with(dir: &Path, rows: &[&[(&str, &str)]]) -> std::path::PathBuf {
    let sample = std::fs::read(repo_path("data/sample/dft_traffic_counts_aadf.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(sample.as_slice());
    let header = reader.headers().unwrap().clone();
    let first = reader.records().next().unwrap().unwrap();
    let path = dir.join("aadf.csv");
    let mut out = csv::Writer::from_path(&path).unwrap();
    out.write_record(&header).unwrap();
    for changes in rows {
        let mut row: Vec<String> = first.iter().map(String::from).collect();
        for (name, value) in *changes {
            let at = header.iter().position(|h| h == *name).unwrap();
            row[at] = value.to_string();
        }
        out.write_record(&row).unwrap();
    }
    out.flush().unwrap();
    path
}

/// The largest ids and counts the loader takes, empty cells and text that CSV quotes keep
/// their values and types in Parquet.
#[test]
fn extreme_values_and_empty_cells() {
    let dir = scratch_dir();
    let file = aadf_with(
        &dir,
        &[
            &[
                ("count_point_id", "4294967295"),
                ("local_authority_id", "4294967295"),
                ("year", "2100"),
                ("all_motor_vehicles", "9999999999999"),
                ("road_name", "A1, \"the Great North Road\""),
            ],
            &[
                ("count_point_id", "0"),
                ("year", "1950"),
                ("pedal_cycles", ""),
                ("link_length_km", ""),
                ("start_junction_road_name", ""),
            ],
        ],
    );
    let db = dir.join("extremes.db");
    load_ok(&db, &["--quiet"], &[&file]);
    let server = serve(&db, &["--lazy-downloads"]);
    let stem = "/downloads/dft_traffic_counts_aadf";
    let parquet = Parquet::read(&download(&server, &format!("{stem}.parquet")));
    let csv = Csv::read(&download(&server, &format!("{stem}.csv")));
    assert_same_rows(
        &parquet,
        &csv.sorted_as_national_parquet(&parquet),
        "extremes",
    );
    // Both rows at one place, so in count point order: count point 0's (1950's) first.
    let cell = |row: usize, name: &str| &parquet.rows[row][parquet.position(name)];
    assert_eq!(cell(0, "pedal_cycles"), &Value::Null);
    assert_eq!(cell(0, "link_length_km"), &Value::Null);
    assert_eq!(cell(0, "start_junction_road_name"), &Value::Null);
    assert_eq!(cell(1, "count_point_id"), &Value::Int(4_294_967_295));
    assert_eq!(cell(1, "local_authority_id"), &Value::Int(4_294_967_295));
    assert_eq!(
        cell(1, "all_motor_vehicles"),
        &Value::Int(9_999_999_999_999)
    );
    let road = Value::Text("A1, \"the Great North Road\"".to_string());
    assert_eq!(cell(1, "road_name"), &road);
    let listing = "fields=count_point_id,year,road_name,pedal_cycles,all_motor_vehicles";
    assert_listing_parquet_is_its_csv(&server, "average-annual-daily-flow", listing);
}

const SPLIT: &str = "/downloads/aadf/local_authority_id/dft_aadf_local_authority_id";

/// The local authorities of the sample's AADF, from its SQLite file.
fn aadf_areas(db: &Path) -> Vec<(i64, i64)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT local_authority_id, count(*) FROM aadf GROUP BY 1 ORDER BY 1")
        .unwrap();
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

#[test]
fn split_parquet_files_hold_their_split_csvs_rows() {
    let server = sample_server();
    let areas = aadf_areas(sample_db());
    assert!(areas.len() > 1, "{areas:?}");
    for (id, rows) in areas {
        let parquet = Parquet::read(&download(server, &format!("{SPLIT}_{id}.parquet")));
        let csv = Csv::read(&download(server, &format!("{SPLIT}_{id}.csv")));
        assert_eq!(csv.rows.len() as i64, rows, "area {id}");
        let csv = csv.by_place_as(&parquet, false);
        assert_same_rows(&parquet, &csv, &format!("AADF of local authority {id}"));
        let stored = get(server, &format!("{SPLIT}_{id}.parquet"));
        assert_eq!(stored.header("accept-ranges"), Some("bytes"));
        assert!(stored.header("etag").is_some());
    }
}

/// The split files of the other tables, one per kind (count points' highest id first).
#[test]
fn split_parquet_files_of_every_table() {
    let server = sample_server();
    for path in [
        "aadfbydirection/region_id/dft_aadfbydirection_region_id_4",
        "rawcount/local_authority_id/dft_rawcount_local_authority_id_6",
        "countpoints/region_id/dft_countpoints_region_id_4",
        "traffic/local_authority_id/dft_traffic_local_authority_id_6",
        "aadf/count_point_id/dft_aadf_count_point_id_501",
    ] {
        let parquet = Parquet::read(&download(server, &format!("/downloads/{path}.parquet")));
        let csv = Csv::read(&download(server, &format!("/downloads/{path}.csv")));
        assert!(!csv.rows.is_empty(), "{path}: no rows");
        let csv = match parquet.places {
            Some(_) => csv.by_place_as(&parquet, path.starts_with("countpoints")),
            None => csv,
        };
        assert_same_rows(&parquet, &csv, path);
    }
}

/// The count points' other national name has the same Parquet bytes.
#[test]
fn an_aliased_national_file_has_the_same_parquet() {
    let server = sample_server();
    let alias = get(server, "/downloads/dft_count_points.parquet");
    let named = get(server, "/downloads/count_points.parquet");
    assert_eq!(alias.status, 200);
    assert!(alias.body == named.body);
    assert_eq!(alias.header("etag"), named.header("etag"));
    assert_eq!(
        alias.header("content-disposition"),
        Some("attachment; filename=\"dft_count_points.parquet\"")
    );
}

#[test]
fn split_parquet_files_of_no_such_area_are_404() {
    let server = sample_server();
    let known = aadf_areas(sample_db())[0].0;
    for id in [
        "999999".to_string(),
        format!("00{known}"),
        "007".to_string(),
        "-1".to_string(),
        format!("{known}.0"),
        format!("+{known}"),
        String::new(),
        "x".to_string(),
    ] {
        for suffix in [".parquet", ".csv"] {
            let target = format!("{SPLIT}_{id}{suffix}");
            let reply = get(server, &target);
            assert_eq!(reply.status, 404, "{target}");
            let message = reply.json()["message"].as_str().unwrap().to_string();
            assert!(
                message.contains("could not be found"),
                "{target}: {message}"
            );
        }
    }
}

#[test]
fn real_national_parquet_files_hold_their_csvs_rows() {
    let Some(db) = real_db() else { return };
    let rows = assert_national_parquet_is_the_csv(&serve(db, &["--lazy-downloads"]));
    // The real files hold no AADF by direction; AADF is the table this is for.
    let aadf = rows
        .iter()
        .find(|(stem, _)| *stem == "dft_traffic_counts_aadf");
    assert!(matches!(aadf, Some((_, n)) if *n > 100), "{rows:?}");
}
