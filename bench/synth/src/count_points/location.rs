//! A count point's location columns, encoded once as CSV text: a count point has a hundred rows
//! in the raw counts, each repeating them.

use std::collections::HashMap;

use super::areas::{Ident, La};
use crate::grid;
use crate::model::count_point::{EncodedCell, Location, LocationField, LOCATION_FIELDS};
use crate::text::{needs_quotes, push_i64, push_text, push_u64, Quote};
use crate::units::miles_of_km;

/// The location text of every count point made so far, a count point's cells after another's.
#[derive(Default)]
pub struct LocationEncoder {
    pub text: Vec<u8>,
    /// Count points share grid points now and then (synthetic ones are rounded to 100 m).
    latlon_cache: HashMap<(i64, i64), (f64, f64)>,
}

impl LocationEncoder {
    /// Encode a count point's location values into `text`.
    pub fn encode(&mut self, la: &La, ident: &Ident) -> Location {
        let latlon = *self
            .latlon_cache
            .entry((ident.easting, ident.northing))
            .or_insert_with(|| grid::en_to_latlon(ident.easting as f64, ident.northing as f64));
        let mut location = [EncodedCell::default(); LOCATION_FIELDS];
        let mut value = Vec::new();
        for (i, &(field, _)) in LocationField::ALL.iter().enumerate() {
            if i > 0 {
                self.text.push(b',');
            }
            value.clear();
            push_location_value(&mut value, field, la, ident, latlon);
            let start = self.text.len();
            push_text(&mut self.text, &value, Quote::AsNeeded);
            location[field as usize] = EncodedCell {
                start,
                end: self.text.len(),
                quoted: needs_quotes(&value),
            };
        }
        location
    }
}

/// A location value as text, unquoted: numbers as the national files write them (lat/lon with
/// 8 decimals, link lengths with 2, empty where a minor road has none).
fn push_location_value(
    buf: &mut Vec<u8>,
    field: LocationField,
    la: &La,
    ident: &Ident,
    (lat, lon): (f64, f64),
) {
    let text = |buf: &mut Vec<u8>, s: &str| buf.extend_from_slice(s.as_bytes());
    match field {
        LocationField::RegionId => push_u64(buf, la.region_id.into()),
        LocationField::RegionName => text(buf, la.region_name),
        LocationField::RegionOnsCode => text(buf, la.region_code),
        LocationField::LocalAuthorityId => push_u64(buf, la.id.into()),
        LocationField::LocalAuthorityName => text(buf, la.name),
        LocationField::LocalAuthorityCode => text(buf, la.code),
        LocationField::RoadName => text(buf, &ident.road),
        LocationField::RoadCategory => text(buf, &ident.category),
        LocationField::RoadType => text(buf, if ident.major { "Major" } else { "Minor" }),
        LocationField::StartJunctionRoadName => text(buf, &ident.start_j),
        LocationField::EndJunctionRoadName => text(buf, &ident.end_j),
        LocationField::Easting => push_i64(buf, ident.easting),
        LocationField::Northing => push_i64(buf, ident.northing),
        LocationField::Latitude => text(buf, &format!("{lat:.8}")),
        LocationField::Longitude => text(buf, &format!("{lon:.8}")),
        LocationField::LinkLengthKm => {
            if let Some(km) = ident.km {
                text(buf, &format!("{km:.2}"));
            }
        }
        LocationField::LinkLengthMiles => {
            if let Some(km) = ident.km {
                text(buf, &format!("{:.2}", miles_of_km(km)));
            }
        }
    }
}
