//! The dataset catalogue: the one description of every table the mirror holds.
//!
//! Each dataset lists its columns in record (JSON) order with their value type, the CSV header
//! names they are read from, whether they may be filtered on, and the natural key. The loader's
//! header mapping, the schema DDL and indexes, the server's filters, sorts, field lists and JSON
//! writer, and the README's field tables are all driven from here: adding a column is one edit.

/// How a value is typed in SQLite and written in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueType {
    /// 64-bit integer, JSON integer. Published decimals are rounded (or refused, see
    /// [`Dataset::integers_strict`]).
    Integer,
    /// Floating point, JSON number.
    Number,
    /// Text carried verbatim, JSON string.
    Text,
    /// `YYYY-MM-DD` text; a published time part is dropped.
    Date,
}

impl ValueType {
    pub fn sql(self) -> &'static str {
        match self {
            ValueType::Integer => "INTEGER",
            ValueType::Number => "REAL",
            ValueType::Text | ValueType::Date => "TEXT",
        }
    }
}

/// Where a column's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Read from the CSV column whose header is the column name or one of these aliases
    /// (compared case-insensitively).
    Csv(&'static [&'static str]),
    /// Assigned by the loader: 1..N in file order (or equal to count_point_id for count points).
    Id,
    /// Computed by the loader from other tables (e.g. a count point's latest AADF year).
    Derived,
}

/// What a valid value of a column is. The loader checks every cell against its column's
/// domain, the same way in every dataset; a value that fails makes its row unreadable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Domain {
    /// Free text (no NUL byte).
    Text,
    /// Text from a known vocabulary, compared ignoring case. Another value is kept, with a
    /// warning: new codes appear in new releases.
    Code(&'static [&'static str]),
    /// A whole number in plain digits (ids, years, hours), within a range.
    Whole { min: i64, max: i64 },
    /// A count or a total: a whole number, or published decimal or exponent notation
    /// (`918298.653`, `2.28e+08`), rounded, or refused as a fraction where the dataset is
    /// [`Dataset::integers_strict`].
    Count,
    /// A finite decimal (`52.56592`, `.12`, `1.2e+03`; no `NaN`, `inf`, hex or thousands
    /// separators) within a range.
    Decimal { min: f64, max: f64 },
    /// A four-digit year within [`YEARS`].
    Year,
    /// A real calendar date within [`YEARS`].
    Date,
}

/// The years any release can hold: the published series start in 1993.
pub const YEARS: std::ops::RangeInclusive<i64> = 1950..=2100;

/// The largest count or total accepted: GB's yearly vehicle miles are about 3.3e11.
pub const MAX_COUNT: f64 = 1e13;

#[derive(Debug)]
pub struct Column {
    pub name: &'static str,
    pub ty: ValueType,
    pub domain: Domain,
    pub source: Source,
    /// The kind of a file is recognised by the presence of all its required columns.
    pub required: bool,
    /// Must hold a value in every row (natural key columns always must).
    pub filled: bool,
    /// Stored and emitted in records. Columns that are not stored only feed the derived
    /// tables (regions, local authorities): names and ONS codes.
    pub stored: bool,
}

/// `count_method=counted|estimated` is the one filter that is not a column: on AADF it matches
/// estimation_method; raw counts are all manual counts, so `counted` matches every row and
/// `estimated` none.
pub const COUNT_METHOD: &str = "count_method";

#[derive(Debug)]
pub struct Dataset {
    /// SQLite table name (an interface: scripts query it directly).
    pub table: &'static str,
    /// API paths (without the base path) that list this dataset; the first is canonical.
    pub paths: &'static [&'static str],
    /// Human name used in load reports.
    pub title: &'static str,
    /// Columns in record order, in groups shared between datasets; unstored columns come last.
    pub groups: &'static [&'static [Column]],
    /// Column names that identify a row; a repeated key is a duplicate.
    pub natural_key: &'static [&'static str],
    /// Accepted filter names, in the order the public service lists them in its error message.
    /// Each names a stored column (also sortable) or [`COUNT_METHOD`]. Matching is exact;
    /// text columns ignore letter case.
    pub filters: &'static [&'static str],
    /// Filterable columns that stay the same along long stretches of consecutive rows (a raw
    /// count file holds each count point's count days together, an AADF file each year's
    /// rows). Instead of an index each on the big table, they are kept once per run of rows in
    /// a small `<table>_runs` table of id ranges, through which the server filters and sorts
    /// on them. A file in another order only makes more, shorter runs.
    pub run_columns: &'static [&'static str],
    /// Filters left without an index: codes that match a large share of a table small enough
    /// (about a million rows) to scan once per filter set. The server learns such a filter
    /// set's total and checkpoints in one scan, then reads each page from its checkpoint, a
    /// few hundred rows on; an index would cost the load more than it saves any request.
    pub unindexed: &'static [&'static str],
    /// Paginated with the Laravel envelope (else a bare JSON array).
    pub paginated: bool,
    /// An integer column holding a fraction is a bad row (AADF, raw counts) rather than a
    /// published total to round (regional and local authority tables).
    pub integers_strict: bool,
    /// Loaded from CSV files (else derived by the loader).
    pub from_csv: bool,
}

