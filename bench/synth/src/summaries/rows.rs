//! A row of the summary tables, which gives each column its value: the row's year, region, LA or
//! road category, link length and traffic, as R wrote them.

use roadtraffic_catalog::VEHICLES;

use super::perturb::{LinkLength, Perturb};
use crate::csv_file::{column_enum, Field, Record};
use crate::seed::{Seed, SeedLa, SeedLaTraffic, SeedRegion, SeedRegionRoad, SeedRegionVehicle};
use crate::text::{push_r, push_some_number, push_some_text, push_u64, Quote};
use crate::vehicles::vehicle_column;

/// A summary row's traffic (vehicle miles) by catalogue vehicle column ([`VEHICLES`] position);
/// None where its table has none.
type SummaryTraffic = [Option<f64>; VEHICLES.len()];

/// A row of one of the summary tables: a real row of the seed, perturbed. What a table's rows do
/// not hold (an LA row's road category) is None, and a column asking for it is written empty.
pub struct SummaryRow<'a> {
    year: u16,
    region_id: u32,
    region: Option<&'a SeedRegion>,
    local_authority: Option<&'a SeedLa>,
    road_category_id: Option<u32>,
    road_category: Option<&'a str>,
    link_length: LinkLength,
    traffic: SummaryTraffic,
}

impl<'a> SummaryRow<'a> {
    /// A row of a region and year, with its link length and no traffic yet.
    fn new(seed: &'a Seed, year: u16, region_id: u32, link_length: LinkLength) -> Self {
        SummaryRow {
            year,
            region_id,
            region: seed.region(region_id),
            local_authority: None,
            road_category_id: None,
            road_category: None,
            link_length,
            traffic: [None; VEHICLES.len()],
        }
    }
}

column_enum! {
    /// A value of a [`SummaryRow`] besides its traffic.
    pub enum SummaryValue {
        Year => "year",
        RegionId => "region_id",
        RegionName => "region_name",
        RegionOnsCode => "region_ons_code",
        LocalAuthorityId => "local_authority_id",
        LocalAuthorityName => "local_authority_name",
        /// The local authority table's name for its authority's code.
        LocalAuthorityOnsCode => "ons_code",
        RoadCategoryId => "road_category_id",
        RoadCategory => "road_category",
        /// The local authority table's link lengths.
        LinkLengthKm => "link_length_km",
        LinkLengthMiles => "link_length_miles",
        /// The regional tables' link lengths.
        TotalLinkLengthKm => "total_link_length_km",
        TotalLinkLengthMiles => "total_link_length_miles",
    }
}

/// A value of a [`SummaryRow`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummaryField {
    Value(SummaryValue),
    /// The traffic of a catalogue vehicle column, by [`VEHICLES`] position.
    Traffic(usize),
}

impl Field for SummaryField {
    fn of_column(name: &str) -> Option<SummaryField> {
        SummaryValue::of_column(name)
            .map(SummaryField::Value)
            .or_else(|| vehicle_column(name).map(SummaryField::Traffic))
    }
}

impl Record for SummaryRow<'_> {
    type Field = SummaryField;

    fn push(&self, field: SummaryField, quote: Quote, buf: &mut Vec<u8>) {
        match field {
            SummaryField::Value(value) => self.push_value(value, quote, buf),
            SummaryField::Traffic(vehicle) => {
                if let Some(x) = self.traffic[vehicle] {
                    push_r(buf, x);
                }
            }
        }
    }
}

impl SummaryRow<'_> {
    fn push_value(&self, value: SummaryValue, quote: Quote, buf: &mut Vec<u8>) {
        let number = |buf: &mut Vec<u8>, n: Option<u32>| push_some_number(buf, n.map(u64::from));
        let text = |buf: &mut Vec<u8>, s: Option<&str>| push_some_text(buf, s, quote);
        let la = self.local_authority;
        match value {
            SummaryValue::Year => push_u64(buf, self.year.into()),
            SummaryValue::RegionId => push_u64(buf, self.region_id.into()),
            SummaryValue::RegionName => text(buf, self.region.map(|r| r.name.as_str())),
            SummaryValue::RegionOnsCode => text(buf, self.region.map(|r| r.ons_code.as_str())),
            SummaryValue::LocalAuthorityId => number(buf, la.map(|la| la.id)),
            SummaryValue::LocalAuthorityName => text(buf, la.map(|la| la.name.as_str())),
            SummaryValue::LocalAuthorityOnsCode => text(buf, la.map(|la| la.ons_code.as_str())),
            SummaryValue::RoadCategoryId => number(buf, self.road_category_id),
            SummaryValue::RoadCategory => text(buf, self.road_category),
            SummaryValue::LinkLengthKm | SummaryValue::TotalLinkLengthKm => {
                push_r(buf, self.link_length.km)
            }
            SummaryValue::LinkLengthMiles | SummaryValue::TotalLinkLengthMiles => {
                push_r(buf, self.link_length.miles)
            }
        }
    }
}

