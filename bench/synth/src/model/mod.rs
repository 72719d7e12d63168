//! The traffic model: a count point's AADF in a year (its flow level, the national trend of each
//! vehicle, noise), split by direction, with totals as the catalogue sums them. Every draw comes
//! from a stream keyed by (count point, year, purpose), so that any row can be made alone.

pub mod count_point;
pub mod totals;
pub mod trend;

use crate::dmath;
use crate::rng::{Rng, KEY_AADF, KEY_DIR};
use crate::vehicles::NV;
use count_point::{CountPoint, Shape};
use totals::{Counts, TotalsRule};
use trend::Trend;

/// The release's count points, by id, and what their rows are drawn from.
pub struct Model {
    pub seed: u64,
    pub years: (u16, u16),
    pub cps: Vec<CountPoint>,
    /// The text of every count point's [`count_point::Location`].
    pub location_text: Vec<u8>,
    /// The hourly shapes of each road class's manual counts.
    pub shapes: [Vec<Shape>; 4],
    /// The national trend of each modelled vehicle.
    pub trends: [Trend; NV],
    pub totals: TotalsRule,
}

impl Model {
    /// A count point's AADF of each modelled vehicle in a year.
    fn aadf_parts(&self, cp: &CountPoint, year: u16) -> [i64; NV] {
        let mut r = Rng::keyed(self.seed, cp.id as u64, year as u64, KEY_AADF);
        let common = cp.slope * (year as f64 - 2019.0) + 0.06 * r.normal();
        let mut parts = [0i64; NV];
        for ((part, base), trend) in parts.iter_mut().zip(cp.base).zip(self.trends) {
            let x = base * trend.at(year) * dmath::exp(common + 0.04 * r.normal());
            *part = r.round_stoch(x);
        }
        parts
    }

    /// A count point's AADF of a year, with its totals.
    pub fn aadf(&self, cp: &CountPoint, year: u16) -> Counts {
        let parts = self.aadf_parts(cp, year);
        let mut r = Rng::keyed(self.seed, cp.id as u64, year as u64, KEY_AADF ^ 0xff);
        self.totals.counts(parts, &mut r, 0.16)
    }

    /// The AADF parts split by direction (exact split of every vehicle column).
    pub fn dir_parts(&self, cp: &CountPoint, year: u16) -> [[i64; NV]; 2] {
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
    pub fn aadf_by_direction(&self, cp: &CountPoint, year: u16, aadf: Counts) -> Vec<Counts> {
        if cp.directions.len() == 1 {
            return vec![aadf];
        }
        let mut r = Rng::keyed(self.seed, cp.id as u64, year as u64, KEY_DIR ^ 0xff);
        self.dir_parts(cp, year)
            .into_iter()
            .map(|parts| self.totals.counts(parts, &mut r, 0.12))
            .collect()
    }
}
