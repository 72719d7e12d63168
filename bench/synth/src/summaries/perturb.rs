//! How a real summary row is made synthetic, keeping the precision it was published with.

use crate::rng::{Rng, KEY_SUMMARY};
use crate::units::miles_of_km;
/// The total length of the road links of a summary row.
#[derive(Debug, Clone, Copy)]
pub struct LinkLength {
    pub km: f64,
    pub miles: f64,
}

/// The seed's real summary rows are made synthetic: every value is scaled by a random factor
/// near 1 (`row_factor` common to the row, plus a little per column) and rounded to the
/// precision the original was published with (100,000s, integers or 2 decimals); link lengths
/// move less, and miles are recomputed from kilometres.
pub struct Perturb {
    rng: Rng,
    row_factor: f64,
}

impl Perturb {
    /// The perturbation of row (a, b) of summary table `table`.
    pub fn new(seed: u64, table: u64, a: u64, b: u64) -> Perturb {
        let mut rng = Rng::keyed(seed, a, b, KEY_SUMMARY * 16 + table);
        let row_factor = 1.0 + (0.02 * rng.normal()).clamp(-0.06, 0.06);
        Perturb { rng, row_factor }
    }

    /// A value of the row, made synthetic.
    pub fn value(&mut self, x: f64) -> f64 {
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

    /// A link length of the row (km), made synthetic.
    pub fn link_length(&mut self, km: f64) -> LinkLength {
        let km = (km * (1.0 + 0.003 * self.rng.normal()) * 100.0 + 0.5).floor() / 100.0;
        LinkLength {
            km,
            miles: miles_of_km(km),
        }
    }
}
