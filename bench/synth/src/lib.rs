//! Deterministic generator of a synthetic national DfT road traffic release.
//!
//! From the small seed file (`../shared/data/synth_seed.json.gz`: real LA list and centroids, real
//! summary tables, 4,795 real count point identities, real flow and hourly count templates) this
//! writes the seven national CSV files in the current (2024+) header style:
//!
//! | file                                        | rows at scale 1.0 |
//! | ------------------------------------------- | ----------------- |
//! | `dft_traffic_counts_aadf.csv`               | ~600,000          |
//! | `dft_traffic_counts_aadf_by_direction.csv`  | ~1,140,000        |
//! | `dft_traffic_counts_raw_counts.csv`         | ~5,000,000        |
//! | `count_points.csv`                          | 47,000            |
//! | `local_authority_traffic.csv`               | seed rows (6,353) |
//! | `region_traffic_by_vehicle_type.csv`        | seed rows         |
//! | `region_traffic_by_road_type.csv`           | seed rows         |
//!
//! What a file is comes from the catalogue (`roadtraffic_catalog`), the one description of every
//! dataset: its name, its columns in order and their headers are its dataset's national file, and
//! totals are the sums [`roadtraffic_catalog::TOTALS`] declares. A row is written by walking the
//! file's columns and asking the generated record for each column's value by name (resolved once
//! per file, see `CsvFile`); a column the generator makes no value for, such as a vehicle class
//! added to the catalogue, is written empty.
//!
//! The output is a pure function of the options and the seed file: every random draw comes from
//! a SplitMix64 stream keyed by (seed, count point, year, purpose), and only IEEE basic operations
//! (`+ - * /`, `sqrt`, `floor`) are used (own `exp`/`sin`/`atan`), so the bytes are identical
//! across runs, thread schedules and platforms.
//!
//! Conventions (as in the real files):
//! - big files: LF line ends, text fields quoted only when they hold a comma, quote or space
//!   (`"East of England"`, `"Bristol, City of"`), numbers bare, lat/lon with 8 decimals, link
//!   lengths with 2 decimals, empty junctions and link lengths on minor roads;
//! - summary tables (LA traffic, region tables): header and every text field quoted, numbers in
//!   R's shortest form (`9e+05`, `1400000`, `2.231e+09`, `4650.69`), as in the 2023 release;
//! - AADF and by-direction sorted by year then count point id; raw counts grouped by count point
//!   (ascending) then count date; count points ascending by id;
//! - ~20% of AADF rows have all_HGVs / all_motor_vehicles off by 1-2 from the sum of the parts
//!   (independent rounding); by-direction rows sum exactly to the AADF parts; raw count totals
//!   are exact.
//!
//! Regenerate the bundled sample release (run from the repository root):
//!
//! ```text
//! cargo run --release -p roadtraffic-synth -- --sample --out data/sample
//! ```
//!
//! which is `--regions 3,4,6 --count-points 12 --years 2019-2024 --summary-years 2019-2024
//! --seed 30 --seed-file ../shared/data/synth_seed.json.gz` (the binary built from any target
//! directory gives the same bytes, e.g.
//! `target/release/roadtraffic-synth --sample --out data/sample`).
//!
//! Full-size release (about 1.3 GB):
//!
//! ```text
//! cargo run --release --bin roadtraffic-synth -- --out /work/bench-data/full --scale 1.0
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use roadtraffic_catalog::dates::{days_from_civil, days_in_month};
use roadtraffic_catalog::{
    Column, Dataset, NationalFile, Total, ValueType, AADF, AADF_BY_DIRECTION, COUNT_POINTS,
    LOCAL_AUTHORITY_TRAFFIC, RAW_COUNTS, REGION_TRAFFIC_BY_ROAD_TYPE,
    REGION_TRAFFIC_BY_VEHICLE_TYPE, TOTALS,
};
use serde::Deserialize;

/// PRNG seed of the bundled sample (chosen among the first few for variety: a motorway, a
/// combined-direction count point, a junction name with a comma, short-lived minor sites).
pub const SAMPLE_SEED: u64 = 30;

/// Number of count points of a full-size (scale 1.0) release.
pub const FULL_COUNT_POINTS: usize = 47_000;

/// What to generate.
#[derive(Debug, Clone)]
pub struct SynthOptions {
    /// `synth_seed.json.gz` (or an uncompressed `.json`).
    pub seed_path: PathBuf,
    /// Directory for the CSV files (created if missing; files in it are overwritten).
    pub out_dir: PathBuf,
    /// 1.0 = a full national release (47,000 count points); rows of the big files scale with it.
    pub scale: f64,
    /// PRNG seed.
    pub seed: u64,
    /// Restrict every file to these region ids (None = all regions).
    pub regions: Option<Vec<u32>>,
    /// Exact number of count points (overrides `scale` for the count point total).
    pub count_points: Option<usize>,
    /// Inclusive range of AADF / raw count years.
    pub years: (u16, u16),
    /// Inclusive year range for the summary tables (None = every year the seed has).
    pub summary_years: Option<(u16, u16)>,
}

impl SynthOptions {
    /// Full national release at scale 1.0, seed 42.
    pub fn new(seed_path: impl Into<PathBuf>, out_dir: impl Into<PathBuf>) -> Self {
        SynthOptions {
            seed_path: seed_path.into(),
            out_dir: out_dir.into(),
            scale: 1.0,
            seed: 42,
            regions: None,
            count_points: None,
            years: (2000, 2024),
            summary_years: None,
        }
    }

    /// The bundled sample release (`data/sample`): regions 3, 4, 6 (Scotland, Wales, London),
    /// 12 count points, years 2019-2024, seed [`SAMPLE_SEED`].
    pub fn sample(seed_path: impl Into<PathBuf>, out_dir: impl Into<PathBuf>) -> Self {
        let mut o = Self::new(seed_path, out_dir);
        o.apply_sample_preset();
        o
    }

    /// Set the sample preset (see [`SynthOptions::sample`]) on these options.
    pub fn apply_sample_preset(&mut self) {
        self.seed = SAMPLE_SEED;
        self.regions = Some(vec![3, 4, 6]);
        self.count_points = Some(12);
        self.years = (2019, 2024);
        self.summary_years = Some((2019, 2024));
    }
}

/// Rows and bytes written to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSummary {
    pub file_name: String,
    pub rows: u64,
    pub bytes: u64,
}

/// What [`generate`] wrote, in a fixed file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthSummary {
    pub files: Vec<FileSummary>,
}

impl SynthSummary {
    pub fn rows(&self, file_name: &str) -> Option<u64> {
        self.files
            .iter()
            .find(|f| f.file_name == file_name)
            .map(|f| f.rows)
    }
    pub fn total_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum()
    }
}

impl std::fmt::Display for SynthSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for file in &self.files {
            writeln!(
                f,
                "{:>10} rows {:>14} bytes  {}",
                file.rows, file.bytes, file.file_name
            )?;
        }
        write!(f, "{:>10}      {:>14} bytes  total", "", self.total_bytes())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("seed file {path}: {source}")]
    SeedJson {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("seed file {path}: {msg}")]
    Seed { path: PathBuf, msg: String },
    #[error("invalid option: {0}")]
    Option(String),
    #[error("worker thread panicked")]
    Panic,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> SynthError + '_ {
    move |source| SynthError::Io {
        path: path.to_path_buf(),
        source,
    }
}

// ------------------------------------------------------------------------------------------------
// Seed file

// The seed file holds each row as a JSON array; serde reads an array into a struct field by
// field, in order, so each struct below is the layout of its rows. Every element must have a
// field (serde refuses a longer array): the published miles are read and not used, being
// recomputed from the perturbed kilometres.

#[derive(Deserialize)]
struct Seed {
    /// By region id.
    regions: BTreeMap<String, SeedRegion>,
    las: Vec<SeedLa>,
    la_traffic: Vec<SeedLaTraffic>,
    region_vehicle: Vec<SeedRegionVehicle>,
    region_road: Vec<SeedRegionRoad>,
    ident: Vec<SeedIdent>,
    flows: Vec<SeedFlow>,
    hourly: Vec<SeedHourly>,
}

impl Seed {
    fn region(&self, region_id: u32) -> Option<&SeedRegion> {
        self.regions.get(&region_id.to_string())
    }
}

#[derive(Deserialize)]
struct SeedRegion {
    name: String,
    ons_code: String,
}

/// A local authority, with where its count points are when it has too few real ones.
#[derive(Deserialize)]
struct SeedLa {
    id: u32,
    name: String,
    ons_code: String,
    region_id: u32,
    latitude: f64,
    longitude: f64,
    /// Its share of the count points of the regions.
    weight: f64,
}

#[derive(Deserialize)]
struct SeedLaTraffic {
    la_id: u32,
    year: u16,
    link_length_km: f64,
    _link_length_miles: f64,
    cars_and_taxis: f64,
    all_motor_vehicles: f64,
}

/// Traffic by vehicle type of a region and year, in vehicle miles.
#[derive(Deserialize)]
struct SeedRegionVehicle {
    year: u16,
    region_id: u32,
    link_length_km: f64,
    _link_length_miles: f64,
    pedal_cycles: f64,
    two_wheeled_motor_vehicles: f64,
    cars_and_taxis: f64,
    buses_and_coaches: f64,
    lgvs: f64,
    all_hgvs: f64,
    all_motor_vehicles: f64,
}

impl SeedRegionVehicle {
    /// Its traffic in [`SummaryVehicle::ALL`] order.
    fn traffic(&self) -> [f64; SUMMARY_VEHICLES] {
        [
            self.pedal_cycles,
            self.two_wheeled_motor_vehicles,
            self.cars_and_taxis,
            self.buses_and_coaches,
            self.lgvs,
            self.all_hgvs,
            self.all_motor_vehicles,
        ]
    }
}

/// Traffic of a region, year and road category.
#[derive(Deserialize)]
struct SeedRegionRoad {
    year: u16,
    region_id: u32,
    road_category_id: u32,
    road_category: String,
    link_length_km: f64,
    _link_length_miles: f64,
    all_motor_vehicles: f64,
}

/// A real count point's identity.
#[derive(Deserialize)]
struct SeedIdent {
    la_id: u32,
    count_point_id: u32,
    road_name: String,
    road_type: String,
    road_category: String,
    start_junction_road_name: Option<String>,
    end_junction_road_name: Option<String>,
    easting: f64,
    northing: f64,
    link_length_km: Option<f64>,
}

/// A real AADF of a road class and year.
#[derive(Deserialize)]
struct SeedFlow {
    class: String,
    year: u16,
    pedal_cycles: f64,
    two_wheeled_motor_vehicles: f64,
    cars_and_taxis: f64,
    buses_and_coaches: f64,
    lgvs: f64,
    hgvs_2_rigid_axle: f64,
    hgvs_3_rigid_axle: f64,
    hgvs_4_or_more_rigid_axle: f64,
    hgvs_3_or_4_articulated_axle: f64,
    hgvs_5_articulated_axle: f64,
    hgvs_6_articulated_axle: f64,
}

impl SeedFlow {
    /// Its AADF in [`MODELLED_VEHICLES`] order.
    fn aadf(&self) -> [f64; NV] {
        [
            self.pedal_cycles,
            self.two_wheeled_motor_vehicles,
            self.cars_and_taxis,
            self.buses_and_coaches,
            self.lgvs,
            self.hgvs_2_rigid_axle,
            self.hgvs_3_rigid_axle,
            self.hgvs_4_or_more_rigid_axle,
            self.hgvs_3_or_4_articulated_axle,
            self.hgvs_5_articulated_axle,
            self.hgvs_6_articulated_axle,
        ]
    }
}

/// A real manual count of a road class: 12 hours (7:00 to 19:00) of counts of the
/// [`MODELLED_VEHICLES`].
#[derive(Deserialize)]
struct SeedHourly {
    class: String,
    hours: Vec<Vec<f64>>,
}

fn read_seed(path: &Path) -> Result<Seed, SynthError> {
    let f = File::open(path).map_err(io_err(path))?;
    let mut bytes = Vec::new();
    let mut r = BufReader::new(f);
    r.read_to_end(&mut bytes).map_err(io_err(path))?;
    let json = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_end(&mut out)
            .map_err(io_err(path))?;
        out
    } else {
        bytes
    };
    let seed: Seed = serde_json::from_slice(&json).map_err(|source| SynthError::SeedJson {
        path: path.to_path_buf(),
        source,
    })?;
    check_seed(&seed).map_err(|msg| SynthError::Seed {
        path: path.to_path_buf(),
        msg,
    })?;
    Ok(seed)
}

