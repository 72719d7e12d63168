//! Real clients of OGC API - Features against the real server, the test that matters: GDAL's
//! OAPIF driver (`ogrinfo`, `ogr2ogr` into a GeoPackage, with boxes in WGS 84 and on the
//! British National Grid, and reprojected), OWSLib's `Features` paging a collection, and
//! QGIS's OAPIF provider, headless. Each skips with a printed reason when its client is
//! missing, and fails instead under `ROADTRAFFIC_REQUIRE_SHARED=1` (CI, whose `.ci/run`
//! installs them all: QGIS from Debian's python3-qgis, for Debian's own Python).

use std::path::{Path, PathBuf};
use std::process::Command;

use roadtraffic_catalog::places::Places;

use super::{assert_ids, collections, located, servers, sql_ids};
use crate::support::*;

/// A program's standard output; it must succeed.
pub(super) fn run(program: &Path, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        // QGIS (Qt) without a display: Qt's xcb platform, its default, aborts.
        .env("QT_QPA_PLATFORM", "offscreen")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "{} {args:?}:\n{stdout}{stderr}",
        program.display()
    );
    stdout
}

/// The places of a collection's rows: (id, x, y) in WGS 84 or on the grid.
fn points(db: &Path, places: &Places, grid: bool) -> Vec<(i64, f64, f64)> {
    let [x, y] = match grid {
        true => ["p.easting", "p.northing"],
        false => ["CAST(p.longitude AS REAL)", "CAST(p.latitude AS REAL)"],
    };
    let conn = rusqlite::Connection::open(db).unwrap();
    let sql = format!(
        "SELECT r.id, {x}, {y} FROM {} WHERE {x} IS NOT NULL AND {y} IS NOT NULL ORDER BY r.id",
        located(places)
    );
    let mut stmt = conn.prepare(&sql).unwrap();
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)));
    rows.unwrap().collect::<Result<_, _>>().unwrap()
}

/// A box near `start` (minX, minY, maxX, maxY) with no point within `margin` of its edges,
/// so that a client's own test of its rounded or reprojected points and the server's test of
/// the rows' values cannot disagree on any: `start` moved by whole `step`s until it is so.
fn clean_box(points: &[(i64, f64, f64)], start: [f64; 4], margin: f64, step: f64) -> [f64; 4] {
    let near_edge = |b: [f64; 4]| {
        points.iter().any(|&(_, x, y)| {
            let inside_x = x > b[0] - margin && x < b[2] + margin;
            let inside_y = y > b[1] - margin && y < b[3] + margin;
            let near_x = (x - b[0]).abs() < margin || (x - b[2]).abs() < margin;
            let near_y = (y - b[1]).abs() < margin || (y - b[3]).abs() < margin;
            (near_x && inside_y) || (near_y && inside_x)
        })
    };
    for k in 0..400 {
        let (dx, dy) = ((k % 20) as f64 * step, (k / 20) as f64 * step);
        let b = [start[0] + dx, start[1] + dy, start[2] + dx, start[3] + dy];
        if !near_edge(b) {
            return b;
        }
    }
    panic!("no box near {start:?} keeps {margin} from every point");
}

/// A box `half` each way from the middle point of `points` (by x, then y): where the data is.
fn around(points: &[(i64, f64, f64)], half: f64) -> [f64; 4] {
    let mut sorted = points.to_vec();
    sorted.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.2.total_cmp(&b.2)));
    let (_, x, y) = sorted[sorted.len() / 2];
    [x - half, y - half, x + half, y + half]
}

fn inside(points: &[(i64, f64, f64)], b: [f64; 4]) -> Vec<i64> {
    let within = |&&(_, x, y): &&(i64, f64, f64)| x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3];
    points.iter().filter(within).map(|p| p.0).collect()
}

fn numbers(b: [f64; 4]) -> Vec<String> {
    b.iter().map(|v| v.to_string()).collect()
}

/// The ids of the features in a GeoPackage's layer (its `id` field: the record's id).
fn gpkg_ids(gpkg: &Path, layer: &str) -> Vec<i64> {
    sql_ids(gpkg, &format!("SELECT \"id\" FROM \"{layer}\" ORDER BY 1"))
}

