//! What each column means, in a sentence, for the API's description and the docs page. Counts
//! are in their dataset's unit (`Dataset::count_unit`).

/// The meaning of a column, by name (a name means the same in every dataset).
pub fn meaning(column: &str) -> Option<&'static str> {
    Some(match column {
        "id" => "The record's id: its position in the loaded files (count points: the count point id).",
        "name" => "The area's name.",
        "ons_code" => "The area's ONS (GSS) code, e.g. E12000008.",
        "country_id" => "The id of the region's country (England 1, Scotland 2, Wales 3).",
        "ita_id" => "The id of the local authority's integrated transport authority; no published file gives it, so it is always null.",
        "count_point_id" => "The count point: the place on a road link where traffic is counted or estimated.",
        "year" => "The year of the figures.",
        "aadf_year" => "The latest year for which the count point has an AADF.",
        "region_id" => "The region (see /regions).",
        "local_authority_id" => "The local authority (see /local-authorities).",
        "local_authority_name" => "The local authority's name.",
        "road_name" => "The road: its number (M6, A38, B1040) or, for minor roads, C or U.",
        "road_category" => "The road's category: TM trunk motorway, PM principal motorway, TA trunk A road, PA principal A road, MB B road, MCU C or unclassified road (older files: M minor).",
        "road_type" => "Major (motorways and A roads) or Minor.",
        "start_junction_road_name" => "The road or place where the link starts (major roads).",
        "end_junction_road_name" => "The road or place where the link ends (major roads).",
        "easting" => "Ordnance Survey easting of the count point, in metres.",
        "northing" => "Ordnance Survey northing of the count point, in metres.",
        "latitude" => "Latitude of the count point (WGS 84), as published.",
        "longitude" => "Longitude of the count point (WGS 84), as published.",
        "link_length_km" => "Length of the road link, in kilometres (local authority traffic: of all its roads).",
        "link_length_miles" => "Length of the road link, in miles (local authority traffic: of all its roads).",
        "total_link_length_km" => "Total length of the roads counted, in kilometres.",
        "total_link_length_miles" => "Total length of the roads counted, in miles.",
        "estimation_method" => "Counted (from a count on this link this year) or Estimated.",
        "estimation_method_detailed" => "How the figure was made: Manual count, Automatic counter, Estimated using previous year's AADF on this link, Estimated from nearby links, Dependent on a neighbouring counted link.",
        "direction_of_travel" => "Direction of travel: N, S, E, W, or C for both combined.",
        "count_date" => "The day of the count (YYYY-MM-DD).",
        "hour" => "The hour the count began: 7 is 07:00 to 08:00, 18 is 18:00 to 19:00.",
        "pedal_cycles" => "Pedal cycles.",
        "two_wheeled_motor_vehicles" => "Two-wheeled motor vehicles: motorcycles, scooters, mopeds.",
        "cars_and_taxis" => "Cars and taxis, including passenger vehicles with up to 9 seats and cars towing caravans or trailers.",
        "buses_and_coaches" => "Buses and coaches.",
        "lgvs" => "Light goods vehicles: goods vehicles up to 3.5 tonnes gross weight.",
        "hgvs_2_rigid_axle" => "Heavy goods vehicles, rigid, 2 axles.",
        "hgvs_3_rigid_axle" => "Heavy goods vehicles, rigid, 3 axles.",
        "hgvs_4_or_more_rigid_axle" => "Heavy goods vehicles, rigid, 4 or more axles.",
        "hgvs_3_or_4_articulated_axle" => "Heavy goods vehicles, articulated, 3 or 4 axles.",
        "hgvs_5_articulated_axle" => "Heavy goods vehicles, articulated, 5 axles.",
        "hgvs_6_articulated_axle" => "Heavy goods vehicles, articulated, 6 or more axles.",
        "all_hgvs" => "All heavy goods vehicles (the sum of the HGV classes, rounded on its own).",
        "all_motor_vehicles" => "All motor vehicles (two-wheeled motor vehicles, cars and taxis, buses and coaches, LGVs and HGVs; pedal cycles are not motor vehicles).",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stored_column_has_a_meaning() {
        for d in crate::DATASETS {
            for c in d.stored_columns() {
                assert!(meaning(c.name).is_some(), "{}.{}", d.table, c.name);
            }
        }
    }
}
