//! Every kind of bad boundary file and bad request refused by `areas add`, with the feature
//! and the fault named, and `--db` unchanged to the byte and the second; an add killed midway
//! changes nothing either.

use std::path::Path;
use std::process::Command;

use super::{add, fingerprint, sample_copy};
use crate::support::*;

fn square(x: f64, y: f64) -> String {
    let (x1, y1) = (x + 0.1, y + 0.1);
    format!("[[{x}, {y}], [{x1}, {y}], [{x1}, {y1}], [{x}, {y1}], [{x}, {y}]]")
}

fn feature(id: &str, geometry: &str) -> String {
    format!(
        r#"{{"type": "Feature", "properties": {{"code": {id}, "name": "N"}}, "geometry": {geometry}}}"#
    )
}

fn polygon(rings: &str) -> String {
    format!(r#"{{"type": "Polygon", "coordinates": [{rings}]}}"#)
}

fn collection(features: &[String]) -> String {
    format!(
        r#"{{"type": "FeatureCollection", "features": [{}]}}"#,
        features.join(", ")
    )
}

#[test]
fn bad_boundary_files_are_refused_naming_the_feature() {
    let good = feature("\"a\"", &polygon(&square(-1.0, 52.0)));
    let grid_crs = r#""crs": {"type": "name", "properties": {"name": "EPSG:3857"}}, "#;
    let cases: Vec<(&str, String, &str)> = vec![
        ("not json", "{\"type\": \"FeatureCollection\", \"features\": [".into(), "not valid GeoJSON"),
        ("not a collection", polygon(&square(-1.0, 52.0)), "not valid GeoJSON: a Polygon, not a FeatureCollection"),
        ("a line", collection(&[good.clone(), feature("\"b\"", r#"{"type": "LineString", "coordinates": [[-1, 52], [-1.1, 52.1]]}"#)]),
            "feature 1 (id \"b\"): a LineString: only Polygon and MultiPolygon features are areas"),
        ("unclosed", collection(&[feature("\"u\"", &polygon("[[-1, 52], [-0.9, 52], [-0.9, 52.1], [-1, 52.1]]"))]),
            "feature 0 (id \"u\"): the polygon's exterior ring is not closed"),
        ("short ring", collection(&[feature("\"s\"", &polygon("[[-1, 52], [-0.9, 52], [-1, 52]]"))]),
            "feature 0 (id \"s\"): the polygon's exterior ring has 3 positions"),
        ("bowtie", collection(&[feature("\"x\"", &polygon("[[-1, 52], [-0.9, 52.1], [-0.9, 52], [-1, 52.1], [-1, 52]]"))]),
            "feature 0 (id \"x\"): not a valid polygon"),
        ("no id", collection(&[good.clone(), feature("null", &polygon(&square(0.0, 52.0)))]), "feature 1: it has no id"),
        ("same id", collection(&[good.clone(), good.clone()]), "feature 1 (id \"a\"): its id repeats feature 0's"),
        ("crs", format!("{{{grid_crs}{}", &collection(std::slice::from_ref(&good))[1..]), "its \"crs\" member declares"),
        ("outside", collection(&[feature("7", &polygon(&square(2.3, 48.8)))]), "feature 0 (id \"7\"): the polygon's exterior ring has position 0 at (2.3, 48.8), outside Great Britain's grid"),
        ("empty", collection(&[]), "it has no features"),
    ];
    let db = sample_copy();
    let before = fingerprint(&db);
    let dir = scratch_dir();
    for (what, text, fault) in cases {
        let file = dir.join(format!("{}.geojson", what.replace(' ', "_")));
        std::fs::write(&file, text).unwrap();
        let run = add(&db, "bad", &file, &[]);
        assert!(!run.ok, "{what}: accepted");
        let expected = format!("roadtraffic-load: {}: refused: {fault}", file.display());
        assert!(
            run.stderr.starts_with(&expected),
            "{what}: {}\nnot {expected}",
            run.stderr
        );
        assert!(
            run.stderr.contains("nothing was changed"),
            "{what}: {}",
            run.stderr
        );
        assert!(fingerprint(&db) == before, "{what}: the file changed");
    }
}

#[test]
fn bad_requests_are_refused_and_change_nothing() {
    let db = sample_copy();
    let zones = repo_path(super::ZONES);
    let before = fingerprint(&db);
    let refused = |run: super::Run, says: &str| {
        assert!(
            !run.ok && run.stderr.contains(says),
            "{}\nnot {says}",
            run.stderr
        );
        assert!(fingerprint(&db) == before);
    };
    refused(
        add(&db, "Zones", &zones, &[]),
        "area set name \"Zones\": a name is a lower-case letter",
    );
    refused(
        add(&db, "zones'; DROP TABLE aadf; --", &zones, &[]),
        "area set name",
    );
    refused(
        add(&db, "zones", &db.with_extension("nope"), &[]),
        "cannot be read",
    );
    refused(
        add(&db, "zones", &zones, &["--layer", "x"]),
        "--layer names a GeoPackage's layer",
    );
    refused(
        add(&db, "zones", &zones, &["--id-field", "nope"]),
        "feature 0: it has no id (its property \"nope\"",
    );
    let missing = scratch_dir().join("none.db");
    let run = add(&missing, "zones", &zones, &[]);
    assert!(
        !run.ok
            && run
                .stderr
                .contains("no file built by roadtraffic-load there"),
        "{}",
        run.stderr
    );
    assert!(!missing.exists());
}

/// An add killed once its copy of the file exists: the file is as it was, and the next add
/// clears the partial away.
#[test]
fn a_killed_add_changes_nothing() {
    let Some(sets) = shared("data/areas", "the real boundary sets") else {
        return;
    };
    let db = sample_copy();
    let before = fingerprint(&db);
    let dir = db.parent().unwrap().to_path_buf();
    let partial = |dir: &Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(".partial"))
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_roadtraffic-load"))
        .args(["areas", "add", "--db"])
        .arg(&db)
        .arg("wards")
        .arg(sets.join("wards_2023.geojson"))
        .spawn()
        .unwrap();
    wait_for("the add's partial file", || partial(&dir));
    child.kill().unwrap();
    let _ = child.wait();
    assert!(
        fingerprint(&db) == before,
        "the killed add changed the file"
    );
    let run = add(&db, "zones", &repo_path(super::ZONES), &[]);
    assert!(run.ok, "{}", run.stderr);
    assert!(!partial(&dir), "the partial is cleared away");
}
