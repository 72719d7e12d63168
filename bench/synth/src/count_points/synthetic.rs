//! A count point made up for an LA with too few real ones: a fresh id, a position around the
//! LA's count points, a road and its junctions.

use std::collections::HashSet;

use super::areas::{is_motorway, Ident, La, LaPools, Spread};
use super::roads::{
    link_km, major_road, minor_road, motorway_junctions, region_roads, road_junctions,
};
use crate::rng::Rng;

/// A count point id no other count point has: major road count points have ids below 100,000,
/// minor ones from 800,000 as in the real files.
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
pub fn synthetic_ident(
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
