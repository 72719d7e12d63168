//! Each refusal of a boundary file, and what is accepted: holes, multipolygons, numeric ids,
//! empty names, the grid, GeoPackage layers.

use std::io::Write;

use geozero::{CoordDimensions, ToWkb};
use rusqlite::params;

use super::*;

/// A square ring with its lower left corner at (x, y), counter-clockwise.
fn square(x: f64, y: f64, side: f64) -> serde_json::Value {
    serde_json::json!([
        [x, y],
        [x + side, y],
        [x + side, y + side],
        [x, y + side],
        [x, y]
    ])
}

fn feature(id: serde_json::Value, geometry: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"type": "Feature", "properties": {"code": id, "name": "N"}, "geometry": geometry})
}

fn polygon(rings: Vec<serde_json::Value>) -> serde_json::Value {
    serde_json::json!({"type": "Polygon", "coordinates": rings})
}

fn collection(features: Vec<serde_json::Value>) -> serde_json::Value {
    serde_json::json!({"type": "FeatureCollection", "features": features})
}

fn file_of(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(bytes).unwrap();
    f
}

fn read_json(json: &serde_json::Value) -> Result<AreaSet, BoundaryError> {
    let f = file_of(json.to_string().as_bytes());
    read_boundaries(f.path(), "t", &Fields::default())
}

fn refusal(json: &serde_json::Value) -> String {
    read_json(json).unwrap_err().to_string()
}

fn ok_square() -> serde_json::Value {
    feature("a".into(), polygon(vec![square(-1.0, 52.0, 0.1)]))
}

#[test]
fn a_polygon_with_a_hole_and_a_multipolygon_are_read() {
    let hole = polygon(vec![square(-1.0, 52.0, 1.0), square(-0.8, 52.2, 0.2)]);
    let multi = serde_json::json!({"type": "MultiPolygon", "coordinates": [
        [square(1.0, 52.0, 0.5)], [square(1.5, 53.0, 0.5)]]});
    let set = read_json(&collection(vec![
        feature("h".into(), hole),
        feature(7.into(), multi),
    ]))
    .unwrap();
    assert_eq!(set.crs, SetCrs::Crs84);
    assert_eq!(set.areas.len(), 2);
    assert_eq!(set.areas[0].geometry.0[0].interiors().len(), 1);
    assert_eq!(set.areas[1].id, "7", "a numeric id is its text");
    assert_eq!(set.areas[1].geometry.0.len(), 2);
    assert_eq!(set.sha256.len(), 64);
}

#[test]
fn an_empty_or_missing_name_falls_back_to_the_id() {
    let mut f = ok_square();
    f["properties"]["name"] = "".into();
    let mut g = feature("b".into(), polygon(vec![square(0.0, 52.0, 0.1)]));
    g["properties"].as_object_mut().unwrap().remove("name");
    let set = read_json(&collection(vec![f, g])).unwrap();
    assert_eq!(
        (set.areas[0].name.as_str(), set.areas[1].name.as_str()),
        ("a", "b")
    );
}

#[test]
fn the_id_and_name_fields_are_chosen() {
    let mut f = ok_square();
    f["properties"]["ref"] = 12.into();
    f["properties"]["label"] = "Zone 12".into();
    let file = file_of(collection(vec![f]).to_string().as_bytes());
    let fields = Fields {
        id: Some("ref".into()),
        name: Some("label".into()),
        layer: None,
    };
    let set = read_boundaries(file.path(), "t", &fields).unwrap();
    assert_eq!(
        (set.areas[0].id.as_str(), set.areas[0].name.as_str()),
        ("12", "Zone 12")
    );
    let missing = Fields {
        id: Some("nope".into()),
        ..Fields::default()
    };
    let e = read_boundaries(file.path(), "t", &missing)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("feature 0: it has no id") && e.contains("\"nope\""),
        "{e}"
    );
}

#[test]
fn the_feature_own_id_is_the_last_default() {
    let mut f = ok_square();
    f["properties"] = serde_json::json!({});
    f["id"] = "own".into();
    assert_eq!(read_json(&collection(vec![f])).unwrap().areas[0].id, "own");
}

