//! Real query engines read the Parquet files over HTTP, as the README shows them: DuckDB
//! (httpfs), pandas on pyarrow (through fsspec and aiohttp, or downloading whole), and polars,
//! each run as a Python script whose answer, printed as JSON, must be what SQLite or the CSV
//! download says. They skip with a printed reason when the Python modules are missing, and fail
//! instead under `ROADTRAFFIC_REQUIRE_SHARED=1` (CI, whose `.ci/run` installs them).

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;

use arrow_schema::DataType;
use rusqlite::types::ValueRef;

use super::*;

const DUCKDB: (&str, &str) = (
    "duckdb, duckdb_ext",
    "pip install duckdb==1.4.4 duckdb-ext-httpfs==1.4.4.20260205",
);
const PANDAS: (&str, &str) = (
    "pandas, pyarrow, fsspec, aiohttp",
    "pip install pandas pyarrow fsspec aiohttp",
);
const POLARS: (&str, &str) = ("polars", "pip install polars");

/// Each script's first lines: a cell as JSON. A double goes as its shortest text, which Rust
/// reads back exactly (serde_json's own reading of doubles may be a unit in the last place
/// off), a date as `YYYY-MM-DD`, and pandas' NaN of a missing value as null. `done()` ends a
/// script once it has printed: without the interpreter's teardown, where pyarrow's threads
/// now and then abort it ("terminate called without an active exception") after its answer.
const CELL: &str = r#"
import json, math, os, sys
def done():
    sys.stdout.flush()
    os._exit(0)
def cell(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, float):
        return {"double": repr(v)}
    if isinstance(v, (int, str)):
        return v
    return str(v)
def table(rows):
    return [[cell(v) for v in row] for row in rows]
"#;

/// Runs a client's script with `python` and gives the JSON it printed; it must succeed. A
/// client that aborts (SIGABRT: pyarrow's threads, once in a CI run, under the load of the
/// other tests) is run once more; an answer, right or wrong, is never asked again.
pub(super) fn client(python: &Path, script: &str, args: &[&str]) -> serde_json::Value {
    let program = [CELL, script, "\ndone()\n"].concat();
    let run = || {
        Command::new(python)
            .args(["-c", &program])
            .args(args)
            .output()
            .unwrap()
    };
    let mut out = run();
    if out.status.signal() == Some(6) {
        eprintln!("{args:?}: the client aborted; once more");
        out = run();
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{script}{args:?}:\n{stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"))
}

/// A cell as a script printed it (see [`CELL`]).
fn cell(json: &serde_json::Value) -> Value {
    match json {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Number(n) => Value::Int(n.as_i64().expect("a whole number")),
        serde_json::Value::String(s) => Value::Text(s.clone()),
        serde_json::Value::Object(o) => {
            Value::Float(o["double"].as_str().unwrap().parse().unwrap())
        }
        other => panic!("a cell of {other}"),
    }
}

/// The rows of a table a script printed.
pub(super) fn rows(json: &serde_json::Value) -> Vec<Vec<Value>> {
    let rows = json.as_array().unwrap_or_else(|| panic!("a table: {json}"));
    let row = |r: &serde_json::Value| r.as_array().unwrap().iter().map(cell).collect();
    rows.iter().map(row).collect()
}

/// The rows of a query on the test's SQLite file.
pub(super) fn sql_rows(db: &Path, sql: &str) -> Vec<Vec<Value>> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    let columns = stmt.column_count();
    let row = |r: &rusqlite::Row| (0..columns).map(|i| r.get_ref(i).map(sql_value)).collect();
    let rows = stmt.query_map([], row).unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

fn sql_value(value: ValueRef) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(f) => Value::Float(f),
        ValueRef::Text(t) => Value::Text(String::from_utf8(t.to_vec()).unwrap()),
        ValueRef::Blob(_) => panic!("a blob"),
    }
}

/// The first value of a query's first row: an id or a year to ask about.
fn sql_int(db: &Path, sql: &str) -> i64 {
    match &sql_rows(db, sql)[0][0] {
        Value::Int(i) => *i,
        other => panic!("{sql}: {other:?}"),
    }
}

