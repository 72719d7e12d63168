//! A count point of the release: where it is (its location columns, encoded once), its road
//! class, the years it has an AADF and how each was made, and its flow level.

use crate::csv_file::column_enum;
use crate::vehicles::NV;

/// How an AADF was made (`estimation_method_detailed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Manual,
    Automatic,
    Dependent,
    PreviousYear,
    Nearby,
}

impl Method {
    /// `Counted` or `Estimated`.
    pub fn estimation_method(self) -> &'static str {
        match self {
            Method::Manual | Method::Automatic | Method::Dependent => "Counted",
            Method::PreviousYear | Method::Nearby => "Estimated",
        }
    }

    pub fn detailed(self) -> &'static str {
        match self {
            Method::Manual => "Manual count",
            Method::Automatic => "Automatic counter",
            Method::Dependent => "Dependent on a neighbouring counted link",
            Method::PreviousYear => "Estimated using previous year's AADF on this link",
            Method::Nearby => "Estimated from nearby links",
        }
    }
}

column_enum! {
    /// The location columns of a count point, which every count point file repeats.
    pub enum LocationField {
        RegionId => "region_id",
        RegionName => "region_name",
        RegionOnsCode => "region_ons_code",
        LocalAuthorityId => "local_authority_id",
        LocalAuthorityName => "local_authority_name",
        LocalAuthorityCode => "local_authority_code",
        RoadName => "road_name",
        RoadCategory => "road_category",
        RoadType => "road_type",
        StartJunctionRoadName => "start_junction_road_name",
        EndJunctionRoadName => "end_junction_road_name",
        Easting => "easting",
        Northing => "northing",
        Latitude => "latitude",
        Longitude => "longitude",
        LinkLengthKm => "link_length_km",
        LinkLengthMiles => "link_length_miles",
    }
}

/// Number of [`LocationField`]s.
pub const LOCATION_FIELDS: usize = LocationField::ALL.len();

/// A location value of a count point as a CSV field (quoted if it needs it) in
/// `Model::location_text`. A count point's values follow each other there a comma apart, in
/// [`LocationField`] order, so that a run of them is one slice.
#[derive(Debug, Clone, Copy, Default)]
pub struct EncodedCell {
    pub start: usize,
    pub end: usize,
    pub quoted: bool,
}

/// A count point's location values, by [`LocationField`]. Encoded once per count point rather
/// than once per row: a count point has a hundred rows in the raw counts.
pub type Location = [EncodedCell; LOCATION_FIELDS];

/// A count point of the release, with what its rows are drawn from.
pub struct CountPoint {
    pub id: u32,
    pub location: Location,
    /// Its road class (see [`crate::road_class`]).
    pub class: usize,
    pub first_year: u16,
    /// The estimation method of each year from `first_year` on (no AADF after the last).
    pub methods: Vec<Method>,
    /// Directions of travel: two opposite ones, or `C` (both combined) alone.
    pub directions: &'static [&'static str],
    pub dir_share: f64,
    /// Its flow of each modelled vehicle in 2019, before the year's noise.
    pub base: [f64; NV],
    /// Its own trend, on top of the national one (log-linear per year from 2019).
    pub slope: f64,
}

impl CountPoint {
    /// How its AADF of `year` was made, if it has one.
    pub fn method(&self, year: u16) -> Option<Method> {
        year.checked_sub(self.first_year)
            .and_then(|i| self.methods.get(i as usize).copied())
    }

    /// Its latest AADF year.
    pub fn last_year(&self) -> u16 {
        self.first_year + self.methods.len().saturating_sub(1) as u16
    }
}

/// Hourly shape of one template: fraction of each vehicle's 12-hour count in each hour.
pub type Shape = [[f64; NV]; 12];
