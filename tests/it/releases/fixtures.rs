//! Three releases made from the bundled sample, with known revisions, for the tests of kept
//! releases (the loader's here, the server's beside them).
//!
//! - **A** (`2024`): the sample, as bundled.
//! - **B** (`2025`): A with [`B_REVISIONS`] (AADF values re-estimated, one of them in two
//!   columns), count point [`ADDED_COUNT_POINT`] added (in the count points file, with one
//!   AADF row for 2024 at the end of the AADF file), count point [`RETIRED_COUNT_POINT`]
//!   retired (gone from the count points and AADF files; its raw counts and AADF by direction
//!   rows stay). Raw counts, AADF by direction and the traffic tables are A's, byte for byte:
//!   B shares them with A.
//! - **C** (`2026`): B with [`C_REVISIONS`] (AADF, AADF by direction and one raw count), and
//!   its AADF file written in the header era of the 2022/2023 releases (`Count_point_id`,
//!   `Year`, ... `All_motor_vehicles`, with a BOM and CRLF line ends).
//!
//! - **D** (`2027`, [`fourth`]): C with [`D_REVISIONS`] (both AADF tables revised again).
//!
//! [`inputs`] builds the three folders once per test run; [`load_alone`] loads one of them
//! into a file of its own (what a mirror of that release alone holds).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::support::*;

/// One value changed from a release to the next: the row (by its natural key, as CSV text),
/// the column, the value before and after.
#[derive(Debug, Clone, Copy)]
pub struct Revision {
    /// The table, as the catalogue names it (`aadf`, `aadf_by_direction`, `raw_counts`).
    pub table: &'static str,
    /// The row's natural key: column and value, as in the CSV file and the API's filters.
    pub key: &'static [(&'static str, &'static str)],
    pub column: &'static str,
    pub old: &'static str,
    pub new: &'static str,
}

/// A revision of an AADF row.
const fn aadf(
    key: &'static [(&'static str, &'static str)],
    column: &'static str,
    old: &'static str,
    new: &'static str,
) -> Revision {
    Revision {
        table: "aadf",
        key,
        column,
        old,
        new,
    }
}

/// A revision of count point 501's northbound AADF by direction in 2024.
const fn by_direction_501_2024_n(old: &'static str, new: &'static str) -> Revision {
    Revision {
        table: "aadf_by_direction",
        key: &[
            ("count_point_id", "501"),
            ("year", "2024"),
            ("direction_of_travel", "N"),
        ],
        column: "all_motor_vehicles",
        old,
        new,
    }
}

/// What B revises of A: three AADF rows, one in two columns.
pub const B_REVISIONS: &[Revision] = &[
    aadf(
        &[("count_point_id", "53549"), ("year", "2022")],
        "all_motor_vehicles",
        "15461",
        "15912",
    ),
    aadf(
        &[("count_point_id", "56965"), ("year", "2023")],
        "all_motor_vehicles",
        "20099",
        "19544",
    ),
    aadf(
        &[("count_point_id", "819127"), ("year", "2023")],
        "all_motor_vehicles",
        "9193",
        "9420",
    ),
    aadf(
        &[("count_point_id", "819127"), ("year", "2023")],
        "cars_and_taxis",
        "7882",
        "8032",
    ),
];

/// What C revises of B: an AADF row B revised already (revised twice), another AADF row, an
/// AADF by direction row and a raw count.
pub const C_REVISIONS: &[Revision] = &[
    aadf(
        &[("count_point_id", "53549"), ("year", "2022")],
        "all_motor_vehicles",
        "15912",
        "16020",
    ),
    aadf(
        &[("count_point_id", "942401"), ("year", "2024")],
        "all_motor_vehicles",
        "10595",
        "10710",
    ),
    by_direction_501_2024_n("25662", "25801"),
    Revision {
        table: "raw_counts",
        key: &[
            ("count_point_id", "501"),
            ("count_date", "2023-10-23"),
            ("hour", "8"),
            ("direction_of_travel", "N"),
        ],
        column: "all_motor_vehicles",
        old: "1541",
        new: "1549",
    },
];