#[test]
fn not_geojson_is_refused() {
    let f = file_of(b"{\"type\": \"FeatureCollection\", \"features\": [");
    let e = read_boundaries(f.path(), "t", &Fields::default())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("not valid GeoJSON"), "{e}");
    let e = refusal(&polygon(vec![square(-1.0, 52.0, 1.0)]));
    assert!(e.contains("a Polygon, not a FeatureCollection"), "{e}");
    let e = refusal(&collection(vec![
        ok_square(),
        serde_json::json!({"type": "Feature"}),
    ]));
    assert!(e.starts_with("feature 1: not a GeoJSON Feature"), "{e}");
    let e = refusal(&collection(vec![]));
    assert_eq!(e, "it has no features");
}

#[test]
fn non_polygons_are_refused_by_feature() {
    let line =
        serde_json::json!({"type": "LineString", "coordinates": [[-1.0, 52.0], [-1.1, 52.1]]});
    let e = refusal(&collection(vec![ok_square(), feature("b".into(), line)]));
    assert_eq!(
        e,
        "feature 1 (id \"b\"): a LineString: only Polygon and MultiPolygon features are areas"
    );
    let none =
        serde_json::json!({"type": "Feature", "properties": {"code": "c"}, "geometry": null});
    let e = refusal(&collection(vec![none]));
    assert_eq!(e, "feature 0 (id \"c\"): it has no geometry");
}

#[test]
fn unclosed_and_short_rings_are_refused() {
    let unclosed = serde_json::json!([[-1.0, 52.0], [-0.9, 52.0], [-0.9, 52.1], [-1.0, 52.1]]);
    let e = refusal(&collection(vec![feature(
        "u".into(),
        polygon(vec![unclosed]),
    )]));
    assert_eq!(e, "feature 0 (id \"u\"): the polygon's exterior ring is not closed: its last position is not its first");
    let short = serde_json::json!([[-1.0, 52.0], [-0.9, 52.0], [-1.0, 52.0]]);
    let e = refusal(&collection(vec![feature(
        "s".into(),
        polygon(vec![square(-1.0, 52.0, 1.0), short]),
    )]));
    assert!(
        e.starts_with("feature 0 (id \"s\"): the polygon's hole 1 has 3 positions"),
        "{e}"
    );
}

#[test]
fn self_intersecting_and_invalid_polygons_are_refused() {
    let bowtie = serde_json::json!([
        [-1.0, 52.0],
        [-0.9, 52.1],
        [-0.9, 52.0],
        [-1.0, 52.1],
        [-1.0, 52.0]
    ]);
    let e = refusal(&collection(vec![feature(
        "x".into(),
        polygon(vec![bowtie]),
    )]));
    assert!(
        e.starts_with("feature 0 (id \"x\"): not a valid polygon")
            && e.contains("self-intersection"),
        "{e}"
    );
    let hole_outside = polygon(vec![square(-1.0, 52.0, 0.1), square(0.0, 53.0, 0.1)]);
    let e = refusal(&collection(vec![feature("o".into(), hole_outside)]));
    assert!(
        e.starts_with("feature 0 (id \"o\"): not a valid polygon"),
        "{e}"
    );
    let overlapping = serde_json::json!({"type": "MultiPolygon", "coordinates": [
        [square(-1.0, 52.0, 0.5)], [square(-0.8, 52.2, 0.5)]]});
    let e = refusal(&collection(vec![feature("m".into(), overlapping)]));
    assert!(
        e.starts_with("feature 0 (id \"m\"): not a valid polygon"),
        "{e}"
    );
}

#[test]
fn missing_and_duplicate_ids_are_refused() {
    let mut no_id = ok_square();
    no_id["properties"] = serde_json::json!({"name": "x"});
    let e = refusal(&collection(vec![ok_square(), no_id]));
    assert!(e.starts_with("feature 1: it has no id"), "{e}");
    let e = refusal(&collection(vec![ok_square(), ok_square()]));
    assert_eq!(e, "feature 1 (id \"a\"): its id repeats feature 0's");
    let mut bad = ok_square();
    bad["properties"]["code"] = serde_json::json!({"a": 1});
    let e = refusal(&collection(vec![bad]));
    assert_eq!(
        e,
        "feature 0: its property \"code\" is an object, not text or a number"
    );
}