/// The local authority with raw counts in the most years (the least id of those).
fn raw_counts_area(db: &Path) -> i64 {
    sql_int(
        db,
        "SELECT local_authority_id FROM raw_counts GROUP BY 1 \
         ORDER BY count(DISTINCT year) DESC, 1 LIMIT 1",
    )
}

/// The local authority with AADF in the most years (the least id of those).
fn aadf_area(db: &Path) -> i64 {
    sql_int(
        db,
        "SELECT local_authority_id FROM aadf GROUP BY 1 \
         ORDER BY count(DISTINCT year) DESC, 1 LIMIT 1",
    )
}

/// The year of the most AADF rows (the earliest of those).
fn aadf_year(db: &Path) -> i64 {
    sql_int(
        db,
        "SELECT year FROM aadf GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1",
    )
}

/// A filter as pyarrow takes it, `(column, op, value)`, applied here to the CSV's rows too.
type Filter<'a> = (&'a str, &'a str, i64);

/// Whether a CSV cell passes a filter: an empty cell is a null, which no filter keeps.
fn passes(cell: &str, op: &str, value: i64) -> bool {
    let Ok(v) = cell.parse::<i64>() else {
        return false;
    };
    match op {
        "=" => v == value,
        ">=" => v >= value,
        other => panic!("no filter {other}"),
    }
}

/// The cells of `columns` of the CSV's rows that pass every filter, in the CSV's order.
fn csv_cells(csv: &Csv, columns: &[&str], filters: &[Filter]) -> Vec<Vec<String>> {
    let at = |name: &str| csv.header.iter().position(|h| h == name).unwrap();
    let kept = csv.rows.iter().filter(|row| {
        (filters.iter()).all(|&(column, op, value)| passes(&row[at(column)], op, value))
    });
    let pick = |row: &Vec<String>| columns.iter().map(|c| row[at(c)].clone()).collect();
    kept.map(pick).collect()
}

/// Asserts that a client's rows say what the CSV's cells say, row for row (see `same_cell`).
fn assert_rows_are_csv(got: &[Vec<Value>], want: &[Vec<String>], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: the rows");
    for (at, (got, want)) in got.iter().zip(want).enumerate() {
        assert_eq!(got.len(), want.len(), "{what}: row {at}");
        for (value, csv) in got.iter().zip(want) {
            assert!(
                same_cell(value, csv),
                "{what}: row {at}: the client has {value:?}, the CSV {csv:?}"
            );
        }
    }
}

/// DuckDB runs each query of a JSON list and prints its rows. The httpfs extension is loaded
/// from the `duckdb-ext-httpfs` wheel: DuckDB cannot download it here (nor in CI).
const DUCKDB_QUERIES: &str = r#"
import duckdb, duckdb_ext, glob
pattern = f"extensions/v{duckdb.__version__}/*/httpfs.duckdb_extension"
found = [p for d in duckdb_ext.__path__ for p in glob.glob(f"{d}/{pattern}")]
assert found, f"no {pattern} in {list(duckdb_ext.__path__)}"
con = duckdb.connect()
con.execute(f"LOAD '{found[0]}'")
print(json.dumps([table(con.execute(q).fetchall()) for q in json.loads(sys.argv[1])]))
"#;

/// Each query's rows, as DuckDB gives them.
fn duckdb(python: &Path, queries: &[String]) -> Vec<Vec<Vec<Value>>> {
    let list = serde_json::to_string(queries).unwrap();
    let got = client(python, DUCKDB_QUERIES, &[&list]);
    got.as_array().unwrap().iter().map(rows).collect()
}