/// What D revises of C: both AADF tables again, each in a row C revised (revised twice), so
/// that each older release reads them through layers of its own and of the releases after it.
pub const D_REVISIONS: &[Revision] = &[
    aadf(
        &[("count_point_id", "942401"), ("year", "2024")],
        "all_motor_vehicles",
        "10710",
        "10777",
    ),
    aadf(
        &[("count_point_id", "56965"), ("year", "2023")],
        "all_motor_vehicles",
        "19544",
        "19601",
    ),
    by_direction_501_2024_n("25801", "25890"),
];

/// The name D is loaded under.
pub const D_NAME: &str = "2027";

/// D's input folder (C with [`D_REVISIONS`]) and a file loaded with it alone, once per run.
pub fn fourth() -> &'static (PathBuf, PathBuf) {
    static FOURTH: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    FOURTH.get_or_init(|| {
        let dir = scratch_dir();
        let d = dir.join("d");
        copy_folder(&inputs().c, &d);
        let by_direction = d.join("dft_traffic_counts_aadf_by_direction.csv");
        let mut csv = Csv::read(&by_direction);
        csv.revise(D_REVISIONS, "aadf_by_direction");
        csv.write(&by_direction);
        let mut aadf = Csv::read(&d.join(AADF_FILE));
        aadf.revise(D_REVISIONS, "aadf");
        write_2022_era(&aadf, &d.join(AADF_FILE));
        let db = dir.join(format!("{D_NAME}.db"));
        load_ok(&db, &["--quiet", "--release", D_NAME], &[&d]);
        (d, db)
    })
}

/// The count point B adds (a copy of count point 501's row, moved), with one AADF row (2024).
pub const ADDED_COUNT_POINT: i64 = 999_001;
/// The count point B retires: gone from B's count points and AADF files.
pub const RETIRED_COUNT_POINT: i64 = 971_159;

/// The names the releases are loaded under.
pub const NAMES: [&str; 3] = ["2024", "2025", "2026"];

/// The three input folders.
pub struct Inputs {
    pub a: PathBuf,
    pub b: PathBuf,
    pub c: PathBuf,
}

impl Inputs {
    /// The folders, oldest first, with their release names.
    pub fn all(&self) -> [(&'static str, &Path); 3] {
        [
            (NAMES[0], &self.a),
            (NAMES[1], &self.b),
            (NAMES[2], &self.c),
        ]
    }
}

/// The three releases' input folders, made once per test run.
pub fn inputs() -> &'static Inputs {
    static INPUTS: OnceLock<Inputs> = OnceLock::new();
    INPUTS.get_or_init(|| {
        let dir = scratch_dir();
        let (a, b, c) = (dir.join("a"), dir.join("b"), dir.join("c"));
        copy_folder(&repo_path("data/sample"), &a);
        copy_folder(&a, &b);
        make_b(&b);
        copy_folder(&b, &c);
        make_c(&c);
        Inputs { a, b, c }
    })
}

/// A file loaded with one release alone, once per run: what a mirror of it alone holds.
pub fn load_alone(which: usize) -> &'static Path {
    static FILES: OnceLock<Vec<PathBuf>> = OnceLock::new();
    &FILES.get_or_init(|| {
        let dir = scratch_dir();
        (inputs().all().iter())
            .map(|(name, input)| {
                let db = dir.join(format!("{name}.db"));
                load_ok(&db, &["--quiet", "--release", name], &[input]);
                db
            })
            .collect()
    })[which]
}

fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// A CSV file as header and rows of text.
struct Csv {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Csv {
    fn read(path: &Path) -> Csv {
        let mut rdr = csv::Reader::from_path(path).unwrap();
        let header = rdr
            .headers()
            .unwrap()
            .iter()
            .map(|h| h.trim_start_matches('\u{feff}').to_string())
            .collect();
        let rows = rdr
            .records()
            .map(|r| r.unwrap().iter().map(str::to_string).collect())
            .collect();
        Csv { header, rows }
    }

