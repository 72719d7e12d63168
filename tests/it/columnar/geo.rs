//! Issue 35: every Parquet file of records with places is GeoParquet 1.1 (a WKB `geometry`
//! column, its `bbox` covering column, the `geo` metadata), its DOUBLE statistics readable by
//! pyarrow, and its rows by place. Read back here with the `parquet` crate; then by the tools
//! people use: pyarrow, pyogrio (GDAL), GeoPandas over HTTP, DuckDB's spatial extension over
//! HTTP, and `geoparquet-validator`. Those skip with a reason when the Python modules are
//! missing, and fail instead under `ROADTRAFFIC_REQUIRE_SHARED=1` (CI).

use std::path::{Path, PathBuf};
use std::process::Command;

use parquet::basic::ColumnOrder;

use super::clients::{client, rows, sql_rows};
use super::*;

/// The national files of the datasets with places (the others have no geometry).
const WITH_PLACES: [&str; 4] = [
    "dft_traffic_counts_aadf",
    "dft_traffic_counts_aadf_by_direction",
    "dft_traffic_counts_raw_counts",
    "count_points",
];

/// A box on the sample's map (longitude, latitude) that holds some of its count points, not all.
const BOX: [f64; 4] = [-3.5, 51.0, 0.0, 53.0];

fn box_text() -> String {
    BOX.map(|v| v.to_string()).join(",")
}

/// The file's `geo` metadata, parsed; `None` if it has none.
fn geo_metadata(file: &Parquet) -> Option<serde_json::Value> {
    let kv = file.metadata.file_metadata().key_value_metadata()?;
    let geo = kv.iter().find(|kv| kv.key == "geo")?;
    Some(serde_json::from_str(geo.value.as_deref().unwrap()).unwrap())
}

/// The extent of a file's points.
fn extent(file: &Parquet) -> [f64; 4] {
    let points = file.places.iter().flatten().filter_map(|p| p.point);
    points.fold(
        [f64::MAX, f64::MAX, f64::MIN, f64::MIN],
        |[a, b, c, d], (x, y)| [a.min(x), b.min(y), c.max(x), d.max(y)],
    )
}

/// Asserts the `geo` metadata of a file of points, GeoParquet 1.1.
fn assert_geoparquet(file: &Parquet, what: &str) {
    let geo = geo_metadata(file).unwrap_or_else(|| panic!("{what}: no geo metadata"));
    assert_eq!(geo["version"], "1.1.0", "{what}");
    assert_eq!(geo["primary_column"], "geometry", "{what}");
    let column = &geo["columns"]["geometry"];
    assert_eq!(column["encoding"], "WKB", "{what}");
    assert_eq!(
        column["geometry_types"],
        serde_json::json!(["Point"]),
        "{what}"
    );
    assert!(
        column.get("crs").is_none(),
        "{what}: OGC:CRS84 is said by no crs"
    );
    assert_eq!(column["bbox"], serde_json::json!(extent(file)), "{what}");
    let covering = &column["covering"]["bbox"];
    for corner in ["xmin", "ymin", "xmax", "ymax"] {
        assert_eq!(
            covering[corner],
            serde_json::json!(["bbox", corner]),
            "{what}"
        );
    }
}

/// Asserts that no column declares the IEEE 754 total order, which pyarrow 26 does not know.
fn assert_orders_every_reader_knows(file: &Parquet, what: &str) {
    let orders = file
        .metadata
        .file_metadata()
        .column_orders()
        .expect("orders");
    assert!(
        !orders.contains(&ColumnOrder::IEEE_754_TOTAL_ORDER),
        "{what}: {orders:?}"
    );
}

#[test]
fn national_files_with_places_are_geoparquet_and_the_others_are_not() {
    let server = sample_server();
    for stem in national_stems() {
        let file = Parquet::read(&download(server, &format!("/downloads/{stem}.parquet")));
        assert_orders_every_reader_knows(&file, stem);
        match WITH_PLACES.contains(&stem) {
            true => assert_geoparquet(&file, stem),
            false => assert!(
                geo_metadata(&file).is_none() && file.places.is_none(),
                "{stem}"
            ),
        }
    }
}

#[test]
fn a_listing_and_a_split_file_with_places_are_geoparquet() {
    let server = sample_server();
    for target in [
        "/api/average-annual-daily-flow.parquet?filter[year]=2019,2020&sort=-year",
        "/downloads/rawcount/local_authority_id/dft_rawcount_local_authority_id_6.parquet",
    ] {
        let file = Parquet::read(&download(server, target));
        assert!(!file.rows.is_empty(), "{target}");
        assert_places_are_the_coordinates(&file, target);
        assert_geoparquet(&file, target);
    }
    // A listing of fields without the coordinates has no geometry to give.
    let fields = "/api/average-annual-daily-flow.parquet?fields=count_point_id,year";
    let file = Parquet::read(&download(server, fields));
    assert!(file.places.is_none() && geo_metadata(&file).is_none());
}