/// An LA's traffic in a year, made synthetic.
pub fn la_traffic_row<'a>(
    seed: &'a Seed,
    prng_seed: u64,
    la: &'a SeedLa,
    row: &SeedLaTraffic,
) -> SummaryRow<'a> {
    let mut p = Perturb::new(prng_seed, 1, row.la_id as u64, row.year as u64);
    let link_length = p.link_length(row.link_length_km);
    let mut traffic = [None; VEHICLES.len()];
    traffic[catalogue_vehicle("cars_and_taxis")] = Some(p.value(row.cars_and_taxis));
    traffic[catalogue_vehicle("all_motor_vehicles")] = Some(p.value(row.all_motor_vehicles));
    SummaryRow {
        local_authority: Some(la),
        traffic,
        ..SummaryRow::new(seed, row.year, la.region_id, link_length)
    }
}

/// A region's traffic by vehicle type in a year, made synthetic.
/// `vehicles` are the table's vehicle columns, in the order of the row's traffic
/// ([`crate::vehicles::region_table_vehicles`]).
pub fn region_vehicle_row<'a>(
    seed: &'a Seed,
    prng_seed: u64,
    row: &SeedRegionVehicle,
    vehicles: &[usize],
) -> SummaryRow<'a> {
    let mut p = Perturb::new(prng_seed, 2, row.region_id as u64, row.year as u64);
    let link_length = p.link_length(row.link_length_km);
    let mut traffic = [None; VEHICLES.len()];
    for (&vehicle, &x) in vehicles.iter().zip(&row.traffic) {
        traffic[vehicle] = Some(p.value(x));
    }
    SummaryRow {
        traffic,
        ..SummaryRow::new(seed, row.year, row.region_id, link_length)
    }
}

/// A region's traffic on a road category in a year, made synthetic.
pub fn region_road_row<'a>(
    seed: &'a Seed,
    prng_seed: u64,
    row: &'a SeedRegionRoad,
) -> SummaryRow<'a> {
    let key = row.region_id as u64 * 16 + row.road_category_id as u64;
    let mut p = Perturb::new(prng_seed, 3, key, row.year as u64);
    let link_length = p.link_length(row.link_length_km);
    let mut traffic = [None; VEHICLES.len()];
    traffic[catalogue_vehicle("all_motor_vehicles")] = Some(p.value(row.all_motor_vehicles));
    SummaryRow {
        road_category_id: Some(row.road_category_id),
        road_category: Some(&row.road_category),
        traffic,
        ..SummaryRow::new(seed, row.year, row.region_id, link_length)
    }
}

/// The [`VEHICLES`] position of a vehicle column the seed's summary rows name.
fn catalogue_vehicle(name: &str) -> usize {
    vehicle_column(name).expect("the seed's summary rows name catalogue vehicle columns")
}

#[cfg(test)]
mod tests {
    use roadtraffic_catalog::{
        LOCAL_AUTHORITY_TRAFFIC, REGION_TRAFFIC_BY_ROAD_TYPE, REGION_TRAFFIC_BY_VEHICLE_TYPE,
    };

    use super::*;
    use crate::csv_file::national_columns;

    #[test]
    fn every_summary_column_of_the_catalogue_has_a_value() {
        for dataset in [
            &LOCAL_AUTHORITY_TRAFFIC,
            &REGION_TRAFFIC_BY_VEHICLE_TYPE,
            &REGION_TRAFFIC_BY_ROAD_TYPE,
        ] {
            for column in national_columns(dataset) {
                assert!(
                    SummaryField::of_column(column.name).is_some(),
                    "{}.{}",
                    dataset.table,
                    column.name
                );
            }
        }
    }
}