#[test]
fn gdal_lists_the_collections_and_their_feature_counts() {
    let Some(ogrinfo) = required_tool("ogrinfo", "gdal-bin") else {
        return;
    };
    for (server, db) in servers() {
        let url = format!("OAPIF:{}", server.url("/ogcapi"));
        let listing = run(&ogrinfo, &["-ro", "-q", &url]);
        for (i, (id, _)) in collections().iter().enumerate() {
            assert!(
                listing.contains(&format!("{}: {id} (title: ", i + 1)),
                "{listing}"
            );
        }
        for (id, places) in collections() {
            let summary = run(&ogrinfo, &["-ro", "-al", "-so", &url, id]);
            let rows = sql_ids(
                db,
                &format!("SELECT count(*) FROM {}", places.dataset.table),
            )[0];
            assert!(
                summary.contains(&format!("Feature Count: {rows}\n")),
                "{id}: {summary}"
            );
            // GDAL learns the fields from the first features: an empty collection has none.
            let fields_known = rows == 0 || summary.contains("road_name: String");
            assert!(fields_known, "{id}: {summary}");
        }
        // A filter on a property, which GDAL sends to the server (the definition lists it).
        let road: String = rusqlite::Connection::open(db)
            .unwrap()
            .query_row(
                "SELECT road_name FROM count_points ORDER BY id LIMIT 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let filtered = run(
            &ogrinfo,
            &[
                "-ro",
                "-al",
                "-so",
                &url,
                "count-points",
                "-where",
                &format!("road_name = '{road}'"),
            ],
        );
        let expected = sql_ids(
            db,
            &format!("SELECT count(*) FROM count_points WHERE road_name = '{road}' COLLATE NOCASE"),
        )[0];
        assert!(
            filtered.contains(&format!("Feature Count: {expected}\n")),
            "{filtered}"
        );
    }
}

/// `ogr2ogr -spat` copies exactly the features SQLite finds in the box: in WGS 84, on the
/// grid (`-spat_srs EPSG:27700`), and reprojected to the grid (`-t_srs EPSG:27700`), where
/// each point lands within 5 m of its row's own easting and northing (GDAL's PROJ has no
/// OSTN15 grid offline: its Helmert transformation is good to a few metres).
#[test]
fn gdal_copies_exactly_the_features_in_a_box() {
    let (Some(ogr2ogr), Some(_)) = (
        required_tool("ogr2ogr", "gdal-bin"),
        required_tool("ogrinfo", "gdal-bin"),
    ) else {
        return;
    };
    for (server, db) in servers() {
        let url = format!("OAPIF:{}", server.url("/ogcapi"));
        let mut copied = 0;
        for (id, places) in collections() {
            let wgs84 = points(db, &places, false);
            let grid = points(db, &places, true);
            if wgs84.is_empty() {
                continue;
            }
            let b = clean_box(&wgs84, around(&wgs84, 0.3), 0.002, 0.05);
            let gpkg = copy_box(&ogr2ogr, &url, id, b, &["-oo", "PAGE_SIZE=1000"]);
            let expected = inside(&wgs84, b);
            assert_ids(&gpkg_ids(&gpkg, id), &expected, &format!("{id} {b:?}"));
            copied += expected.len();

            let b = clean_box(&grid, around(&grid, 30_000.0), 200.0, 5_000.0);
            let reprojected = ["-spat_srs", "EPSG:27700", "-t_srs", "EPSG:27700"];
            let gpkg = copy_box(&ogr2ogr, &url, id, b, &reprojected);
            let expected = inside(&grid, b);
            assert_ids(&gpkg_ids(&gpkg, id), &expected, &format!("{id} {b:?}"));
            assert_on_the_grid(&ogr2ogr, &gpkg, id, &grid);
            copied += expected.len();
        }
        assert!(copied > 0, "every box was empty");
    }
}

/// `ogr2ogr -spat` of a collection's box (with `extra` options) into a new GeoPackage.
fn copy_box(ogr2ogr: &Path, url: &str, id: &str, b: [f64; 4], extra: &[&str]) -> PathBuf {
    let gpkg = scratch_dir().join(format!("{id}.gpkg"));
    let spat = numbers(b);
    let mut args = vec!["-f", "GPKG", gpkg.to_str().unwrap(), url, id, "-spat"];
    args.extend(spat.iter().map(String::as_str));
    args.extend(extra);
    run(ogr2ogr, &args);
    gpkg
}