/// What the generator needs of a seed beyond its shape.
fn check_seed(seed: &Seed) -> Result<(), String> {
    if seed.las.is_empty() {
        return Err("no local authorities".into());
    }
    if seed
        .hourly
        .iter()
        .any(|t| t.hours.len() != 12 || t.hours.iter().any(|h| h.len() != NV))
    {
        return Err(format!(
            "hourly templates must be 12 hours x {NV} vehicle counts"
        ));
    }
    for class in CLASSES {
        if !seed.flows.iter().any(|f| f.class == class)
            || !seed.hourly.iter().any(|h| h.class == class)
        {
            return Err(format!("no flow or hourly template for road class {class}"));
        }
    }
    for la in &seed.las {
        if seed.region(la.region_id).is_none() {
            return Err(format!(
                "local authority {} has unknown region {}",
                la.id, la.region_id
            ));
        }
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// Deterministic PRNG and math

/// SplitMix64.
#[derive(Clone)]
struct Rng(u64);

fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Rng {
    fn keyed(seed: u64, a: u64, b: u64, purpose: u64) -> Rng {
        let mut k = mix64(seed ^ 0x5eed_0f7a_4ff1_c0de);
        k = mix64(k ^ a.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        k = mix64(k ^ b.wrapping_mul(0xc2b2_ae3d_27d4_eb4f));
        k = mix64(k ^ purpose.wrapping_mul(0x1656_67b1_9e37_79f9));
        Rng(k)
    }
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.0)
    }
    /// Uniform in [0, 1).
    fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// Uniform in 0..n (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
    /// Uniform in lo..=hi.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    fn chance(&mut self, p: f64) -> bool {
        self.f64() < p
    }
    /// Approximately standard normal (Irwin-Hall of 4 uniforms, scaled to variance 1).
    fn normal(&mut self) -> f64 {
        let s = self.f64() + self.f64() + self.f64() + self.f64();
        (s - 2.0) * 1.732_050_807_568_877_2
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
    /// Index drawn with the given (non-negative, not all zero) weights.
    fn weighted(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().sum();
        let mut x = self.f64() * total;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }
    /// Round x to an integer, up with probability frac(x) (keeps small counts unbiased).
    fn round_stoch(&mut self, x: f64) -> i64 {
        if x <= 0.0 {
            return 0;
        }
        (x + self.f64()).floor() as i64
    }
}

/// Math from IEEE basic operations only, so results are identical on every platform.
mod dmath {
    pub const PI: f64 = std::f64::consts::PI;
    const LN2: f64 = std::f64::consts::LN_2;

    pub fn exp(x: f64) -> f64 {
        let x = x.clamp(-700.0, 700.0);
        let k = (x / LN2 + 0.5).floor();
        let r = x - k * LN2;
        let mut term = 1.0;
        let mut sum = 1.0;
        for i in 1..=22 {
            term = term * r / i as f64;
            sum += term;
        }
        sum * f64::from_bits(((k as i64 + 1023) as u64) << 52)
    }

    /// sin and cos of x.
    pub fn sincos(x: f64) -> (f64, f64) {
        let q = (x / (PI / 2.0) + 0.5).floor();
        let r = x - q * (PI / 2.0);
        let r2 = r * r;
        // Taylor series on |r| <= pi/4
        let mut s = r;
        let mut c = 1.0;
        let mut ts = r;
        let mut tc = 1.0;
        for i in 1..=11 {
            let n = 2 * i;
            ts = -ts * r2 / ((n * (n + 1)) as f64);
            tc = -tc * r2 / (((n - 1) * n) as f64);
            s += ts;
            c += tc;
        }
        match (q as i64).rem_euclid(4) {
            0 => (s, c),
            1 => (c, -s),
            2 => (-s, -c),
            _ => (-c, s),
        }
    }
    pub fn sin(x: f64) -> f64 {
        sincos(x).0
    }
    pub fn cos(x: f64) -> f64 {
        sincos(x).1
    }

    pub fn atan(x: f64) -> f64 {
        if x < 0.0 {
            return -atan(-x);
        }
        if x > 1.0 {
            return PI / 2.0 - atan(1.0 / x);
        }
        // halve the argument three times: atan(x) = 2 atan(x / (1 + sqrt(1 + x^2)))
        let mut y = x;
        for _ in 0..3 {
            y /= 1.0 + (1.0 + y * y).sqrt();
        }
        let y2 = y * y;
        let mut term = y;
        let mut sum = y;
        for i in 1..=14 {
            term = -term * y2;
            sum += term / (2 * i + 1) as f64;
        }
        sum * 8.0
    }

    pub fn atan2(y: f64, x: f64) -> f64 {
        if x > 0.0 {
            atan(y / x)
        } else if x < 0.0 {
            if y >= 0.0 {
                atan(y / x) + PI
            } else {
                atan(y / x) - PI
            }
        } else if y > 0.0 {
            PI / 2.0
        } else if y < 0.0 {
            -PI / 2.0
        } else {
            0.0
        }
    }
}

/// British National Grid (OSGB36 Transverse Mercator) <-> WGS84 latitude/longitude.
mod grid {
    use super::dmath::{atan2, cos, sin, sincos, PI};

    const AIRY_A: f64 = 6_377_563.396;
    const AIRY_B: f64 = 6_356_256.909;
    const F0: f64 = 0.999_601_271_7;
    const LAT0: f64 = 49.0 * PI / 180.0;
    const LON0: f64 = -2.0 * PI / 180.0;
    const N0: f64 = -100_000.0;
    const E0: f64 = 400_000.0;
    const WGS_A: f64 = 6_378_137.0;
    const WGS_B: f64 = 6_356_752.314_245;

    fn meridional_arc(lat: f64) -> f64 {
        let n = (AIRY_A - AIRY_B) / (AIRY_A + AIRY_B);
        let (n2, n3) = (n * n, n * n * n);
        let d = lat - LAT0;
        let s = lat + LAT0;
        let ma = (1.0 + n + 1.25 * n2 + 1.25 * n3) * d;
        let mb = (3.0 * n + 3.0 * n2 + 2.625 * n3) * sin(d) * cos(s);
        let mc = (1.875 * n2 + 1.875 * n3) * sin(2.0 * d) * cos(2.0 * s);
        let md = (35.0 / 24.0) * n3 * sin(3.0 * d) * cos(3.0 * s);
        AIRY_B * F0 * (ma - mb + mc - md)
    }

    /// OSGB36 easting/northing -> OSGB36 latitude/longitude (radians).
    fn en_to_osgb(e: f64, n: f64) -> (f64, f64) {
        let e2 = 1.0 - (AIRY_B * AIRY_B) / (AIRY_A * AIRY_A);
        let mut lat = LAT0;
        let mut m = 0.0;
        for _ in 0..100 {
            lat += (n - N0 - m) / (AIRY_A * F0);
            m = meridional_arc(lat);
            if (n - N0 - m).abs() < 1e-5 {
                break;
            }
        }
        let (s, c) = sincos(lat);
        let t = s / c;
        let nu = AIRY_A * F0 / (1.0 - e2 * s * s).sqrt();
        let w = 1.0 - e2 * s * s;
        let rho = AIRY_A * F0 * (1.0 - e2) / (w * w.sqrt());
        let eta2 = nu / rho - 1.0;
        let (t2, t4, t6) = (t * t, t * t * t * t, t * t * t * t * t * t);
        let sec = 1.0 / c;
        let nu3 = nu * nu * nu;
        let nu5 = nu3 * nu * nu;
        let nu7 = nu5 * nu * nu;
        let vii = t / (2.0 * rho * nu);
        let viii = t / (24.0 * rho * nu3) * (5.0 + 3.0 * t2 + eta2 - 9.0 * t2 * eta2);
        let ix = t / (720.0 * rho * nu5) * (61.0 + 90.0 * t2 + 45.0 * t4);
        let x = sec / nu;
        let xi = sec / (6.0 * nu3) * (nu / rho + 2.0 * t2);
        let xii = sec / (120.0 * nu5) * (5.0 + 28.0 * t2 + 24.0 * t4);
        let xiia = sec / (5040.0 * nu7) * (61.0 + 662.0 * t2 + 1320.0 * t4 + 720.0 * t6);
        let de = e - E0;
        let (de2, de3) = (de * de, de * de * de);
        let (de4, de5) = (de3 * de, de3 * de2);
        let (de6, de7) = (de3 * de3, de3 * de3 * de);
        let lat2 = lat - vii * de2 + viii * de4 - ix * de6;
        let lon2 = LON0 + x * de - xi * de3 + xii * de5 - xiia * de7;
        (lat2, lon2)
    }

    /// OSGB36 latitude/longitude (radians) -> OSGB36 easting/northing.
    fn osgb_to_en(lat: f64, lon: f64) -> (f64, f64) {
        let e2 = 1.0 - (AIRY_B * AIRY_B) / (AIRY_A * AIRY_A);
        let (s, c) = sincos(lat);
        let t = s / c;
        let t2 = t * t;
        let nu = AIRY_A * F0 / (1.0 - e2 * s * s).sqrt();
        let w = 1.0 - e2 * s * s;
        let rho = AIRY_A * F0 * (1.0 - e2) / (w * w.sqrt());
        let eta2 = nu / rho - 1.0;
        let m = meridional_arc(lat);
        let c3 = c * c * c;
        let c5 = c3 * c * c;
        let i = m + N0;
        let ii = nu / 2.0 * s * c;
        let iii = nu / 24.0 * s * c3 * (5.0 - t2 + 9.0 * eta2);
        let iiia = nu / 720.0 * s * c5 * (61.0 - 58.0 * t2 + t2 * t2);
        let iv = nu * c;
        let v = nu / 6.0 * c3 * (nu / rho - t2);
        let vi = nu / 120.0 * c5 * (5.0 - 18.0 * t2 + t2 * t2 + 14.0 * eta2 - 58.0 * t2 * eta2);
        let dl = lon - LON0;
        let (dl2, dl3) = (dl * dl, dl * dl * dl);
        let n = i + ii * dl2 + iii * dl2 * dl2 + iiia * dl3 * dl3;
        let e = E0 + iv * dl + v * dl3 + vi * dl3 * dl2;
        (e, n)
    }

    fn to_cartesian(lat: f64, lon: f64, a: f64, b: f64) -> (f64, f64, f64) {
        let e2 = 1.0 - (b * b) / (a * a);
        let (s, c) = sincos(lat);
        let (sl, cl) = sincos(lon);
        let nu = a / (1.0 - e2 * s * s).sqrt();
        (nu * c * cl, nu * c * sl, (1.0 - e2) * nu * s)
    }

    fn from_cartesian(x: f64, y: f64, z: f64, a: f64, b: f64) -> (f64, f64) {
        let e2 = 1.0 - (b * b) / (a * a);
        let p = (x * x + y * y).sqrt();
        let mut lat = atan2(z, p * (1.0 - e2));
        for _ in 0..10 {
            let s = sin(lat);
            let nu = a / (1.0 - e2 * s * s).sqrt();
            lat = atan2(z + e2 * nu * s, p);
        }
        (lat, atan2(y, x))
    }

    /// Seven-parameter Helmert transform; `dir` = 1.0 for OSGB36 -> WGS84, -1.0 for back.
    fn helmert(p: (f64, f64, f64), dir: f64) -> (f64, f64, f64) {
        let sec = PI / 180.0 / 3600.0;
        let (tx, ty, tz) = (446.448 * dir, -125.157 * dir, 542.060 * dir);
        let s = -20.4894e-6 * dir;
        let (rx, ry, rz) = (0.1502 * sec * dir, 0.2470 * sec * dir, 0.8421 * sec * dir);
        let (x, y, z) = p;
        (
            tx + x * (1.0 + s) - y * rz + z * ry,
            ty + x * rz + y * (1.0 + s) - z * rx,
            tz - x * ry + y * rx + z * (1.0 + s),
        )
    }

    /// Easting/northing (m) -> WGS84 latitude/longitude (degrees).
    pub fn en_to_latlon(e: f64, n: f64) -> (f64, f64) {
        let (lat, lon) = en_to_osgb(e, n);
        let c = helmert(to_cartesian(lat, lon, AIRY_A, AIRY_B), 1.0);
        let (lat, lon) = from_cartesian(c.0, c.1, c.2, WGS_A, WGS_B);
        (lat * 180.0 / PI, lon * 180.0 / PI)
    }

    /// WGS84 latitude/longitude (degrees) -> easting/northing (m).
    pub fn latlon_to_en(lat: f64, lon: f64) -> (f64, f64) {
        let c = to_cartesian(lat * PI / 180.0, lon * PI / 180.0, WGS_A, WGS_B);
        let c = helmert(c, -1.0);
        let (lat, lon) = from_cartesian(c.0, c.1, c.2, AIRY_A, AIRY_B);
        osgb_to_en(lat, lon)
    }
}

// ------------------------------------------------------------------------------------------------
// Text output helpers

fn push_u64(buf: &mut Vec<u8>, mut n: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
}

fn push_i64(buf: &mut Vec<u8>, n: i64) {
    if n < 0 {
        buf.push(b'-');
    }
    push_u64(buf, n.unsigned_abs());
}

/// How a file quotes the text of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    /// Only text that needs it (see [`needs_quotes`]), as DfT's national files do.
    AsNeeded,
    /// Every value: the text columns of the summary tables ([`NationalFile::quote_all_text`]).
    Always,
}

/// Whether a CSV field must be quoted: it holds a comma, a quote, a space (DfT quotes those
/// too) or a line break.
fn needs_quotes(text: &[u8]) -> bool {
    text.iter()
        .any(|b| matches!(b, b',' | b'"' | b' ' | b'\n' | b'\r'))
}

/// A text field, quoted as `quote` says.
fn push_text(buf: &mut Vec<u8>, text: &[u8], quote: Quote) {
    if quote == Quote::Always || needs_quotes(text) {
        push_quoted(buf, text);
    } else {
        buf.extend_from_slice(text);
    }
}

/// A record's text, where it has one.
fn push_some_text(buf: &mut Vec<u8>, text: Option<&str>, quote: Quote) {
    if let Some(text) = text {
        push_text(buf, text.as_bytes(), quote);
    }
}

/// A record's number, where it has one.
fn push_some_number(buf: &mut Vec<u8>, n: Option<u64>) {
    if let Some(n) = n {
        push_u64(buf, n);
    }
}

/// A text field in quotes, its quotes doubled.
fn push_quoted(buf: &mut Vec<u8>, text: &[u8]) {
    buf.push(b'"');
    for (i, part) in text.split(|&b| b == b'"').enumerate() {
        if i > 0 {
            buf.extend_from_slice(b"\"\"");
        }
        buf.extend_from_slice(part);
    }
    buf.push(b'"');
}

