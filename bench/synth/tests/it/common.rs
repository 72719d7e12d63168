//! What the file checks share: the seed file beside the repository, a generated release read
//! back, and its files' columns found by catalogue name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use csv::StringRecord;
use roadtraffic_catalog::{Column, Dataset};

/// The crate is `bench/synth` of the repository; `shared` is beside the repository.
pub const REPOSITORY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The seed file beside the repository, when it is there. Without it a test says on stderr
/// that it skips; with `ROADTRAFFIC_REQUIRE_SHARED=1` (CI) it fails instead.
pub fn seed_path() -> Option<PathBuf> {
    let p = Path::new(REPOSITORY).join("../shared/data/synth_seed.json.gz");
    let required = std::env::var("ROADTRAFFIC_REQUIRE_SHARED").is_ok_and(|v| v == "1");
    assert!(p.exists() || !required, "{} is absent", p.display());
    if !p.exists() {
        eprintln!("skipped: {} is absent", p.display());
    }
    p.exists().then_some(p)
}

pub fn file_name(dataset: &'static Dataset) -> &'static str {
    dataset.national_file().unwrap().name
}

/// The columns of a dataset's national file, in order.
pub fn national_columns(dataset: &'static Dataset) -> impl Iterator<Item = &'static Column> {
    let file = dataset.national_file().unwrap();
    (file.columns().into_iter()).map(|name| dataset.column(name).unwrap())
}

pub fn read_all(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        m.insert(
            e.file_name().to_string_lossy().into_owned(),
            std::fs::read(e.path()).unwrap(),
        );
    }
    m
}

/// A generated file read back, its columns found by catalogue name.
pub struct Table {
    pub dataset: &'static Dataset,
    pub header: StringRecord,
    pub rows: Vec<StringRecord>,
}

impl Table {
    pub fn read(files: &BTreeMap<String, Vec<u8>>, dataset: &'static Dataset) -> Table {
        let mut r = csv::ReaderBuilder::new().from_reader(&files[file_name(dataset)][..]);
        let header = r.headers().unwrap().clone();
        let rows = r.records().map(|x| x.unwrap()).collect();
        Table {
            dataset,
            header,
            rows,
        }
    }

    /// The position of the column of this catalogue name.
    pub fn col(&self, name: &str) -> usize {
        let published = self.dataset.column(name).unwrap().published;
        self.header
            .iter()
            .position(|h| h == published)
            .unwrap_or_else(|| panic!("{}: no column {published}", self.dataset.table))
    }

    pub fn value(&self, row: &StringRecord, name: &str) -> String {
        row[self.col(name)].to_string()
    }

    pub fn count(&self, row: &StringRecord, name: &str) -> i64 {
        row[self.col(name)].parse().unwrap()
    }

    /// Whether every total of a row is the sum of its parts.
    pub fn totals_add_up(&self, row: &StringRecord) -> bool {
        self.dataset.totals().all(|total| {
            let parts: i64 = total.parts.iter().map(|p| self.count(row, p)).sum();
            parts == self.count(row, total.total)
        })
    }
}
