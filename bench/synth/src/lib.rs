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
//! | `dft_count_points.csv`                      | 47,000            |
//! | `local_authority_traffic.csv`               | seed rows (6,353) |
//! | `region_traffic_by_vehicle_type.csv`        | seed rows         |
//! | `region_traffic_by_road_type.csv`           | seed rows         |
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
//! cargo run --release --bin roadtraffic-synth -- --sample --out data/sample
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
//! roadtraffic-synth --out /work/bench-data/full --scale 1.0
//! ```

use roadtraffic_catalog::dates::days_from_civil;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// PRNG seed of the bundled sample (chosen among the first few for variety: a motorway, a
/// combined-direction count point, a junction name with a comma, short-lived minor sites).
pub const SAMPLE_SEED: u64 = 30;

/// Number of count points of a full-size (scale 1.0) release.
pub const FULL_COUNT_POINTS: usize = 47_000;

pub const AADF_FILE: &str = "dft_traffic_counts_aadf.csv";
pub const AADF_DIR_FILE: &str = "dft_traffic_counts_aadf_by_direction.csv";
pub const RAW_FILE: &str = "dft_traffic_counts_raw_counts.csv";
pub const COUNT_POINTS_FILE: &str = "dft_count_points.csv";
pub const LA_FILE: &str = "local_authority_traffic.csv";
pub const REGION_VEHICLE_FILE: &str = "region_traffic_by_vehicle_type.csv";
pub const REGION_ROAD_FILE: &str = "region_traffic_by_road_type.csv";

const LOC_HEADER: &str = "region_id,region_name,region_ons_code,local_authority_id,local_authority_name,local_authority_code,road_name,road_category,road_type,start_junction_road_name,end_junction_road_name,easting,northing,latitude,longitude,link_length_km,link_length_miles";
const VEH_HEADER: &str = "pedal_cycles,two_wheeled_motor_vehicles,cars_and_taxis,buses_and_coaches,LGVs,HGVs_2_rigid_axle,HGVs_3_rigid_axle,HGVs_4_or_more_rigid_axle,HGVs_3_or_4_articulated_axle,HGVs_5_articulated_axle,HGVs_6_articulated_axle,all_HGVs,all_motor_vehicles";

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

type FlowRow = (
    String,
    u16,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
);

type LaRow = (u32, String, String, u32, f64, f64, f64);
type RegionVehicleRow = (u16, u32, f64, f64, f64, f64, f64, f64, f64, f64, f64);