impl Dataset {
    /// Every column, in record order (unstored ones last).
    pub fn columns(&self) -> impl Iterator<Item = &'static Column> + Clone {
        self.groups.iter().flat_map(|g| g.iter())
    }
    pub fn stored_columns(&self) -> impl Iterator<Item = &'static Column> + Clone {
        self.columns().filter(|c| c.stored)
    }
    pub fn column(&self, name: &str) -> Option<&'static Column> {
        self.columns().find(|c| c.name == name)
    }
    /// The stored column a filter name matches, if it is a plain column filter of this dataset.
    pub fn filter_column(&self, name: &str) -> Option<&'static Column> {
        if !self.filters.contains(&name) {
            return None;
        }
        self.column(name).filter(|c| c.stored)
    }
    pub fn is_filterable(&self, column: &str) -> bool {
        self.filter_column(column).is_some()
    }
    /// Columns worth an index: every filterable and sortable column but the id (the rowid)
    /// and the run columns.
    pub fn indexed_columns(&self) -> impl Iterator<Item = &'static Column> + '_ {
        self.filters
            .iter()
            .filter_map(|f| self.filter_column(f))
            .filter(|c| {
                c.source != Source::Id
                    && !self.run_columns.contains(&c.name)
                    && !self.unindexed.contains(&c.name)
            })
    }
    /// The table of runs (see [`Dataset::run_columns`]), if the dataset has one.
    pub fn runs_table(&self) -> Option<String> {
        (!self.run_columns.is_empty()).then(|| format!("{}_runs", self.table))
    }
}

const fn col(name: &'static str, ty: ValueType, domain: Domain) -> Column {
    Column {
        name,
        ty,
        domain,
        source: Source::Csv(&[]),
        required: false,
        filled: false,
        stored: true,
    }
}
const fn id() -> Column {
    Column {
        source: Source::Id,
        ..col(
            "id",
            Integer,
            Domain::Whole {
                min: 1,
                max: i64::MAX,
            },
        )
    }
}
/// An id of a count point, region or local authority.
const fn ident(name: &'static str) -> Column {
    col(
        name,
        Integer,
        Domain::Whole {
            min: 0,
            max: u32::MAX as i64,
        },
    )
}
const fn year() -> Column {
    filled(col("year", Integer, Domain::Year))
}
const fn count(name: &'static str) -> Column {
    col(name, Integer, Domain::Count)
}
const fn text(name: &'static str) -> Column {
    col(name, Text, Domain::Text)
}
const fn code(name: &'static str, vocabulary: &'static [&'static str]) -> Column {
    col(name, Text, Domain::Code(vocabulary))
}
/// A decimal carried verbatim as published (`"53.39597741"`, `"1.10"`).
const fn decimal_text(name: &'static str, min: f64, max: f64) -> Column {
    col(name, Text, Domain::Decimal { min, max })
}
const fn number(name: &'static str, min: f64, max: f64) -> Column {
    col(name, Number, Domain::Decimal { min, max })
}
const fn required(mut c: Column) -> Column {
    c.required = true;
    c
}
const fn filled(mut c: Column) -> Column {
    c.filled = true;
    c
}
const fn aliases(mut c: Column, names: &'static [&'static str]) -> Column {
    c.source = Source::Csv(names);
    c
}
const fn unstored(mut c: Column) -> Column {
    c.stored = false;
    c
}

use ValueType::{Date, Integer, Number, Text};

pub const ROAD_TYPES: &[&str] = &["Major", "Minor"];
/// Current codes, and `M` for minor roads in older files.
pub const ROAD_CATEGORIES: &[&str] = &["TM", "PM", "TA", "PA", "MB", "MCU", "M"];
/// C is both directions combined.
pub const DIRECTIONS: &[&str] = &["N", "S", "E", "W", "C"];
pub const ESTIMATION_METHODS: &[&str] = &["Counted", "Estimated"];

