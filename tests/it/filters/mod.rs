//! CQL2 filters (issue 34) checked independently: the server's answers to seeded random
//! expressions, in cql2-text and cql2-json, against an evaluation of each over the unfiltered
//! records in Python (`differential.py` beside this file: the `cql2` package writes the text,
//! shapely relates the geometries, pygeofilter gives a second opinion where it is sound), on
//! the bundled sample and on the real files of `../shared`; and (`fuzz`) random and hostile
//! filters, which are answered 200 or 400 and never break the server.

mod fuzz;

use std::process::Command;

use roadtraffic_catalog::places::Places;
use roadtraffic_catalog::{Dataset, Domain, ValueType, DATASETS};

use crate::support::*;

/// The Python modules the script needs, and how CI installs them (pinned in `.ci/run`).
const MODULES: (&str, &str) = (
    "cql2, pygeofilter, shapely",
    "pip install cql2==0.6.0 pygeofilter==0.4.0 shapely==2.2.0",
);

/// Each queryable's kind as the issue types it: every stored column (a decimal the API writes
/// as a string is a number), and the point where the records have places.
fn kinds(d: &'static Dataset) -> String {
    let mut kinds = serde_json::Map::new();
    for c in d.stored_columns() {
        let kind = match (c.ty, c.domain) {
            (ValueType::Integer | ValueType::Number, _) => "number",
            (ValueType::Text, Domain::Decimal { .. }) => "number",
            (ValueType::Date, _) => "date",
            (ValueType::Text, _) => "text",
        };
        kinds.insert(c.name.to_string(), kind.into());
    }
    if Places::of(d).is_some() {
        kinds.insert("geometry".to_string(), "geometry".into());
    }
    serde_json::Value::Object(kinds).to_string()
}

fn dataset(path: &str) -> &'static Dataset {
    DATASETS
        .iter()
        .copied()
        .find(|d| d.paths.contains(&path))
        .unwrap_or_else(|| panic!("no dataset at {path}"))
}

/// Runs the script on each of `paths` (a path, and how many random expressions), seeded
/// from `seed`; fails on any disagreement, with the script's report.
fn differ(server: &TestServer, paths: &[(&str, usize)], seed: u64) {
    let Some(python) = python_with(MODULES.0, MODULES.1) else {
        return;
    };
    let script = repo_path("tests/it/filters/differential.py");
    for (i, (path, count)) in paths.iter().enumerate() {
        let out = Command::new(&python)
            .arg(&script)
            .args(["--base", &format!("http://{}", server.addr), "--path", path])
            .args(["--seed", &(seed + i as u64).to_string()])
            .args(["--count", &count.to_string(), "--hand"])
            .args(["--kinds", &kinds(dataset(path))])
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&out.stdout);
        let errors = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{path}: the server and the evaluation disagree:\n{report}{errors}"
        );
        print!("{report}");
    }
}

/// Every dataset of the sample with places, and three without (one of them unpaginated).
#[test]
fn filters_agree_with_an_independent_evaluation_on_the_sample() {
    let paths = [
        ("/raw-counts", 80),
        ("/count-points", 60),
        ("/average-annual-daily-flow", 60),
        ("/average-annual-daily-flow-by-direction", 40),
        ("/local-authority-traffic", 60),
        ("/region-traffic-by-road-type", 40),
        ("/regions", 30),
    ];
    differ(sample_server(), &paths, 3400);
}

/// The real files: thousands of records, real roads' names and points.
#[test]
fn filters_agree_with_an_independent_evaluation_on_the_real_files() {
    let Some(db) = real_db() else { return };
    let server = serve(db, &[]);
    let paths = [
        ("/raw-counts", 40),
        ("/count-points", 40),
        ("/average-annual-daily-flow", 40),
        ("/local-authority-traffic", 40),
    ];
    differ(&server, &paths, 3410);
}
