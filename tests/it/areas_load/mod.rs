//! `roadtraffic-load areas add|list|drop` (issue 35), run as a user runs it: the sets added,
//! listed, replaced and dropped; each kind of bad boundary file refused with the feature named
//! and `--db` unchanged to the byte; the sets carried over by a load; and the membership and
//! totals by area equal to GeoPandas' `sjoin(predicate="intersects")` of the same boundary file
//! with the file's count points, on the sample's zones and on every real set of
//! `../shared/data/areas/`.

mod refusals;

use std::path::{Path, PathBuf};
use std::process::Command;

use rusqlite::Connection;

use crate::support::*;

const ZONES: &str = "data/sample-areas/zones.geojson";

pub struct Run {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

/// `roadtraffic-load areas ARGS...`.
pub fn areas(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_roadtraffic-load"))
        .arg("areas")
        .args(args)
        .output()
        .expect("run roadtraffic-load areas");
    Run {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

pub fn add(db: &Path, name: &str, file: &Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "add",
        "--db",
        db.to_str().unwrap(),
        name,
        file.to_str().unwrap(),
    ];
    args.extend(extra);
    areas(&args)
}

pub fn add_ok(db: &Path, name: &str, file: &Path, extra: &[&str]) -> String {
    let run = add(db, name, file, extra);
    assert!(run.ok, "areas add {name} failed:\n{}", run.stderr);
    run.stderr
}

/// The sample, loaded into a folder of its own.
pub fn sample_copy() -> PathBuf {
    let db = scratch_dir().join("areas.db");
    load_ok(&db, &["--quiet"], &[&repo_path("data/sample")]);
    db
}

/// A file's bytes and modification time: what "unchanged" means.
pub fn fingerprint(path: &Path) -> (Vec<u8>, std::time::SystemTime) {
    let bytes = std::fs::read(path).unwrap();
    (bytes, std::fs::metadata(path).unwrap().modified().unwrap())
}

/// The (area, count point) pairs stored for a set, sorted.
fn stored_pairs(db: &Path, set: &str) -> Vec<(String, i64)> {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT area_id, count_point_id FROM area_count_points WHERE set_name = ?1 ORDER BY 1, 2")
        .unwrap();
    let rows = stmt
        .query_map([set], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

type Totals = Vec<(String, i64, i64, Option<i64>, Option<i64>)>;

/// The set's AADF totals by area: area, year, records, all motor vehicles, vehicle-km (in
/// thousandths).
fn stored_totals(db: &Path, set: &str) -> Totals {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT area_id, year, records, sum_all_motor_vehicles, sum_vehicle_km \
             FROM aadf_totals_area WHERE set_name = ?1 ORDER BY 1, 2",
        )
        .unwrap();
    let rows = stmt
        .query_map([set], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

/// GeoPandas' membership and totals for the set, if GeoPandas is there.
fn geopandas(
    db: &Path,
    set: &str,
    file: &Path,
    layer: Option<&str>,
) -> Option<(Vec<(String, i64)>, Totals)> {
    let python = python_with("geopandas, pyogrio", "pip install geopandas pyogrio")?;
    let mut cmd = Command::new(python);
    cmd.arg(repo_path("tests/it/areas_load/sjoin.py"))
        .arg(db)
        .arg(set)
        .arg(file);
    if let Some(layer) = layer {
        cmd.args(["--layer", layer]);
    }
    let out = cmd.output().expect("python3");
    assert!(
        out.status.success(),
        "sjoin.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pairs = (json["pairs"].as_array().unwrap().iter())
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_i64().unwrap()))
        .collect();
    let totals = (json["totals"].as_array().unwrap().iter())
        .map(|t| {
            (
                t[0].as_str().unwrap().to_string(),
                t[1].as_i64().unwrap(),
                t[2].as_i64().unwrap(),
                t[3].as_i64(),
                t[4].as_i64(),
            )
        })
        .collect();
    Some((pairs, totals))
}

/// The stored membership and totals equal GeoPandas'.
fn assert_as_geopandas(db: &Path, set: &str, file: &Path, layer: Option<&str>) {
    let Some((pairs, totals)) = geopandas(db, set, file, layer) else {
        return;
    };
    let stored = stored_pairs(db, set);
    let only_ours: Vec<_> = stored.iter().filter(|p| !pairs.contains(p)).collect();
    let only_theirs: Vec<_> = pairs.iter().filter(|p| !stored.contains(p)).collect();
    assert!(
        only_ours.is_empty() && only_theirs.is_empty(),
        "{set}: {} pairs stored, {} by GeoPandas; only stored: {only_ours:?}; only GeoPandas: {only_theirs:?}",
        stored.len(),
        pairs.len()
    );
    assert_eq!(stored_totals(db, set), totals, "{set}: totals by area");
}

#[test]
fn a_set_is_added_listed_replaced_and_dropped() {
    let db = sample_copy();
    let metadata = |db: &Path| -> Vec<(String, String)> {
        let conn = Connection::open(db).unwrap();
        let mut stmt = conn
            .prepare("SELECT key, value FROM metadata ORDER BY key")
            .unwrap();
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        rows.collect::<Result<_, _>>().unwrap()
    };
    let before = metadata(&db);
    let said = add_ok(&db, "zones", &repo_path(ZONES), &[]);
    assert!(
        said.contains("Added area set zones: 5 areas (OGC:CRS84)"),
        "{said}"
    );
    assert_eq!(metadata(&db), before, "the release's metadata is untouched");
    let pairs: Vec<(String, i64)> = [
        ("LAM", 56965),
        ("LDN", 942401),
        ("NIS", 900464),
        ("NIS", 935394),
        ("SW1", 501),
        ("SW1", 82050),
        ("SW1", 813589),
        ("SW2", 501),
    ]
    .iter()
    .map(|(a, c)| (a.to_string(), *c))
    .collect();
    assert_eq!(
        stored_pairs(&db, "zones"),
        pairs,
        "the hole, the shared edge, the multipolygon"
    );
    assert_as_geopandas(&db, "zones", &repo_path(ZONES), None);

    let listed = areas(&["list", "--db", db.to_str().unwrap()]);
    assert!(listed.ok, "{}", listed.stderr);
    let header: Vec<&str> = listed
        .stdout
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        header,
        ["name", "features", "crs", "source", "sha256", "added"]
    );
    let sha = format!(
        "{:x}",
        <sha2::Sha256 as sha2::Digest>::digest(std::fs::read(repo_path(ZONES)).unwrap())
    );
    let row: Vec<&str> = listed
        .stdout
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        row[..5],
        ["zones", "5", "OGC:CRS84", "zones.geojson", sha.as_str()]
    );
    let json = areas(&["list", "--db", db.to_str().unwrap(), "--json"]);
    let json: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(json[0]["name"], "zones");
    assert_eq!(json[0]["sha256"], sha.as_str());
    assert!(json[0]["added_at"].as_str().unwrap().ends_with('Z'));

    let again = add(&db, "zones", &repo_path(ZONES), &[]);
    assert!(
        !again.ok && again.stderr.contains("area set zones is already in"),
        "{}",
        again.stderr
    );
    // Replaced by another file under the same name: only its areas remain.
    let one = scratch_dir().join("one.geojson");
    std::fs::write(&one, r#"{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"code": 1},
        "geometry": {"type": "Polygon", "coordinates": [[[-4, 51], [-3, 51], [-3, 52], [-4, 52], [-4, 51]]]}}]}"#).unwrap();
    add_ok(&db, "zones", &one, &["--replace"]);
    assert_eq!(
        stored_pairs(&db, "zones"),
        [("1".to_string(), 501), ("1".to_string(), 813589)]
    );
    let listed = areas(&["list", "--db", db.to_str().unwrap()]).stdout;
    assert!(
        listed.contains("one.geojson") && !listed.contains("zones.geojson"),
        "{listed}"
    );

