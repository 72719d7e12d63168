//! Numbers, units, vehicle groups and road categories as people read them.

/// A whole number with thousands separators: `1234567` is `1,234,567`.
pub fn whole(n: f64) -> String {
    let rounded = n.round();
    let digits = format!("{:.0}", rounded.abs());
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if rounded < 0.0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A number written out in full, with thousands separators in its whole part and its decimals
/// as given: `-1234.567` is `-1,234.567`. Exact for any integer (no float in between).
pub fn grouped(text: &str) -> String {
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text),
    };
    let (whole, decimals) = match digits.split_once('.') {
        Some((w, d)) => (w, Some(d)),
        None => (digits, None),
    };
    let mut out = String::from(sign);
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(d) = decimals {
        out.push('.');
        out.push_str(d);
    }
    out
}

/// A float to `places` decimals at most, trailing zeros dropped, grouped: `12345.600000001`
/// is `12,345.6` (a sum of decimals carries the float's noise).
pub fn decimal(n: f64, places: usize) -> String {
    let text = format!("{n:.places$}");
    let text = match text.contains('.') {
        true => text.trim_end_matches('0').trim_end_matches('.'),
        false => &text,
    };
    grouped(if text == "-0" { "0" } else { text })
}

/// An optional count: blank when missing.
pub fn count(n: Option<f64>) -> String {
    n.map(whole).unwrap_or_default()
}

/// Vehicle miles in words: `1.70 billion`, `245.3 million`.
pub fn miles(n: f64) -> String {
    if n.abs() >= 1e9 {
        format!("{:.2} billion", n / 1e9)
    } else if n.abs() >= 1e6 {
        format!("{:.1} million", n / 1e6)
    } else {
        whole(n)
    }
}

/// A distance as people say it: metres under a kilometre (to the ten metres from 100 m, as
/// a grid reference is rarely closer), else kilometres to one decimal: `8 m`, `850 m`, `3.2 km`.
pub fn distance(metres: f64) -> String {
    let tens = (metres / 10.0).round() * 10.0;
    if metres < 100.0 {
        format!("{:.0} m", metres.round())
    } else if tens < 1000.0 {
        format!("{tens:.0} m")
    } else {
        format!("{:.1} km", metres / 1000.0)
    }
}

/// The change from `before` to `now`, as a signed percentage.
pub fn change(now: f64, before: f64) -> Option<String> {
    (before != 0.0).then(|| {
        let pct = (now - before) / before * 100.0;
        format!("{}{:.1}%", if pct > 0.0 { "+" } else { "" }, pct)
    })
}

/// What a vehicle column of the catalogue counts, as the public site names it.
pub fn vehicle(column: &str) -> &str {
    match column {
        "pedal_cycles" => "Pedal cycles",
        "two_wheeled_motor_vehicles" => "Two-wheeled motor vehicles",
        "cars_and_taxis" => "Cars and taxis",
        "buses_and_coaches" => "Buses and coaches",
        "lgvs" => "Light goods vehicles",
        "all_hgvs" => "Heavy goods vehicles",
        "all_motor_vehicles" => "All motor vehicles",
        other => other,
    }
}

/// A column of the catalogue as people name it: `Road category`, `Cars and taxis`,
/// `HGVs with 3 rigid axles`; any other as its words (`aadf_year` would be `Aadf year`).
pub fn column(name: &str) -> String {
    let known = match name {
        "count_point_id" => "Count point",
        "region_id" => "Region",
        "local_authority_id" => "Local authority",
        "road_name" => "Road",
        "aadf_year" => "Latest AADF year",
        "link_length_km" => "Link length (km)",
        "link_length_miles" => "Link length (miles)",
        "total_link_length_km" => "Total link length (km)",
        "total_link_length_miles" => "Total link length (miles)",
        "hgvs_2_rigid_axle" => "HGVs with 2 rigid axles",
        "hgvs_3_rigid_axle" => "HGVs with 3 rigid axles",
        "hgvs_4_or_more_rigid_axle" => "HGVs with 4 or more rigid axles",
        "hgvs_3_or_4_articulated_axle" => "HGVs with 3 or 4 articulated axles",
        "hgvs_5_articulated_axle" => "HGVs with 5 articulated axles",
        "hgvs_6_articulated_axle" => "HGVs with 6 articulated axles",
        "id" => "Record id",
        other => match vehicle(other) {
            named if named != other => named,
            _ => return sentence(&other.replace('_', " ")),
        },
    };
    known.to_string()
}

/// Text with its first letter a capital.
pub fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A name inside a sentence: its first letter small unless the word is an abbreviation
/// (`Cars and taxis` is `cars and taxis`, `HGVs...` stays).
pub fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(a), Some(b)) if a.is_uppercase() && b.is_lowercase() => a
            .to_lowercase()
            .chain(text[a.len_utf8()..].chars())
            .collect(),
        _ => text.to_string(),
    }
}

/// The vehicle groups of the public count point page, in its order: the catalogue's vehicle
/// columns, with heavy goods vehicles as one group (their axle types are the parts of the
/// `all_hgvs` total).
pub fn aadf_groups() -> &'static [&'static str] {
    static GROUPS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    GROUPS.get_or_init(|| {
        let hgv_types = roadtraffic_catalog::TOTALS
            .iter()
            .find(|t| t.total == "all_hgvs")
            .map_or(&[][..], |t| t.parts);
        roadtraffic_catalog::VEHICLES
            .iter()
            .map(|c| c.name)
            .filter(|name| !hgv_types.contains(name))
            .collect()
    })
}

/// A road category code read out: its classification, who manages it, and a short name.
pub struct RoadCategory {
    pub classification: &'static str,
    pub managed_by: &'static str,
    pub short: &'static str,
}

