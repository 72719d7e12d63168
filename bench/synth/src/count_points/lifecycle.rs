//! A count point's life: the years it has an AADF, how each year's was made, its directions and
//! its flow level, drawn from its own stream.

use std::ops::RangeInclusive;

use super::areas::Ident;
use crate::dmath;
use crate::model::count_point::{CountPoint, Location, Method};
use crate::rng::{Rng, KEY_CP};
use crate::road_class::flow_class;
use crate::vehicles::NV;

/// A count point of this identity and location, whose flows are drawn from the templates of its
/// road class.
pub fn make_count_point(
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