#[test]
fn unknown_crs_is_refused_and_the_grid_is_read() {
    let mut c = collection(vec![ok_square()]);
    c["crs"] = serde_json::json!({"type": "name", "properties": {"name": "EPSG:3857"}});
    let e = refusal(&c);
    assert!(
        e.starts_with("its \"crs\" member declares") && e.contains("3857"),
        "{e}"
    );
    let grid = feature(
        "g".into(),
        polygon(vec![square(400_000.0, 300_000.0, 1000.0)]),
    );
    let mut c = collection(vec![grid]);
    c["crs"] =
        serde_json::json!({"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}});
    assert_eq!(read_json(&c).unwrap().crs, SetCrs::BritishNationalGrid);
}

#[test]
fn coordinates_outside_great_britain_are_refused() {
    let paris = feature("p".into(), polygon(vec![square(2.3, 48.8, 0.1)]));
    let e = refusal(&collection(vec![paris]));
    assert!(e.starts_with("feature 0 (id \"p\"): the polygon's exterior ring has position 0 at (2.3, 48.8), outside Great Britain's grid"), "{e}");
    // Grid metres read as degrees: what a missing crs member does to a BNG file.
    let grid = feature(
        "g".into(),
        polygon(vec![square(400_000.0, 300_000.0, 1000.0)]),
    );
    assert!(refusal(&collection(vec![grid])).contains("outside Great Britain's grid"));
}

#[test]
fn the_caps_are_kept() {
    let many = (0..=MAX_FEATURES)
        .map(|i| RawFeature {
            id: Some(i.to_string()),
            name: None,
            rings: Err("not read".into()),
        })
        .collect();
    let e = check::areas(many, SetCrs::Crs84, &Fields::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{} features: a set may have at most {MAX_FEATURES}",
            MAX_FEATURES + 1
        )
    );
    let big = vec![vec![vec![[0.0, 0.0]; MAX_VERTICES + 1]]];
    let one = vec![RawFeature {
        id: Some("v".into()),
        name: None,
        rings: Ok(big),
    }];
    let e = check::areas(one, SetCrs::Crs84, &Fields::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("the most a set may have"), "{e}");
}

/// A GeoPackage of the given layers (name, srs_id, geometries as GPKG blobs).
fn geopackage(layers: &[(&str, i64, Vec<Vec<u8>>)]) -> tempfile::NamedTempFile {
    let f = tempfile::NamedTempFile::new().unwrap();
    let conn = rusqlite::Connection::open(f.path()).unwrap();
    conn.execute_batch(
        "CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT, srs_id INTEGER PRIMARY KEY, \
         organization TEXT, organization_coordsys_id INTEGER, definition TEXT);
         INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84', 4326, 'EPSG', 4326, ''),
           ('OSGB36', 27700, 'EPSG', 27700, ''), ('Mercator', 3857, 'EPSG', 3857, '');
         CREATE TABLE gpkg_contents (table_name TEXT PRIMARY KEY, data_type TEXT, srs_id INTEGER);
         CREATE TABLE gpkg_geometry_columns (table_name TEXT, column_name TEXT, \
         geometry_type_name TEXT, srs_id INTEGER, z INTEGER, m INTEGER);",
    )
    .unwrap();
    for (name, srs, geometries) in layers {
        conn.execute(
            "INSERT INTO gpkg_contents VALUES (?1, 'features', ?2)",
            params![name, srs],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO gpkg_geometry_columns VALUES (?1, 'geom', 'MULTIPOLYGON', ?2, 0, 0)",
            params![name, srs],
        )
        .unwrap();
        let table = format!("\"{}\"", name.replace('"', "\"\""));
        conn.execute_batch(&format!(
            "CREATE TABLE {table} (fid INTEGER PRIMARY KEY, geom BLOB, code TEXT, name TEXT)"
        ))
        .unwrap();
        for (i, g) in geometries.iter().enumerate() {
            let sql = format!("INSERT INTO {table} (geom, code, name) VALUES (?1, ?2, ?3)");
            conn.execute(&sql, params![g, format!("c{i}"), format!("Area {i}")])
                .unwrap();
        }
    }
    f
}

/// A geometry as a GeoPackage blob: the header (little-endian, no envelope) then WKB.
fn gpkg_blob(g: geo::Geometry<f64>, srs: i32) -> Vec<u8> {
    let mut blob = vec![b'G', b'P', 0, 1];
    blob.extend(srs.to_le_bytes());
    blob.extend(g.to_wkb(CoordDimensions::xy()).unwrap());
    blob
}

fn gpkg_square(x: f64, y: f64) -> Vec<u8> {
    let rect = geo::Rect::new(
        geo::coord! {x: x, y: y},
        geo::coord! {x: x + 0.1, y: y + 0.1},
    );
    gpkg_blob(geo::Geometry::Polygon(rect.to_polygon()), 4326)
}

#[test]
fn a_geopackage_layer_is_read() {
    let f = geopackage(&[(
        "zones",
        4326,
        vec![gpkg_square(-1.0, 52.0), gpkg_square(-2.0, 52.0)],
    )]);
    let set = read_boundaries(f.path(), "z", &Fields::default()).unwrap();
    assert_eq!(set.crs, SetCrs::Crs84);
    let ids: Vec<&str> = set.areas.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, ["c0", "c1"]);
    assert_eq!(set.areas[1].name, "Area 1");
}