/// Each point of a GeoPackage reprojected to the grid lies within 5 m of its row's own
/// easting and northing.
fn assert_on_the_grid(ogr2ogr: &Path, gpkg: &Path, id: &str, grid: &[(i64, f64, f64)]) {
    let csv = gpkg.with_extension("csv");
    let (csv_text, gpkg_text) = (csv.to_str().unwrap(), gpkg.to_str().unwrap());
    let as_xy = ["-lco", "GEOMETRY=AS_XY", "-select", "id"];
    let mut args = vec!["-f", "CSV", csv_text, gpkg_text];
    args.extend(as_xy);
    run(ogr2ogr, &args);
    for line in std::fs::read_to_string(&csv).unwrap().lines().skip(1) {
        let cells: Vec<f64> = line
            .split(',')
            .map(|c| c.trim_matches('"').parse().unwrap())
            .collect();
        let (_, e, n) = grid.iter().find(|p| p.0 == cells[2] as i64).unwrap();
        let off = (cells[0] - e).abs().max((cells[1] - n).abs());
        assert!(
            off < 5.0,
            "{id} {}: {off} m from its easting and northing",
            cells[2]
        );
    }
}

/// OWSLib pages a collection: `offset` and `limit` from the first feature to the last.
const OWSLIB_PAGES: &str = r#"
import json, sys
from owslib.ogcapi.features import Features
url, collection, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
api = Features(url)
ids, offset = [], 0
while True:
    page = api.collection_items(collection, limit=limit, offset=offset)
    ids += [f["id"] for f in page["features"]]
    offset += page["numberReturned"]
    if offset >= page["numberMatched"] or page["numberReturned"] == 0:
        break
print(json.dumps({
    "collections": api.feature_collections(),
    "conformance": api.conformance()["conformsTo"],
    "ids": ids,
    "matched": page["numberMatched"],
}))
"#;

#[test]
fn owslib_pages_a_collection_to_its_end() {
    let Some(python) = python_with("owslib", "pip install owslib") else {
        return;
    };
    for (server, db) in servers() {
        for (id, places) in collections() {
            let all = sql_ids(
                db,
                &format!("SELECT id FROM {} ORDER BY id", places.dataset.table),
            );
            let limit = (all.len() / 3).clamp(1, 2000).to_string();
            // OWSLib joins relative paths to the URL, so it is given with its final slash.
            let base = server.url("/ogcapi/");
            let out = run(&python, &["-c", OWSLIB_PAGES, &base, id, &limit]);
            let got: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_ids(&id_list(&got["ids"]), &all, id);
            assert_eq!(got["matched"], all.len(), "{id}");
            let listed: Vec<&str> = collections().iter().map(|(id, _)| *id).collect();
            assert_eq!(got["collections"], serde_json::json!(listed));
        }
    }
}

/// QGIS opens each collection as a vector layer through its OAPIF provider, headless, and
/// counts its features, all of them and those in a box.
const QGIS_LAYER: &str = r#"
import json, os, sys
from qgis.core import QgsApplication, QgsFeatureRequest, QgsRectangle, QgsVectorLayer
app = QgsApplication([], False)
app.initQgis()
url, collection = sys.argv[1], sys.argv[2]
box = [float(v) for v in sys.argv[3].split(",")]
layer = QgsVectorLayer(f"url='{url}' typename='{collection}'", collection, "OAPIF")
result = {"valid": layer.isValid()}
if layer.isValid():
    result["crs"] = layer.crs().authid()
    result["count"] = layer.featureCount()
    result["ids"] = sorted(f["id"] for f in layer.getFeatures())
    request = QgsFeatureRequest().setFilterRect(QgsRectangle(*box))
    result["in_box"] = sorted(f["id"] for f in layer.getFeatures(request))
print(json.dumps(result), flush=True)
# QGIS's exit may crash headless after its work is done; the result is already out.
os._exit(0)
"#;

/// Debian's Python, if it can import QGIS (Debian's python3-qgis is built for it alone, not for
/// another `python3` on the PATH). Without it the test says on stderr what it skips; with
/// `ROADTRAFFIC_REQUIRE_SHARED=1` (CI, where `.ci/run` installs it) it fails.
fn python_with_qgis() -> Option<PathBuf> {
    let python = PathBuf::from("/usr/bin/python3");
    let has_qgis = Command::new(&python)
        .args(["-c", "import qgis.core"])
        .output()
        .is_ok_and(|o| o.status.success());
    if has_qgis {
        return Some(python);
    }
    missing(
        "QGIS's Python modules for /usr/bin/python3 (Debian package python3-qgis; .ci/run \
         installs it): they are missing",
        "what needs QGIS: python3-qgis is missing (apt-get install python3-qgis)",
    )
}