/// The README's DuckDB query, on the national raw counts and on a split AADF file, reading
/// by ranges: the same sums by year as SQLite's.
#[test]
fn duckdb_sums_an_area_by_year_as_sqlite_does() {
    let Some(python) = python_with(DUCKDB.0, DUCKDB.1) else {
        return;
    };
    let (server, db) = (sample_server(), sample_db());
    let (raw_area, aadf_area) = (raw_counts_area(db), aadf_area(db));
    let raw = server.url("/downloads/dft_traffic_counts_raw_counts.parquet");
    let split = server.url(&format!(
        "/downloads/aadf/local_authority_id/dft_aadf_local_authority_id_{aadf_area}.parquet"
    ));
    let got = duckdb(
        &python,
        &[
            format!(
                "SELECT year, sum(all_motor_vehicles), count(*) FROM read_parquet('{raw}') \
                 WHERE local_authority_id = {raw_area} GROUP BY year ORDER BY year"
            ),
            format!(
                "SELECT year, sum(all_motor_vehicles), sum(pedal_cycles), count(*) \
                 FROM read_parquet('{split}') GROUP BY year ORDER BY year"
            ),
        ],
    );
    let want_raw = sql_rows(
        db,
        &format!(
            "SELECT year, sum(all_motor_vehicles), count(*) FROM raw_counts \
             WHERE local_authority_id = {raw_area} GROUP BY year ORDER BY year"
        ),
    );
    let want_split = sql_rows(
        db,
        &format!(
            "SELECT year, sum(all_motor_vehicles), sum(pedal_cycles), count(*) FROM aadf \
             WHERE local_authority_id = {aadf_area} GROUP BY year ORDER BY year"
        ),
    );
    assert!(want_raw.len() > 1 && want_split.len() > 1, "too few years");
    assert_eq!(got, [want_raw, want_split]);
}

/// DuckDB's name of the type the `parquet` crate reads a column as.
fn duckdb_type(arrow: &DataType) -> &'static str {
    match arrow {
        DataType::Int64 => "BIGINT",
        DataType::Int32 => "INTEGER",
        DataType::Float64 => "DOUBLE",
        DataType::Date32 => "DATE",
        DataType::Utf8 => "VARCHAR",
        other => panic!("a column of {other}"),
    }
}

/// Each national Parquet file, through DuckDB: as many rows as its CSV, and the CSV's columns
/// with the types the file declares.
#[test]
fn duckdb_counts_and_describes_each_national_file() {
    let Some(python) = python_with(DUCKDB.0, DUCKDB.1) else {
        return;
    };
    let server = sample_server();
    for stem in national_stems() {
        let url = server.url(&format!("/downloads/{stem}.parquet"));
        let got = duckdb(
            &python,
            &[
                format!("SELECT count(*) FROM read_parquet('{url}')"),
                format!(
                    "SELECT column_name, column_type \
                     FROM (DESCRIBE SELECT * FROM read_parquet('{url}'))"
                ),
            ],
        );
        let csv = Csv::read(&download(server, &format!("/downloads/{stem}.csv")));
        assert_eq!(got[0], [[Value::Int(csv.rows.len() as i64)]], "{stem}");
        let file = Parquet::read(&download(server, &format!("/downloads/{stem}.parquet")));
        let want: Vec<Vec<Value>> = (csv.header.iter().zip(&file.types))
            .map(|(name, t)| {
                let duckdb = duckdb_type(t).to_string();
                vec![Value::Text(name.clone()), Value::Text(duckdb)]
            })
            .chain(file.places.iter().flat_map(|_| {
                GEO_COLUMNS.map(|(name, t)| {
                    vec![Value::Text(name.to_string()), Value::Text(t.to_string())]
                })
            }))
            .collect();
        assert_eq!(got[1], want, "{stem}");
    }
}

/// The GeoParquet columns as DuckDB describes them without its spatial extension.
const GEO_COLUMNS: [(&str, &str); 2] = [
    ("geometry", "BLOB"),
    (
        "bbox",
        "STRUCT(xmin DOUBLE, ymin DOUBLE, xmax DOUBLE, ymax DOUBLE)",
    ),
];

/// The fields the listings' tests ask for: a date, a double with nulls, text and counts.
const LISTED: [&str; 7] = [
    "count_point_id",
    "direction_of_travel",
    "count_date",
    "hour",
    "latitude",
    "link_length_km",
    "all_motor_vehicles",
];