/// A number as R's `write.csv` prints it: the shortest of fixed and scientific notation
/// (`9e+05`, `1400000`, `2.231e+09`, `4650.69`).
fn fmt_r(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    let fixed = format!("{x}");
    let e = format!("{x:e}");
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sci = format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    if fixed.len() <= sci.len() {
        fixed
    } else {
        sci
    }
}

/// A calendar date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Date {
    year: i64,
    month: i64,
    day: i64,
}

/// `YYYY-MM-DD`.
fn push_date(buf: &mut Vec<u8>, date: Date) {
    push_i64(buf, date.year);
    for part in [date.month, date.day] {
        buf.push(b'-');
        if part < 10 {
            buf.push(b'0');
        }
        push_i64(buf, part);
    }
}

/// An enum of values a generated record holds, each named after the catalogue column it fills,
/// with `ALL` (every variant and its column, in order) and `of_column` (the variant of a column).
macro_rules! column_enum {
    (
        $(#[$doc:meta])*
        enum $name:ident { $($(#[$variant_doc:meta])* $variant:ident => $column:literal,)* }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum $name {
            $($(#[$variant_doc])* $variant,)*
        }

        impl $name {
            const ALL: &'static [($name, &'static str)] = &[$(($name::$variant, $column),)*];

            fn of_column(name: &str) -> Option<$name> {
                Self::ALL
                    .iter()
                    .find(|(_, column)| *column == name)
                    .map(|(variant, _)| *variant)
            }
        }
    };
}

/// One of the values a generated record holds, named after the catalogue column it fills.
trait Field: Copy {
    /// The field that fills the column of this catalogue name, if the generator makes one.
    fn of_column(name: &str) -> Option<Self>;

    /// This field and the one of the next column as one field, where the record can write both
    /// (and the comma between them) at once, quoted as needed.
    fn followed_by(self, _next: Self) -> Option<Self> {
        None
    }
}

/// A generated row of a file, which gives its values to the file's columns by field.
trait Record {
    type Field: Field;
    /// Write the value of `field` (nothing where this row has none), its text quoted as `quote`.
    fn push(&self, field: Self::Field, quote: Quote, buf: &mut Vec<u8>);
}

/// A column of a file, resolved once: the field that fills it (None: it is written empty) and
/// how its text is quoted.
struct PlannedColumn<F> {
    field: Option<F>,
    quote: Quote,
}

fn national_file(dataset: &'static Dataset) -> &'static NationalFile {
    dataset
        .national_file()
        .expect("the generator writes only published datasets")
}

/// The columns of a dataset's national file, in order.
fn national_columns(dataset: &'static Dataset) -> impl Iterator<Item = &'static Column> {
    national_file(dataset).columns().into_iter().map(|name| {
        dataset
            .column(name)
            .expect("a national file names columns of its dataset (a catalogue test checks it)")
    })
}

/// How a file quotes a column: a file that quotes all text quotes the columns the catalogue
/// types as text (numbers and dates are bare).
fn column_quote(quote_all_text: bool, column: &Column) -> Quote {
    if quote_all_text && column.ty == ValueType::Text {
        Quote::Always
    } else {
        Quote::AsNeeded
    }
}

/// A dataset's national file being written: rows are built in `buf` and flushed now and then.
struct CsvFile<F> {
    path: PathBuf,
    w: BufWriter<File>,
    buf: Vec<u8>,
    rows: u64,
    bytes: u64,
    /// The file's columns in order, resolved once so that a cell costs one match on its field.
    columns: Vec<PlannedColumn<F>>,
}

impl<F: Field> CsvFile<F> {
    /// Create the national file of `dataset` in `dir`, with its header of published names.
    fn create(dir: &Path, dataset: &'static Dataset) -> Result<Self, SynthError> {
        let file = national_file(dataset);
        let columns = national_columns(dataset);
        Self::with_columns(&dir.join(file.name), columns, file.quote_all_text)
    }

    /// Create a file of these columns and write its header.
    fn with_columns<'c>(
        path: &Path,
        columns: impl Iterator<Item = &'c Column>,
        quote_all_text: bool,
    ) -> Result<Self, SynthError> {
        let path = path.to_path_buf();
        let f = File::create(&path).map_err(io_err(&path))?;
        let mut out = CsvFile {
            path,
            w: BufWriter::with_capacity(1 << 20, f),
            buf: Vec::with_capacity(1024),
            rows: 0,
            bytes: 0,
            columns: Vec::new(),
        };
        let header_quote = if quote_all_text {
            Quote::Always
        } else {
            Quote::AsNeeded
        };
        for (i, column) in columns.enumerate() {
            if i > 0 {
                out.buf.push(b',');
            }
            push_text(&mut out.buf, column.published.as_bytes(), header_quote);
            out.plan(
                F::of_column(column.name),
                column_quote(quote_all_text, column),
            );
        }
        out.buf.push(b'\n');
        out.flush_buf()?;
        Ok(out)
    }

    /// Add the next column to the plan, joined to the one before where the record writes both
    /// at once (see [`Field::followed_by`]).
    fn plan(&mut self, field: Option<F>, quote: Quote) {
        if let (Some(before), Some(field)) = (self.columns.last_mut(), field) {
            let as_needed = before.quote == Quote::AsNeeded && quote == Quote::AsNeeded;
            let joined = before.field.and_then(|b| b.followed_by(field));
            if let (true, Some(joined)) = (as_needed, joined) {
                before.field = Some(joined);
                return;
            }
        }
        self.columns.push(PlannedColumn { field, quote });
    }

    /// Write a row: each column's value as the record gives it.
    fn write<R: Record<Field = F>>(&mut self, record: &R) -> Result<(), SynthError> {
        for (i, column) in self.columns.iter().enumerate() {
            if i > 0 {
                self.buf.push(b',');
            }
            if let Some(field) = column.field {
                record.push(field, column.quote, &mut self.buf);
            }
        }
        self.buf.push(b'\n');
        self.rows += 1;
        if self.buf.len() >= 64 * 1024 {
            self.flush_buf()?;
        }
        Ok(())
    }
}

impl<F> CsvFile<F> {
    fn flush_buf(&mut self) -> Result<(), SynthError> {
        self.w.write_all(&self.buf).map_err(io_err(&self.path))?;
        self.bytes += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }

    fn finish(mut self) -> Result<FileSummary, SynthError> {
        self.flush_buf()?;
        self.w.flush().map_err(io_err(&self.path))?;
        let file_name = self
            .path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(FileSummary {
            file_name,
            rows: self.rows,
            bytes: self.bytes,
        })
    }
}

// ------------------------------------------------------------------------------------------------
// Model

/// Flow classes of the seed templates.
const CLASSES: [&str; 4] = ["A", "B", "CU", "M"];
const CLASS_A: usize = 0;
const CLASS_B: usize = 1;
const CLASS_CU: usize = 2;
const CLASS_M: usize = 3;

/// The vehicles the model counts, by catalogue name: those of the seed's templates, in the seed's
/// order. A vehicle column of the catalogue that is not one of them is written empty, and adds
/// nothing to a total it is a part of.
const MODELLED_VEHICLES: [&str; NV] = [
    "pedal_cycles",
    "two_wheeled_motor_vehicles",
    "cars_and_taxis",
    "buses_and_coaches",
    "lgvs",
    "hgvs_2_rigid_axle",
    "hgvs_3_rigid_axle",
    "hgvs_4_or_more_rigid_axle",
    "hgvs_3_or_4_articulated_axle",
    "hgvs_5_articulated_axle",
    "hgvs_6_articulated_axle",
];
/// Number of [`MODELLED_VEHICLES`].
const NV: usize = 11;
/// Trend group of each modelled vehicle.
const TREND_GROUP: [usize; NV] = [0, 1, 2, 3, 4, 5, 5, 5, 5, 5, 5];
/// National traffic trend by vehicle group, relative to 2019 (anchors, linear in between).
const TRENDS: [&[(u16, f64)]; 6] = [
    &[
        (2000, 0.80),
        (2010, 0.90),
        (2019, 1.00),
        (2020, 1.45),
        (2021, 1.10),
        (2022, 1.00),
        (2023, 0.95),
        (2024, 0.97),
    ],
    &[
        (2000, 1.05),
        (2007, 1.12),
        (2013, 0.95),
        (2019, 1.00),
        (2020, 0.85),
        (2021, 0.95),
        (2022, 0.98),
        (2024, 0.97),
    ],
    &[
        (2000, 0.92),
        (2007, 0.98),
        (2010, 0.95),
        (2013, 0.95),
        (2019, 1.00),
        (2020, 0.76),
        (2021, 0.87),
        (2022, 0.94),
        (2023, 0.97),
        (2024, 0.98),
    ],
    &[
        (2000, 1.20),
        (2010, 1.10),
        (2019, 1.00),
        (2020, 0.55),
        (2021, 0.75),
        (2022, 0.85),
        (2023, 0.88),
        (2024, 0.90),
    ],
    &[
        (2000, 0.58),
        (2007, 0.75),
        (2010, 0.74),
        (2019, 1.00),
        (2020, 0.93),
        (2021, 1.03),
        (2022, 1.03),
        (2023, 1.05),
        (2024, 1.06),
    ],
    &[
        (2000, 1.00),
        (2007, 1.03),
        (2010, 0.92),
        (2013, 0.92),
        (2019, 1.00),
        (2020, 0.92),
        (2021, 0.98),
        (2022, 0.97),
        (2023, 0.96),
        (2024, 0.96),
    ],
];

fn trend(group: usize, year: u16) -> f64 {
    let pts = TRENDS[group];
    if year <= pts[0].0 {
        return pts[0].1;
    }
    for w in pts.windows(2) {
        let ((y0, v0), (y1, v1)) = (w[0], w[1]);
        if year <= y1 {
            return v0 + (v1 - v0) * (year - y0) as f64 / (y1 - y0) as f64;
        }
    }
    pts[pts.len() - 1].1
}

/// How an AADF was made (`estimation_method_detailed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Manual,
    Automatic,
    Dependent,
    PreviousYear,
    Nearby,
}

impl Method {
    /// `Counted` or `Estimated`.
    fn estimation_method(self) -> &'static str {
        match self {
            Method::Manual | Method::Automatic | Method::Dependent => "Counted",
            Method::PreviousYear | Method::Nearby => "Estimated",
        }
    }

    fn detailed(self) -> &'static str {
        match self {
            Method::Manual => "Manual count",
            Method::Automatic => "Automatic counter",
            Method::Dependent => "Dependent on a neighbouring counted link",
            Method::PreviousYear => "Estimated using previous year's AADF on this link",
            Method::Nearby => "Estimated from nearby links",
        }
    }
}

const KEY_CP: u64 = 1;
const KEY_AADF: u64 = 2;
const KEY_DIR: u64 = 3;
const KEY_RAW: u64 = 4;
const KEY_LA: u64 = 5;
const KEY_ALLOC: u64 = 6;
const KEY_SUMMARY: u64 = 7;

column_enum! {
    /// The location columns of a count point, which every count point file repeats.
    enum LocationField {
        RegionId => "region_id",
        RegionName => "region_name",
        RegionOnsCode => "region_ons_code",
        LocalAuthorityId => "local_authority_id",
        LocalAuthorityName => "local_authority_name",
        LocalAuthorityCode => "local_authority_code",
        RoadName => "road_name",
        RoadCategory => "road_category",
        RoadType => "road_type",
        StartJunctionRoadName => "start_junction_road_name",
        EndJunctionRoadName => "end_junction_road_name",
        Easting => "easting",
        Northing => "northing",
        Latitude => "latitude",
        Longitude => "longitude",
        LinkLengthKm => "link_length_km",
        LinkLengthMiles => "link_length_miles",
    }
}

const LOCATION_FIELDS: usize = LocationField::ALL.len();

/// Consecutive location fields, `first..=last` in [`LocationField`] order, written at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LocationRun {
    first: LocationField,
    last: LocationField,
}

/// A location value of a count point as a CSV field (quoted if it needs it) in
/// [`Model::location_text`]. A count point's values follow each other there a comma apart, in
/// [`LocationField`] order, so that a run of them is one slice.
#[derive(Debug, Clone, Copy, Default)]
struct EncodedCell {
    start: usize,
    end: usize,
    quoted: bool,
}

/// A count point's location values, by [`LocationField`]. Encoded once per count point rather
/// than once per row: a count point has a hundred rows in the raw counts.
type Location = [EncodedCell; LOCATION_FIELDS];

struct CountPoint {
    id: u32,
    location: Location,
    class: usize,
    first_year: u16,
    /// The estimation method of each year from `first_year` on (no AADF after the last).
    methods: Vec<Method>,
    /// Directions of travel: two opposite ones, or `C` (both combined) alone.
    directions: &'static [&'static str],
    dir_share: f64,
    base: [f64; NV],
    slope: f64,
}

impl CountPoint {
    fn method(&self, year: u16) -> Option<Method> {
        year.checked_sub(self.first_year)
            .and_then(|i| self.methods.get(i as usize).copied())
    }
    fn last_year(&self) -> u16 {
        self.first_year + self.methods.len().saturating_sub(1) as u16
    }
}

/// Hourly shape of one template: fraction of each vehicle's 12-hour count in each hour.
type Shape = [[f64; NV]; 12];

struct Model {
    seed: u64,
    years: (u16, u16),
    cps: Vec<CountPoint>,
    /// The text of every count point's [`Location`].
    location_text: Vec<u8>,
    shapes: [Vec<Shape>; 4],
    totals: TotalsRule,
}

