//! Issue 35, item 6 for the area sets: `/api/areas/{set}.parquet` is GeoParquet 1.1 of the
//! set's polygons, the same areas as its `.geojson`. Checked by the tools people use:
//! pyarrow (the columns and the `geo` metadata), GeoPandas (`read_parquet` against
//! `read_file` of the GeoJSON: the same ids, names, counts and polygons), DuckDB's spatial
//! extension over HTTP, and `geoparquet-validator`; on the sample's hand-made set of lon/lat
//! polygons (one with a hole), and on the real constituencies on the grid (EPSG:27700),
//! converted to lon/lat as the GeoJSON is.

use std::path::PathBuf;

use super::clients::client;
use super::geo::{validate, validator, DUCKDB_SPATIAL};
use super::*;
use crate::areas_api::sets::{boundaries, copy_with_sets};
use crate::site_areas::{zones_db, zones_server};

/// The sample with the set `zones`, and, when the boundary files are there, the same with
/// the 2024 constituencies on the grid added as `grid`.
fn servers() -> Vec<(&'static TestServer, &'static str)> {
    static GRID: std::sync::OnceLock<Option<TestServer>> = std::sync::OnceLock::new();
    let grid = GRID.get_or_init(|| {
        let file = boundaries("constituencies_2024_bng.geojson")?;
        Some(serve(&copy_with_sets(zones_db(), &[("grid", &file)]), &[]))
    });
    let mut out = vec![(zones_server(), "zones")];
    out.extend(grid.as_ref().map(|s| (s, "grid")));
    out
}

/// A set's GeoParquet and GeoJSON, saved where the Python tools read them.
fn saved(server: &TestServer, set: &str) -> (PathBuf, PathBuf) {
    let dir = scratch_dir();
    let [parquet, geojson] = ["parquet", "geojson"].map(|form| {
        let path = dir.join(format!("{set}.{form}"));
        std::fs::write(&path, download(server, &format!("/api/areas/{set}.{form}"))).unwrap();
        path
    });
    (parquet, geojson)
}

#[test]
fn an_area_set_is_geoparquet_tagged_as_its_other_forms() {
    let server = zones_server();
    let reply = get(server, "/api/areas/zones.parquet");
    assert_eq!(reply.status, 200, "{}", reply.text());
    let content_type = reply.header("content-type");
    assert_eq!(content_type, Some("application/vnd.apache.parquet"));
    let tag = reply.header("etag").expect("a tag").to_string();
    let again = request(
        server,
        "GET",
        "/api/areas/zones.parquet",
        &[("if-none-match", &tag)],
    );
    assert_eq!(again.status, 304);
    // The same under the release's own name, and a 404 for a set not stored.
    let named = get(server, "/releases/2024/api/areas/zones.parquet");
    assert_eq!((named.status, named.body.len()), (200, reply.body.len()));
    for missing in [
        "/api/areas/nope.parquet",
        "/releases/2024/api/areas/nope.parquet",
    ] {
        assert_eq!(get(server, missing).status, 404, "{missing}");
    }
    let geojson = get(server, "/api/areas/zones.geojson");
    assert_ne!(
        geojson.header("etag"),
        Some(tag.as_str()),
        "one tag for two forms"
    );
}

/// pyarrow's view of the file and GeoPandas' of both forms, as JSON.
const GEOPANDAS_BOTH: &str = r#"
import geopandas as gpd, pyarrow.parquet as pq
parquet, geojson = sys.argv[1], sys.argv[2]
file = pq.ParquetFile(parquet)
schema = file.schema_arrow
a, b = gpd.read_parquet(parquet), gpd.read_file(geojson)
bounds = [list(g.bounds) for g in a.geometry]
# GeoPandas leaves the covering column out: pyarrow reads it.
covering = pq.read_table(parquet).column("bbox").to_pylist()
boxes = [[r["xmin"], r["ymin"], r["xmax"], r["ymax"]] for r in covering]
print(json.dumps({
    "columns": [[f.name, str(f.type)] for f in schema],
    "geo": json.loads(file.metadata.metadata[b"geo"]),
    "crs": a.crs.to_string(),
    "ids": [list(a["id"]), list(b["id"])],
    "names": [list(a["name"]), list(b["name"])],
    "counts": [[int(c) for c in a["count_points"]], [int(c) for c in b["count_points"]]],
    "types": [list(a.geom_type), list(b.geom_type)],
    "same": [bool(x.equals_exact(y, 1e-9)) for x, y in zip(a.geometry, b.geometry)],
    "boxes": boxes == bounds,
    "extent": list(a.total_bounds),
}))
"#;