/// The raw counts of an area as a listing, streamed (`Accept-Ranges: none`).
fn raw_counts_listing(server: &TestServer, area: i64) -> String {
    let target = format!(
        "/api/raw-counts.parquet?filter%5Blocal_authority_id%5D={area}&fields={}",
        LISTED.join(",")
    );
    let reply = get(server, &target);
    assert_eq!(reply.status, 200, "{target}: {}", reply.text());
    assert_eq!(reply.header("accept-ranges"), Some("none"), "{target}");
    target
}

/// DuckDB reads a listing, which takes no ranges, whole, and filters it as the listing's CSV
/// filtered: as it comes, the sample's listings being one chunk sent with its length, and as
/// the README says to read any listing, with `force_download` (without it DuckDB asks a longer
/// listing, sent in chunks with no length, for ranges, and fails on the whole body).
#[test]
fn duckdb_filters_a_listing() {
    let Some(python) = python_with(DUCKDB.0, DUCKDB.1) else {
        return;
    };
    let server = sample_server();
    let target = raw_counts_listing(server, raw_counts_area(sample_db()));
    let url = server.url(&target);
    let query = format!(
        "SELECT {} FROM read_parquet('{url}') WHERE hour >= 12",
        LISTED.join(", ")
    );
    let queries = [query.clone(), "SET force_download = true".into(), query];
    let got = duckdb(&python, &queries);
    let csv = Csv::read(&download(server, &target.replace(".parquet?", ".csv?")));
    let want = csv_cells(&csv, &LISTED, &[("hour", ">=", 12)]);
    assert!(want.len() > 1, "{target}: too few rows");
    assert_rows_are_csv(&got[0], &want, &target);
    assert_rows_are_csv(&got[2], &want, &format!("{target} downloaded whole"));
}

/// pandas' `read_parquet` of a URL with columns and pyarrow's filters, printing its rows, or
/// the error it raised. `fsspec` reads through an fsspec HTTP file system (aiohttp), by
/// ranges; `url` is the README's plain call, for which pandas downloads the file whole.
const PANDAS_READ: &str = r#"
import fsspec, pandas as pd
url, how, columns, filters = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
through = {"fsspec": {"filesystem": fsspec.filesystem("http")}, "url": {}}[how]
try:
    frame = pd.read_parquet(url, columns=columns, filters=[tuple(f) for f in filters] or None, **through)
except Exception as e:
    print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
    done()
print(json.dumps({"rows": table(frame.astype(object).values.tolist())}))
"#;

/// What pandas read (`how`: `fsspec` or `url`), its rows or its error.
fn pandas(
    python: &Path,
    url: &str,
    how: &str,
    columns: &[&str],
    filters: &[Filter],
) -> Result<Vec<Vec<Value>>, String> {
    let columns = serde_json::to_string(columns).unwrap();
    let filters = serde_json::to_string(filters).unwrap();
    let got = client(python, PANDAS_READ, &[url, how, &columns, &filters]);
    match got["error"].as_str() {
        Some(error) => Err(error.to_string()),
        None => Ok(rows(&got["rows"])),
    }
}

/// pandas reads chosen columns of the rows a filter keeps, of the national AADF and raw
/// counts files, both ways: the CSV's cells, nulls where it is empty, in the file's order.
#[test]
fn pandas_reads_the_rows_a_filter_keeps_as_the_csv_has_them() {
    let Some(python) = python_with(PANDAS.0, PANDAS.1) else {
        return;
    };
    let (server, db) = (sample_server(), sample_db());
    let aadf_columns = [
        "count_point_id",
        "year",
        "local_authority_id",
        "road_name",
        "latitude",
        "link_length_km",
        "all_motor_vehicles",
    ];
    for (stem, columns, filters) in [
        (
            "dft_traffic_counts_aadf",
            &aadf_columns[..],
            vec![("year", "=", aadf_year(db))],
        ),
        (
            "dft_traffic_counts_raw_counts",
            &LISTED[..],
            vec![
                ("local_authority_id", "=", raw_counts_area(db)),
                ("hour", ">=", 12),
            ],
        ),
    ] {
        let csv = Csv::read(&download(server, &format!("/downloads/{stem}.csv")));
        let file = Parquet::read(&download(server, &format!("/downloads/{stem}.parquet")));
        let want = csv_cells(&csv.sorted_as_national_parquet(&file), columns, &filters);
        assert!(want.len() > 1, "{stem} {filters:?}: too few rows");
        let url = server.url(&format!("/downloads/{stem}.parquet"));
        for how in ["fsspec", "url"] {
            let got = pandas(&python, &url, how, columns, &filters);
            let what = format!("{stem} {filters:?} through {how}");
            assert_rows_are_csv(&got.unwrap_or_else(|e| panic!("{what}: {e}")), &want, &what);
        }
    }
}

