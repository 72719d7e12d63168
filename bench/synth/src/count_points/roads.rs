//! Synthetic road and junction names, for the count points an LA has no real identity for:
//! motorways and A-road numbers of its region, B roads, streets and roundabouts.

use super::areas::{La, LaPools};
use crate::dmath;
use crate::rng::Rng;

/// Motorways and A-road number zones by region id.
pub fn region_roads(region_id: u32) -> (&'static [&'static str], &'static [u8]) {
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

/// An A or B road number of one of a region's zones (`A1234`), of at least `min_digits`.
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

/// A street or a roundabout ("Station Road", "Mill Lane roundabout").
fn street_name(r: &mut Rng) -> String {
    format!("{} {}", r.pick(&STREET_A), r.pick(&STREET_B))
}

/// The part of an LA name before any comma ("Bristol, City of" -> "Bristol").
fn short_place(la_name: &str) -> &str {
    la_name.split(',').next().unwrap_or(la_name).trim()
}

/// Roads of an LA without enough real identities: (name, category).
pub fn synthetic_road_set(r: &mut Rng, la: &La) -> Vec<(String, String)> {
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

/// (name, category) of a minor road: a real one of the LA, a B road, or an unnamed C or U road.
pub fn minor_road(r: &mut Rng, pools: &LaPools, zones: &[u8]) -> (String, String) {
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
pub fn major_road(r: &mut Rng, pools: &LaPools, roads: &[(String, String)]) -> (String, String) {
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
pub fn motorway_junctions(r: &mut Rng) -> (String, String) {
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
pub fn road_junctions(
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
pub fn link_km(r: &mut Rng, motorway: bool) -> f64 {
    let (mu, sd, max) = if motorway {
        (1.0, 0.6, 30.0)
    } else {
        (0.1, 0.7, 25.0)
    };
    ((dmath::exp(mu + sd * r.normal()) * 10.0 + 0.5).floor() / 10.0).clamp(0.1, max)
}