/// A row's counts: of each modelled vehicle, and each of the catalogue's [`TOTALS`].
#[derive(Debug, Clone, Copy)]
struct Counts {
    vehicles: [i64; NV],
    totals: [i64; TOTALS.len()],
}

impl Counts {
    /// Count `k` of the modelled vehicles followed by the totals.
    fn get(&self, k: usize) -> i64 {
        match k.checked_sub(NV) {
            None => self.vehicles[k],
            Some(t) => self.totals[t],
        }
    }
}

/// Consecutive counts, `first..=last` in [`Counts::get`] order, written at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CountRun {
    first: usize,
    last: usize,
}

/// Where the model has a part of a total.
#[derive(Debug, Clone, Copy)]
enum Part {
    Vehicle(usize),
    /// A total computed before (the catalogue lists a total after its parts).
    Total(usize),
}

/// A total of [`TOTALS`], resolved against the modelled vehicles.
struct TotalRule {
    parts: Vec<Part>,
    rounding: Option<RoundingNoise>,
}

/// The totals of [`TOTALS`], each resolved to the modelled vehicles and earlier totals it sums.
/// A part the model does not count (a vehicle added to the catalogue) adds nothing.
struct TotalsRule(Vec<TotalRule>);

impl TotalsRule {
    fn from_catalogue() -> TotalsRule {
        let resolve = |part: &str, earlier: &[Total]| {
            MODELLED_VEHICLES
                .iter()
                .position(|v| *v == part)
                .map(Part::Vehicle)
                .or_else(|| {
                    earlier
                        .iter()
                        .position(|t| t.total == part)
                        .map(Part::Total)
                })
        };
        let rules = TOTALS.iter().enumerate().map(|(i, total)| TotalRule {
            parts: total
                .parts
                .iter()
                .filter_map(|part| resolve(part, &TOTALS[..i]))
                .collect(),
            rounding: rounding_noise(total.total),
        });
        TotalsRule(rules.collect())
    }

    /// A row's counts from its vehicle counts: each total the sum of its parts, off by rounding
    /// in a share of rows `rounding_rate` (0: exact).
    fn counts(&self, vehicles: [i64; NV], rng: &mut Rng, rounding_rate: f64) -> Counts {
        let mut counts = Counts {
            vehicles,
            totals: [0; TOTALS.len()],
        };
        for (i, rule) in self.0.iter().enumerate() {
            let mut total = rule
                .parts
                .iter()
                .map(|part| match *part {
                    Part::Vehicle(k) => counts.vehicles[k],
                    Part::Total(t) => counts.totals[t],
                })
                .sum();
            if let Some(noise) = rule.rounding {
                total += noise.draw(rng, rounding_rate, total);
            }
            counts.totals[i] = total;
        }
        counts
    }
}

/// How a published total comes to differ from the sum of its parts (they are rounded
/// independently): in a share `rate` of the rows that have rounding noise at all (relative to
/// their rate), by one in a share `off_by_one` of those, else by two.
#[derive(Debug, Clone, Copy)]
struct RoundingNoise {
    rate: f64,
    off_by_one: f64,
}

/// The AADF files' all_HGVs is off in about one row in six, all_motor_vehicles less often.
fn rounding_noise(total: &str) -> Option<RoundingNoise> {
    match total {
        "all_hgvs" => Some(RoundingNoise {
            rate: 1.0,
            off_by_one: 0.9,
        }),
        "all_motor_vehicles" => Some(RoundingNoise {
            rate: 0.3,
            off_by_one: 0.85,
        }),
        _ => None,
    }
}

impl RoundingNoise {
    /// What rounding adds to a total of a row with noise `row_rate` (most often nothing).
    fn draw(self, rng: &mut Rng, row_rate: f64, total: i64) -> i64 {
        if row_rate > 0.0 && rng.chance(row_rate * self.rate) && total >= 3 {
            let d = if rng.chance(self.off_by_one) { 1 } else { 2 };
            if rng.chance(0.55) {
                -d
            } else {
                d
            }
        } else {
            0
        }
    }
}

/// A row of one of the four count point files. What a file's rows do not hold (an AADF row's
/// hour) is None, and a column asking for it is written empty.
#[derive(Clone, Copy)]
struct CountRow<'a> {
    point: &'a CountPoint,
    location_text: &'a [u8],
    year: Option<u16>,
    latest_aadf_year: Option<u16>,
    method: Option<Method>,
    direction: Option<&'static str>,
    count_date: Option<Date>,
    hour: Option<u64>,
    counts: Option<&'a Counts>,
}

column_enum! {
    /// A value of a [`CountRow`] besides its location and counts.
    enum CountValue {
        CountPointId => "count_point_id",
        Year => "year",
        /// A count point's latest AADF year.
        LatestAadfYear => "aadf_year",
        EstimationMethod => "estimation_method",
        EstimationMethodDetailed => "estimation_method_detailed",
        DirectionOfTravel => "direction_of_travel",
        CountDate => "count_date",
        Hour => "hour",
    }
}

/// A value, or values written at once, of a [`CountRow`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CountField {
    Value(CountValue),
    Location(LocationRun),
    Counts(CountRun),
}

impl Field for CountField {
    fn of_column(name: &str) -> Option<CountField> {
        let location = |field| LocationRun {
            first: field,
            last: field,
        };
        let count = || {
            let vehicle = MODELLED_VEHICLES.iter().position(|v| *v == name);
            let total = || TOTALS.iter().position(|t| t.total == name);
            let k = vehicle.or_else(|| total().map(|t| NV + t))?;
            Some(CountRun { first: k, last: k })
        };
        CountValue::of_column(name)
            .map(CountField::Value)
            .or_else(|| LocationField::of_column(name).map(|f| CountField::Location(location(f))))
            .or_else(|| count().map(CountField::Counts))
    }

    fn followed_by(self, next: CountField) -> Option<CountField> {
        match (self, next) {
            (CountField::Location(run), CountField::Location(after))
                if after.first as usize == run.last as usize + 1 =>
            {
                Some(CountField::Location(LocationRun {
                    first: run.first,
                    last: after.last,
                }))
            }
            (CountField::Counts(run), CountField::Counts(after)) if after.first == run.last + 1 => {
                Some(CountField::Counts(CountRun {
                    first: run.first,
                    last: after.last,
                }))
            }
            _ => None,
        }
    }
}

impl CountRow<'_> {
    fn push_value(&self, value: CountValue, quote: Quote, buf: &mut Vec<u8>) {
        let text = |buf: &mut Vec<u8>, s: Option<&str>| push_some_text(buf, s, quote);
        match value {
            CountValue::CountPointId => push_u64(buf, self.point.id.into()),
            CountValue::Year => push_some_number(buf, self.year.map(u64::from)),
            CountValue::LatestAadfYear => {
                push_some_number(buf, self.latest_aadf_year.map(u64::from))
            }
            CountValue::EstimationMethod => text(buf, self.method.map(Method::estimation_method)),
            CountValue::EstimationMethodDetailed => text(buf, self.method.map(Method::detailed)),
            CountValue::DirectionOfTravel => text(buf, self.direction),
            CountValue::CountDate => {
                if let Some(date) = self.count_date {
                    push_date(buf, date);
                }
            }
            CountValue::Hour => push_some_number(buf, self.hour),
        }
    }
}

impl<'a> CountRow<'a> {
    /// A row that holds a count point's id and location (encoded in `location_text`), and
    /// nothing else yet.
    fn of(point: &'a CountPoint, location_text: &'a [u8]) -> CountRow<'a> {
        CountRow {
            point,
            location_text,
            year: None,
            latest_aadf_year: None,
            method: None,
            direction: None,
            count_date: None,
            hour: None,
            counts: None,
        }
    }
}

impl Record for CountRow<'_> {
    type Field = CountField;

    fn push(&self, field: CountField, quote: Quote, buf: &mut Vec<u8>) {
        match field {
            CountField::Value(value) => self.push_value(value, quote, buf),
            CountField::Location(run) => {
                let first = self.point.location[run.first as usize];
                let last = self.point.location[run.last as usize];
                let encoded = &self.location_text[first.start..last.end];
                // a run is only joined where quoting as needed (its cells are encoded so)
                if quote == Quote::Always && !first.quoted {
                    push_quoted(buf, encoded);
                } else {
                    buf.extend_from_slice(encoded);
                }
            }
            CountField::Counts(run) => {
                for k in run.first..=run.last {
                    if k > run.first {
                        buf.push(b',');
                    }
                    if let Some(counts) = self.counts {
                        push_i64(buf, counts.get(k));
                    }
                }
            }
        }
    }
}

impl Model {
    fn aadf_parts(&self, cp: &CountPoint, year: u16) -> [i64; NV] {
        let mut r = Rng::keyed(self.seed, cp.id as u64, year as u64, KEY_AADF);
        let common = cp.slope * (year as f64 - 2019.0) + 0.06 * r.normal();
        let mut v = [0i64; NV];
        for k in 0..NV {
            let x =
                cp.base[k] * trend(TREND_GROUP[k], year) * dmath::exp(common + 0.04 * r.normal());
            v[k] = r.round_stoch(x);
        }
        v
    }

    fn aadf(&self, cp: &CountPoint, year: u16) -> Counts {
        let parts = self.aadf_parts(cp, year);
        let mut r = Rng::keyed(self.seed, cp.id as u64, year as u64, KEY_AADF ^ 0xff);
        self.totals.counts(parts, &mut r, 0.16)
    }

    /// The AADF parts split by direction (exact split of every vehicle column).
    fn dir_parts(&self, cp: &CountPoint, year: u16) -> [[i64; NV]; 2] {
        let parts = self.aadf_parts(cp, year);
        if cp.directions.len() == 1 {
            return [parts, [0; NV]];
        }
        let mut r = Rng::keyed(self.seed, cp.id as u64, year as u64, KEY_DIR);
        let s0 = cp.dir_share + 0.015 * r.normal();
        let mut out = [[0i64; NV]; 2];
        for k in 0..NV {
            let s = (s0 + 0.03 * r.normal()).clamp(0.05, 0.95);
            let a = r.round_stoch(parts[k] as f64 * s).min(parts[k]);
            out[0][k] = a;
            out[1][k] = parts[k] - a;
        }
        out
    }

    /// The counts of each of a count point's directions in a year: its AADF itself where the
    /// directions are combined, else the AADF's parts split by direction, each with its own
    /// totals.
    fn aadf_by_direction(&self, cp: &CountPoint, year: u16, aadf: Counts) -> Vec<Counts> {
        if cp.directions.len() == 1 {
            return vec![aadf];
        }
        let mut r = Rng::keyed(self.seed, cp.id as u64, year as u64, KEY_DIR ^ 0xff);
        self.dir_parts(cp, year)
            .into_iter()
            .map(|parts| self.totals.counts(parts, &mut r, 0.12))
            .collect()
    }

    /// The AADF and AADF by direction files, year by year.
    fn write_aadf(
        &self,
        aadf: &mut CsvFile<CountField>,
        by_direction: &mut CsvFile<CountField>,
    ) -> Result<(), SynthError> {
        for year in self.years.0..=self.years.1 {
            for cp in &self.cps {
                let Some(method) = cp.method(year) else {
                    continue;
                };
                let counts = self.aadf(cp, year);
                let row = CountRow {
                    year: Some(year),
                    method: Some(method),
                    counts: Some(&counts),
                    ..CountRow::of(cp, &self.location_text)
                };
                aadf.write(&row)?;
                let directions = self.aadf_by_direction(cp, year, counts);
                for (direction, counts) in cp.directions.iter().zip(&directions) {
                    by_direction.write(&CountRow {
                        direction: Some(direction),
                        counts: Some(counts),
                        ..row
                    })?;
                }
            }
        }
        Ok(())
    }

    /// The raw counts file, count point by count point.
    fn write_raw(&self, out: &mut CsvFile<CountField>) -> Result<(), SynthError> {
        for cp in &self.cps {
            for year in self.years.0..=self.years.1 {
                if cp.method(year) == Some(Method::Manual) {
                    self.write_count_day(out, cp, year)?;
                }
            }
        }
        Ok(())
    }

    /// The rows of a manual count: twelve hours of each direction, on one weekday of the year,
    /// whose day adds up to about the year's AADF by direction.
    fn write_count_day(
        &self,
        out: &mut CsvFile<CountField>,
        cp: &CountPoint,
        year: u16,
    ) -> Result<(), SynthError> {
        let split = self.dir_parts(cp, year);
        let mut r = Rng::keyed(self.seed, cp.id as u64, year as u64, KEY_RAW);
        let date = count_date(&mut r, year);
        let day_factor = 0.8 * dmath::exp(0.08 * r.normal());
        let shapes = &self.shapes[cp.class];
        for (direction, dir_parts) in cp.directions.iter().zip(&split) {
            let shape = r.pick(shapes);
            let mut day = [0f64; NV];
            for (x, part) in day.iter_mut().zip(dir_parts) {
                *x = *part as f64 * day_factor * dmath::exp(0.05 * r.normal());
            }
            for (hour, hour_shape) in (7..).zip(shape) {
                let mut vehicles = [0i64; NV];
                for k in 0..NV {
                    vehicles[k] = r.round_stoch(day[k] * hour_shape[k]);
                }
                let counts = self.totals.counts(vehicles, &mut r, 0.0);
                out.write(&CountRow {
                    year: Some(year),
                    direction: Some(direction),
                    count_date: Some(date),
                    hour: Some(hour),
                    counts: Some(&counts),
                    ..CountRow::of(cp, &self.location_text)
                })?;
            }
        }
        Ok(())
    }