/// A listing says it takes no ranges: pyarrow through fsspec, which must seek, is refused by
/// fsspec at once, and pandas' plain call downloads it whole and reads it.
#[test]
fn pandas_reads_a_listing_downloaded_whole() {
    let Some(python) = python_with(PANDAS.0, PANDAS.1) else {
        return;
    };
    let server = sample_server();
    let target = raw_counts_listing(server, raw_counts_area(sample_db()));
    let url = server.url(&target);
    let seeking = pandas(&python, &url, "fsspec", &LISTED, &[]);
    assert_eq!(
        seeking,
        Err("ValueError: Cannot seek streaming HTTP file".to_string())
    );
    let got = pandas(&python, &url, "url", &LISTED, &[]).unwrap();
    let csv = Csv::read(&download(server, &target.replace(".parquet?", ".csv?")));
    assert_rows_are_csv(&got, &csv_cells(&csv, &LISTED, &[]), &target);
}

/// polars' lazy scan of a URL: one equality filter, then sums of columns and the count of
/// rows by a column, sorted by it.
const POLARS_GROUPS: &str = r#"
import polars as pl
url, where, equals, by, sums = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
frame = (
    pl.scan_parquet(url)
    .filter(pl.col(where) == equals)
    .group_by(by)
    .agg([pl.col(c).sum() for c in sums.split(",")] + [pl.len()])
    .sort(by)
    .collect()
)
print(json.dumps(table(frame.rows())))
"#;

/// The README's polars query (AADF of a year by region) and raw counts of an area by year:
/// the sums and counts SQLite gives.
#[test]
fn polars_groups_and_sums_as_sqlite_does() {
    let Some(python) = python_with(POLARS.0, POLARS.1) else {
        return;
    };
    let (server, db) = (sample_server(), sample_db());
    let (year, area) = (aadf_year(db), raw_counts_area(db));
    let aadf = server.url("/downloads/dft_traffic_counts_aadf.parquet");
    let raw = server.url("/downloads/dft_traffic_counts_raw_counts.parquet");
    let cases = [
        (
            (&aadf, "year", year, "region_name"),
            // Region names sorted as polars sorts them, by their bytes.
            format!(
                "SELECT r.name, sum(a.all_motor_vehicles), sum(a.pedal_cycles), count(*) \
                 FROM aadf a JOIN regions r ON r.id = a.region_id WHERE a.year = {year} \
                 GROUP BY r.id ORDER BY r.name COLLATE BINARY"
            ),
        ),
        (
            (&raw, "local_authority_id", area, "year"),
            format!(
                "SELECT year, sum(all_motor_vehicles), sum(pedal_cycles), count(*) \
                 FROM raw_counts WHERE local_authority_id = {area} GROUP BY year ORDER BY year"
            ),
        ),
    ];
    for ((url, column, value, by), sql) in cases {
        let value_text = value.to_string();
        let sums = "all_motor_vehicles,pedal_cycles";
        let got = rows(&client(
            &python,
            POLARS_GROUPS,
            &[url, column, &value_text, by, sums],
        ));
        let want = sql_rows(db, &sql);
        assert!(want.len() > 1, "{sql}: too few groups");
        assert_eq!(got, want, "{url} where {column} = {value} by {by}");
    }
}
