//! A row's totals, as the catalogue declares them ([`TOTALS`]): each the sum of its parts among
//! the modelled vehicles and earlier totals, off by rounding in some rows of the AADF files as in
//! the published ones (DfT rounds totals and parts independently).

use roadtraffic_catalog::{Total, TOTALS};

use crate::rng::Rng;
use crate::vehicles::{MODELLED_VEHICLES, NV};

/// A row's counts: of each modelled vehicle, and each of the catalogue's [`TOTALS`].
#[derive(Debug, Clone, Copy)]
pub struct Counts {
    pub vehicles: [i64; NV],
    pub totals: [i64; TOTALS.len()],
}

impl Counts {
    /// Count `k` of the modelled vehicles followed by the totals.
    pub fn get(&self, k: usize) -> i64 {
        match k.checked_sub(NV) {
            None => self.vehicles[k],
            Some(t) => self.totals[t],
        }
    }
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
pub struct TotalsRule(Vec<TotalRule>);

impl TotalsRule {
    pub fn from_catalogue() -> TotalsRule {
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
    pub fn counts(&self, vehicles: [i64; NV], rng: &mut Rng, rounding_rate: f64) -> Counts {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
