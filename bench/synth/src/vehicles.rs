//! The vehicles the model counts, taken from the catalogue: its vehicle columns
//! ([`VEHICLES`]) that are no total of others ([`TOTALS`]), in catalogue order. The totals are
//! never modelled: a row's totals are the sums of its vehicles (see `model::totals`).
//!
//! The seed's flow and hourly templates hold one value per modelled vehicle, in this order, so a
//! vehicle added to the catalogue needs a seed that counts it: reading an older seed then fails
//! with the number of values it expected, rather than filling the columns in the wrong order.
//! The same holds for the seed's rows of region traffic by vehicle type, whose vehicles are the
//! catalogue's vehicle columns that table has ([`region_table_vehicles`]).

use roadtraffic_catalog::{REGION_TRAFFIC_BY_VEHICLE_TYPE, TOTALS, VEHICLES};

/// Number of [`MODELLED_VEHICLES`].
pub const NV: usize = modelled_count();

/// The vehicles the model counts, by catalogue name, in catalogue order.
pub const MODELLED_VEHICLES: [&str; NV] = modelled_names();

/// Whether a modelled vehicle (by [`MODELLED_VEHICLES`] position) is a motor vehicle: a part,
/// directly or through another total, of the catalogue's `all_motor_vehicles`.
pub fn motor_vehicles() -> [bool; NV] {
    MODELLED_VEHICLES.map(|vehicle| is_part_of(vehicle, "all_motor_vehicles"))
}

/// The position of a vehicle column in the catalogue's [`VEHICLES`].
pub fn vehicle_column(name: &str) -> Option<usize> {
    VEHICLES.iter().position(|vehicle| vehicle.name == name)
}

/// The vehicle columns of the region traffic by vehicle type table, by [`VEHICLES`] position, in
/// catalogue order: the seed's rows of that table hold their traffic in this order.
pub fn region_table_vehicles() -> Vec<usize> {
    (VEHICLES.iter().enumerate())
        .filter(|(_, vehicle)| {
            REGION_TRAFFIC_BY_VEHICLE_TYPE
                .column(vehicle.name)
                .is_some()
        })
        .map(|(k, _)| k)
        .collect()
}

/// Whether `name` is a part of the total `total`, directly or through a total among its parts.
pub fn is_part_of(name: &str, total: &str) -> bool {
    let Some(total) = TOTALS.iter().find(|t| t.total == total) else {
        return false;
    };
    (total.parts.iter()).any(|part| *part == name || is_part_of(name, part))
}

// Array lengths are constants, so the list is derived at compile time: `str` comparison and
// iterators are not `const`, hence the loops.

const fn modelled_count() -> usize {
    let (mut n, mut i) = (0, 0);
    while i < VEHICLES.len() {
        if !is_total(VEHICLES[i].name) {
            n += 1;
        }
        i += 1;
    }
    n
}

const fn modelled_names() -> [&'static str; NV] {
    let mut names = [""; NV];
    let (mut n, mut i) = (0, 0);
    while i < VEHICLES.len() {
        if !is_total(VEHICLES[i].name) {
            names[n] = VEHICLES[i].name;
            n += 1;
        }
        i += 1;
    }
    names
}

const fn is_total(name: &str) -> bool {
    let mut i = 0;
    while i < TOTALS.len() {
        if same_text(TOTALS[i].total, name) {
            return true;
        }
        i += 1;
    }
    false
}

const fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's templates count these vehicles in this order (its layout, fixed when it was
    /// drawn): the catalogue's list must still give them.
    #[test]
    fn the_catalogue_gives_the_seeds_vehicles() {
        let new_seed = "a vehicle added to the catalogue needs a seed that counts it";
        assert_eq!(NV, 11, "{new_seed}");
        assert_eq!(MODELLED_VEHICLES[0], "pedal_cycles");
        assert_eq!(MODELLED_VEHICLES[NV - 1], "hgvs_6_articulated_axle");
        let motor = motor_vehicles();
        assert!(!motor[0] && motor[1..].iter().all(|m| *m));
        let region_table: Vec<&str> = (region_table_vehicles().into_iter())
            .map(|k| VEHICLES[k].name)
            .collect();
        assert_eq!(region_table.len(), 7, "{new_seed}");
        assert_eq!(region_table[0], "pedal_cycles");
        assert_eq!(region_table[6], "all_motor_vehicles");
    }
}