    fn write_count_points(&self, out: &mut CsvFile<CountField>) -> Result<(), SynthError> {
        for cp in &self.cps {
            out.write(&CountRow {
                latest_aadf_year: Some(cp.last_year()),
                ..CountRow::of(cp, &self.location_text)
            })?;
        }
        Ok(())
    }
}

/// The day of a manual count: a weekday from March to October (from September in 2020, when
/// manual counts stopped in the spring).
fn count_date(r: &mut Rng, year: u16) -> Date {
    const MONTHS: [i64; 14] = [3, 4, 4, 5, 5, 5, 6, 6, 6, 7, 9, 9, 10, 10];
    let y = year as i64;
    loop {
        let m = if year == 2020 {
            r.range(9, 10)
        } else {
            *r.pick(&MONTHS)
        };
        let d = r.range(1, days_in_month(y, m));
        if weekday(y, m, d) < 5 {
            return Date {
                year: y,
                month: m,
                day: d,
            };
        }
    }
}

/// 0 = Monday .. 6 = Sunday.
fn weekday(y: i64, m: i64, d: i64) -> i64 {
    (days_from_civil(y, m, d) + 3).rem_euclid(7)
}

// ------------------------------------------------------------------------------------------------
// Building the count points

struct La<'a> {
    id: u32,
    name: &'a str,
    code: &'a str,
    region_id: u32,
    region_name: &'a str,
    region_code: &'a str,
    spread: Spread,
    weight: f64,
}

/// Where an LA's count points are: around a centre (easting, northing), with a standard
/// deviation `sigma` (m) in each direction.
struct Spread {
    centre: (f64, f64),
    sigma: f64,
}

/// Where a count point's identity comes from.
#[derive(Clone)]
struct Ident {
    id: u32,
    road: String,
    category: String,
    major: bool,
    start_j: String,
    end_j: String,
    easting: i64,
    northing: i64,
    km: Option<f64>,
}

fn is_motorway(category: &str) -> bool {
    category == "TM" || category == "PM"
}

/// The seed's real count point identities by LA (in seed order), and the ids they take.
struct RealIdentities {
    by_la: HashMap<u32, Vec<Ident>>,
    used_ids: HashSet<u32>,
}

impl RealIdentities {
    fn from_seed(seed: &Seed) -> RealIdentities {
        let mut by_la: HashMap<u32, Vec<Ident>> = HashMap::new();
        let mut used_ids = HashSet::new();
        for row in &seed.ident {
            used_ids.insert(row.count_point_id);
            by_la.entry(row.la_id).or_default().push(Ident {
                id: row.count_point_id,
                road: row.road_name.clone(),
                category: row.road_category.clone(),
                major: row.road_type == "Major",
                start_j: row.start_junction_road_name.clone().unwrap_or_default(),
                end_j: row.end_junction_road_name.clone().unwrap_or_default(),
                easting: row.easting.round() as i64,
                northing: row.northing.round() as i64,
                km: row.link_length_km,
            });
        }
        RealIdentities { by_la, used_ids }
    }

    fn of(&self, la_id: u32) -> &[Ident] {
        self.by_la.get(&la_id).map_or(&[], Vec::as_slice)
    }
}

/// The seed's LAs with where their count points are.
fn local_authorities<'a>(seed: &'a Seed, real: &RealIdentities) -> Vec<La<'a>> {
    seed.las
        .iter()
        .map(|l| {
            let region = seed
                .region(l.region_id)
                .expect("check_seed makes sure every LA's region is in the seed");
            La {
                id: l.id,
                name: &l.name,
                code: &l.ons_code,
                region_id: l.region_id,
                region_name: &region.name,
                region_code: &region.ons_code,
                spread: count_point_spread(l, real.of(l.id)),
                weight: l.weight.max(0.0),
            }
        })
        .collect()
}

/// Where an LA's count points are: where its real ones are, if it has a few, else around its
/// centroid, as widely as it is large.
fn count_point_spread(la: &SeedLa, idents: &[Ident]) -> Spread {
    if idents.len() < 5 {
        return Spread {
            centre: grid::latlon_to_en(la.latitude, la.longitude),
            sigma: 750.0 * la.weight.max(1.0),
        };
    }
    let n = idents.len() as f64;
    let me = idents.iter().map(|i| i.easting as f64).sum::<f64>() / n;
    let mn = idents.iter().map(|i| i.northing as f64).sum::<f64>() / n;
    let var = idents
        .iter()
        .map(|i| {
            let (de, dn) = (i.easting as f64 - me, i.northing as f64 - mn);
            de * de + dn * dn
        })
        .sum::<f64>()
        / (2.0 * n);
    Spread {
        centre: (me, mn),
        sigma: var.sqrt().max(500.0),
    }
}