const VEHICLES: &[Column] = &[
    count("pedal_cycles"),
    count("two_wheeled_motor_vehicles"),
    count("cars_and_taxis"),
    count("buses_and_coaches"),
    count("lgvs"),
    count("hgvs_2_rigid_axle"),
    count("hgvs_3_rigid_axle"),
    count("hgvs_4_or_more_rigid_axle"),
    count("hgvs_3_or_4_articulated_axle"),
    count("hgvs_5_articulated_axle"),
    count("hgvs_6_articulated_axle"),
    count("all_hgvs"),
    required(count("all_motor_vehicles")),
];

const LOCATION: &[Column] = &[
    required(ident("region_id")),
    required(ident("local_authority_id")),
    required(text("road_name")),
    code("road_category", ROAD_CATEGORIES),
    required(code("road_type", ROAD_TYPES)),
    text("start_junction_road_name"),
    text("end_junction_road_name"),
    col(
        "easting",
        Integer,
        Domain::Whole {
            min: 0,
            max: 800_000,
        },
    ),
    col(
        "northing",
        Integer,
        Domain::Whole {
            min: 0,
            max: 1_300_000,
        },
    ),
    decimal_text("latitude", -90.0, 90.0),
    decimal_text("longitude", -180.0, 180.0),
    decimal_text("link_length_km", 0.0, 1_000.0),
    decimal_text("link_length_miles", 0.0, 1_000.0),
];

/// Names and ONS codes that feed the regions and local authorities tables.
const AREA_NAMES: &[Column] = &[
    unstored(text("region_name")),
    unstored(aliases(text("region_ons_code"), &["region_code"])),
    unstored(text("local_authority_name")),
    unstored(aliases(
        text("local_authority_code"),
        &["local_authoirty_ons_code", "local_authority_ons_code"],
    )),
];

pub static AADF: Dataset = Dataset {
    table: "aadf",
    paths: &["/average-annual-daily-flow"],
    title: "AADF",
    groups: &[
        &[id(), required(ident("count_point_id")), required(year())],
        LOCATION,
        &[
            required(code("estimation_method", ESTIMATION_METHODS)),
            text("estimation_method_detailed"),
        ],
        VEHICLES,
        AREA_NAMES,
    ],
    filters: &[
        "id",
        "count_point_id",
        "region_id",
        "local_authority_id",
        "year",
        "count_method",
        "road_name",
        "road_category",
        "road_type",
        "estimation_method",
    ],
    run_columns: &["year"],
    unindexed: &[
        "region_id",
        "road_category",
        "road_type",
        "estimation_method",
    ],
    natural_key: &["count_point_id", "year"],
    paginated: true,
    integers_strict: true,
    from_csv: true,
};

pub static AADF_BY_DIRECTION: Dataset = Dataset {
    table: "aadf_by_direction",
    paths: &["/average-annual-daily-flow-by-direction"],
    title: "AADF by direction",
    groups: &[
        &[id(), required(ident("count_point_id")), required(year())],
        LOCATION,
        &[
            required(code("estimation_method", ESTIMATION_METHODS)),
            text("estimation_method_detailed"),
            required(code("direction_of_travel", DIRECTIONS)),
        ],
        VEHICLES,
        AREA_NAMES,
    ],
    filters: &[
        "id",
        "count_point_id",
        "region_id",
        "local_authority_id",
        "year",
        "count_method",
        "road_name",
        "road_category",
        "road_type",
        "estimation_method",
        "direction_of_travel",
    ],
    run_columns: &["year"],
    unindexed: &[
        "region_id",
        "road_category",
        "road_type",
        "estimation_method",
        "direction_of_travel",
    ],
    natural_key: &["count_point_id", "year", "direction_of_travel"],
    paginated: true,
    integers_strict: true,
    from_csv: true,
};

pub static COUNT_POINTS: Dataset = Dataset {
    table: "count_points",
    paths: &["/count-points"],
    title: "count points",
    groups: &[
        &[
            id(),
            required(ident("count_point_id")),
            // Recomputed by the loader from the AADF rows when there are any.
            col("aadf_year", Integer, Domain::Year),
        ],
        LOCATION,
        AREA_NAMES,
    ],
    filters: &[
        "id",
        "count_point_id",
        "region_id",
        "local_authority_id",
        "road_name",
        "road_category",
        "road_type",
        "aadf_year",
    ],
    run_columns: &[],
    unindexed: &[],
    natural_key: &["count_point_id"],
    paginated: true,
    integers_strict: true,
    from_csv: true,
};