#[test]
fn geopandas_reads_the_same_areas_as_the_geojson() {
    let Some(python) = python_with("geopandas, pyarrow", "pip install geopandas pyarrow") else {
        return;
    };
    for (server, set) in servers() {
        let (parquet, geojson) = saved(server, set);
        let args = [parquet.to_str().unwrap(), geojson.to_str().unwrap()];
        let got = client(&python, GEOPANDAS_BOTH, &args);
        let columns: Vec<String> = (got["columns"].as_array().unwrap().iter())
            .map(|c| c[0].as_str().unwrap().to_string())
            .collect();
        assert_eq!(columns, ["id", "name", "count_points", "geometry", "bbox"]);
        assert_eq!(got["columns"][2][1], "int64", "{set}");
        for pair in ["ids", "names", "counts", "types"] {
            assert_eq!(got[pair][0], got[pair][1], "{set} {pair}");
        }
        let areas = got["ids"][0].as_array().unwrap().len();
        assert!(areas >= 4, "{set}: {areas} areas");
        let api = get(server, &format!("/api/areas/{set}?page%5Bsize%5D=1000")).json();
        let listed: Vec<serde_json::Value> = (api["data"].as_array().unwrap().iter())
            .map(|a| a["id"].clone())
            .collect();
        assert_eq!(got["ids"][0], serde_json::json!(listed), "{set}");
        let all_true = |v: &serde_json::Value| v.as_array().unwrap().iter().all(|b| b == true);
        assert!(all_true(&got["same"]), "{set}: {}", got["same"]);
        assert_eq!(
            got["boxes"], true,
            "{set}: the covering box is each geometry's bounds"
        );
        assert_eq!(got["crs"], "OGC:CRS84", "{set}");
        assert_geo(&got["geo"], &got["extent"], &got["types"][0], set);
    }
}

/// The `geo` metadata: GeoParquet 1.1.0 of WKB polygons, the types there are, the extent,
/// the covering box.
fn assert_geo(
    geo: &serde_json::Value,
    extent: &serde_json::Value,
    types: &serde_json::Value,
    set: &str,
) {
    assert_eq!(geo["version"], "1.1.0", "{set}");
    assert_eq!(geo["primary_column"], "geometry", "{set}");
    let column = &geo["columns"]["geometry"];
    assert_eq!(column["encoding"], "WKB", "{set}");
    assert_eq!(column["bbox"], *extent, "{set}");
    assert_eq!(
        column["covering"]["bbox"]["xmax"],
        serde_json::json!(["bbox", "xmax"])
    );
    let mut present: Vec<&str> = (types.as_array().unwrap().iter())
        .map(|t| t.as_str().unwrap())
        .collect();
    present.sort();
    present.dedup();
    let mut declared: Vec<&str> = (column["geometry_types"].as_array().unwrap().iter())
        .map(|t| t.as_str().unwrap())
        .collect();
    declared.sort();
    assert_eq!(declared, present, "{set}: the types there are");
}

#[test]
fn geoparquet_validator_passes_the_area_sets() {
    let Some(validator) = validator() else {
        return;
    };
    for (server, set) in servers() {
        let (parquet, _) = saved(server, set);
        let (passed, said) = validate(&validator, &parquet);
        assert!(passed, "{set}:\n{said}");
    }
}

/// DuckDB's spatial extension reads the set over HTTP: the polygons as geometries, whose
/// boxes are the covering column's and the API's `bbox`.
#[test]
fn duckdb_reads_the_area_sets_over_http() {
    let install = "pip install duckdb==1.4.4 duckdb-ext-httpfs==1.4.4.20260205 \
                   duckdb-ext-spatial==1.4.4.20260205";
    let Some(python) = python_with("duckdb, duckdb_ext", install) else {
        return;
    };
    for (server, set) in servers() {
        let url = server.url(&format!("/api/areas/{set}.parquet"));
        let queries = [
            format!(
                "SELECT id, count_points, ST_GeometryType(geometry)::VARCHAR, \
                 ST_XMin(geometry) = bbox.xmin AND ST_YMin(geometry) = bbox.ymin \
                 AND ST_XMax(geometry) = bbox.xmax AND ST_YMax(geometry) = bbox.ymax \
                 FROM read_parquet('{url}')"
            ),
            format!("SELECT bbox.xmin, bbox.ymin, bbox.xmax, bbox.ymax FROM read_parquet('{url}')"),
        ];
        let list = serde_json::to_string(&queries).unwrap();
        let got = client(&python, DUCKDB_SPATIAL, &[&list]);
        let api = get(server, &format!("/api/areas/{set}?page%5Bsize%5D=1000")).json();
        let api = api["data"].as_array().unwrap();
        let rows = got[0].as_array().unwrap();
        assert_eq!(rows.len(), api.len(), "{set}");
        for ((row, boxed), area) in rows.iter().zip(got[1].as_array().unwrap()).zip(api) {
            assert_eq!(
                (&row[0], &row[1]),
                (&area["id"], &area["count_points"]),
                "{set}"
            );
            let kind = row[2].as_str().unwrap();
            assert!(kind == "POLYGON" || kind == "MULTIPOLYGON", "{set}: {kind}");
            assert_eq!(row[3], true, "{set} {}: the covering box", row[0]);
            let corners: Vec<f64> = (boxed.as_array().unwrap().iter())
                .map(|c| c["double"].as_str().unwrap().parse().unwrap())
                .collect();
            let want: Vec<f64> = (area["bbox"].as_array().unwrap().iter())
                .map(|c| c.as_f64().unwrap())
                .collect();
            assert_eq!(corners, want, "{set} {}: the API's bbox", row[0]);
        }
    }
}

/// A GeoParquet file's rows read back with the `parquet` crate: as many as the set's areas.
#[test]
fn the_parquet_crate_reads_one_row_per_area() {
    let server = zones_server();
    let body = download(server, "/api/areas/zones.parquet");
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(body)).unwrap();
    let rows: usize = reader.build().unwrap().map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows, crate::site_areas::MEMBERS.len());
}