/// Count points per LA (by `las` position) at full size: the real identities where there are
/// more of them than the LA's weighted share, the weighted share of the rest elsewhere.
fn full_size_quotas(las: &[La], real: &RealIdentities) -> Vec<f64> {
    let n_ident: Vec<f64> = las.iter().map(|l| real.of(l.id).len() as f64).collect();
    let mut fixed = vec![false; las.len()];
    let mut base = vec![0f64; las.len()];
    for _ in 0..20 {
        let fixed_total: f64 = (0..las.len())
            .filter(|&i| fixed[i])
            .map(|i| n_ident[i])
            .sum();
        let free_weight: f64 = (0..las.len())
            .filter(|&i| !fixed[i])
            .map(|i| las[i].weight)
            .sum();
        let rest = (FULL_COUNT_POINTS as f64 - fixed_total).max(0.0);
        let mut changed = false;
        for i in 0..las.len() {
            if fixed[i] {
                base[i] = n_ident[i];
            } else {
                base[i] = if free_weight > 0.0 {
                    rest * las[i].weight / free_weight
                } else {
                    0.0
                };
                if n_ident[i] > base[i] {
                    fixed[i] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    base
}

/// How many count points each LA gets (by `las` position): the release's total shared among
/// the LAs of the selected regions by their full-size quotas.
fn allocate_count_points(
    las: &[La],
    real: &RealIdentities,
    opts: &SynthOptions,
) -> Result<Vec<usize>, SynthError> {
    let quotas = full_size_quotas(las, real);
    let selected: Vec<bool> = las
        .iter()
        .map(|l| {
            opts.regions
                .as_ref()
                .is_none_or(|rs| rs.contains(&l.region_id))
        })
        .collect();
    if !selected.iter().any(|&x| x) {
        return Err(SynthError::Option(
            "no local authority in the selected regions".into(),
        ));
    }
    let total = match opts.count_points {
        Some(n) => n,
        None => (selected_quota(&quotas, &selected) * opts.scale).round() as usize,
    };
    Ok(systematic_sample(&quotas, &selected, total, opts.seed))
}

fn selected_quota(quotas: &[f64], selected: &[bool]) -> f64 {
    quotas
        .iter()
        .zip(selected)
        .filter(|(_, s)| **s)
        .map(|(q, _)| q)
        .sum()
}

/// `total` shared among the selected LAs in proportion to their quotas by systematic sampling:
/// the total is exact and each LA within one of its share.
fn systematic_sample(quotas: &[f64], selected: &[bool], total: usize, seed: u64) -> Vec<usize> {
    let sel_base = selected_quota(quotas, selected);
    let mut alloc = vec![0usize; quotas.len()];
    let mut r = Rng::keyed(seed, 0, 0, KEY_ALLOC);
    let u = r.f64();
    let mut cum = 0.0;
    for i in 0..quotas.len() {
        if !selected[i] || sel_base <= 0.0 {
            continue;
        }
        let q = quotas[i] * total as f64 / sel_base;
        let a = (cum + u).floor();
        cum += q;
        let b = (cum + u).floor();
        alloc[i] = (b - a).max(0.0) as usize;
    }
    // float drift: fix the total on the largest LA
    let got: usize = alloc.iter().sum();
    if got != total {
        let big = (0..quotas.len())
            .filter(|&i| selected[i])
            .max_by(|&a, &b| quotas[a].total_cmp(&quotas[b]).then(b.cmp(&a)))
            .unwrap_or(0);
        alloc[big] = (alloc[big] + total).saturating_sub(got);
    }
    alloc
}

/// Real names of an LA's roads (name, category) and junctions, for its synthetic count points.
struct LaPools {
    majors: Vec<(String, String)>,
    minors: Vec<(String, String)>,
    junctions: Vec<String>,
}

impl LaPools {
    fn of(idents: &[Ident]) -> LaPools {
        let roads = |major: bool| {
            idents
                .iter()
                .filter(|i| i.major == major)
                .map(|i| (i.road.clone(), i.category.clone()))
                .collect()
        };
        LaPools {
            majors: roads(true),
            minors: roads(false),
            junctions: idents
                .iter()
                .filter(|i| i.major && !i.road.starts_with('M'))
                .flat_map(|i| [i.start_j.clone(), i.end_j.clone()])
                .filter(|j| !j.is_empty())
                .collect(),
        }
    }
}

/// The seed's templates by road class ([`CLASSES`]).
struct Templates {
    /// How the vehicles of a day's count spread over its hours.
    shapes: [Vec<Shape>; 4],
    /// Vehicle flows (AADF) at their 2019 level.
    flows: [Vec<[f64; NV]>; 4],
}

impl Templates {
    /// None if a road class has no template of either kind.
    fn from_seed(seed: &Seed) -> Option<Templates> {
        let templates = Templates {
            shapes: hourly_shapes(seed),
            flows: base_flows(seed),
        };
        let complete = templates.shapes.iter().all(|s| !s.is_empty())
            && templates.flows.iter().all(|f| !f.is_empty());
        complete.then_some(templates)
    }
}

/// Each hourly template as the share of each vehicle's day in each hour (the motor vehicles'
/// shares where a vehicle is too rare to have its own).
fn hourly_shapes(seed: &Seed) -> [Vec<Shape>; 4] {
    let mut shapes: [Vec<Shape>; 4] = Default::default();
    for template in &seed.hourly {
        let Some(ci) = CLASSES.iter().position(|c| *c == template.class) else {
            continue;
        };
        let hours = &template.hours;
        let motor: Vec<f64> = hours.iter().map(|h| h[1..].iter().sum()).collect();
        let motor_total: f64 = motor.iter().sum();
        if motor_total <= 0.0 {
            continue;
        }
        let mut shape = [[0f64; NV]; 12];
        for k in 0..NV {
            let col: f64 = hours.iter().map(|h| h[k]).sum();
            for h in 0..12 {
                shape[h][k] = if col >= 12.0 {
                    hours[h][k] / col
                } else {
                    motor[h] / motor_total
                };
            }
        }
        shapes[ci].push(shape);
    }
    shapes
}

/// Each flow template brought back to its 2019 level by the national trends.
fn base_flows(seed: &Seed) -> [Vec<[f64; NV]>; 4] {
    let mut flows: [Vec<[f64; NV]>; 4] = Default::default();
    for f in &seed.flows {
        let Some(ci) = CLASSES.iter().position(|c| *c == f.class) else {
            continue;
        };
        let aadf = f.aadf();
        let mut b = [0f64; NV];
        for k in 0..NV {
            b[k] = aadf[k].max(0.0) / trend(TREND_GROUP[k], f.year);
        }
        flows[ci].push(b);
    }
    flows
}

fn check_options(opts: &SynthOptions) -> Result<(), SynthError> {
    let (y0, y1) = opts.years;
    if y0 > y1 || y0 < 1990 || y1 > 2100 {
        return Err(SynthError::Option(format!("bad year range {y0}-{y1}")));
    }
    if !(opts.scale.is_finite() && opts.scale >= 0.0) {
        return Err(SynthError::Option(format!("bad scale {}", opts.scale)));
    }
    Ok(())
}

/// The release's count points, by id, and what their rows are drawn from.
fn build_model(seed: &Seed, opts: &SynthOptions) -> Result<Model, SynthError> {
    check_options(opts)?;
    let real = RealIdentities::from_seed(seed);
    let las = local_authorities(seed, &real);
    let allocation = allocate_count_points(&las, &real, opts)?;
    let templates = Templates::from_seed(seed).ok_or_else(|| SynthError::Seed {
        path: opts.seed_path.clone(),
        msg: "empty templates for a road class".into(),
    })?;
    let mut maker = CountPointMaker::new(opts, real, &templates.flows);
    for (la, &n) in las.iter().zip(&allocation) {
        if n > 0 {
            maker.add_la(la, n);
        }
    }
    let CountPointMaker {
        mut cps,
        location_text,
        ..
    } = maker;
    cps.sort_by_key(|c| c.id);
    Ok(Model {
        seed: opts.seed,
        years: opts.years,
        cps,
        location_text,
        shapes: templates.shapes,
        totals: TotalsRule::from_catalogue(),
    })
}

/// Makes the count points of the release LA by LA, and encodes their locations.
struct CountPointMaker<'a> {
    seed: u64,
    years: (u16, u16),
    flows: &'a [Vec<[f64; NV]>; 4],
    real_by_la: HashMap<u32, Vec<Ident>>,
    /// Count point ids taken, by real count points and those made so far.
    used_ids: HashSet<u32>,
    cps: Vec<CountPoint>,
    location_text: Vec<u8>,
    /// Count points share grid points now and then (synthetic ones are rounded to 100 m).
    latlon_cache: HashMap<(i64, i64), (f64, f64)>,
}

impl<'a> CountPointMaker<'a> {
    fn new(
        opts: &SynthOptions,
        real: RealIdentities,
        flows: &'a [Vec<[f64; NV]>; 4],
    ) -> CountPointMaker<'a> {
        CountPointMaker {
            seed: opts.seed,
            years: opts.years,
            flows,
            real_by_la: real.by_la,
            used_ids: real.used_ids,
            cps: Vec::new(),
            location_text: Vec::new(),
            latlon_cache: HashMap::new(),
        }
    }

    /// The `n` count points of an LA.
    fn add_la(&mut self, la: &La, n: usize) {
        let mut r = Rng::keyed(self.seed, la.id as u64, 0, KEY_LA);
        for mut ident in self.identities(&mut r, la, n) {
            if ident.major && ident.km.is_none() {
                ident.km = Some(link_km(&mut r, is_motorway(&ident.category)));
            }
            let location = self.encode_location(la, &ident);
            let cp = make_count_point(self.seed, &ident, location, self.years, self.flows);
            self.cps.push(cp);
        }
    }

    /// `n` identities for an LA's count points: its real ones first, in a shuffled order, then
    /// synthetic ones.
    fn identities(&mut self, r: &mut Rng, la: &La, n: usize) -> Vec<Ident> {
        let real = self.real_by_la.get(&la.id).map_or(&[][..], Vec::as_slice);
        let mut shuffled: Vec<&Ident> = real.iter().collect();
        for i in (1..shuffled.len()).rev() {
            let j = r.below(i as u64 + 1) as usize;
            shuffled.swap(i, j);
        }
        let take = n.min(shuffled.len());
        let mut idents: Vec<Ident> = shuffled[..take].iter().map(|&i| i.clone()).collect();
        let pools = LaPools::of(real);
        let synthetic_roads = synthetic_road_set(r, la);
        for _ in take..n {
            let ident = synthetic_ident(r, la, &pools, &synthetic_roads, &mut self.used_ids);
            idents.push(ident);
        }
        idents
    }

    /// Encode a count point's location values into `location_text`.
    fn encode_location(&mut self, la: &La, ident: &Ident) -> Location {
        let latlon = *self
            .latlon_cache
            .entry((ident.easting, ident.northing))
            .or_insert_with(|| grid::en_to_latlon(ident.easting as f64, ident.northing as f64));
        let mut location = [EncodedCell::default(); LOCATION_FIELDS];
        let mut value = Vec::new();
        for (i, &(field, _)) in LocationField::ALL.iter().enumerate() {
            if i > 0 {
                self.location_text.push(b',');
            }
            value.clear();
            push_location_value(&mut value, field, la, ident, latlon);
            let start = self.location_text.len();
            push_text(&mut self.location_text, &value, Quote::AsNeeded);
            location[field as usize] = EncodedCell {
                start,
                end: self.location_text.len(),
                quoted: needs_quotes(&value),
            };
        }
        location
    }
}

/// A location value as text, unquoted: numbers as the national files write them (lat/lon with
/// 8 decimals, link lengths with 2, empty where a minor road has none).
fn push_location_value(
    buf: &mut Vec<u8>,
    field: LocationField,
    la: &La,
    ident: &Ident,
    (lat, lon): (f64, f64),
) {
    let text = |buf: &mut Vec<u8>, s: &str| buf.extend_from_slice(s.as_bytes());
    match field {
        LocationField::RegionId => push_u64(buf, la.region_id.into()),
        LocationField::RegionName => text(buf, la.region_name),
        LocationField::RegionOnsCode => text(buf, la.region_code),
        LocationField::LocalAuthorityId => push_u64(buf, la.id.into()),
        LocationField::LocalAuthorityName => text(buf, la.name),
        LocationField::LocalAuthorityCode => text(buf, la.code),
        LocationField::RoadName => text(buf, &ident.road),
        LocationField::RoadCategory => text(buf, &ident.category),
        LocationField::RoadType => text(buf, if ident.major { "Major" } else { "Minor" }),
        LocationField::StartJunctionRoadName => text(buf, &ident.start_j),
        LocationField::EndJunctionRoadName => text(buf, &ident.end_j),
        LocationField::Easting => push_i64(buf, ident.easting),
        LocationField::Northing => push_i64(buf, ident.northing),
        LocationField::Latitude => text(buf, &format!("{lat:.8}")),
        LocationField::Longitude => text(buf, &format!("{lon:.8}")),
        LocationField::LinkLengthKm => {
            if let Some(km) = ident.km {
                text(buf, &format!("{km:.2}"));
            }
        }
        LocationField::LinkLengthMiles => {
            if let Some(km) = ident.km {
                text(buf, &format!("{:.2}", miles_of_km(km)));
            }
        }
    }
}

/// Miles to two decimals, as DfT derives them from kilometres.
fn miles_of_km(km: f64) -> f64 {
    (km * 0.621_371 * 100.0 + 0.5).floor() / 100.0
}

/// Motorways and A-road number zones by region id.
fn region_roads(region_id: u32) -> (&'static [&'static str], &'static [u8]) {
    match region_id {
        1 => (&["M5", "M4", "M32", "M49", "M48"], &[3, 3, 4]),
        2 => (&["M1", "M69", "M42"], &[6, 5, 1, 6]),
        3 => (
            &["M8", "M9", "M74", "M80", "M90", "M73", "M77", "M876"],
            &[7, 8, 9],
        ),
        4 => (&["M4", "M48"], &[4, 4, 5]),
        5 => (
            &[
                "M6", "M56", "M60", "M61", "M62", "M65", "M58", "M57", "M55", "M53",
            ],
            &[5, 6, 5],
        ),
        6 => (&["M25", "M1", "M4", "M11"], &[1, 2, 3, 4]),
        7 => (&["M11", "M1", "A1(M)", "M25"], &[1, 1, 5]),
        8 => (&["M1", "M62", "M18", "M180", "M621", "A1(M)"], &[6, 6, 1]),
        9 => (
            &["M2", "M20", "M23", "M25", "M26", "M27", "M3", "M40", "M4"],
            &[2, 3, 4],
        ),
        10 => (&["M5", "M6", "M42", "M50", "M54", "M40"], &[4, 5, 4]),
        11 => (&["A1(M)", "A194(M)"], &[1, 6, 1]),
        _ => (&["M1"], &[1, 2, 3, 4, 5, 6]),
    }
}

fn road_number(r: &mut Rng, letter: char, zones: &[u8], min_digits: usize) -> String {
    let zone = *r.pick(zones);
    let digits = match r.weighted(&[0.05, 0.20, 0.40, 0.35]) {
        n if n + 1 < min_digits => min_digits,
        n => n + 1,
    };
    let mut s = format!("{letter}{zone}");
    for _ in 1..digits {
        s.push((b'0' + r.range(0, 9) as u8) as char);
    }
    s
}

const STREET_A: [&str; 40] = [
    "Station",
    "Church",
    "Mill",
    "High",
    "London",
    "Park",
    "Manor",
    "Victoria",
    "Green",
    "Kings",
    "Queens",
    "Bridge",
    "Grange",
    "Meadow",
    "Castle",
    "Forest",
    "Abbey",
    "Chapel",
    "School",
    "Hill",
    "Oak",
    "Ash",
    "Brook",
    "North",
    "South",
    "West",
    "East",
    "New",
    "Old",
    "Priory",
    "Moor",
    "Farm",
    "St John's",
    "King's",
    "Queen's",
    "St Mary's",
    "Lady's",
    "Bishop's",
    "Market",
    "Common",
];
const STREET_B: [&str; 10] = [
    "Road",
    "Road",
    "Lane",
    "Street",
    "Way",
    "Avenue",
    "Drive",
    "Hill",
    "Road roundabout",
    "Lane roundabout",
];

fn street_name(r: &mut Rng) -> String {
    format!("{} {}", r.pick(&STREET_A), r.pick(&STREET_B))
}

/// The part of an LA name before any comma ("Bristol, City of" -> "Bristol").
fn short_place(la_name: &str) -> &str {
    la_name.split(',').next().unwrap_or(la_name).trim()
}

/// Roads of an LA without enough real identities: (name, category).
fn synthetic_road_set(r: &mut Rng, la: &La) -> Vec<(String, String)> {
    let (motorways, zones) = region_roads(la.region_id);
    let mut roads = Vec::new();
    let island = ["Isle", "Island", "Eilean", "Scilly"]
        .iter()
        .any(|w| la.name.contains(w));
    let nm = if r.chance(0.45) {
        1
    } else if r.chance(0.25) {
        2
    } else {
        0
    };
    let nm = if island { 0 } else { nm };
    for _ in 0..nm {
        let m = r.pick(motorways).to_string();
        if !roads.iter().any(|(n, _)| *n == m) {
            roads.push((m, "TM".to_string()));
        }
    }
    if r.chance(0.03) && !island {
        let z = *r.pick(zones);
        roads.push((format!("A{z}{}M", r.range(1, 9)), "PM".to_string()));
    }
    let nt = r.range(1, 3);
    for _ in 0..nt {
        roads.push((road_number(r, 'A', zones, 1), "TA".to_string()));
    }
    let np = 3 + (la.weight / 3.0) as i64;
    for _ in 0..np {
        roads.push((road_number(r, 'A', zones, 2), "PA".to_string()));
    }
    roads
}

fn fresh_id(r: &mut Rng, major: bool, used: &mut HashSet<u32>) -> u32 {
    loop {
        let id = if major {
            r.range(1000, 99_999)
        } else {
            r.range(800_000, 999_999)
        } as u32;
        if used.insert(id) {
            return id;
        }
    }
}

/// A count point made up for an LA that has too few real ones: on one of the LA's real roads
/// where it has enough of them, else on a synthetic road of the LA.
fn synthetic_ident(
    r: &mut Rng,
    la: &La,
    pools: &LaPools,
    roads: &[(String, String)],
    used: &mut HashSet<u32>,
) -> Ident {
    let (_, zones) = region_roads(la.region_id);
    // 62% minor, so that with the (43% minor) real identities about 60% of the release is minor
    let major = r.chance(0.38);
    let id = fresh_id(r, major, used);
    let (easting, northing) = synthetic_position(r, &la.spread, major);
    if !major {
        let (road, category) = minor_road(r, pools, zones);
        return Ident {
            id,
            road,
            category,
            major,
            start_j: String::new(),
            end_j: String::new(),
            easting,
            northing,
            km: None,
        };
    }
    let (road, category) = major_road(r, pools, roads);
    let motorway = is_motorway(&category);
    let (start_j, end_j) = if motorway {
        motorway_junctions(r)
    } else {
        let a_roads: Vec<&str> = if pools.majors.len() >= 3 {
            &pools.majors[..]
        } else {
            roads
        }
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| n.starts_with('A') && *n != road)
        .collect();
        road_junctions(r, la, pools, &a_roads, zones)
    };
    Ident {
        id,
        road,
        category,
        major,
        start_j,
        end_j,
        easting,
        northing,
        km: Some(link_km(r, motorway)),
    }
}

/// (easting, northing) of a synthetic count point: scattered around the LA's centre, rounded
/// as the real ones are (major roads mostly to 100 m, minor roads to the metre).
fn synthetic_position(r: &mut Rng, spread: &Spread, major: bool) -> (i64, i64) {
    let de = r.normal().clamp(-2.5, 2.5) * spread.sigma;
    let dn = r.normal().clamp(-2.5, 2.5) * spread.sigma;
    let mut e = (spread.centre.0 + de).clamp(60_000.0, 660_000.0);
    let mut n = (spread.centre.1 + dn).clamp(5_000.0, 1_220_000.0);
    let round_to = if major {
        *r.pick(&[100.0, 100.0, 10.0, 1.0])
    } else {
        *r.pick(&[1.0, 1.0, 1.0, 10.0])
    };
    e = (e / round_to + 0.5).floor() * round_to;
    n = (n / round_to + 0.5).floor() * round_to;
    (e as i64, n as i64)
}

/// (name, category) of a minor road: a real one of the LA, a B road, or an unnamed C or U road.
fn minor_road(r: &mut Rng, pools: &LaPools, zones: &[u8]) -> (String, String) {
    if pools.minors.len() >= 3 && r.chance(0.7) {
        r.pick(&pools.minors).clone()
    } else if r.chance(0.2) {
        (road_number(r, 'B', zones, 4), "MB".to_string())
    } else if r.chance(0.25) {
        ("C".to_string(), "MCU".to_string())
    } else {
        ("U".to_string(), "MCU".to_string())
    }
}

/// (name, category) of a major road: a real one of the LA, or one of its synthetic roads.
fn major_road(r: &mut Rng, pools: &LaPools, roads: &[(String, String)]) -> (String, String) {
    if pools.majors.len() >= 3 && r.chance(0.8) {
        return r.pick(&pools.majors).clone();
    }
    let w: Vec<f64> = roads
        .iter()
        .map(|(_, c)| match c.as_str() {
            "TM" => 0.08,
            "PM" => 0.01,
            "TA" => 0.08,
            _ => 0.10,
        })
        .collect();
    roads[r.weighted(&w)].clone()
}

/// (start, end) of a motorway link: consecutive junction numbers, now and then an LA boundary.
fn motorway_junctions(r: &mut Rng) -> (String, String) {
    let j = r.range(1, 40);
    let mut a = j.to_string();
    let mut b = (j + 1).to_string();
    if r.chance(0.05) {
        a.push('A');
    }
    if r.chance(0.08) {
        if r.chance(0.5) {
            a = "LA Boundary".into();
        } else {
            b = "LA Boundary".into();
        }
    }
    (a, b)
}

/// (start, end) of an A-road link: two different junctions.
fn road_junctions(
    r: &mut Rng,
    la: &La,
    pools: &LaPools,
    a_roads: &[&str],
    zones: &[u8],
) -> (String, String) {
    let a = junction(r, la, pools, a_roads, zones);
    let mut b = junction(r, la, pools, a_roads, zones);
    if b == a && !b.is_empty() {
        b = street_name(r);
    }
    (a, b)
}

