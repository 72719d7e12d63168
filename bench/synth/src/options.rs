//! What to generate: the options of a run, their defaults and the bundled sample's preset.

use std::path::PathBuf;

use crate::error::SynthError;

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

    /// Whether every file of the release has the rows of this region.
    pub(crate) fn includes_region(&self, region_id: u32) -> bool {
        (self.regions.as_ref()).is_none_or(|regions| regions.contains(&region_id))
    }

    /// Options the generator can work with: a year range it models, a finite scale.
    pub(crate) fn check(&self) -> Result<(), SynthError> {
        let (y0, y1) = self.years;
        if y0 > y1 || y0 < 1990 || y1 > 2100 {
            return Err(SynthError::Option(format!("bad year range {y0}-{y1}")));
        }
        if !(self.scale.is_finite() && self.scale >= 0.0) {
            return Err(SynthError::Option(format!("bad scale {}", self.scale)));
        }
        Ok(())
    }
}