/// A national file saved where the Python tools read it.
fn saved(server: &TestServer, stem: &str) -> PathBuf {
    let path = scratch_dir().join(format!("geo-{stem}.parquet"));
    std::fs::write(
        &path,
        download(server, &format!("/downloads/{stem}.parquet")),
    )
    .unwrap();
    path
}

const PYARROW_STATISTICS: &str = r#"
import pyarrow.parquet as pq
out = []
for path in sys.argv[1:]:
    md = pq.ParquetFile(path).metadata
    for g in range(md.num_row_groups):
        for i in range(md.num_columns):
            c = md.row_group(g).column(i)
            if c.physical_type == "DOUBLE":
                out.append([c.path_in_schema, bool(c.statistics and c.statistics.has_min_max)])
print(json.dumps(out))
"#;

/// pyarrow reads the min and max of every DOUBLE column (the covering box's, the
/// coordinates'), so GeoPandas and pyarrow's filters skip row groups.
#[test]
fn pyarrow_reads_the_statistics_of_the_doubles() {
    let Some(python) = python_with("pyarrow", "pip install pyarrow") else {
        return;
    };
    let server = sample_server();
    let paths: Vec<PathBuf> = WITH_PLACES.iter().map(|s| saved(server, s)).collect();
    let args: Vec<&str> = paths.iter().map(|p| p.to_str().unwrap()).collect();
    let got = client(&python, PYARROW_STATISTICS, &args);
    let columns = got.as_array().unwrap();
    let names: Vec<&str> = columns.iter().map(|c| c[0].as_str().unwrap()).collect();
    for leaf in [
        "bbox.xmin",
        "bbox.ymin",
        "bbox.xmax",
        "bbox.ymax",
        "latitude",
    ] {
        assert!(names.contains(&leaf), "{leaf} in {names:?}");
    }
    let unread: Vec<_> = columns.iter().filter(|c| c[1] != true).collect();
    assert!(unread.is_empty(), "no min/max for {unread:?}");
}

const PYOGRIO: &str = r#"
import pyogrio
if "Parquet" not in pyogrio.list_drivers():
    print(json.dumps({"driver": None}))
    done()
url = sys.argv[1]
info = pyogrio.read_info(url)
df = pyogrio.read_dataframe(url)
points = [None if g is None else [g.x, g.y] for g in df.geometry]
print(json.dumps({"driver": info["driver"], "type": info["geometry_type"],
                  "crs": str(df.crs), "points": points}))
"#;

/// GDAL (through pyogrio) reads the national AADF file over HTTP as points in CRS84, each at
/// its row's own coordinates, in the file's order.
#[test]
fn pyogrio_reads_the_points_over_http() {
    let Some(python) = python_with("pyogrio, geopandas", "pip install pyogrio geopandas") else {
        return;
    };
    let server = sample_server();
    let stem = "dft_traffic_counts_aadf";
    let url = server.url(&format!("/downloads/{stem}.parquet"));
    let got = client(&python, PYOGRIO, &[&format!("/vsicurl/{url}")]);
    if got["driver"].is_null() {
        // PyPI's pyogrio wheels (0.13) bundle a GDAL built without Arrow: no Parquet driver.
        // Not a missing install that CI could make, so a skip rather than a failure.
        eprintln!("skipped: this pyogrio's GDAL has no Parquet driver");
        return;
    }
    assert_eq!(got["driver"], "Parquet");
    assert_eq!(got["type"], "Point");
    assert_eq!(got["crs"], "OGC:CRS84");
    let file = Parquet::read(&download(server, &format!("/downloads/{stem}.parquet")));
    let want: Vec<serde_json::Value> = (file.places.iter().flatten())
        .map(|p| {
            p.point
                .map_or(serde_json::Value::Null, |(x, y)| serde_json::json!([x, y]))
        })
        .collect();
    assert_eq!(got["points"].as_array().unwrap(), &want);
}

const GEOPANDAS_BBOX: &str = r#"
import geopandas
url, box = sys.argv[1], tuple(float(v) for v in sys.argv[2].split(","))
df = geopandas.read_parquet(url, bbox=box, columns=["count_point_id", "year", "geometry"])
print(json.dumps(table(sorted(zip(df.count_point_id.tolist(), df.year.tolist())))))
"#;

/// The (count point, year) of the AADF rows in [`BOX`], as `filter[bbox]` finds them.
fn aadf_in_the_box(server: &TestServer) -> Vec<Vec<Value>> {
    let target = format!(
        "/api/average-annual-daily-flow.csv?filter[bbox]={}&fields=count_point_id,year",
        box_text()
    );
    let csv = Csv::read(&download(server, &target));
    let mut got: Vec<Vec<Value>> = (csv.rows.iter())
        .map(|r| r.iter().map(|c| Value::Int(c.parse().unwrap())).collect())
        .collect();
    got.sort_by_key(|r| format!("{r:?}"));
    got
}

