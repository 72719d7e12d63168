//! Building the count points of the release: how many each local authority gets, who they are
//! (the seed's real identities first, then synthetic ones on the LA's roads), where they are,
//! and what their rows are drawn from.

mod allocation;
mod areas;
mod lifecycle;
mod location;
mod roads;
mod synthetic;
mod templates;

use std::collections::{HashMap, HashSet};

use crate::error::SynthError;
use crate::model::count_point::CountPoint;
use crate::model::totals::TotalsRule;
use crate::model::trend::vehicle_trends;
use crate::model::Model;
use crate::options::SynthOptions;
use crate::rng::{Rng, KEY_LA};
use crate::seed::Seed;
use crate::vehicles::NV;
use allocation::allocate_count_points;
use areas::{is_motorway, local_authorities, Ident, La, LaPools, RealIdentities};
use lifecycle::make_count_point;
use location::LocationEncoder;
use roads::{link_km, synthetic_road_set};
use synthetic::synthetic_ident;
use templates::Templates;

/// The release's count points, by id, and what their rows are drawn from.
pub fn build_model(seed: &Seed, opts: &SynthOptions) -> Result<Model, SynthError> {
    opts.check()?;
    let trends = vehicle_trends();
    let real = RealIdentities::from_seed(seed);
    let las = local_authorities(seed, &real);
    let allocation = allocate_count_points(&las, &real, opts)?;
    let templates = Templates::from_seed(seed, &trends).ok_or_else(|| SynthError::Seed {
        path: opts.seed_path.clone(),
        msg: "empty templates for a road class".into(),
    })?;
    let mut maker = CountPointMaker::new(opts, real, &templates.flows);
    for (la, &n) in las.iter().zip(&allocation) {
        if n > 0 {
            maker.add_la(la, n);
        }
    }
    let CountPointMaker {
        mut cps, locations, ..
    } = maker;
    cps.sort_by_key(|c| c.id);
    Ok(Model {
        seed: opts.seed,
        years: opts.years,
        cps,
        location_text: locations.text,
        shapes: templates.shapes,
        trends,
        totals: TotalsRule::from_catalogue(),
    })
}

/// Makes the count points of the release LA by LA, and encodes their locations.
struct CountPointMaker<'a> {
    seed: u64,
    years: (u16, u16),
    flows: &'a [Vec<[f64; NV]>; 4],
    real_by_la: HashMap<u32, Vec<Ident>>,
    /// Count point ids taken, by real count points and those made so far.
    used_ids: HashSet<u32>,
    cps: Vec<CountPoint>,
    locations: LocationEncoder,
}

impl<'a> CountPointMaker<'a> {
    fn new(
        opts: &SynthOptions,
        real: RealIdentities,
        flows: &'a [Vec<[f64; NV]>; 4],
    ) -> CountPointMaker<'a> {
        CountPointMaker {
            seed: opts.seed,
            years: opts.years,
            flows,
            real_by_la: real.by_la,
            used_ids: real.used_ids,
            cps: Vec::new(),
            locations: LocationEncoder::default(),
        }
    }

    /// The `n` count points of an LA.
    fn add_la(&mut self, la: &La, n: usize) {
        let mut r = Rng::keyed(self.seed, la.id as u64, 0, KEY_LA);
        for mut ident in self.identities(&mut r, la, n) {
            if ident.major && ident.km.is_none() {
                ident.km = Some(link_km(&mut r, is_motorway(&ident.category)));
            }
            let location = self.locations.encode(la, &ident);
            let cp = make_count_point(self.seed, &ident, location, self.years, self.flows);
            self.cps.push(cp);
        }
    }

    /// `n` identities for an LA's count points: its real ones first, in a shuffled order, then
    /// synthetic ones.
    fn identities(&mut self, r: &mut Rng, la: &La, n: usize) -> Vec<Ident> {
        let real = self.real_by_la.get(&la.id).map_or(&[][..], Vec::as_slice);
        let mut shuffled: Vec<&Ident> = real.iter().collect();
        for i in (1..shuffled.len()).rev() {
            let j = r.below(i as u64 + 1) as usize;
            shuffled.swap(i, j);
        }
        let take = n.min(shuffled.len());
        let mut idents: Vec<Ident> = shuffled[..take].iter().map(|&i| i.clone()).collect();
        let pools = LaPools::of(real);
        let synthetic_roads = synthetic_road_set(r, la);
        for _ in take..n {
            let ident = synthetic_ident(r, la, &pools, &synthetic_roads, &mut self.used_ids);
            idents.push(ident);
        }
        idents
    }
}
