//! National traffic trends by vehicle, relative to 2019: a count point's flows follow them from
//! year to year, and the seed's flow templates are brought back to their 2019 level by them.

use crate::vehicles::{is_part_of, MODELLED_VEHICLES, NV};

/// A national traffic trend: anchors (year, level relative to 2019), linear in between, flat
/// before the first and after the last.
#[derive(Debug, Clone, Copy)]
pub struct Trend(&'static [(u16, f64)]);

/// The trends of the vehicles that have their own, by catalogue name.
const OWN_TRENDS: [(&str, Trend); 5] = [
    (
        "pedal_cycles",
        Trend(&[
            (2000, 0.80),
            (2010, 0.90),
            (2019, 1.00),
            (2020, 1.45),
            (2021, 1.10),
            (2022, 1.00),
            (2023, 0.95),
            (2024, 0.97),
        ]),
    ),
    (
        "two_wheeled_motor_vehicles",
        Trend(&[
            (2000, 1.05),
            (2007, 1.12),
            (2013, 0.95),
            (2019, 1.00),
            (2020, 0.85),
            (2021, 0.95),
            (2022, 0.98),
            (2024, 0.97),
        ]),
    ),
    (
        "cars_and_taxis",
        Trend(&[
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
        ]),
    ),
    (
        "buses_and_coaches",
        Trend(&[
            (2000, 1.20),
            (2010, 1.10),
            (2019, 1.00),
            (2020, 0.55),
            (2021, 0.75),
            (2022, 0.85),
            (2023, 0.88),
            (2024, 0.90),
        ]),
    ),
    (
        "lgvs",
        Trend(&[
            (2000, 0.58),
            (2007, 0.75),
            (2010, 0.74),
            (2019, 1.00),
            (2020, 0.93),
            (2021, 1.03),
            (2022, 1.03),
            (2023, 1.05),
            (2024, 1.06),
        ]),
    ),
];

/// The trend of every HGV class: every part of the catalogue's `all_hgvs`.
const HGVS: Trend = Trend(&[
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
]);

impl Trend {
    /// The trend of a modelled vehicle, if it has one.
    fn of_vehicle(name: &str) -> Option<Trend> {
        let own = OWN_TRENDS.iter().find(|(vehicle, _)| *vehicle == name);
        match own {
            Some((_, trend)) => Some(*trend),
            None => is_part_of(name, "all_hgvs").then_some(HGVS),
        }
    }

    /// The level in `year`.
    pub fn at(self, year: u16) -> f64 {
        let pts = self.0;
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
}

/// The trend of each modelled vehicle, by [`MODELLED_VEHICLES`] position.
pub fn vehicle_trends() -> [Trend; NV] {
    MODELLED_VEHICLES.map(|vehicle| {
        Trend::of_vehicle(vehicle).expect("every modelled vehicle has a trend (a test checks it)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_modelled_vehicle_has_a_trend_and_every_trend_a_vehicle() {
        for vehicle in MODELLED_VEHICLES {
            assert!(
                Trend::of_vehicle(vehicle).is_some(),
                "{vehicle} has no trend"
            );
        }
        for (vehicle, _) in OWN_TRENDS {
            assert!(
                MODELLED_VEHICLES.contains(&vehicle),
                "{vehicle} is not modelled"
            );
        }
    }
}
