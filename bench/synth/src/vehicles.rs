//! The vehicles the model counts.

/// The vehicles the model counts, by catalogue name: those of the seed's templates, in the seed's
/// order. A vehicle column of the catalogue that is not one of them is written empty, and adds
/// nothing to a total it is a part of.
pub const MODELLED_VEHICLES: [&str; NV] = [
    "pedal_cycles",
    "two_wheeled_motor_vehicles",
    "cars_and_taxis",
    "buses_and_coaches",
    "lgvs",
    "hgvs_2_rigid_axle",
    "hgvs_3_rigid_axle",
    "hgvs_4_or_more_rigid_axle",
    "hgvs_3_or_4_articulated_axle",
    "hgvs_5_articulated_axle",
    "hgvs_6_articulated_axle",
];
/// Number of [`MODELLED_VEHICLES`].
pub const NV: usize = 11;
