//! The bundled sample (`--sample`): what the repository holds in `data/sample`, small and
//! regional, with the published headers.

use std::path::Path;

use csv::StringRecord;
use roadtraffic_catalog::{AADF, COUNT_POINTS, RAW_COUNTS};
use roadtraffic_synth::{generate, SynthOptions};

use crate::common::{file_name, national_columns, read_all, seed_path, Table, REPOSITORY};

#[test]
fn headers_are_the_published_names() {
    let Some(seed) = seed_path() else { return };
    let dir = tempfile::tempdir().unwrap();
    generate(&SynthOptions::sample(&seed, dir.path())).unwrap();
    let files = read_all(dir.path());
    for dataset in roadtraffic_catalog::published() {
        let names: Vec<&str> = national_columns(dataset).map(|c| c.published).collect();
        assert_eq!(
            Table::read(&files, dataset).header,
            StringRecord::from(names)
        );
        let first_line = files[file_name(dataset)].split(|&b| b == b'\n').next();
        let quoted = first_line.is_some_and(|line| line.starts_with(b"\""));
        assert_eq!(
            quoted,
            dataset.national_file().unwrap().quote_all_text,
            "{}",
            dataset.table
        );
    }
}

/// data/sample must be exactly what `roadtraffic-synth --sample` writes.
#[test]
fn bundled_sample_is_reproducible() {
    let Some(seed) = seed_path() else { return };
    let bundled = Path::new(REPOSITORY).join("data/sample");
    let dir = tempfile::tempdir().unwrap();
    generate(&SynthOptions::sample(&seed, dir.path())).unwrap();
    let fresh = read_all(dir.path());
    let committed = read_all(&bundled);
    assert_eq!(
        committed.keys().collect::<Vec<_>>(),
        fresh.keys().collect::<Vec<_>>(),
        "data/sample holds other files than the generator writes"
    );
    for (name, bytes) in &fresh {
        assert!(
            committed.get(name) == Some(bytes),
            "data/sample/{name} differs from the generator's output: regenerate it with \
             `cargo run --release -p roadtraffic-synth -- --sample --out data/sample`"
        );
    }
}

#[test]
fn sample_preset_is_small_and_regional() {
    let Some(seed) = seed_path() else { return };
    let dir = tempfile::tempdir().unwrap();
    let s = generate(&SynthOptions::sample(&seed, dir.path())).unwrap();
    assert_eq!(s.rows(file_name(&COUNT_POINTS)), Some(12));
    assert!(s.total_bytes() < 400_000, "{s}");
    let files = read_all(dir.path());
    let cps = Table::read(&files, &COUNT_POINTS);
    let regions = ["3", "4", "6"];
    assert!(cps
        .rows
        .iter()
        .all(|r| regions.contains(&&r[cps.col("region_id")])));
    let aadf = Table::read(&files, &AADF);
    assert!(aadf
        .rows
        .iter()
        .all(|r| ("2019".."2025").contains(&&r[aadf.col("year")])));
    assert!(s.rows(file_name(&RAW_COUNTS)).unwrap() > 0);
}