/// A junction of an A-road link: another A road (`a_roads`), a B road, an LA boundary, a street
/// (some with the place, after a comma), a real junction name of the LA, or none.
fn junction(r: &mut Rng, la: &La, pools: &LaPools, a_roads: &[&str], zones: &[u8]) -> String {
    match r.weighted(&[0.30, 0.12, 0.10, 0.30, 0.06, 0.02, 0.10]) {
        0 if !a_roads.is_empty() => r.pick(a_roads).to_string(),
        0 => road_number(r, 'A', zones, 2),
        1 => road_number(r, 'B', zones, 4),
        2 => "LA Boundary".into(),
        3 => street_name(r),
        4 => format!("{}, {}", street_name(r), short_place(la.name)),
        5 => String::new(),
        _ if !pools.junctions.is_empty() => r.pick(&pools.junctions).clone(),
        _ => street_name(r),
    }
}

/// A link length in km with one decimal, as on the real major road links.
fn link_km(r: &mut Rng, motorway: bool) -> f64 {
    let (mu, sd, max) = if motorway {
        (1.0, 0.6, 30.0)
    } else {
        (0.1, 0.7, 25.0)
    };
    ((dmath::exp(mu + sd * r.normal()) * 10.0 + 0.5).floor() / 10.0).clamp(0.1, max)
}

fn flow_class(road: &str, category: &str) -> usize {
    match category {
        "TM" | "PM" if road.starts_with('M') || road.contains("(M)") || road.ends_with('M') => {
            CLASS_M
        }
        "TM" | "PM" | "TA" | "PA" => CLASS_A,
        "MB" => CLASS_B,
        _ => CLASS_CU,
    }
}

fn make_count_point(
    seed: u64,
    id: &Ident,
    location: Location,
    (y0, y1): (u16, u16),
    flows: &[Vec<[f64; NV]>; 4],
) -> CountPoint {
    let mut r = Rng::keyed(seed, id.id as u64, 0, KEY_CP);
    let class = flow_class(&id.road, &id.category);
    let active = active_years(&mut r, id.major, (y1 - y0 + 1) as i64);
    let first_year = y0 + *active.start() as u16;
    let methods = if id.major {
        major_road_methods(&mut r, y0, active)
    } else {
        minor_road_methods(&mut r, y0, active)
    };
    let directions: &'static [&'static str] = match r.weighted(&[0.48, 0.42, 0.10]) {
        0 => &["N", "S"],
        1 => &["E", "W"],
        _ => &["C"],
    };
    let template = r.pick(&flows[class]);
    let sigma = if id.major { 0.25 } else { 0.35 };
    let level = dmath::exp(sigma * r.normal());
    let mut base = [0f64; NV];
    for k in 0..NV {
        base[k] = template[k] * level * dmath::exp(0.1 * r.normal());
    }
    CountPoint {
        id: id.id,
        location,
        class,
        first_year,
        methods,
        directions,
        dir_share: 0.5 + 0.04 * r.normal(),
        base,
        slope: 0.008 * r.normal(),
    }
}

/// The years a count point has AADFs, as offsets from the first year of the release (of
/// `nyears`): most major road count points throughout, minor ones for a year, a few years or a
/// long stretch.
fn active_years(r: &mut Rng, major: bool, nyears: i64) -> RangeInclusive<i64> {
    if major {
        let first = if r.chance(0.75) {
            0
        } else {
            r.range(0, nyears - 1)
        };
        let last = if r.chance(0.85) {
            nyears - 1
        } else {
            r.range(first, nyears - 1)
        };
        return first..=last;
    }
    let len = match r.weighted(&[0.35, 0.20, 0.45]) {
        0 => 1,
        1 => r.range(2, 3),
        _ => r.range(7, 25),
    }
    .min(nyears);
    let first = r.range(0, nyears - len);
    first..=first + len - 1
}

/// The estimation method of each active year (offsets from `y0`) of a major road count point:
/// most are counted every few years and estimated in between; some counted once, some by an
/// automatic counter, some only through a neighbouring link.
fn major_road_methods(r: &mut Rng, y0: u16, active: RangeInclusive<i64>) -> Vec<Method> {
    let (first, last) = (*active.start(), *active.end());
    let kind = r.weighted(&[0.72, 0.16, 0.04, 0.08]);
    let period = r.range(4, 9);
    let phase = r.range(0, period - 1);
    let one_count = r.range(first, last);
    active
        .map(|i| {
            let year = y0 as i64 + i;
            let on_cycle = (year - phase).rem_euclid(period) == 0;
            let m = match kind {
                0 if on_cycle || (i == first && r.chance(0.5)) => {
                    if r.chance(0.1) {
                        Method::Dependent
                    } else {
                        Method::Manual
                    }
                }
                0 if i == first => Method::Nearby,
                0 => Method::PreviousYear,
                1 if i == one_count && r.chance(0.5) => Method::Manual,
                1 => Method::Nearby,
                2 if r.chance(0.7) => Method::Automatic,
                2 => Method::PreviousYear,
                _ if on_cycle => Method::Dependent,
                _ if i == first => Method::Nearby,
                _ => Method::PreviousYear,
            };
            lockdown_2020(r, year, m)
        })
        .collect()
}

/// The estimation method of each active year (offsets from `y0`) of a minor road count point:
/// counted the first year, then most years.
fn minor_road_methods(r: &mut Rng, y0: u16, active: RangeInclusive<i64>) -> Vec<Method> {
    let first = *active.start();
    active
        .map(|i| {
            if i == first {
                return Method::Manual;
            }
            let m = if r.chance(0.75) {
                Method::Manual
            } else {
                Method::PreviousYear
            };
            lockdown_2020(r, y0 as i64 + i, m)
        })
        .collect()
}

/// Most manual counts of 2020 did not happen (lockdown): the previous year's AADF stands in.
fn lockdown_2020(r: &mut Rng, year: i64, m: Method) -> Method {
    if year == 2020 && m == Method::Manual && r.chance(0.8) {
        Method::PreviousYear
    } else {
        m
    }
}

// ------------------------------------------------------------------------------------------------
// Summary tables

/// Whether a row of the seed's summary tables is in the release: of its regions and its summary
/// years.
fn in_release(opts: &SynthOptions, region_id: u32, year: u16) -> bool {
    opts.regions
        .as_ref()
        .is_none_or(|rs| rs.contains(&region_id))
        && opts
            .summary_years
            .is_none_or(|(a, b)| year >= a && year <= b)
}

fn push_r(buf: &mut Vec<u8>, x: f64) {
    buf.extend_from_slice(fmt_r(x).as_bytes());
}

/// The total length of the road links of a summary row.
#[derive(Debug, Clone, Copy)]
struct LinkLength {
    km: f64,
    miles: f64,
}

/// The seed's real summary rows are made synthetic: every value is scaled by a random factor
/// near 1 (`row_factor` common to the row, plus a little per column) and rounded to the
/// precision the original was published with (100,000s, integers or 2 decimals); link lengths
/// move less, and miles are recomputed from kilometres.
struct Perturb {
    rng: Rng,
    row_factor: f64,
}

impl Perturb {
    fn new(seed: u64, table: u64, a: u64, b: u64) -> Perturb {
        let mut rng = Rng::keyed(seed, a, b, KEY_SUMMARY * 16 + table);
        let row_factor = 1.0 + (0.02 * rng.normal()).clamp(-0.06, 0.06);
        Perturb { rng, row_factor }
    }
    fn value(&mut self, x: f64) -> f64 {
        let y = x * self.row_factor * (1.0 + 0.003 * self.rng.normal());
        if x == 0.0 {
            0.0
        } else if x % 100_000.0 == 0.0 {
            ((y / 100_000.0 + 0.5).floor() * 100_000.0).max(100_000.0)
        } else if x.fract() == 0.0 {
            (y + 0.5).floor()
        } else {
            (y * 100.0 + 0.5).floor() / 100.0
        }
    }
    fn link_length(&mut self, km: f64) -> LinkLength {
        let km = (km * (1.0 + 0.003 * self.rng.normal()) * 100.0 + 0.5).floor() / 100.0;
        LinkLength {
            km,
            miles: miles_of_km(km),
        }
    }
}

column_enum! {
    /// The traffic columns of the seed's summary tables, in the seed's order.
    enum SummaryVehicle {
        PedalCycles => "pedal_cycles",
        TwoWheeledMotorVehicles => "two_wheeled_motor_vehicles",
        CarsAndTaxis => "cars_and_taxis",
        BusesAndCoaches => "buses_and_coaches",
        Lgvs => "lgvs",
        AllHgvs => "all_hgvs",
        AllMotorVehicles => "all_motor_vehicles",
    }
}

const SUMMARY_VEHICLES: usize = SummaryVehicle::ALL.len();

/// A summary row's traffic (vehicle miles) by [`SummaryVehicle`]; None where its table has none.
type SummaryTraffic = [Option<f64>; SUMMARY_VEHICLES];

/// A row of one of the summary tables: a real row of the seed, perturbed. What a table's rows do
/// not hold (an LA row's road category) is None, and a column asking for it is written empty.
struct SummaryRow<'a> {
    year: u16,
    region_id: u32,
    region: Option<&'a SeedRegion>,
    local_authority: Option<&'a SeedLa>,
    road_category_id: Option<u32>,
    road_category: Option<&'a str>,
    link_length: LinkLength,
    traffic: SummaryTraffic,
}

impl<'a> SummaryRow<'a> {
    /// A row of a region and year, with its link length and no traffic yet.
    fn new(seed: &'a Seed, year: u16, region_id: u32, link_length: LinkLength) -> Self {
        SummaryRow {
            year,
            region_id,
            region: seed.region(region_id),
            local_authority: None,
            road_category_id: None,
            road_category: None,
            link_length,
            traffic: [None; SUMMARY_VEHICLES],
        }
    }
}

column_enum! {
    /// A value of a [`SummaryRow`] besides its traffic.
    enum SummaryValue {
        Year => "year",
        RegionId => "region_id",
        RegionName => "region_name",
        RegionOnsCode => "region_ons_code",
        LocalAuthorityId => "local_authority_id",
        LocalAuthorityName => "local_authority_name",
        /// The local authority table's name for its authority's code.
        LocalAuthorityOnsCode => "ons_code",
        RoadCategoryId => "road_category_id",
        RoadCategory => "road_category",
        /// The local authority table's link lengths.
        LinkLengthKm => "link_length_km",
        LinkLengthMiles => "link_length_miles",
        /// The regional tables' link lengths.
        TotalLinkLengthKm => "total_link_length_km",
        TotalLinkLengthMiles => "total_link_length_miles",
    }
}

/// A value of a [`SummaryRow`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SummaryField {
    Value(SummaryValue),
    Traffic(SummaryVehicle),
}

impl Field for SummaryField {
    fn of_column(name: &str) -> Option<SummaryField> {
        SummaryValue::of_column(name)
            .map(SummaryField::Value)
            .or_else(|| SummaryVehicle::of_column(name).map(SummaryField::Traffic))
    }
}

impl Record for SummaryRow<'_> {
    type Field = SummaryField;

    fn push(&self, field: SummaryField, quote: Quote, buf: &mut Vec<u8>) {
        match field {
            SummaryField::Value(value) => self.push_value(value, quote, buf),
            SummaryField::Traffic(vehicle) => {
                if let Some(x) = self.traffic[vehicle as usize] {
                    push_r(buf, x);
                }
            }
        }
    }
}

impl SummaryRow<'_> {
    fn push_value(&self, value: SummaryValue, quote: Quote, buf: &mut Vec<u8>) {
        let number = |buf: &mut Vec<u8>, n: Option<u32>| push_some_number(buf, n.map(u64::from));
        let text = |buf: &mut Vec<u8>, s: Option<&str>| push_some_text(buf, s, quote);
        let la = self.local_authority;
        match value {
            SummaryValue::Year => push_u64(buf, self.year.into()),
            SummaryValue::RegionId => push_u64(buf, self.region_id.into()),
            SummaryValue::RegionName => text(buf, self.region.map(|r| r.name.as_str())),
            SummaryValue::RegionOnsCode => text(buf, self.region.map(|r| r.ons_code.as_str())),
            SummaryValue::LocalAuthorityId => number(buf, la.map(|la| la.id)),
            SummaryValue::LocalAuthorityName => text(buf, la.map(|la| la.name.as_str())),
            SummaryValue::LocalAuthorityOnsCode => text(buf, la.map(|la| la.ons_code.as_str())),
            SummaryValue::RoadCategoryId => number(buf, self.road_category_id),
            SummaryValue::RoadCategory => text(buf, self.road_category),
            SummaryValue::LinkLengthKm | SummaryValue::TotalLinkLengthKm => {
                push_r(buf, self.link_length.km)
            }
            SummaryValue::LinkLengthMiles | SummaryValue::TotalLinkLengthMiles => {
                push_r(buf, self.link_length.miles)
            }
        }
    }
}

/// The summary tables, in a fixed order: the seed's rows in the release, made synthetic.
fn write_summaries(seed: &Seed, opts: &SynthOptions) -> Result<Vec<FileSummary>, SynthError> {
    let las: HashMap<u32, &SeedLa> = seed.las.iter().map(|l| (l.id, l)).collect();
    let la_traffic = seed.la_traffic.iter().filter_map(|row| {
        let la = las.get(&row.la_id)?;
        in_release(opts, la.region_id, row.year).then(|| la_traffic_row(seed, opts.seed, la, row))
    });
    let by_vehicle = (seed.region_vehicle.iter())
        .filter(|row| in_release(opts, row.region_id, row.year))
        .map(|row| region_vehicle_row(seed, opts.seed, row));
    let by_road = (seed.region_road.iter())
        .filter(|row| in_release(opts, row.region_id, row.year))
        .map(|row| region_road_row(seed, opts.seed, row));
    Ok(vec![
        write_summary_table(opts, &LOCAL_AUTHORITY_TRAFFIC, la_traffic)?,
        write_summary_table(opts, &REGION_TRAFFIC_BY_VEHICLE_TYPE, by_vehicle)?,
        write_summary_table(opts, &REGION_TRAFFIC_BY_ROAD_TYPE, by_road)?,
    ])
}

