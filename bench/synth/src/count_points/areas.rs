//! The local authorities the count points are shared among, and the seed's real count point
//! identities: where each LA's count points are, and the real road and junction names its
//! synthetic ones take.

use std::collections::{HashMap, HashSet};

use crate::grid;
use crate::seed::{Seed, SeedLa};

/// A local authority of the seed, with its region and where its count points are.
pub struct La<'a> {
    pub id: u32,
    pub name: &'a str,
    pub code: &'a str,
    pub region_id: u32,
    pub region_name: &'a str,
    pub region_code: &'a str,
    pub spread: Spread,
    pub weight: f64,
}

/// Where an LA's count points are: around a centre (easting, northing), with a standard
/// deviation `sigma` (m) in each direction.
pub struct Spread {
    pub centre: (f64, f64),
    pub sigma: f64,
}

/// Where a count point's identity comes from.
#[derive(Clone)]
pub struct Ident {
    pub id: u32,
    pub road: String,
    pub category: String,
    pub major: bool,
    pub start_j: String,
    pub end_j: String,
    pub easting: i64,
    pub northing: i64,
    pub km: Option<f64>,
}

/// Whether a road category is a motorway's (trunk or principal).
pub fn is_motorway(category: &str) -> bool {
    category == "TM" || category == "PM"
}

/// The seed's real count point identities by LA (in seed order), and the ids they take.
pub struct RealIdentities {
    pub by_la: HashMap<u32, Vec<Ident>>,
    pub used_ids: HashSet<u32>,
}

impl RealIdentities {
    pub fn from_seed(seed: &Seed) -> RealIdentities {
        let mut by_la: HashMap<u32, Vec<Ident>> = HashMap::new();
        let mut used_ids = HashSet::new();
        for row in &seed.ident {
            used_ids.insert(row.count_point_id);
            by_la.entry(row.la_id).or_default().push(Ident {
                id: row.count_point_id,
                road: row.road_name.clone(),
                category: row.road_category.clone(),
                major: row.road_type == "Major",
                start_j: row.start_junction_road_name.clone().unwrap_or_default(),
                end_j: row.end_junction_road_name.clone().unwrap_or_default(),
                easting: row.easting.round() as i64,
                northing: row.northing.round() as i64,
                km: row.link_length_km,
            });
        }
        RealIdentities { by_la, used_ids }
    }

    pub fn of(&self, la_id: u32) -> &[Ident] {
        self.by_la.get(&la_id).map_or(&[], Vec::as_slice)
    }
}

/// The seed's LAs with where their count points are.
pub fn local_authorities<'a>(seed: &'a Seed, real: &RealIdentities) -> Vec<La<'a>> {
    seed.las
        .iter()
        .map(|l| {
            let region = seed
                .region(l.region_id)
                .expect("check_seed makes sure every LA's region is in the seed");
            La {
                id: l.id,
                name: &l.name,
                code: &l.ons_code,
                region_id: l.region_id,
                region_name: &region.name,
                region_code: &region.ons_code,
                spread: count_point_spread(l, real.of(l.id)),
                weight: l.weight.max(0.0),
            }
        })
        .collect()
}

/// Where an LA's count points are: where its real ones are, if it has a few, else around its
/// centroid, as widely as it is large.
fn count_point_spread(la: &SeedLa, idents: &[Ident]) -> Spread {
    if idents.len() < 5 {
        return Spread {
            centre: grid::latlon_to_en(la.latitude, la.longitude),
            sigma: 750.0 * la.weight.max(1.0),
        };
    }
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
    Spread {
        centre: (me, mn),
        sigma: var.sqrt().max(500.0),
    }
}

/// Real names of an LA's roads (name, category) and junctions, for its synthetic count points.
pub struct LaPools {
    pub majors: Vec<(String, String)>,
    pub minors: Vec<(String, String)>,
    pub junctions: Vec<String>,
}

impl LaPools {
    pub fn of(idents: &[Ident]) -> LaPools {
        let roads = |major: bool| {
            idents
                .iter()
                .filter(|i| i.major == major)
                .map(|i| (i.road.clone(), i.category.clone()))
                .collect()
        };
        LaPools {
            majors: roads(true),
            minors: roads(false),
            junctions: idents
                .iter()
                .filter(|i| i.major && !i.road.starts_with('M'))
                .flat_map(|i| [i.start_j.clone(), i.end_j.clone()])
                .filter(|j| !j.is_empty())
                .collect(),
        }
    }
}