pub static RAW_COUNTS: Dataset = Dataset {
    table: "raw_counts",
    paths: &["/raw-counts"],
    title: "raw counts",
    groups: &[
        &[
            id(),
            required(ident("count_point_id")),
            required(code("direction_of_travel", DIRECTIONS)),
            required(year()),
            required(col("count_date", Date, Domain::Date)),
            required(col("hour", Integer, Domain::Whole { min: 0, max: 23 })),
        ],
        LOCATION,
        VEHICLES,
        AREA_NAMES,
    ],
    filters: &[
        "id",
        "count_point_id",
        "region_id",
        "local_authority_id",
        "year",
        "count_method",
        "road_name",
        "road_category",
        "road_type",
        "direction_of_travel",
        "count_date",
        "hour",
    ],
    run_columns: &[
        "count_point_id",
        "region_id",
        "local_authority_id",
        "road_name",
        "road_category",
        "road_type",
        "year",
        "count_date",
    ],
    unindexed: &[],
    natural_key: &[
        "count_point_id",
        "count_date",
        "hour",
        "direction_of_travel",
    ],
    paginated: true,
    integers_strict: true,
    from_csv: true,
};

pub static LOCAL_AUTHORITY_TRAFFIC: Dataset = Dataset {
    table: "local_authority_traffic",
    paths: &["/local-authority-traffic", "/traffic/local-authorities"],
    title: "local authority traffic",
    groups: &[&[
        id(),
        required(year()),
        ident("region_id"),
        required(ident("local_authority_id")),
        aliases(text("local_authority_name"), &["name"]),
        aliases(
            text("ons_code"),
            &["local_authority_code", "local_authority_ons_code"],
        ),
        required(aliases(
            number("link_length_km", 0.0, 1e6),
            &["total_link_length_km"],
        )),
        aliases(
            number("link_length_miles", 0.0, 1e6),
            &["total_link_length_miles"],
        ),
        required(count("cars_and_taxis")),
        required(count("all_motor_vehicles")),
    ]],
    filters: &["id", "local_authority_id", "region_id", "year"],
    run_columns: &[],
    unindexed: &[],
    natural_key: &["local_authority_id", "year"],
    paginated: true,
    integers_strict: false,
    from_csv: true,
};

pub static REGION_TRAFFIC_BY_ROAD_TYPE: Dataset = Dataset {
    table: "region_traffic_by_road_type",
    paths: &["/region-traffic-by-road-type"],
    title: "region traffic by road type",
    groups: &[&[
        id(),
        required(year()),
        required(ident("region_id")),
        // Published as a code in road_category_name, or only as road_category_id 1..6.
        aliases(
            code("road_category", ROAD_CATEGORIES),
            &["road_category_name"],
        ),
        required(aliases(
            number("total_link_length_km", 0.0, 1e7),
            &["link_length_km"],
        )),
        aliases(
            number("total_link_length_miles", 0.0, 1e7),
            &["link_length_miles"],
        ),
        required(count("all_motor_vehicles")),
        required(unstored(col(
            "road_category_id",
            Integer,
            Domain::Whole { min: 1, max: 6 },
        ))),
        unstored(text("region_name")),
        unstored(aliases(text("region_ons_code"), &["ons_code"])),
    ]],
    filters: &["id", "region_id", "year", "road_category"],
    run_columns: &[],
    unindexed: &[],
    natural_key: &["region_id", "year", "road_category"],
    paginated: true,
    integers_strict: false,
    from_csv: true,
};

pub static REGION_TRAFFIC_BY_VEHICLE_TYPE: Dataset = Dataset {
    table: "region_traffic_by_vehicle_type",
    paths: &["/region-traffic-by-vehicle-type"],
    title: "region traffic by vehicle type",
    groups: &[&[
        id(),
        required(year()),
        required(ident("region_id")),
        required(aliases(
            number("total_link_length_km", 0.0, 1e7),
            &["link_length_km"],
        )),
        aliases(
            number("total_link_length_miles", 0.0, 1e7),
            &["link_length_miles"],
        ),
        count("pedal_cycles"),
        count("two_wheeled_motor_vehicles"),
        required(count("cars_and_taxis")),
        count("buses_and_coaches"),
        count("lgvs"),
        count("all_hgvs"),
        required(count("all_motor_vehicles")),
        unstored(aliases(text("region_name"), &[])),
        unstored(aliases(text("region_ons_code"), &["ons_code"])),
    ]],
    filters: &["id", "region_id", "year"],
    run_columns: &[],
    unindexed: &[],
    natural_key: &["region_id", "year"],
    paginated: true,
    integers_strict: false,
    from_csv: true,
};

