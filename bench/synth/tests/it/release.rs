//! The generated release as a whole: the same bytes for the same seed, and files that agree with
//! each other and with the seed.

use std::collections::{BTreeMap, HashMap, HashSet};

use roadtraffic_catalog::{
    AADF, AADF_BY_DIRECTION, COUNT_POINTS, LOCAL_AUTHORITY_TRAFFIC, RAW_COUNTS,
    REGION_TRAFFIC_BY_ROAD_TYPE, REGION_TRAFFIC_BY_VEHICLE_TYPE,
};
use roadtraffic_synth::seed::{read_seed, Seed, SeedLa};
use roadtraffic_synth::{generate, weekday, SynthOptions, MODELLED_VEHICLES};

use crate::common::{file_name, read_all, seed_path, Table};

#[test]
fn same_bytes_twice() {
    let Some(seed) = seed_path() else { return };
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let mut o = SynthOptions::new(&seed, a.path());
    o.scale = 0.002;
    let s1 = generate(&o).unwrap();
    o.out_dir = b.path().to_path_buf();
    let s2 = generate(&o).unwrap();
    assert_eq!(s1, s2);
    let (fa, fb) = (read_all(a.path()), read_all(b.path()));
    assert_eq!(fa.len(), 7);
    assert!(fa == fb, "outputs differ");
    // another seed gives other data
    o.seed = 43;
    o.out_dir = b.path().to_path_buf();
    generate(&o).unwrap();
    let aadf = file_name(&AADF);
    assert_ne!(fa[aadf], read_all(b.path())[aadf]);
}

#[test]
fn consistent_release() {
    let Some(seed_file) = seed_path() else { return };
    let seed = read_seed(&seed_file).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut o = SynthOptions::new(&seed_file, dir.path());
    o.scale = 0.01;
    let summary = generate(&o).unwrap();
    let files = read_all(dir.path());
    for (name, bytes) in &files {
        assert!(!bytes.contains(&b'\r'), "{name} has CR");
        let written = summary.files.iter().find(|f| &f.file_name == name);
        assert_eq!(written.unwrap().bytes, bytes.len() as u64);
    }
    assert_eq!(summary.rows(file_name(&COUNT_POINTS)), Some(470));

    let cp_years = check_count_points(&Table::read(&files, &COUNT_POINTS), &seed);
    let aadf = check_aadf(&Table::read(&files, &AADF), &cp_years);
    check_aadf_by_direction(&Table::read(&files, &AADF_BY_DIRECTION), &aadf);
    check_raw_counts(&Table::read(&files, &RAW_COUNTS), &aadf.manual);
    check_summary_tables(&files, &seed);
}

/// Each count point is once, in its LA as the seed has it, about 60% on minor roads. Gives
/// each count point's latest AADF year.
fn check_count_points(t: &Table, seed: &Seed) -> HashMap<String, String> {
    let las: HashMap<String, &SeedLa> = seed.las.iter().map(|l| (l.id.to_string(), l)).collect();
    let mut cp_years = HashMap::new();
    let mut minor = 0;
    for r in &t.rows {
        let la = las[&t.value(r, "local_authority_id")];
        assert_eq!(t.value(r, "local_authority_name"), la.name);
        assert_eq!(t.value(r, "local_authority_code"), la.ons_code);
        assert_eq!(t.value(r, "region_id"), la.region_id.to_string());
        let cp = t.value(r, "count_point_id");
        let year = t.value(r, "aadf_year");
        assert!(cp_years.insert(cp.clone(), year).is_none(), "dup cp {cp}");
        if t.value(r, "road_type") == "Minor" {
            minor += 1;
            assert_eq!(t.value(r, "link_length_km"), "");
        }
        let latitude = t.value(r, "latitude");
        assert_eq!(latitude.split('.').nth(1).map(str::len), Some(8));
    }
    let minor_share = minor as f64 / t.rows.len() as f64;
    assert!(
        (0.5..0.7).contains(&minor_share),
        "minor share {minor_share}"
    );
    cp_years
}

/// What the AADF file says that the other count files must agree with.
struct AadfFacts {
    /// The vehicle counts by (count point, year).
    vehicles: HashMap<(String, String), Vec<i64>>,
    /// (count point, year) of the manual counts.
    manual: HashSet<(String, String)>,
}