#[derive(Deserialize)]
struct Seed {
    regions: BTreeMap<String, (String, String)>,
    /// la_id, name, ons_code, region_id, lat, lon, weight
    las: Vec<LaRow>,
    /// la_id, year, link_km, link_miles, cars_and_taxis, all_motor_vehicles
    la_traffic: Vec<(u32, u16, f64, f64, f64, f64)>,
    /// year, region_id, link_km, link_miles, pedal, 2wmv, cars, buses, lgvs, hgvs, all_motor
    region_vehicle: Vec<RegionVehicleRow>,
    /// year, region_id, road_category_id, road_category_code, link_km, link_miles, all_motor
    region_road: Vec<(u16, u32, u32, String, f64, f64, f64)>,
    /// la_id, cp_id, road_name, road_type, road_category, start_j, end_j, easting, northing, km
    #[allow(clippy::type_complexity)]
    ident: Vec<(
        u32,
        u32,
        String,
        String,
        String,
        Option<String>,
        Option<String>,
        f64,
        f64,
        Option<f64>,
    )>,
    /// road class letter, year, 11 vehicle AADFs
    flows: Vec<FlowRow>,
    /// road class letter, 12 hours x 11 vehicle counts
    hourly: Vec<(String, Vec<Vec<f64>>)>,
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
    let bad = |msg: &str| SynthError::Seed {
        path: path.to_path_buf(),
        msg: msg.to_string(),
    };
    if seed.las.is_empty() {
        return Err(bad("no local authorities"));
    }
    if seed
        .hourly
        .iter()
        .any(|(_, h)| h.len() != 12 || h.iter().any(|r| r.len() != 11))
    {
        return Err(bad("hourly templates must be 12 hours x 11 vehicle counts"));
    }
    for class in ["A", "B", "CU", "M"] {
        if !seed.flows.iter().any(|f| f.0 == class) || !seed.hourly.iter().any(|h| h.0 == class) {
            return Err(bad(&format!(
                "no flow or hourly template for road class {class}"
            )));
        }
    }
    for la in &seed.las {
        if !seed.regions.contains_key(&la.3.to_string()) {
            return Err(bad(&format!(
                "local authority {} has unknown region {}",
                la.0, la.3
            )));
        }
    }
    Ok(seed)
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

/// A text field, quoted the way DfT's national files are: only when it holds a comma, a quote,
/// a space or a line break.
fn push_text(buf: &mut Vec<u8>, s: &str) {
    if s.bytes()
        .any(|b| matches!(b, b',' | b'"' | b' ' | b'\n' | b'\r'))
    {
        push_quoted(buf, s);
    } else {
        buf.extend_from_slice(s.as_bytes());
    }
}

fn push_quoted(buf: &mut Vec<u8>, s: &str) {
    buf.push(b'"');
    for b in s.bytes() {
        if b == b'"' {
            buf.push(b'"');
        }
        buf.push(b);
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

fn push_date(buf: &mut Vec<u8>, (y, m, d): (i64, i64, i64)) {
    push_i64(buf, y);
    buf.push(b'-');
    if m < 10 {
        buf.push(b'0');
    }
    push_i64(buf, m);
    buf.push(b'-');
    if d < 10 {
        buf.push(b'0');
    }
    push_i64(buf, d);
}

/// A CSV file being written: rows are built in `buf` and flushed with `end_row`.
struct Out {
    path: PathBuf,
    w: BufWriter<File>,
    buf: Vec<u8>,
    rows: u64,
    bytes: u64,
}

impl Out {
    fn create(dir: &Path, name: &str, header: &str) -> Result<Out, SynthError> {
        let path = dir.join(name);
        let f = File::create(&path).map_err(io_err(&path))?;
        let mut out = Out {
            path,
            w: BufWriter::with_capacity(1 << 20, f),
            buf: Vec::with_capacity(1024),
            rows: 0,
            bytes: 0,
        };
        out.buf.extend_from_slice(header.as_bytes());
        out.buf.push(b'\n');
        out.flush_buf()?;
        Ok(out)
    }
    fn flush_buf(&mut self) -> Result<(), SynthError> {
        self.w.write_all(&self.buf).map_err(io_err(&self.path))?;
        self.bytes += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }
    fn end_row(&mut self) -> Result<(), SynthError> {
        self.buf.push(b'\n');
        self.rows += 1;
        if self.buf.len() >= 64 * 1024 {
            self.flush_buf()?;
        }
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

/// Vehicle columns: pedal cycles, 2WMV, cars, buses, LGVs, six HGV classes.
const NV: usize = 11;
/// Trend group of each vehicle column.
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

/// estimation_method_detailed codes.
const M_NONE: u8 = 0;
const M_MANUAL: u8 = 1;
const M_AUTO: u8 = 2;
const M_DEPENDENT: u8 = 3;
const M_PREVIOUS: u8 = 4;
const M_NEARBY: u8 = 5;

fn method_text(m: u8) -> &'static [u8] {
    match m {
        M_MANUAL => b"Counted,\"Manual count\"",
        M_AUTO => b"Counted,\"Automatic counter\"",
        M_DEPENDENT => b"Counted,\"Dependent on a neighbouring counted link\"",
        M_PREVIOUS => b"Estimated,\"Estimated using previous year's AADF on this link\"",
        _ => b"Estimated,\"Estimated from nearby links\"",
    }
}

const KEY_CP: u64 = 1;
const KEY_AADF: u64 = 2;
const KEY_DIR: u64 = 3;
const KEY_RAW: u64 = 4;
const KEY_LA: u64 = 5;
const KEY_ALLOC: u64 = 6;
const KEY_SUMMARY: u64 = 7;

struct CountPoint {
    id: u32,
    /// Location columns (region_id .. link_length_miles), CSV-encoded.
    loc: std::ops::Range<usize>,
    class: usize,
    first_year: u16,
    /// estimation method per year of the year range (M_NONE = no AADF that year).
    methods: Vec<u8>,
    /// Directions of travel: two letters, or `C` alone.
    dirs: [u8; 2],
    dir_share: f64,
    base: [f64; NV],
    slope: f64,
}

impl CountPoint {
    fn method(&self, year: u16) -> u8 {
        year.checked_sub(self.first_year)
            .and_then(|i| self.methods.get(i as usize).copied())
            .unwrap_or(M_NONE)
    }
    fn last_year(&self) -> u16 {
        let last = self.methods.iter().rposition(|&m| m != M_NONE).unwrap_or(0);
        self.first_year + last as u16
    }
    fn ndirs(&self) -> usize {
        if self.dirs[1] == 0 {
            1
        } else {
            2
        }
    }
}

/// Hourly shape of one template: fraction of each vehicle's 12-hour count in each hour.
type Shape = [[f64; NV]; 12];

struct Model {
    seed: u64,
    years: (u16, u16),
    cps: Vec<CountPoint>,
    loc: Vec<u8>,
    shapes: [Vec<Shape>; 4],
}

/// AADF parts and totals (11 vehicles, all_HGVs, all_motor_vehicles).
type Counts = [i64; NV + 2];

fn totals(parts: &[i64; NV], rng: &mut Rng, p_noise: f64) -> Counts {
    let mut c = [0i64; NV + 2];
    c[..NV].copy_from_slice(parts);
    let hgv: i64 = parts[5..].iter().sum();
    let mut all_hgv = hgv;
    if p_noise > 0.0 && rng.chance(p_noise) && hgv >= 3 {
        let d = if rng.chance(0.9) { 1 } else { 2 };
        all_hgv += if rng.chance(0.55) { -d } else { d };
    }
    let mut amv = parts[1] + parts[2] + parts[3] + parts[4] + all_hgv;
    if p_noise > 0.0 && rng.chance(p_noise * 0.3) && amv >= 3 {
        let d = if rng.chance(0.85) { 1 } else { 2 };
        amv += if rng.chance(0.55) { -d } else { d };
    }
    c[NV] = all_hgv;
    c[NV + 1] = amv;
    c
}

fn push_counts(buf: &mut Vec<u8>, c: &Counts) {
    for (i, v) in c.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        push_i64(buf, *v);
    }
}

impl Model {
    fn loc(&self, cp: &CountPoint) -> &[u8] {
        &self.loc[cp.loc.clone()]
    }

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
        totals(&parts, &mut r, 0.16)
    }

    /// The AADF parts split by direction (exact split of every vehicle column).
    fn dir_parts(&self, cp: &CountPoint, year: u16) -> [[i64; NV]; 2] {
        let parts = self.aadf_parts(cp, year);
        if cp.ndirs() == 1 {
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

    fn write_aadf(&self, aadf: &mut Out, bydir: &mut Out) -> Result<(), SynthError> {
        for year in self.years.0..=self.years.1 {
            for cp in &self.cps {
                let m = cp.method(year);
                if m == M_NONE {
                    continue;
                }
                let counts = self.aadf(cp, year);
                let b = &mut aadf.buf;
                push_u64(b, cp.id as u64);
                b.push(b',');
                push_u64(b, year as u64);
                b.push(b',');
                b.extend_from_slice(self.loc(cp));
                b.push(b',');
                b.extend_from_slice(method_text(m));
                b.push(b',');
                push_counts(b, &counts);
                aadf.end_row()?;

                let split = self.dir_parts(cp, year);
                let mut r = Rng::keyed(self.seed, cp.id as u64, year as u64, KEY_DIR ^ 0xff);
                for (d, dir_parts) in split.iter().enumerate().take(cp.ndirs()) {
                    let counts = if cp.ndirs() == 1 {
                        counts
                    } else {
                        totals(dir_parts, &mut r, 0.12)
                    };
                    let b = &mut bydir.buf;
                    push_u64(b, cp.id as u64);
                    b.push(b',');
                    push_u64(b, year as u64);
                    b.push(b',');
                    b.extend_from_slice(self.loc(cp));
                    b.push(b',');
                    b.extend_from_slice(method_text(m));
                    b.push(b',');
                    b.push(cp.dirs[d]);
                    b.push(b',');
                    push_counts(b, &counts);
                    bydir.end_row()?;
                }
            }
        }
        Ok(())
    }

    fn count_date(r: &mut Rng, year: u16) -> (i64, i64, i64) {
        const MONTHS: [i64; 14] = [3, 4, 4, 5, 5, 5, 6, 6, 6, 7, 9, 9, 10, 10];
        let y = year as i64;
        loop {
            // manual counts stopped in spring 2020
            let m = if year == 2020 {
                r.range(9, 10)
            } else {
                *r.pick(&MONTHS)
            };
            let d = r.range(1, days_in_month(y, m));
            if weekday(y, m, d) < 5 {
                return (y, m, d);
            }
        }
    }

    fn write_raw(&self, out: &mut Out) -> Result<(), SynthError> {
        for cp in &self.cps {
            for year in self.years.0..=self.years.1 {
                if cp.method(year) != M_MANUAL {
                    continue;
                }
                let split = self.dir_parts(cp, year);
                let mut r = Rng::keyed(self.seed, cp.id as u64, year as u64, KEY_RAW);
                let date = Self::count_date(&mut r, year);
                let day_factor = 0.8 * dmath::exp(0.08 * r.normal());
                let shapes = &self.shapes[cp.class];
                for (d, dir_parts) in split.iter().enumerate().take(cp.ndirs()) {
                    let shape = r.pick(shapes);
                    let mut day = [0f64; NV];
                    for (x, part) in day.iter_mut().zip(dir_parts) {
                        *x = *part as f64 * day_factor * dmath::exp(0.05 * r.normal());
                    }
                    for (h, hour_shape) in shape.iter().enumerate() {
                        let mut parts = [0i64; NV];
                        for k in 0..NV {
                            parts[k] = r.round_stoch(day[k] * hour_shape[k]);
                        }
                        let counts = totals(&parts, &mut r, 0.0);
                        let b = &mut out.buf;
                        push_u64(b, cp.id as u64);
                        b.push(b',');
                        b.push(cp.dirs[d]);
                        b.push(b',');
                        push_u64(b, year as u64);
                        b.push(b',');
                        push_date(b, date);
                        b.push(b',');
                        push_u64(b, 7 + h as u64);
                        b.push(b',');
                        b.extend_from_slice(self.loc(cp));
                        b.push(b',');
                        push_counts(b, &counts);
                        out.end_row()?;
                    }
                }
            }
        }
        Ok(())
    }

    fn write_count_points(&self, out: &mut Out) -> Result<(), SynthError> {
        for cp in &self.cps {
            let b = &mut out.buf;
            push_u64(b, cp.id as u64);
            b.push(b',');
            push_u64(b, cp.last_year() as u64);
            b.push(b',');
            b.extend_from_slice(self.loc(cp));
            out.end_row()?;
        }
        Ok(())
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        2 => 28,
        _ => 31,
    }
}

/// `year,region_id,"region name","region code"`: how both regional tables' rows begin.
fn push_year_region(b: &mut Vec<u8>, year: u16, region_id: u32, (name, code): (&str, &str)) {
    push_u64(b, year as u64);
    b.push(b',');
    push_u64(b, region_id as u64);
    b.push(b',');
    push_quoted(b, name);
    b.push(b',');
    push_quoted(b, code);
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
    /// centre and spread (m) of its count points
    centre: (f64, f64),
    sigma: f64,
    weight: f64,
}

/// Where a count point's identity comes from.
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

struct LaPools {
    majors: Vec<(String, String)>,
    minors: Vec<(String, String)>,
    junctions: Vec<String>,
}

fn build_model(seed: &Seed, opts: &SynthOptions) -> Result<Model, SynthError> {
    let (y0, y1) = opts.years;
    if y0 > y1 || y0 < 1990 || y1 > 2100 {
        return Err(SynthError::Option(format!("bad year range {y0}-{y1}")));
    }
    if !(opts.scale.is_finite() && opts.scale >= 0.0) {
        return Err(SynthError::Option(format!("bad scale {}", opts.scale)));
    }
    let s = opts.seed;

    // identities by LA, in seed order
    let mut ident_by_la: HashMap<u32, Vec<Ident>> = HashMap::new();
    let mut used_ids: HashSet<u32> = HashSet::new();
    for r in &seed.ident {
        used_ids.insert(r.1);
        ident_by_la.entry(r.0).or_default().push(Ident {
            id: r.1,
            road: r.2.clone(),
            category: r.4.clone(),
            major: r.3 == "Major",
            start_j: r.5.clone().unwrap_or_default(),
            end_j: r.6.clone().unwrap_or_default(),
            easting: r.7.round() as i64,
            northing: r.8.round() as i64,
            km: r.9,
        });
    }

    // LAs with their geography
    let las: Vec<La> = seed
        .las
        .iter()
        .map(|l| {
            let region = &seed.regions[&l.3.to_string()];
            let idents = ident_by_la.get(&l.0).map(|v| v.as_slice()).unwrap_or(&[]);
            let (centre, sigma) = if idents.len() >= 5 {
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
                ((me, mn), var.sqrt().max(500.0))
            } else {
                (grid::latlon_to_en(l.4, l.5), 750.0 * l.6.max(1.0))
            };
            La {
                id: l.0,
                name: &l.1,
                code: &l.2,
                region_id: l.3,
                region_name: &region.0,
                region_code: &region.1,
                centre,
                sigma,
                weight: l.6.max(0.0),
            }
        })
        .collect();

    // count points per LA at full size: the real identities where there are more of them than
    // the LA's weighted share, the weighted share of the rest elsewhere
    let n_ident: Vec<f64> = las
        .iter()
        .map(|l| ident_by_la.get(&l.id).map_or(0, |v| v.len()) as f64)
        .collect();
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
    let sel_base: f64 = (0..las.len())
        .filter(|&i| selected[i])
        .map(|i| base[i])
        .sum();
    let total = match opts.count_points {
        Some(n) => n,
        None => (sel_base * opts.scale).round() as usize,
    };
    // systematic sampling: exact total, each LA within one of its quota
    let mut alloc = vec![0usize; las.len()];
    {
        let mut r = Rng::keyed(s, 0, 0, KEY_ALLOC);
        let u = r.f64();
        let mut cum = 0.0;
        for i in 0..las.len() {
            if !selected[i] || sel_base <= 0.0 {
                continue;
            }
            let q = base[i] * total as f64 / sel_base;
            let a = (cum + u).floor();
            cum += q;
            let b = (cum + u).floor();
            alloc[i] = (b - a).max(0.0) as usize;
        }
        // float drift: fix the total on the largest LA
        let got: usize = alloc.iter().sum();
        if got != total {
            let big = (0..las.len())
                .filter(|&i| selected[i])
                .max_by(|&a, &b| base[a].total_cmp(&base[b]).then(b.cmp(&a)))
                .unwrap_or(0);
            alloc[big] = (alloc[big] + total).saturating_sub(got);
        }
    }

    // pools of real names per LA
    let pools: Vec<LaPools> = las
        .iter()
        .map(|l| {
            let idents = ident_by_la.get(&l.id).map(|v| v.as_slice()).unwrap_or(&[]);
            LaPools {
                majors: idents
                    .iter()
                    .filter(|i| i.major)
                    .map(|i| (i.road.clone(), i.category.clone()))
                    .collect(),
                minors: idents
                    .iter()
                    .filter(|i| !i.major)
                    .map(|i| (i.road.clone(), i.category.clone()))
                    .collect(),
                junctions: idents
                    .iter()
                    .filter(|i| i.major && !i.road.starts_with('M'))
                    .flat_map(|i| [i.start_j.clone(), i.end_j.clone()])
                    .filter(|j| !j.is_empty())
                    .collect(),
            }
        })
        .collect();

    let mut shapes: [Vec<Shape>; 4] = Default::default();
    for (class, hours) in &seed.hourly {
        let Some(ci) = CLASSES.iter().position(|c| c == class) else {
            continue;
        };
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
    let mut flows: [Vec<[f64; NV]>; 4] = Default::default();
    for f in &seed.flows {
        let Some(ci) = CLASSES.iter().position(|c| *c == f.0) else {
            continue;
        };
        let year = &f.1;
        let v = [f.2, f.3, f.4, f.5, f.6, f.7, f.8, f.9, f.10, f.11, f.12];
        let mut b = [0f64; NV];
        for k in 0..NV {
            b[k] = v[k].max(0.0) / trend(TREND_GROUP[k], *year);
        }
        flows[ci].push(b);
    }
    if shapes.iter().any(|s| s.is_empty()) || flows.iter().any(|f| f.is_empty()) {
        return Err(SynthError::Seed {
            path: opts.seed_path.clone(),
            msg: "empty templates for a road class".into(),
        });
    }

    let mut cps = Vec::with_capacity(total);
    let mut loc = Vec::with_capacity(total * 160);
    let mut latlon_cache: HashMap<(i64, i64), (f64, f64)> = HashMap::new();
    for (li, la) in las.iter().enumerate() {
        let n = alloc[li];
        if n == 0 {
            continue;
        }
        let mut r = Rng::keyed(s, la.id as u64, 0, KEY_LA);
        // real identities first, in a shuffled order
        let mut real: Vec<&Ident> = ident_by_la
            .get(&la.id)
            .map(|v| v.iter().collect())
            .unwrap_or_default();
        for i in (1..real.len()).rev() {
            let j = r.below(i as u64 + 1) as usize;
            real.swap(i, j);
        }
        let take = n.min(real.len());
        let mut idents: Vec<Ident> = real[..take]
            .iter()
            .map(|i| Ident {
                id: i.id,
                road: i.road.clone(),
                category: i.category.clone(),
                major: i.major,
                start_j: i.start_j.clone(),
                end_j: i.end_j.clone(),
                easting: i.easting,
                northing: i.northing,
                km: i.km,
            })
            .collect();
        let synthetic_roads = synthetic_road_set(&mut r, la);
        for _ in take..n {
            idents.push(synthetic_ident(
                &mut r,
                la,
                &pools[li],
                &synthetic_roads,
                &mut used_ids,
            ));
        }
        for mut ident in idents {
            if ident.major && ident.km.is_none() {
                let motorway = ident.category == "TM" || ident.category == "PM";
                ident.km = Some(link_km(&mut r, motorway));
            }
            let start = loc.len();
            let (lat, lon) = *latlon_cache
                .entry((ident.easting, ident.northing))
                .or_insert_with(|| grid::en_to_latlon(ident.easting as f64, ident.northing as f64));
            push_loc(&mut loc, la, &ident, lat, lon);
            let mut cp = make_count_point(s, &ident, (y0, y1), &flows);
            cp.loc = start..loc.len();
            cps.push(cp);
        }
    }
    cps.sort_by_key(|c| c.id);

    Ok(Model {
        seed: s,
        years: (y0, y1),
        cps,
        loc,
        shapes,
    })
}

fn push_loc(buf: &mut Vec<u8>, la: &La, id: &Ident, lat: f64, lon: f64) {
    use std::io::Write as _;
    push_u64(buf, la.region_id as u64);
    buf.push(b',');
    push_text(buf, la.region_name);
    buf.push(b',');
    push_text(buf, la.region_code);
    buf.push(b',');
    push_u64(buf, la.id as u64);
    buf.push(b',');
    push_text(buf, la.name);
    buf.push(b',');
    push_text(buf, la.code);
    buf.push(b',');
    push_text(buf, &id.road);
    buf.push(b',');
    push_text(buf, &id.category);
    buf.push(b',');
    buf.extend_from_slice(if id.major { b"Major," } else { b"Minor," });
    push_text(buf, &id.start_j);
    buf.push(b',');
    push_text(buf, &id.end_j);
    buf.push(b',');
    push_i64(buf, id.easting);
    buf.push(b',');
    push_i64(buf, id.northing);
    let _ = write!(buf, ",{lat:.8},{lon:.8},");
    if let Some(km) = id.km {
        let miles = (km * 0.621_371 * 100.0 + 0.5).floor() / 100.0;
        let _ = write!(buf, "{km:.2},{miles:.2}");
    } else {
        buf.push(b',');
    }
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
    let de = r.normal().clamp(-2.5, 2.5) * la.sigma;
    let dn = r.normal().clamp(-2.5, 2.5) * la.sigma;
    let mut e = (la.centre.0 + de).clamp(60_000.0, 660_000.0);
    let mut n = (la.centre.1 + dn).clamp(5_000.0, 1_220_000.0);
    let round_to = if major {
        *r.pick(&[100.0, 100.0, 10.0, 1.0])
    } else {
        *r.pick(&[1.0, 1.0, 1.0, 10.0])
    };
    e = (e / round_to + 0.5).floor() * round_to;
    n = (n / round_to + 0.5).floor() * round_to;
    if !major {
        let (road, category) = if pools.minors.len() >= 3 && r.chance(0.7) {
            r.pick(&pools.minors).clone()
        } else if r.chance(0.2) {
            (road_number(r, 'B', zones, 4), "MB".to_string())
        } else if r.chance(0.25) {
            ("C".to_string(), "MCU".to_string())
        } else {
            ("U".to_string(), "MCU".to_string())
        };
        return Ident {
            id,
            road,
            category,
            major,
            start_j: String::new(),
            end_j: String::new(),
            easting: e as i64,
            northing: n as i64,
            km: None,
        };
    }
    let (road, category) = if pools.majors.len() >= 3 && r.chance(0.8) {
        r.pick(&pools.majors).clone()
    } else {
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
    };
    let motorway = category == "TM" || category == "PM";
    let (start_j, end_j, km) = if motorway {
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
        (a, b, link_km(r, true))
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
        let junction = |r: &mut Rng| -> String {
            match r.weighted(&[0.30, 0.12, 0.10, 0.30, 0.06, 0.02, 0.10]) {
                0 if !a_roads.is_empty() => r.pick(&a_roads).to_string(),
                0 => road_number(r, 'A', zones, 2),
                1 => road_number(r, 'B', zones, 4),
                2 => "LA Boundary".into(),
                3 => street_name(r),
                4 => format!("{}, {}", street_name(r), short_place(la.name)),
                5 => String::new(),
                _ if !pools.junctions.is_empty() => r.pick(&pools.junctions).clone(),
                _ => street_name(r),
            }
        };
        let a = junction(r);
        let mut b = junction(r);
        if b == a && !b.is_empty() {
            b = street_name(r);
        }
        (a, b, link_km(r, false))
    };
    Ident {
        id,
        road,
        category,
        major,
        start_j,
        end_j,
        easting: e as i64,
        northing: n as i64,
        km: Some(km),
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
    (y0, y1): (u16, u16),
    flows: &[Vec<[f64; NV]>; 4],
) -> CountPoint {
    let mut r = Rng::keyed(seed, id.id as u64, 0, KEY_CP);
    let class = flow_class(&id.road, &id.category);
    let nyears = (y1 - y0 + 1) as i64;

    // active years and estimation methods
    let (first, last) = if id.major {
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
        (first, last)
    } else {
        let len = match r.weighted(&[0.35, 0.20, 0.45]) {
            0 => 1,
            1 => r.range(2, 3),
            _ => r.range(7, 25),
        }
        .min(nyears);
        let first = r.range(0, nyears - len);
        (first, first + len - 1)
    };
    let mut methods = vec![M_NONE; (last + 1) as usize];
    if id.major {
        let kind = r.weighted(&[0.72, 0.16, 0.04, 0.08]);
        let period = r.range(4, 9);
        let phase = r.range(0, period - 1);
        let one_count = r.range(first, last);
        for i in first..=last {
            let year = y0 as i64 + i;
            let on_cycle = (year - phase).rem_euclid(period) == 0;
            let mut m = match kind {
                0 if on_cycle || (i == first && r.chance(0.5)) => {
                    if r.chance(0.1) {
                        M_DEPENDENT
                    } else {
                        M_MANUAL
                    }
                }
                0 if i == first => M_NEARBY,
                0 => M_PREVIOUS,
                1 if i == one_count && r.chance(0.5) => M_MANUAL,
                1 => M_NEARBY,
                2 if r.chance(0.7) => M_AUTO,
                2 => M_PREVIOUS,
                _ if on_cycle => M_DEPENDENT,
                _ if i == first => M_NEARBY,
                _ => M_PREVIOUS,
            };
            if year == 2020 && m == M_MANUAL && r.chance(0.8) {
                m = M_PREVIOUS;
            }
            methods[i as usize] = m;
        }
    } else {
        for i in first..=last {
            let year = y0 as i64 + i;
            let mut m = if i == first || r.chance(0.75) {
                M_MANUAL
            } else {
                M_PREVIOUS
            };
            if year == 2020 && i != first && m == M_MANUAL && r.chance(0.8) {
                m = M_PREVIOUS;
            }
            methods[i as usize] = m;
        }
    }
    let methods = methods.split_off(first as usize);

    let dirs = match r.weighted(&[0.48, 0.42, 0.10]) {
        0 => [b'N', b'S'],
        1 => [b'E', b'W'],
        _ => [b'C', 0],
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
        loc: 0..0,
        class,
        first_year: y0 + first as u16,
        methods,
        dirs,
        dir_share: 0.5 + 0.04 * r.normal(),
        base,
        slope: 0.008 * r.normal(),
    }
}

// ------------------------------------------------------------------------------------------------
// Summary tables

fn in_years(y: u16, years: Option<(u16, u16)>) -> bool {
    years.is_none_or(|(a, b)| y >= a && y <= b)
}

fn push_r(buf: &mut Vec<u8>, x: f64) {
    buf.extend_from_slice(fmt_r(x).as_bytes());
}

/// The seed's real summary rows are made synthetic: every value is scaled by a random factor
/// near 1 (`row` common to the row, plus a little per column) and rounded to the precision the
/// original was published with (100,000s, integers or 2 decimals); link lengths move less, and
/// miles are recomputed from kilometres.
struct Perturb(Rng, f64);

impl Perturb {
    fn new(seed: u64, table: u64, a: u64, b: u64) -> Perturb {
        let mut r = Rng::keyed(seed, a, b, KEY_SUMMARY * 16 + table);
        let row = 1.0 + (0.02 * r.normal()).clamp(-0.06, 0.06);
        Perturb(r, row)
    }
    fn value(&mut self, x: f64) -> f64 {
        let y = x * self.1 * (1.0 + 0.003 * self.0.normal());
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
    /// (km, miles)
    fn lengths(&mut self, km: f64) -> (f64, f64) {
        let km = (km * (1.0 + 0.003 * self.0.normal()) * 100.0 + 0.5).floor() / 100.0;
        (km, (km * 0.621_371 * 100.0 + 0.5).floor() / 100.0)
    }
}

fn quoted_header(cols: &str) -> String {
    cols.split(',')
        .map(|c| format!("\"{c}\""))
        .collect::<Vec<_>>()
        .join(",")
}

fn write_summaries(seed: &Seed, opts: &SynthOptions) -> Result<Vec<FileSummary>, SynthError> {
    let dir = &opts.out_dir;
    let region_ok = |id: u32| opts.regions.as_ref().is_none_or(|rs| rs.contains(&id));
    let region = |id: u32| {
        seed.regions
            .get(&id.to_string())
            .map(|(n, c)| (n.as_str(), c.as_str()))
            .unwrap_or(("", ""))
    };
    let las: HashMap<u32, &LaRow> = seed.las.iter().map(|l| (l.0, l)).collect();
    let mut out = Vec::new();

    let mut f = Out::create(dir, LA_FILE, &quoted_header("local_authority_id,local_authority_name,local_authority_code,year,link_length_km,link_length_miles,cars_and_taxis,all_motor_vehicles"))?;
    for row in &seed.la_traffic {
        let Some(la) = las.get(&row.0) else { continue };
        if !region_ok(la.3) || !in_years(row.1, opts.summary_years) {
            continue;
        }
        let b = &mut f.buf;
        push_u64(b, row.0 as u64);
        b.push(b',');
        push_quoted(b, &la.1);
        b.push(b',');
        push_quoted(b, &la.2);
        b.push(b',');
        push_u64(b, row.1 as u64);
        let mut p = Perturb::new(opts.seed, 1, row.0 as u64, row.1 as u64);
        let (km, miles) = p.lengths(row.2);
        for x in [km, miles, p.value(row.4), p.value(row.5)] {
            b.push(b',');
            push_r(b, x);
        }
        f.end_row()?;
    }
    out.push(f.finish()?);

    let mut f = Out::create(dir, REGION_VEHICLE_FILE, &quoted_header("year,region_id,region_name,region_ons_code,link_length_km,link_length_miles,pedal_cycles,two_wheeled_motor_vehicles,cars_and_taxis,buses_and_coaches,LGVs,all_HGVs,all_motor_vehicles"))?;
    for row in &seed.region_vehicle {
        if !region_ok(row.1) || !in_years(row.0, opts.summary_years) {
            continue;
        }
        let b = &mut f.buf;
        push_year_region(b, row.0, row.1, region(row.1));
        let mut p = Perturb::new(opts.seed, 2, row.1 as u64, row.0 as u64);
        let (km, miles) = p.lengths(row.2);
        let v = [row.4, row.5, row.6, row.7, row.8, row.9, row.10].map(|x| p.value(x));
        for x in [km, miles].iter().chain(&v) {
            b.push(b',');
            push_r(b, *x);
        }
        f.end_row()?;
    }
    out.push(f.finish()?);

    let mut f = Out::create(dir, REGION_ROAD_FILE, &quoted_header("year,region_id,region_name,region_ons_code,road_category_id,road_category_name,link_length_km,link_length_miles,all_motor_vehicles"))?;
    for row in &seed.region_road {
        if !region_ok(row.1) || !in_years(row.0, opts.summary_years) {
            continue;
        }
        let b = &mut f.buf;
        push_year_region(b, row.0, row.1, region(row.1));
        b.push(b',');
        push_u64(b, row.2 as u64);
        b.push(b',');
        push_quoted(b, &row.3);
        let mut p = Perturb::new(opts.seed, 3, row.1 as u64 * 16 + row.2 as u64, row.0 as u64);
        let (km, miles) = p.lengths(row.4);
        for x in [km, miles, p.value(row.6)] {
            b.push(b',');
            push_r(b, x);
        }
        f.end_row()?;
    }
    out.push(f.finish()?);
    Ok(out)
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

    let aadf_header = format!("count_point_id,year,{LOC_HEADER},estimation_method,estimation_method_detailed,{VEH_HEADER}");
    let dir_header = format!("count_point_id,year,{LOC_HEADER},estimation_method,estimation_method_detailed,direction_of_travel,{VEH_HEADER}");
    let raw_header = format!(
        "count_point_id,direction_of_travel,year,count_date,hour,{LOC_HEADER},{VEH_HEADER}"
    );
    let cp_header = format!("count_point_id,aadf_year,{LOC_HEADER}");

    let mut aadf = Out::create(dir, AADF_FILE, &aadf_header)?;
    let mut bydir = Out::create(dir, AADF_DIR_FILE, &dir_header)?;
    let mut raw = Out::create(dir, RAW_FILE, &raw_header)?;
    let mut cpf = Out::create(dir, COUNT_POINTS_FILE, &cp_header)?;

    let model = &model;
    let (aadf_res, raw_res, rest) = std::thread::scope(|sc| {
        let t_aadf = sc.spawn(move || -> Result<(FileSummary, FileSummary), SynthError> {
            model.write_aadf(&mut aadf, &mut bydir)?;
            Ok((aadf.finish()?, bydir.finish()?))
        });
        let t_raw = sc.spawn(move || -> Result<FileSummary, SynthError> {
            model.write_raw(&mut raw)?;
            raw.finish()
        });
        let rest = (|| -> Result<(FileSummary, Vec<FileSummary>), SynthError> {
            model.write_count_points(&mut cpf)?;
            Ok((cpf.finish()?, write_summaries(&seed, opts)?))
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

    fn seed_path() -> Option<PathBuf> {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/synth_seed.json.gz");
        if p.exists() {
            Some(p)
        } else {
            eprintln!("skipping: {} not found", p.display());
            None
        }
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
        push_text(&mut b, "Leeds");
        b.push(b'|');
        push_text(&mut b, "East of England");
        b.push(b'|');
        push_text(&mut b, "Bristol, City of");
        b.push(b'|');
        push_text(&mut b, "a\"b");
        b.push(b'|');
        push_text(&mut b, "");
        assert_eq!(
            String::from_utf8(b).unwrap(),
            "Leeds|\"East of England\"|\"Bristol, City of\"|\"a\"\"b\"|"
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

    fn records(bytes: &[u8]) -> (csv::StringRecord, Vec<csv::StringRecord>) {
        let mut r = csv::ReaderBuilder::new().from_reader(bytes);
        let h = r.headers().unwrap().clone();
        let rows = r.records().map(|x| x.unwrap()).collect();
        (h, rows)
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
        assert_ne!(fa[AADF_FILE], read_all(b.path())[AADF_FILE]);
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
            assert_eq!(
                summary
                    .files
                    .iter()
                    .find(|f| &f.file_name == name)
                    .unwrap()
                    .bytes,
                bytes.len() as u64
            );
        }
        assert_eq!(summary.rows(COUNT_POINTS_FILE), Some(470));

        let las: HashMap<String, (String, String, String)> = seed
            .las
            .iter()
            .map(|l| (l.0.to_string(), (l.1.clone(), l.2.clone(), l.3.to_string())))
            .collect();

        // count points
        let (h, cps) = records(&files[COUNT_POINTS_FILE]);
        assert_eq!(
            h.iter().collect::<Vec<_>>().join(","),
            format!("count_point_id,aadf_year,{LOC_HEADER}")
        );
        let mut cp_year = HashMap::new();
        let mut minor = 0;
        for r in &cps {
            let la = &las[&r[5]];
            assert_eq!((&la.0[..], &la.1[..], &la.2[..]), (&r[6], &r[7], &r[2]));
            assert!(
                cp_year.insert(r[0].to_string(), r[1].to_string()).is_none(),
                "dup cp {}",
                &r[0]
            );
            if &r[10] == "Minor" {
                minor += 1;
                assert_eq!(&r[17], "");
            }
            assert_eq!(r[15].split('.').nth(1).map(str::len), Some(8));
        }
        let minor_share = minor as f64 / cps.len() as f64;
        assert!(
            (0.5..0.7).contains(&minor_share),
            "minor share {minor_share}"
        );

        // AADF
        let (h, aadf) = records(&files[AADF_FILE]);
        assert_eq!(h.len(), 34);
        let mut keys = HashSet::new();
        let mut max_year: HashMap<String, String> = HashMap::new();
        let mut off = 0;
        let mut prev = (0u32, 0u32);
        let mut manual = HashSet::new();
        let mut aadf_by_key = HashMap::new();
        for r in &aadf {
            let key = (r[1].parse::<u32>().unwrap(), r[0].parse::<u32>().unwrap());
            assert!(key > prev, "AADF not sorted by year, count point");
            prev = key;
            assert!(keys.insert(key));
            let y = max_year.entry(r[0].to_string()).or_default();
            if y.as_str() < &r[1] {
                *y = r[1].to_string();
            }
            let v: Vec<i64> = (21..34).map(|i| r[i].parse().unwrap()).collect();
            let hgv: i64 = v[5..11].iter().sum();
            if hgv != v[11] || v[1] + v[2] + v[3] + v[4] + v[11] != v[12] {
                off += 1;
            }
            if &r[20] == "Manual count" {
                assert_eq!(&r[19], "Counted");
                manual.insert((r[0].to_string(), r[1].to_string()));
            }
            aadf_by_key.insert((r[0].to_string(), r[1].to_string()), v);
        }
        assert_eq!(max_year, cp_year);
        let off_share = off as f64 / aadf.len() as f64;
        assert!((0.1..0.3).contains(&off_share), "off share {off_share}");
        let per_cp = aadf.len() as f64 / cps.len() as f64;
        assert!((11.0..14.5).contains(&per_cp), "AADF rows per cp {per_cp}");

        // by direction
        let (h, dir) = records(&files[AADF_DIR_FILE]);
        assert_eq!(&h[21], "direction_of_travel");
        let mut sums: HashMap<(String, String), Vec<i64>> = HashMap::new();
        let mut keys = HashSet::new();
        for r in &dir {
            assert!(keys.insert((r[0].to_string(), r[1].to_string(), r[21].to_string())));
            let s = sums
                .entry((r[0].to_string(), r[1].to_string()))
                .or_insert(vec![0; 11]);
            for k in 0..11 {
                s[k] += r[22 + k].parse::<i64>().unwrap();
            }
        }
        assert_eq!(sums.len(), aadf_by_key.len());
        for (k, s) in &sums {
            assert_eq!(&aadf_by_key[k][..11], &s[..], "{k:?}");
        }
        let ratio = dir.len() as f64 / aadf.len() as f64;
        assert!((1.85..2.0).contains(&ratio), "dir/aadf {ratio}");

        // raw counts
        let (h, raw) = records(&files[RAW_FILE]);
        assert_eq!(h.len(), 35);
        let mut keys = HashSet::new();
        let mut seen_groups = HashSet::new();
        let mut last_group = None;
        for r in &raw {
            assert!(keys.insert((
                r[0].to_string(),
                r[3].to_string(),
                r[4].to_string(),
                r[1].to_string()
            )));
            let group = (r[0].to_string(), r[3].to_string());
            if last_group.as_ref() != Some(&group) {
                assert!(seen_groups.insert(group.clone()), "raw counts not grouped");
                last_group = Some(group);
            }
            assert!(manual.contains(&(r[0].to_string(), r[2].to_string())));
            assert_eq!(&r[3][..4], &r[2]);
            let hour: u32 = r[4].parse().unwrap();
            assert!((7..=18).contains(&hour));
            let v: Vec<i64> = (22..35).map(|i| r[i].parse().unwrap()).collect();
            assert_eq!(v[5..11].iter().sum::<i64>(), v[11]);
            assert_eq!(v[1] + v[2] + v[3] + v[4] + v[11], v[12]);
            let d: Vec<i64> = r[3].split('-').map(|x| x.parse().unwrap()).collect();
            assert!(weekday(d[0], d[1], d[2]) < 5);
            assert!((3..=10).contains(&d[1]));
        }
        assert_eq!(seen_groups.len(), manual.len());
        let per_day = raw.len() as f64 / manual.len() as f64;
        assert!((22.0..24.0).contains(&per_day), "{per_day}");

        // summary tables
        let (_, la) = records(&files[LA_FILE]);
        assert_eq!(la.len(), seed.la_traffic.len());
        let mut keys = HashSet::new();
        assert!(la
            .iter()
            .all(|r| keys.insert((r[0].to_string(), r[3].to_string()))));
        let (_, rv) = records(&files[REGION_VEHICLE_FILE]);
        assert_eq!(rv.len(), seed.region_vehicle.len());
        let (_, rr) = records(&files[REGION_ROAD_FILE]);
        let mut keys = HashSet::new();
        assert!(rr.iter().all(|r| keys.insert((
            r[0].to_string(),
            r[1].to_string(),
            r[4].to_string()
        ))));
    }

    /// data/sample must be exactly what `roadtraffic-synth --sample` writes.
    #[test]
    fn bundled_sample_is_reproducible() {
        let Some(seed) = seed_path() else { return };
        let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
        if !bundled.join(AADF_FILE).exists() {
            eprintln!("skipping: {} not found", bundled.display());
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        generate(&SynthOptions::sample(&seed, dir.path())).unwrap();
        let fresh = read_all(dir.path());
        let committed = read_all(&bundled);
        for (name, bytes) in &fresh {
            assert!(
                committed.get(name) == Some(bytes),
                "data/sample/{name} differs from the generator's output: regenerate it with \
                 `cargo run --release --bin roadtraffic-synth -- --sample --out data/sample`"
            );
        }
    }

    #[test]
    fn sample_preset_is_small_and_regional() {
        let Some(seed) = seed_path() else { return };
        let dir = tempfile::tempdir().unwrap();
        let s = generate(&SynthOptions::sample(&seed, dir.path())).unwrap();
        assert_eq!(s.rows(COUNT_POINTS_FILE), Some(12));
        assert!(s.total_bytes() < 400_000, "{s}");
        let files = read_all(dir.path());
        let (_, cps) = records(&files[COUNT_POINTS_FILE]);
        assert!(cps.iter().all(|r| ["3", "4", "6"].contains(&&r[2])));
        let (_, aadf) = records(&files[AADF_FILE]);
        assert!(aadf.iter().all(|r| ("2019".."2025").contains(&&r[1])));
        assert!(s.rows(RAW_FILE).unwrap() > 0);
    }
}
