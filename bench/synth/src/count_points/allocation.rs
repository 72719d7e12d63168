//! How many count points each local authority gets: the release's total shared among the LAs
//! of the selected regions, as a full-size release would share them.

use super::areas::{La, RealIdentities};
use crate::error::SynthError;
use crate::options::{SynthOptions, FULL_COUNT_POINTS};
use crate::rng::{Rng, KEY_ALLOC};

/// Count points per LA (by `las` position) at full size: the real identities where there are
/// more of them than the LA's weighted share, the weighted share of the rest elsewhere.
fn full_size_quotas(las: &[La], real: &RealIdentities) -> Vec<f64> {
    let n_ident: Vec<f64> = las.iter().map(|l| real.of(l.id).len() as f64).collect();
    let mut fixed = vec![false; las.len()];
    let mut base = vec![0f64; las.len()];
    for _ in 0..20 {
        let fixed_total: f64 = (0..las.len())
            .filter(|&i| fixed[i])
            .map(|i| n_ident[i])
            .sum();
        let free_weight: f64 = (0..las.len())
            .filter(|&i| !fixed[i])
            .map(|i| las[i].weight)
            .sum();
        let rest = (FULL_COUNT_POINTS as f64 - fixed_total).max(0.0);
        let mut changed = false;
        for i in 0..las.len() {
            if fixed[i] {
                base[i] = n_ident[i];
            } else {
                base[i] = if free_weight > 0.0 {
                    rest * las[i].weight / free_weight
                } else {
                    0.0
                };
                if n_ident[i] > base[i] {
                    fixed[i] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    base
}

/// How many count points each LA gets (by `las` position): the release's total shared among
/// the LAs of the selected regions by their full-size quotas.
pub fn allocate_count_points(
    las: &[La],
    real: &RealIdentities,
    opts: &SynthOptions,
) -> Result<Vec<usize>, SynthError> {
    let quotas = full_size_quotas(las, real);
    let selected: Vec<bool> = las
        .iter()
        .map(|l| opts.includes_region(l.region_id))
        .collect();
    if !selected.iter().any(|&x| x) {
        return Err(SynthError::Option(
            "no local authority in the selected regions".into(),
        ));
    }
    let total = match opts.count_points {
        Some(n) => n,
        None => (selected_quota(&quotas, &selected) * opts.scale).round() as usize,
    };
    Ok(systematic_sample(&quotas, &selected, total, opts.seed))
}

fn selected_quota(quotas: &[f64], selected: &[bool]) -> f64 {
    quotas
        .iter()
        .zip(selected)
        .filter(|(_, s)| **s)
        .map(|(q, _)| q)
        .sum()
}

/// `total` shared among the selected LAs in proportion to their quotas by systematic sampling:
/// the total is exact and each LA within one of its share.
fn systematic_sample(quotas: &[f64], selected: &[bool], total: usize, seed: u64) -> Vec<usize> {
    let sel_base = selected_quota(quotas, selected);
    let mut alloc = vec![0usize; quotas.len()];
    let mut r = Rng::keyed(seed, 0, 0, KEY_ALLOC);
    let u = r.f64();
    let mut cum = 0.0;
    for i in 0..quotas.len() {
        if !selected[i] || sel_base <= 0.0 {
            continue;
        }
        let q = quotas[i] * total as f64 / sel_base;
        let a = (cum + u).floor();
        cum += q;
        let b = (cum + u).floor();
        alloc[i] = (b - a).max(0.0) as usize;
    }
    // float drift: fix the total on the largest LA
    let got: usize = alloc.iter().sum();
    if got != total {
        let big = (0..quotas.len())
            .filter(|&i| selected[i])
            .max_by(|&a, &b| quotas[a].total_cmp(&quotas[b]).then(b.cmp(&a)))
            .unwrap_or(0);
        alloc[big] = (alloc[big] + total).saturating_sub(got);
    }
    alloc
}