/// GeoPandas reads over HTTP the rows whose covering box meets a box: those `filter[bbox]`
/// finds.
#[test]
fn geopandas_reads_a_box_over_http_as_filter_bbox_finds_it() {
    let modules = "geopandas, pyarrow, fsspec, aiohttp";
    let Some(python) = python_with(modules, "pip install geopandas pyarrow fsspec aiohttp") else {
        return;
    };
    let server = sample_server();
    let url = server.url("/downloads/dft_traffic_counts_aadf.parquet");
    let got = rows(&client(&python, GEOPANDAS_BBOX, &[&url, &box_text()]));
    let mut got = got;
    got.sort_by_key(|r| format!("{r:?}"));
    let want = aadf_in_the_box(server);
    assert!(!want.is_empty(), "no rows in the box");
    let all = Csv::read(&download(server, "/downloads/dft_traffic_counts_aadf.csv"));
    assert!(want.len() < all.rows.len(), "every row in the box");
    assert_eq!(got, want);
}

/// DuckDB with httpfs and spatial loaded from the PyPI packages; prints each query's rows.
pub(super) const DUCKDB_SPATIAL: &str = r#"
import duckdb, duckdb_ext, glob
con = duckdb.connect()
for ext in ["httpfs", "spatial"]:
    pattern = f"extensions/v{duckdb.__version__}/*/{ext}.duckdb_extension"
    found = [p for d in duckdb_ext.__path__ for p in glob.glob(f"{d}/{pattern}")]
    assert found, f"no {pattern} in {list(duckdb_ext.__path__)}"
    con.execute(f"LOAD '{found[0]}'")
print(json.dumps([table(con.execute(q).fetchall()) for q in json.loads(sys.argv[1])]))
"#;

/// DuckDB with its spatial extension reads the geometry as a geometry, and a filter on the
/// covering column or on the geometry keeps the rows in the box, over HTTP.
#[test]
fn duckdb_filters_on_the_covering_column_over_http() {
    let install = "pip install duckdb==1.4.4 duckdb-ext-httpfs==1.4.4.20260205 \
                   duckdb-ext-spatial==1.4.4.20260205";
    let Some(python) = python_with("duckdb, duckdb_ext", install) else {
        return;
    };
    let server = sample_server();
    let url = server.url("/downloads/dft_traffic_counts_aadf.parquet");
    let [x0, y0, x1, y1] = BOX;
    let covering = format!(
        "bbox.xmin <= {x1} AND bbox.xmax >= {x0} AND bbox.ymin <= {y1} AND bbox.ymax >= {y0}"
    );
    let keys = "SELECT count_point_id, year FROM read_parquet";
    let queries = [
        format!("{keys}('{url}') WHERE {covering} ORDER BY 1, 2"),
        format!(
            "{keys}('{url}') WHERE ST_Intersects(geometry, \
             ST_MakeEnvelope({x0}, {y0}, {x1}, {y1})) ORDER BY 1, 2"
        ),
        format!("SELECT DISTINCT ST_GeometryType(geometry)::VARCHAR FROM read_parquet('{url}')"),
    ];
    let list = serde_json::to_string(&queries).unwrap();
    let got = client(&python, DUCKDB_SPATIAL, &[&list]);
    let got: Vec<Vec<Vec<Value>>> = got.as_array().unwrap().iter().map(rows).collect();
    let want = sql_rows(
        sample_db(),
        &format!(
            "SELECT count_point_id, year FROM aadf WHERE CAST(longitude AS REAL) \
             BETWEEN {x0} AND {x1} AND CAST(latitude AS REAL) BETWEEN {y0} AND {y1} \
             ORDER BY 1, 2"
        ),
    );
    assert!(!want.is_empty());
    assert_eq!(got[0], want, "the covering column");
    assert_eq!(got[1], want, "the geometry");
    assert_eq!(got[2], [[Value::Text("POINT".to_string())]]);
}

/// The validator's program, if it is installed (`pip install geoparquet-validator`).
pub(super) fn validator() -> Option<PathBuf> {
    let program = PathBuf::from("geoparquet-validator");
    let found = Command::new(&program).arg("--version").output();
    if found.is_ok_and(|o| o.status.success()) {
        return Some(program);
    }
    missing(
        "geoparquet-validator (pip install geoparquet-validator; .ci/run installs it)",
        "what needs geoparquet-validator: not installed (pip install geoparquet-validator)",
    )
}

pub(super) fn validate(validator: &Path, file: &Path) -> (bool, String) {
    let out = Command::new(validator)
        .args(["check", file.to_str().unwrap()])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    (
        out.status.success(),
        said + &String::from_utf8_lossy(&out.stderr),
    )
}

/// `geoparquet-validator` passes every file with places, national and split, and a listing's.
#[test]
fn geoparquet_validator_passes_the_files() {
    let Some(validator) = validator() else {
        return;
    };
    let server = sample_server();
    let mut paths: Vec<PathBuf> = WITH_PLACES.iter().map(|s| saved(server, s)).collect();
    let listing = scratch_dir().join("geo-listing.parquet");
    let target = "/api/average-annual-daily-flow.parquet?sort=-year";
    std::fs::write(&listing, download(server, target)).unwrap();
    paths.push(listing);
    for path in paths {
        let (passed, said) = validate(&validator, &path);
        assert!(passed, "{}:\n{said}", path.display());
    }
}