/// The road categories of the catalogue (`ROAD_CATEGORIES`), as the public site reads them.
pub fn road_category(code: &str) -> Option<RoadCategory> {
    let (classification, managed_by, short) = match code {
        "TM" => (
            "Motorway",
            "National Highways (Transport Scotland or the Welsh Government outside England)",
            "Trunk motorway",
        ),
        "PM" => ("Motorway", "Local authority", "Principal motorway"),
        "TA" => (
            "'A' road",
            "National Highways (Transport Scotland or the Welsh Government outside England)",
            "Trunk 'A' road",
        ),
        "PA" => ("'A' road", "Local authority", "Principal 'A' road"),
        "MB" => ("B road", "Local authority", "B road"),
        "MCU" => (
            "C or unclassified road",
            "Local authority",
            "C or unclassified road",
        ),
        "M" => ("Minor road", "Local authority", "Minor road"),
        _ => return None,
    };
    Some(RoadCategory {
        classification,
        managed_by,
        short,
    })
}

/// A road category's short name, or its code when unknown.
pub fn category_name(code: &str) -> String {
    road_category(code).map_or_else(|| code.to_string(), |c| c.short.to_string())
}

/// A count point's road category in words, else its road type (files split by area have no
/// road category): `Trunk 'A' road`, `Major road`.
pub fn category_or_type(category: Option<&str>, road_type: Option<&str>) -> String {
    match (category.filter(|c| !c.is_empty()), road_type) {
        (Some(c), _) => category_name(c),
        (None, Some(t)) if !t.is_empty() => format!("{t} road"),
        _ => String::new(),
    }
}

/// An hour of a raw count, as its span: 7 is `07:00–08:00`.
pub fn hour(h: i64) -> String {
    format!("{h:02}:00–{:02}:00", (h + 1) % 24)
}

/// A count date (`2023-10-23`) in words: `Monday 23 October 2023`.
pub fn date(text: &str) -> String {
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    const DAYS: [&str; 7] = [
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
    ];
    let parts: Vec<i64> = text
        .get(..10)
        .unwrap_or(text)
        .split('-')
        .filter_map(|p| p.parse().ok())
        .collect();
    match parts[..] {
        [y, m @ 1..=12, d @ 1..=31] => {
            let days = roadtraffic_catalog::dates::days_from_civil(y, m, d);
            let weekday = DAYS[days.rem_euclid(7) as usize];
            format!("{weekday} {d} {} {y}", MONTHS[m as usize - 1])
        }
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use roadtraffic_catalog::{Domain, AADF, REGION_TRAFFIC_BY_VEHICLE_TYPE, ROAD_CATEGORIES};

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(whole(0.0), "0");
        assert_eq!(whole(999.0), "999");
        assert_eq!(whole(1000.0), "1,000");
        assert_eq!(whole(-1234567.4), "-1,234,567");
        assert_eq!(miles(1.7e9), "1.70 billion");
        assert_eq!(miles(245.34e6), "245.3 million");
        assert_eq!(change(110.0, 100.0).as_deref(), Some("+10.0%"));
        assert_eq!(change(90.0, 100.0).as_deref(), Some("-10.0%"));
        assert_eq!(change(90.0, 0.0), None);
        assert_eq!(distance(0.0), "0 m");
        assert_eq!(distance(7.6), "8 m");
        assert_eq!(distance(99.4), "99 m");
        assert_eq!(distance(848.5), "850 m");
        assert_eq!(distance(994.9), "990 m");
        assert_eq!(distance(995.0), "1.0 km");
        assert_eq!(distance(3_249.0), "3.2 km");
        assert_eq!(distance(10_000.0), "10.0 km");
        assert_eq!(hour(7), "07:00–08:00");
        assert_eq!(date("2023-10-23"), "Monday 23 October 2023");
        assert_eq!(date("1970-01-01 00:00:00"), "Thursday 1 January 1970");
        assert_eq!(date("soon"), "soon");
        assert_eq!(grouped("-1234567.25"), "-1,234,567.25");
        assert_eq!(grouped("9007199254740993"), "9,007,199,254,740,993");
        assert_eq!(grouped("999"), "999");
        assert_eq!(decimal(12_345.600_000_001, 3), "12,345.6");
        assert_eq!(decimal(2.0, 3), "2");
        assert_eq!(decimal(-0.0001, 3), "0");
    }

    #[test]
    fn columns_read_as_words() {
        assert_eq!(column("road_category"), "Road category");
        assert_eq!(column("cars_and_taxis"), "Cars and taxis");
        assert_eq!(column("hgvs_3_rigid_axle"), "HGVs with 3 rigid axles");
        assert_eq!(lower_first("Cars and taxis"), "cars and taxis");
        assert_eq!(
            lower_first("HGVs with 3 rigid axles"),
            "HGVs with 3 rigid axles"
        );
        assert_eq!(lower_first("AADF"), "AADF");
    }

    #[test]
    fn every_road_category_of_the_catalogue_is_read_out() {
        for code in ROAD_CATEGORIES {
            assert!(road_category(code).is_some(), "{code}");
        }
    }

    #[test]
    fn every_vehicle_group_shown_is_a_column_with_a_name() {
        assert_eq!(aadf_groups().len(), 7, "{:?}", aadf_groups());
        for c in aadf_groups() {
            assert!(AADF.column(c).is_some(), "{c}");
            assert_ne!(vehicle(c), *c);
        }
        for c in REGION_TRAFFIC_BY_VEHICLE_TYPE.stored_columns() {
            if c.domain == Domain::Count {
                assert_ne!(vehicle(c.name), c.name);
            }
        }
    }
}