/// A column the loader computes (derived tables): never read from a CSV cell.
const fn derived(name: &'static str, ty: ValueType) -> Column {
    Column {
        source: Source::Derived,
        ..col(name, ty, Domain::Text)
    }
}

pub static COUNTRIES: Dataset = Dataset {
    table: "countries",
    paths: &["/countries"],
    title: "countries",
    groups: &[&[id(), derived("name", Text), derived("ons_code", Text)]],
    filters: &["id", "name"],
    run_columns: &[],
    unindexed: &[],
    natural_key: &["id"],
    paginated: false,
    integers_strict: true,
    from_csv: false,
};

pub static REGIONS: Dataset = Dataset {
    table: "regions",
    paths: &["/regions"],
    title: "regions",
    groups: &[&[
        id(),
        derived("name", Text),
        derived("ons_code", Text),
        derived("country_id", Integer),
    ]],
    filters: &["id", "name"],
    run_columns: &[],
    unindexed: &[],
    natural_key: &["id"],
    paginated: false,
    integers_strict: true,
    from_csv: false,
};

pub static LOCAL_AUTHORITIES: Dataset = Dataset {
    table: "local_authorities",
    paths: &["/local-authorities"],
    title: "local authorities",
    groups: &[&[
        id(),
        derived("name", Text),
        derived("region_id", Integer),
        derived("ita_id", Integer),
        derived("ons_code", Text),
    ]],
    filters: &["id", "name"],
    run_columns: &[],
    unindexed: &[],
    natural_key: &["id"],
    paginated: false,
    integers_strict: true,
    from_csv: false,
};

/// Every dataset. The order of the CSV kinds matters: a file is given the first kind whose
/// required columns it has, so the more specific kinds come first.
pub static DATASETS: [&Dataset; 10] = [
    &RAW_COUNTS,
    &AADF_BY_DIRECTION,
    &AADF,
    &COUNT_POINTS,
    &LOCAL_AUTHORITY_TRAFFIC,
    &REGION_TRAFFIC_BY_ROAD_TYPE,
    &REGION_TRAFFIC_BY_VEHICLE_TYPE,
    &COUNTRIES,
    &REGIONS,
    &LOCAL_AUTHORITIES,
];

/// Road category codes by the `road_category_id` of the regional road type table.
pub const ROAD_CATEGORY_CODES: [&str; 6] = ["TM", "PM", "TA", "PA", "MB", "MCU"];

/// The schema version written into the metadata table; the server refuses any other.
pub const SCHEMA_VERSION: i64 = 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_field_order_matches_the_fixtures() {
        let names: Vec<_> = COUNT_POINTS.stored_columns().map(|c| c.name).collect();
        assert_eq!(
            names.join(","),
            "id,count_point_id,aadf_year,region_id,local_authority_id,road_name,road_category,\
             road_type,start_junction_road_name,end_junction_road_name,easting,northing,latitude,\
             longitude,link_length_km,link_length_miles"
        );
    }

    #[test]
    fn every_key_column_exists_and_is_stored() {
        for d in DATASETS {
            for k in d.natural_key {
                let c = d.column(k).unwrap_or_else(|| panic!("{}.{k}", d.table));
                assert!(c.stored, "{}.{k}", d.table);
            }
        }
    }

    #[test]
    fn every_filter_is_a_stored_column_or_count_method() {
        for d in DATASETS {
            for f in d.filters {
                assert!(d.is_filterable(f) || *f == COUNT_METHOD, "{}.{f}", d.table);
            }
            for r in d.run_columns.iter().chain(d.unindexed) {
                assert!(d.is_filterable(r), "{}.{r}", d.table);
            }
        }
    }

    #[test]
    fn unstored_columns_come_last() {
        // The loader binds a row's first stored columns; unstored ones only feed derived tables.
        for d in DATASETS {
            let stored: Vec<bool> = d.columns().map(|c| c.stored).collect();
            assert!(stored.windows(2).all(|w| w[0] || !w[1]), "{}", d.table);
        }
    }
}