#[test]
fn qgis_opens_each_collection_as_a_layer() {
    let Some(python) = python_with_qgis() else {
        return;
    };
    for (server, db) in servers() {
        let mut in_boxes = 0;
        for (id, places) in collections() {
            let wgs84 = points(db, &places, false);
            let b = match wgs84.is_empty() {
                true => [-3.4, 51.3, -2.6, 51.9],
                false => clean_box(&wgs84, around(&wgs84, 0.3), 0.002, 0.05),
            };
            let box_text = numbers(b).join(",");
            let args = ["-c", QGIS_LAYER, &server.url("/ogcapi"), id, &box_text];
            let out = run(&python, &args);
            let got: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
            assert_eq!(got["valid"], true, "{id}: {out}");
            let table = places.dataset.table;
            let all = sql_ids(db, &format!("SELECT id FROM {table} ORDER BY id"));
            assert_eq!(got["count"], all.len(), "{id}");
            assert_ids(&id_list(&got["ids"]), &all, id);
            let expected = inside(&wgs84, b);
            assert_ids(&id_list(&got["in_box"]), &expected, &format!("{id} {b:?}"));
            in_boxes += expected.len();
        }
        assert!(in_boxes > 0, "every box was empty");
    }
}

fn id_list(ids: &serde_json::Value) -> Vec<i64> {
    let ids = ids.as_array().expect("a list of ids");
    ids.iter().map(|v| v.as_i64().unwrap()).collect()
}

/// QGIS opens an area set's collection as a polygon layer and reads each area's figures as
/// attributes, as a choropleth would.
const QGIS_AREAS: &str = r#"
import json, os, sys
from qgis.core import QgsApplication, QgsVectorLayer, QgsWkbTypes
app = QgsApplication([], False)
app.initQgis()
url, collection = sys.argv[1], sys.argv[2]
layer = QgsVectorLayer(f"url='{url}' typename='{collection}'", collection, "OAPIF")
plain = lambda v: v if isinstance(v, (int, float, str)) else None
result = {"valid": layer.isValid()}
if layer.isValid():
    result["geometry"] = QgsWkbTypes.geometryDisplayString(layer.geometryType())
    result["count"] = layer.featureCount()
    result["fields"] = [f.name() for f in layer.fields()]
    result["features"] = [
        [plain(f["id"]), plain(f["count_points"]), plain(f["vehicle_km"]), f.geometry().area() > 0]
        for f in layer.getFeatures()
    ]
print(json.dumps(result), flush=True)
os._exit(0)
"#;

#[test]
fn qgis_opens_an_area_set_as_polygons_with_their_figures() {
    let Some(python) = python_with_qgis() else {
        return;
    };
    let server = crate::site_areas::zones_server();
    let args = ["-c", QGIS_AREAS, &server.url("/ogcapi"), "areas-zones"];
    let out = run(&python, &args);
    let got: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(got["valid"], true, "{out}");
    assert_eq!(got["geometry"], "Polygon", "{out}");
    let fields = got["fields"].as_array().unwrap();
    for field in ["id", "count_points", "vehicle_km"] {
        assert!(fields.iter().any(|f| f == field), "{field}: {out}");
    }
    // Each area as the API lists it, and its vehicle-km as the collection's items give them.
    let api = get(server, "/api/areas/zones").json();
    let items = get(server, "/ogcapi/collections/areas-zones/items").json();
    let mut want: Vec<serde_json::Value> = (api["data"].as_array().unwrap().iter())
        .map(|a| {
            let feature = (items["features"].as_array().unwrap().iter())
                .find(|f| f["id"] == a["id"])
                .unwrap();
            let km = feature["properties"]["vehicle_km"].as_f64();
            serde_json::json!([a["id"], a["count_points"], km, true])
        })
        .collect();
    let mut features = got["features"].as_array().unwrap().clone();
    let by_id =
        |a: &serde_json::Value, b: &serde_json::Value| a[0].to_string().cmp(&b[0].to_string());
    want.sort_by(by_id);
    features.sort_by(by_id);
    assert_eq!(got["count"], want.len());
    assert_eq!(features, want);
    assert!(
        want.iter().any(|w| w[2].is_number()),
        "no vehicle-km at all: {want:?}"
    );
}
