//! National traffic trends by vehicle group, relative to 2019: a count point's flows follow them
//! from year to year, and the seed's flow templates are brought back to their 2019 level by them.

use crate::vehicles::NV;

/// Trend group of each modelled vehicle.
pub const TREND_GROUP: [usize; NV] = [0, 1, 2, 3, 4, 5, 5, 5, 5, 5, 5];
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

/// The level of a vehicle group's trend in `year`.
pub fn trend(group: usize, year: u16) -> f64 {
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