/// Sorted by year and count point, once each, ending at the count point's AADF year, with
/// about one row in five whose totals are off by rounding.
fn check_aadf(t: &Table, cp_years: &HashMap<String, String>) -> AadfFacts {
    let mut max_year: HashMap<String, String> = HashMap::new();
    let mut off = 0;
    let mut prev = (0u32, 0u32);
    let mut facts = AadfFacts {
        vehicles: HashMap::new(),
        manual: HashSet::new(),
    };
    for r in &t.rows {
        let (cp, year) = (t.value(r, "count_point_id"), t.value(r, "year"));
        let key = (year.parse::<u32>().unwrap(), cp.parse::<u32>().unwrap());
        assert!(key > prev, "AADF not sorted by year, count point");
        prev = key;
        let latest = max_year.entry(cp.clone()).or_default();
        if *latest < year {
            *latest = year.clone();
        }
        if !t.totals_add_up(r) {
            off += 1;
        }
        if t.value(r, "estimation_method_detailed") == "Manual count" {
            assert_eq!(t.value(r, "estimation_method"), "Counted");
            facts.manual.insert((cp.clone(), year.clone()));
        }
        let vehicles = MODELLED_VEHICLES.iter().map(|v| t.count(r, v)).collect();
        facts.vehicles.insert((cp, year), vehicles);
    }
    assert_eq!(&max_year, cp_years);
    let off_share = off as f64 / t.rows.len() as f64;
    assert!((0.1..0.3).contains(&off_share), "off share {off_share}");
    let per_cp = t.rows.len() as f64 / cp_years.len() as f64;
    assert!((11.0..14.5).contains(&per_cp), "AADF rows per cp {per_cp}");
    facts
}

/// Once each per direction; the directions of a year add up to its AADF, vehicle by vehicle.
fn check_aadf_by_direction(t: &Table, aadf: &AadfFacts) {
    let mut sums: HashMap<(String, String), Vec<i64>> = HashMap::new();
    let mut keys = HashSet::new();
    for r in &t.rows {
        let key = (t.value(r, "count_point_id"), t.value(r, "year"));
        assert!(keys.insert((key.clone(), t.value(r, "direction_of_travel"))));
        let sum = sums.entry(key).or_insert(vec![0; MODELLED_VEHICLES.len()]);
        for (s, v) in sum.iter_mut().zip(MODELLED_VEHICLES) {
            *s += t.count(r, v);
        }
    }
    assert_eq!(sums, aadf.vehicles);
    let ratio = t.rows.len() as f64 / aadf.vehicles.len() as f64;
    assert!((1.85..2.0).contains(&ratio), "dir/aadf {ratio}");
}

/// Twelve hours of each direction of each manual count, on a weekday of its year from March
/// to October, grouped by count day, with exact totals.
fn check_raw_counts(t: &Table, manual: &HashSet<(String, String)>) {
    let mut keys = HashSet::new();
    let mut seen_days = HashSet::new();
    let mut last_day = None;
    for r in &t.rows {
        let (cp, date) = (t.value(r, "count_point_id"), t.value(r, "count_date"));
        let (hour, direction) = (t.value(r, "hour"), t.value(r, "direction_of_travel"));
        assert!(keys.insert((cp.clone(), date.clone(), hour.clone(), direction)));
        let day = (cp.clone(), date.clone());
        if last_day.as_ref() != Some(&day) {
            assert!(seen_days.insert(day.clone()), "raw counts not grouped");
            last_day = Some(day);
        }
        let year = t.value(r, "year");
        assert!(manual.contains(&(cp, year.clone())));
        assert_eq!(&date[..4], year.as_str());
        assert!((7..=18).contains(&hour.parse::<u32>().unwrap()));
        assert!(t.totals_add_up(r));
        let d: Vec<i64> = date.split('-').map(|x| x.parse().unwrap()).collect();
        assert!(weekday(d[0], d[1], d[2]) < 5);
        assert!((3..=10).contains(&d[1]));
    }
    assert_eq!(seen_days.len(), manual.len());
    let per_day = t.rows.len() as f64 / manual.len() as f64;
    assert!((22.0..24.0).contains(&per_day), "{per_day}");
}

/// Every seed row, once each.
fn check_summary_tables(files: &BTreeMap<String, Vec<u8>>, seed: &Seed) {
    let once_each = |t: &Table, key: &[&str]| {
        let mut keys = HashSet::new();
        for r in &t.rows {
            let k: Vec<String> = key.iter().map(|c| t.value(r, c)).collect();
            assert!(keys.insert(k), "{}: {key:?} repeated", t.dataset.table);
        }
    };
    let la = Table::read(files, &LOCAL_AUTHORITY_TRAFFIC);
    assert_eq!(la.rows.len(), seed.la_traffic.len());
    once_each(&la, LOCAL_AUTHORITY_TRAFFIC.natural_key);
    let rv = Table::read(files, &REGION_TRAFFIC_BY_VEHICLE_TYPE);
    assert_eq!(rv.rows.len(), seed.region_vehicle.len());
    once_each(&rv, REGION_TRAFFIC_BY_VEHICLE_TYPE.natural_key);
    let rr = Table::read(files, &REGION_TRAFFIC_BY_ROAD_TYPE);
    once_each(&rr, REGION_TRAFFIC_BY_ROAD_TYPE.natural_key);
}

#[test]
fn weekdays() {
    assert_eq!(weekday(1970, 1, 1), 3);
    assert_eq!(weekday(2009, 9, 3), 3); // Thursday
    assert_eq!(weekday(2024, 2, 29), 3);
    assert_eq!(weekday(2000, 1, 1), 5);
}