#[test]
fn several_layers_need_one_named() {
    let f = geopackage(&[
        ("a", 4326, vec![gpkg_square(-1.0, 52.0)]),
        ("b \"x\"", 27700, vec![]),
    ]);
    let e = read_boundaries(f.path(), "z", &Fields::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "this GeoPackage has 2 feature layers (a, b \"x\"): name one with --layer"
    );
    let named = |layer: &str| Fields {
        layer: Some(layer.into()),
        ..Fields::default()
    };
    assert_eq!(
        read_boundaries(f.path(), "z", &named("a"))
            .unwrap()
            .areas
            .len(),
        1
    );
    let e = read_boundaries(f.path(), "z", &named("b \"x\""))
        .unwrap_err()
        .to_string();
    assert_eq!(e, "it has no features");
    let e = read_boundaries(f.path(), "z", &named("c"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("no feature layer \"c\""), "{e}");
}

#[test]
fn geopackage_faults_are_refused() {
    let point = gpkg_blob(geo::Geometry::Point(geo::Point::new(-1.0, 52.0)), 4326);
    let f = geopackage(&[("a", 4326, vec![gpkg_square(-1.0, 52.0), point])]);
    let e = read_boundaries(f.path(), "z", &Fields::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "feature 1 (id \"c1\"): a Point: only Polygon and MultiPolygon features are areas"
    );
    let nan = geo::Rect::new(
        geo::coord! {x: -1.0, y: 52.0},
        geo::coord! {x: f64::NAN, y: 52.1},
    );
    let nan = gpkg_blob(geo::Geometry::Polygon(nan.to_polygon()), 4326);
    let f = geopackage(&[("a", 4326, vec![nan])]);
    let e = read_boundaries(f.path(), "z", &Fields::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a number"), "{e}");
    let f = geopackage(&[("m", 3857, vec![gpkg_square(-1.0, 52.0)])]);
    let e = read_boundaries(f.path(), "z", &Fields::default())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("its layer's CRS is EPSG:3857"), "{e}");
    let junk = {
        let mut blob = gpkg_square(-1.0, 52.0);
        blob.truncate(20);
        blob
    };
    let f = geopackage(&[("j", 4326, vec![junk])]);
    let e = read_boundaries(f.path(), "z", &Fields::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("feature 0 (id \"c0\"): its geometry is not valid GeoPackage WKB"),
        "{e}"
    );
    let plain = tempfile::NamedTempFile::new().unwrap();
    rusqlite::Connection::open(plain.path())
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    let e = read_boundaries(plain.path(), "z", &Fields::default())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("not a valid GeoPackage"), "{e}");
}