    let dropped = areas(&["drop", "--db", db.to_str().unwrap(), "zones"]);
    assert!(dropped.ok, "{}", dropped.stderr);
    assert!(stored_pairs(&db, "zones").is_empty() && stored_totals(&db, "zones").is_empty());
    let listed = areas(&["list", "--db", db.to_str().unwrap()]).stdout;
    assert!(listed.starts_with("no area sets in"), "{listed}");
    let unchanged = fingerprint(&db);
    let again = areas(&["drop", "--db", db.to_str().unwrap(), "zones"]);
    assert!(
        !again.ok && again.stderr.contains("no area set zones in"),
        "{}",
        again.stderr
    );
    assert!(fingerprint(&db) == unchanged);
}

#[test]
fn sets_are_carried_over_by_a_load() {
    let db = sample_copy();
    add_ok(&db, "zones", &repo_path(ZONES), &[]);
    let (pairs, totals) = (stored_pairs(&db, "zones"), stored_totals(&db, "zones"));
    assert!(!totals.is_empty());
    let said = load_ok(&db, &[], &[&repo_path("data/sample")]);
    assert!(
        said.contains("area sets carried over: zones (8 count points in its areas)"),
        "{said}"
    );
    let listed = areas(&["list", "--db", db.to_str().unwrap()]).stdout;
    assert!(
        listed
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("zones ")),
        "{listed}"
    );
    assert_eq!(stored_pairs(&db, "zones"), pairs);
    assert_eq!(stored_totals(&db, "zones"), totals);
    assert_as_geopandas(&db, "zones", &repo_path(ZONES), None);
    // A release of fewer count points: only those are in the areas.
    let dir = scratch_dir();
    let lines: Vec<String> = std::fs::read_to_string(repo_path("data/sample/count_points.csv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("501,") && !l.starts_with("942401,"))
        .map(String::from)
        .collect();
    std::fs::write(dir.join("count_points.csv"), lines.join("\n") + "\n").unwrap();
    load_ok(
        &db,
        &["--quiet", "--allow-shrink"],
        &[&dir.join("count_points.csv")],
    );
    let left: Vec<i64> = stored_pairs(&db, "zones")
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    assert!(
        !left.contains(&501) && !left.contains(&942401) && left.contains(&56965),
        "{left:?}"
    );
    assert_as_geopandas(&db, "zones", &repo_path(ZONES), None);
    // A file without sets gets no area tables.
    let plain = sample_copy();
    load_ok(&plain, &["--quiet"], &[&repo_path("data/sample")]);
    let tables: i64 = Connection::open(&plain)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name LIKE 'area%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 0);
}

#[test]
fn a_geopackage_layer_is_added_as_its_geojson() {
    let Some(python) = python_with("geopandas, pyogrio", "pip install geopandas pyogrio") else {
        return;
    };
    let gpkg = scratch_dir().join("zones.gpkg");
    let script = "import geopandas as g, sys; z = g.read_file(sys.argv[1]); \
                  z.to_file(sys.argv[2], layer='zones', driver='GPKG'); \
                  z.to_file(sys.argv[2], layer='other zones', driver='GPKG')";
    let out = Command::new(python)
        .args(["-c", script])
        .arg(repo_path(ZONES))
        .arg(&gpkg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let db = sample_copy();
    let unchanged = fingerprint(&db);
    let refused = add(&db, "zones", &gpkg, &[]);
    assert!(
        !refused.ok
            && refused.stderr.contains(
                "this GeoPackage has 2 feature layers (other zones, zones): name one with --layer"
            ),
        "{}",
        refused.stderr
    );
    assert!(fingerprint(&db) == unchanged);
    add_ok(&db, "zones", &gpkg, &["--layer", "zones"]);
    assert_eq!(stored_pairs(&db, "zones").len(), 8);
    assert_as_geopandas(&db, "zones", &gpkg, Some("zones"));
}

/// Every real set, on the real files: the membership (on the grid for the BNG file) and the
/// totals by area are GeoPandas'.
#[test]
fn membership_on_the_real_sets_is_geopandas_sjoin() {
    let Some(real) = real_db() else { return };
    let Some(sets) = shared("data/areas", "the real boundary sets") else {
        return;
    };
    let db = scratch_dir().join("real-areas.db");
    std::fs::copy(real, &db).unwrap();
    for (name, file) in [
        ("regions", "regions.geojson"),
        ("counties", "counties_unitary.geojson"),
        ("districts", "districts.geojson"),
        ("constituencies", "constituencies_2024.geojson"),
        ("constituencies_bng", "constituencies_2024_bng.geojson"),
        ("wards", "wards_2023.geojson"),
    ] {
        let said = add_ok(
            &db,
            name,
            &sets.join(file),
            &["--id-field", "code", "--name-field", "name"],
        );
        assert!(!stored_pairs(&db, name).is_empty(), "{said}");
        assert_as_geopandas(&db, name, &sets.join(file), None);
    }
    let grid: String = Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT crs FROM area_sets WHERE name = 'constituencies_bng'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(grid, "EPSG:27700");
}