fn write_summary_table<'a>(
    opts: &SynthOptions,
    dataset: &'static Dataset,
    rows: impl Iterator<Item = SummaryRow<'a>>,
) -> Result<FileSummary, SynthError> {
    let mut f = CsvFile::create(&opts.out_dir, dataset)?;
    for row in rows {
        f.write(&row)?;
    }
    f.finish()
}

/// An LA's traffic in a year, made synthetic.
fn la_traffic_row<'a>(
    seed: &'a Seed,
    prng_seed: u64,
    la: &'a SeedLa,
    row: &SeedLaTraffic,
) -> SummaryRow<'a> {
    let mut p = Perturb::new(prng_seed, 1, row.la_id as u64, row.year as u64);
    let link_length = p.link_length(row.link_length_km);
    let mut traffic = [None; SUMMARY_VEHICLES];
    traffic[SummaryVehicle::CarsAndTaxis as usize] = Some(p.value(row.cars_and_taxis));
    traffic[SummaryVehicle::AllMotorVehicles as usize] = Some(p.value(row.all_motor_vehicles));
    SummaryRow {
        local_authority: Some(la),
        traffic,
        ..SummaryRow::new(seed, row.year, la.region_id, link_length)
    }
}

/// A region's traffic by vehicle type in a year, made synthetic.
fn region_vehicle_row<'a>(
    seed: &'a Seed,
    prng_seed: u64,
    row: &SeedRegionVehicle,
) -> SummaryRow<'a> {
    let mut p = Perturb::new(prng_seed, 2, row.region_id as u64, row.year as u64);
    let link_length = p.link_length(row.link_length_km);
    SummaryRow {
        traffic: row.traffic().map(|x| Some(p.value(x))),
        ..SummaryRow::new(seed, row.year, row.region_id, link_length)
    }
}

/// A region's traffic on a road category in a year, made synthetic.
fn region_road_row<'a>(seed: &'a Seed, prng_seed: u64, row: &'a SeedRegionRoad) -> SummaryRow<'a> {
    let key = row.region_id as u64 * 16 + row.road_category_id as u64;
    let mut p = Perturb::new(prng_seed, 3, key, row.year as u64);
    let link_length = p.link_length(row.link_length_km);
    let mut traffic = [None; SUMMARY_VEHICLES];
    traffic[SummaryVehicle::AllMotorVehicles as usize] = Some(p.value(row.all_motor_vehicles));
    SummaryRow {
        road_category_id: Some(row.road_category_id),
        road_category: Some(&row.road_category),
        traffic,
        ..SummaryRow::new(seed, row.year, row.region_id, link_length)
    }
}

// ------------------------------------------------------------------------------------------------
// Entry point

/// Write the release described by `opts` into `opts.out_dir`.
pub fn generate(opts: &SynthOptions) -> Result<SynthSummary, SynthError> {
    let seed = read_seed(&opts.seed_path)?;
    let model = build_model(&seed, opts)?;
    std::fs::create_dir_all(&opts.out_dir).map_err(io_err(&opts.out_dir))?;
    let dir = opts.out_dir.as_path();
    log::info!(
        "synth: {} count points, years {}-{}",
        model.cps.len(),
        model.years.0,
        model.years.1
    );

    let mut aadf = CsvFile::create(dir, &AADF)?;
    let mut by_direction = CsvFile::create(dir, &AADF_BY_DIRECTION)?;
    let mut raw = CsvFile::create(dir, &RAW_COUNTS)?;
    let mut count_points = CsvFile::create(dir, &COUNT_POINTS)?;

    let model = &model;
    let (aadf_res, raw_res, rest) = std::thread::scope(|sc| {
        let t_aadf = sc.spawn(move || -> Result<(FileSummary, FileSummary), SynthError> {
            model.write_aadf(&mut aadf, &mut by_direction)?;
            Ok((aadf.finish()?, by_direction.finish()?))
        });
        let t_raw = sc.spawn(move || -> Result<FileSummary, SynthError> {
            model.write_raw(&mut raw)?;
            raw.finish()
        });
        let rest = (|| -> Result<(FileSummary, Vec<FileSummary>), SynthError> {
            model.write_count_points(&mut count_points)?;
            Ok((count_points.finish()?, write_summaries(&seed, opts)?))
        })();
        (t_aadf.join(), t_raw.join(), rest)
    });
    let (aadf_sum, dir_sum) = aadf_res.map_err(|_| SynthError::Panic)??;
    let raw_sum = raw_res.map_err(|_| SynthError::Panic)??;
    let (cp_sum, summaries) = rest?;
    let mut files = vec![aadf_sum, dir_sum, raw_sum, cp_sum];
    files.extend(summaries);
    Ok(SynthSummary { files })
}

// ------------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use csv::StringRecord;
    use roadtraffic_catalog::VEHICLES;

    /// The crate is `bench/synth` of the repository; `shared` is beside the repository.
    const REPOSITORY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

    /// The seed file beside the repository, when it is there. Without it a test says on stderr
    /// that it skips; with `ROADTRAFFIC_REQUIRE_SHARED=1` (CI) it fails instead.
    fn seed_path() -> Option<PathBuf> {
        let p = Path::new(REPOSITORY).join("../shared/data/synth_seed.json.gz");
        let required = std::env::var("ROADTRAFFIC_REQUIRE_SHARED").is_ok_and(|v| v == "1");
        assert!(p.exists() || !required, "{} is absent", p.display());
        if !p.exists() {
            eprintln!("skipped: {} is absent", p.display());
        }
        p.exists().then_some(p)
    }

    fn file_name(dataset: &'static Dataset) -> &'static str {
        national_file(dataset).name
    }

    #[test]
    fn r_number_format() {
        assert_eq!(fmt_r(900000.0), "9e+05");
        assert_eq!(fmt_r(1400000.0), "1400000");
        assert_eq!(fmt_r(228000000.0), "2.28e+08");
        assert_eq!(fmt_r(2231000000.0), "2.231e+09");
        assert_eq!(fmt_r(19674300000.0), "19674300000");
        assert_eq!(fmt_r(23730000000.0), "2.373e+10");
        assert_eq!(fmt_r(4650.69), "4650.69");
        assert_eq!(fmt_r(22.38), "22.38");
        assert_eq!(fmt_r(0.0), "0");
        assert_eq!(fmt_r(80540342.58), "80540342.58");
    }

    #[test]
    fn quoting() {
        let mut b = Vec::new();
        for text in ["Leeds", "East of England", "Bristol, City of", "a\"b", ""] {
            push_text(&mut b, text.as_bytes(), Quote::AsNeeded);
            b.push(b'|');
        }
        push_text(&mut b, b"Leeds", Quote::Always);
        assert_eq!(
            String::from_utf8(b).unwrap(),
            "Leeds|\"East of England\"|\"Bristol, City of\"|\"a\"\"b\"||\"Leeds\""
        );
    }

    #[test]
    fn deterministic_math() {
        for i in -200..200 {
            let x = i as f64 * 0.0371;
            assert!(
                (dmath::exp(x) - x.exp()).abs() <= 1e-14 * x.exp(),
                "exp {x}"
            );
            assert!((dmath::sin(x) - x.sin()).abs() < 1e-14, "sin {x}");
            assert!((dmath::cos(x) - x.cos()).abs() < 1e-14, "cos {x}");
            assert!((dmath::atan(x) - x.atan()).abs() < 1e-14, "atan {x}");
            assert!(
                (dmath::atan2(x, 0.3 - x) - x.atan2(0.3 - x)).abs() < 1e-14,
                "atan2 {x}"
            );
        }
    }

    #[test]
    fn grid_transform_matches_published_points() {
        // published: 531750,165000 -> 51.36878592,-0.10870544 ; 519000,297900 -> 52.565923,-0.24577093
        let (lat, lon) = grid::en_to_latlon(531750.0, 165000.0);
        assert!(
            (lat - 51.36878592).abs() < 1e-4 && (lon + 0.10870544).abs() < 1e-4,
            "{lat} {lon}"
        );
        let (lat, lon) = grid::en_to_latlon(519000.0, 297900.0);
        assert!(
            (lat - 52.565923).abs() < 1e-4 && (lon + 0.24577093).abs() < 1e-4,
            "{lat} {lon}"
        );
        let (e, n) = grid::latlon_to_en(lat, lon);
        assert!(
            (e - 519000.0).abs() < 1.0 && (n - 297900.0).abs() < 1.0,
            "{e} {n}"
        );
    }

    #[test]
    fn weekdays() {
        assert_eq!(weekday(1970, 1, 1), 3);
        assert_eq!(weekday(2009, 9, 3), 3); // Thursday
        assert_eq!(weekday(2024, 2, 29), 3);
        assert_eq!(weekday(2000, 1, 1), 5);
    }

    #[test]
    fn totals_are_computed_after_the_totals_they_sum() {
        for (i, total) in TOTALS.iter().enumerate() {
            for part in total.parts {
                if let Some(t) = TOTALS.iter().position(|t| t.total == *part) {
                    assert!(
                        t < i,
                        "{} is a part of {} listed before it",
                        part,
                        total.total
                    );
                }
            }
        }
    }

    #[test]
    fn a_column_without_a_value_is_written_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("with_a_new_vehicle.csv");
        // a vehicle class the generator does not model, as it would be added to the catalogue
        let lgvs = AADF.column("lgvs").unwrap();
        let new_vehicle = Column {
            name: "e_scooters",
            published: "e_scooters",
            ..*lgvs
        };
        let count_point_id = AADF.column("count_point_id").unwrap();
        let columns = [count_point_id]
            .into_iter()
            .chain(VEHICLES)
            .chain([&new_vehicle]);
        let mut file = CsvFile::with_columns(&path, columns, false).unwrap();
        let point = CountPoint {
            id: 7,
            location: [EncodedCell::default(); LOCATION_FIELDS],
            class: CLASS_A,
            first_year: 2024,
            methods: vec![Method::Manual],
            directions: &["C"],
            dir_share: 0.5,
            base: [0.0; NV],
            slope: 0.0,
        };
        let vehicles = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
        let counts = TotalsRule::from_catalogue().counts(vehicles, &mut Rng(0), 0.0);
        let without_counts = CountRow::of(&point, &[]);
        file.write(&CountRow {
            counts: Some(&counts),
            ..without_counts
        })
        .unwrap();
        file.write(&without_counts).unwrap();
        file.finish().unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = written.lines().collect();
        assert!(lines[0].starts_with("count_point_id,pedal_cycles,"));
        assert!(lines[0].ends_with(",all_HGVs,all_motor_vehicles,e_scooters"));
        assert_eq!(lines[1], "7,1,2,3,4,5,6,7,8,9,10,11,51,65,");
        assert_eq!(lines[2], format!("7{}", ",".repeat(14)));
    }

    #[test]
    fn every_column_of_the_catalogue_has_a_value() {
        for dataset in [
            &LOCAL_AUTHORITY_TRAFFIC,
            &REGION_TRAFFIC_BY_VEHICLE_TYPE,
            &REGION_TRAFFIC_BY_ROAD_TYPE,
        ] {
            for column in national_columns(dataset) {
                assert!(
                    SummaryField::of_column(column.name).is_some(),
                    "{}.{}",
                    dataset.table,
                    column.name
                );
            }
        }
        for dataset in [&AADF, &AADF_BY_DIRECTION, &RAW_COUNTS, &COUNT_POINTS] {
            for column in national_columns(dataset) {
                assert!(
                    CountField::of_column(column.name).is_some(),
                    "{}.{}",
                    dataset.table,
                    column.name
                );
            }
        }
    }

    fn read_all(dir: &Path) -> BTreeMap<String, Vec<u8>> {
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
    struct Table {
        dataset: &'static Dataset,
        header: StringRecord,
        rows: Vec<StringRecord>,
    }

    impl Table {
        fn read(files: &BTreeMap<String, Vec<u8>>, dataset: &'static Dataset) -> Table {
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
        fn col(&self, name: &str) -> usize {
            let published = self.dataset.column(name).unwrap().published;
            self.header
                .iter()
                .position(|h| h == published)
                .unwrap_or_else(|| panic!("{}: no column {published}", self.dataset.table))
        }

        fn value(&self, row: &StringRecord, name: &str) -> String {
            row[self.col(name)].to_string()
        }

        fn count(&self, row: &StringRecord, name: &str) -> i64 {
            row[self.col(name)].parse().unwrap()
        }

        /// Whether every total of a row is the sum of its parts.
        fn totals_add_up(&self, row: &StringRecord) -> bool {
            self.dataset.totals().all(|total| {
                let parts: i64 = total.parts.iter().map(|p| self.count(row, p)).sum();
                parts == self.count(row, total.total)
            })
        }
    }

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
                national_file(dataset).quote_all_text,
                "{}",
                dataset.table
            );
        }
    }

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
        let las: HashMap<String, &SeedLa> =
            seed.las.iter().map(|l| (l.id.to_string(), l)).collect();
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
            let sum = sums.entry(key).or_insert(vec![0; NV]);
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
}