    fn column(&self, name: &str) -> usize {
        (self.header.iter())
            .position(|h| h.eq_ignore_ascii_case(name))
            .unwrap_or_else(|| panic!("no column {name}"))
    }

    fn write(&self, path: &Path) {
        let mut w = csv::Writer::from_path(path).unwrap();
        w.write_record(&self.header).unwrap();
        for row in &self.rows {
            w.write_record(row).unwrap();
        }
        w.flush().unwrap();
    }

    /// Applies the revisions of this table, each found by its key and checked against `old`.
    fn revise(&mut self, revisions: &[Revision], table: &str) {
        for r in revisions.iter().filter(|r| r.table == table) {
            let key: Vec<(usize, &str)> = r.key.iter().map(|(c, v)| (self.column(c), *v)).collect();
            let col = self.column(r.column);
            let row = (self.rows.iter_mut())
                .find(|row| key.iter().all(|(i, v)| row[*i] == *v))
                .unwrap_or_else(|| panic!("no row {:?} in {table}", r.key));
            assert_eq!(row[col], r.old, "{r:?}");
            row[col] = r.new.to_string();
        }
    }

    fn retain_count_points(&mut self, keep: impl Fn(i64) -> bool) {
        let cp = self.column("count_point_id");
        self.rows.retain(|row| keep(row[cp].parse().unwrap()));
    }
}

const AADF_FILE: &str = "dft_traffic_counts_aadf.csv";

fn make_b(dir: &Path) {
    let mut aadf = Csv::read(&dir.join(AADF_FILE));
    aadf.revise(B_REVISIONS, "aadf");
    aadf.retain_count_points(|cp| cp != RETIRED_COUNT_POINT);
    let (cp, year) = (aadf.column("count_point_id"), aadf.column("year"));
    let mut added = (aadf.rows.iter())
        .find(|r| r[cp] == "501" && r[year] == "2024")
        .unwrap()
        .clone();
    added[cp] = ADDED_COUNT_POINT.to_string();
    aadf.rows.push(added);
    aadf.write(&dir.join(AADF_FILE));

    let mut points = Csv::read(&dir.join("count_points.csv"));
    points.retain_count_points(|cp| cp != RETIRED_COUNT_POINT);
    let cp = points.column("count_point_id");
    let mut added = points.rows.iter().find(|r| r[cp] == "501").unwrap().clone();
    added[cp] = ADDED_COUNT_POINT.to_string();
    let easting = points.column("easting");
    added[easting] = "329570".into();
    points.rows.push(added);
    points.write(&dir.join("count_points.csv"));
}

fn make_c(dir: &Path) {
    for (file, table) in [
        (
            "dft_traffic_counts_aadf_by_direction.csv",
            "aadf_by_direction",
        ),
        ("dft_traffic_counts_raw_counts.csv", "raw_counts"),
    ] {
        let mut csv = Csv::read(&dir.join(file));
        csv.revise(C_REVISIONS, table);
        csv.write(&dir.join(file));
    }
    let mut aadf = Csv::read(&dir.join(AADF_FILE));
    aadf.revise(C_REVISIONS, "aadf");
    write_2022_era(&aadf, &dir.join(AADF_FILE));
}

/// A file as the 2022/2023 releases wrote them: every column name capitalised, a BOM, CRLF.
fn write_2022_era(csv: &Csv, path: &Path) {
    let capital = |h: &String| {
        let mut c = h.chars();
        c.next()
            .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
    };
    let mut out = Vec::from("\u{feff}".as_bytes());
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(&mut out);
    w.write_record(csv.header.iter().map(capital)).unwrap();
    for row in &csv.rows {
        w.write_record(row).unwrap();
    }
    drop(w);
    std::fs::write(path, out).unwrap();
}
