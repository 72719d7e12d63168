//! Every dataset the mirror holds, declared once: its columns in record (JSON) order with their
//! types, domains and CSV aliases; its key, ids, filters and sorts; its national file's layout;
//! how it is completed or derived. The loader's header mapping and checks, the schema, the
//! server's filters, sorts, fields and JSON, the exports and the synthetic generator all read
//! these declarations. Adding a vehicle column is one line in [`VEHICLES`] (and one in its
//! [`TOTALS`] entry, if it is a part of a total).

use crate::dataset::*;
use crate::Rollup;

const fn col(name: &'static str, ty: ValueType, domain: Domain) -> Column {
    Column {
        name,
        ty,
        domain,
        source: Source::Csv(&[]),
        published: name,
        required: false,
        filled: false,
        stored: true,
        area: None,
        fill: None,
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
/// The header DfT's national file gives the column, where it is not its name.
const fn headed(mut c: Column, header: &'static str) -> Column {
    c.published = header;
    c
}
const fn area(mut c: Column, field: AreaField) -> Column {
    c.area = Some(field);
    c
}
const fn fill(mut c: Column, with: Fill) -> Column {
    c.fill = Some(with);
    c
}
/// A column the loader computes for a derived table: never read from a CSV cell.
const fn derived(name: &'static str, ty: ValueType) -> Column {
    Column {
        source: Source::Derived,
        ..col(name, ty, Domain::Text)
    }
}

use ValueType::{Date, Integer, Number, Text};

pub const ROAD_TYPES: &[&str] = &["Major", "Minor"];
/// Current codes, and `M` for minor roads in older files.
pub const ROAD_CATEGORIES: &[&str] = &["TM", "PM", "TA", "PA", "MB", "MCU", "M"];
/// Road category codes by the `road_category_id` (1..6) of the regional road type table.
pub const ROAD_CATEGORY_CODES: &[&str] = &["TM", "PM", "TA", "PA", "MB", "MCU"];
/// C is both directions combined.
pub const DIRECTIONS: &[&str] = &["N", "S", "E", "W", "C"];
pub const ESTIMATION_METHODS: &[&str] = &["Counted", "Estimated"];

/// The vehicle groups of AADF and raw counts, in record order.
pub const VEHICLES: &[Column] = &[
    count("pedal_cycles"),
    count("two_wheeled_motor_vehicles"),
    count("cars_and_taxis"),
    count("buses_and_coaches"),
    headed(count("lgvs"), "LGVs"),
    headed(count("hgvs_2_rigid_axle"), "HGVs_2_rigid_axle"),
    headed(count("hgvs_3_rigid_axle"), "HGVs_3_rigid_axle"),
    headed(
        count("hgvs_4_or_more_rigid_axle"),
        "HGVs_4_or_more_rigid_axle",
    ),
    headed(
        count("hgvs_3_or_4_articulated_axle"),
        "HGVs_3_or_4_articulated_axle",
    ),
    headed(count("hgvs_5_articulated_axle"), "HGVs_5_articulated_axle"),
    headed(count("hgvs_6_articulated_axle"), "HGVs_6_articulated_axle"),
    headed(count("all_hgvs"), "all_HGVs"),
    required(count("all_motor_vehicles")),
];

/// Totals and their parts, wherever a dataset has them all.
pub static TOTALS: &[Total] = &[
    Total {
        total: "all_hgvs",
        parts: &[
            "hgvs_2_rigid_axle",
            "hgvs_3_rigid_axle",
            "hgvs_4_or_more_rigid_axle",
            "hgvs_3_or_4_articulated_axle",
            "hgvs_5_articulated_axle",
            "hgvs_6_articulated_axle",
        ],
    },
    Total {
        total: "all_motor_vehicles",
        parts: &[
            "two_wheeled_motor_vehicles",
            "cars_and_taxis",
            "buses_and_coaches",
            "lgvs",
            "all_hgvs",
        ],
    },
];

impl Dataset {
    /// The totals whose total and parts are all columns of this dataset (beside [`TOTALS`], so
    /// that the types of `dataset.rs` read none of the catalogue's data).
    pub fn totals(&self) -> impl Iterator<Item = &'static Total> + '_ {
        TOTALS.iter().filter(|t| {
            self.column(t.total).is_some() && t.parts.iter().all(|p| self.column(p).is_some())
        })
    }
}

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
    unstored(area(text("region_name"), AreaField::RegionName)),
    unstored(area(
        aliases(text("region_ons_code"), &["region_code"]),
        AreaField::RegionCode,
    )),
    unstored(area(
        text("local_authority_name"),
        AreaField::LocalAuthorityName,
    )),
    unstored(area(
        aliases(
            text("local_authority_code"),
            &["local_authoirty_ons_code", "local_authority_ons_code"],
        ),
        AreaField::LocalAuthorityCode,
    )),
];

/// What the split files of the big datasets leave out: ONS codes and the road category.
const NOT_IN_SPLITS: &[&str] = &["region_ons_code", "local_authority_code", "road_category"];

/// The location columns of the national files, names beside their ids.
const NATIONAL_LOCATION: &[Layout] = &[
    Layout::Columns(&[
        "region_id",
        "region_name",
        "region_ons_code",
        "local_authority_id",
        "local_authority_name",
        "local_authority_code",
        "road_name",
        "road_category",
        "road_type",
    ]),
    Layout::Columns(&PLACE),
];

/// Where a count point is, besides its area and road: the location columns that are not
/// filters.
const PLACE: [&str; 8] = [
    "start_junction_road_name",
    "end_junction_road_name",
    "easting",
    "northing",
    "latitude",
    "longitude",
    "link_length_km",
    "link_length_miles",
];

/// `a` then `b`, in a constant (the catalogue's lists are static).
const fn concat<const A: usize, const B: usize, const N: usize>(
    a: [&'static str; A],
    b: [&'static str; B],
) -> [&'static str; N] {
    assert!(A + B == N);
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < A { a[i] } else { b[i - A] };
        i += 1;
    }
    out
}

/// A raw count's run columns, in record order: every field but the id, the direction, the
/// hour and the counts, so that those are all a record reads from its own row.
const RAW_COUNT_RUNS: [&str; 16] = concat(
    [
        "count_point_id",
        "year",
        "count_date",
        "region_id",
        "local_authority_id",
        "road_name",
        "road_category",
        "road_type",
    ],
    PLACE,
);

const AADF_FILTERS: &[&str] = &[
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
];

/// The areas and roads a question is asked by: what the totals of the count data are kept by
/// (`Dataset::rollups`), with each dataset's own columns after them. Each dataset keeps them
/// by local authority, and by region alone: a national question reads the smaller.
const AREA_AND_ROAD: [&str; 4] = [
    "region_id",
    "local_authority_id",
    "road_category",
    "road_type",
];
const REGION_AND_ROAD: [&str; 3] = ["region_id", "road_category", "road_type"];

/// A count data table's totals by year, area and road, then its own columns.
const fn by_area<const N: usize, const M: usize, const T: usize>(
    own: [&'static str; N],
) -> [&'static str; T] {
    concat::<1, M, T>(["year"], concat::<4, N, M>(AREA_AND_ROAD, own))
}
const fn by_region<const N: usize, const M: usize, const T: usize>(
    own: [&'static str; N],
) -> [&'static str; T] {
    concat::<1, M, T>(["year"], concat::<3, N, M>(REGION_AND_ROAD, own))
}

const AADF_ROLLUPS: &[Rollup] = &[
    Rollup {
        name: "by_area",
        by: &by_area::<1, 5, 6>(["estimation_method"]),
    },
    Rollup {
        name: "by_region",
        by: &by_region::<1, 4, 5>(["estimation_method"]),
    },
];

/// By local authority too: a local authority's rows of AADF by direction are tens of thousands
/// (29,216 for the busiest at full size), scattered through the table, and its summary by year
/// read them in 81 ms (20 ms asked); the table by local authority is the largest of the AADF
/// totals (about 171,000 groups at full size).
const AADF_BY_DIRECTION_ROLLUPS: &[Rollup] = &[
    Rollup {
        name: "by_area",
        by: &by_area::<2, 6, 7>(["estimation_method", "direction_of_travel"]),
    },
    Rollup {
        name: "by_region",
        by: &by_region::<2, 5, 6>(["estimation_method", "direction_of_travel"]),
    },
];

const COUNT_POINTS_ROLLUPS: &[Rollup] = &[Rollup {
    name: "by_area",
    by: &concat::<4, 1, 5>(AREA_AND_ROAD, ["aadf_year"]),
}];

/// Raw counts also by hour, by region and road; and a local authority's by year and hour
/// alone (its hours read from its rows took 21.5 ms at full size, 20 ms asked; kept with its
/// roads and directions too, they would be the largest table of all).
const RAW_COUNTS_ROLLUPS: &[Rollup] = &[
    Rollup {
        name: "by_area",
        by: &by_area::<1, 5, 6>(["direction_of_travel"]),
    },
    Rollup {
        name: "by_region",
        by: &by_region::<1, 4, 5>(["direction_of_travel"]),
    },
    Rollup {
        name: "by_hour",
        by: &by_region::<2, 5, 6>(["direction_of_travel", "hour"]),
    },
    Rollup {
        name: "by_authority_hour",
        by: &["year", "region_id", "local_authority_id", "hour"],
    },
];

/// The split files of a table of count points' figures (the AADF tables): one per local
/// authority, region and count point, in id order.
const fn count_point_splits(folder: &'static str, stem: &'static str) -> Splits {
    Splits {
        folder,
        stem,
        by: &["local_authority_id", "region_id", "count_point_id"],
        omits: NOT_IN_SPLITS,
        ids_descending: false,
    }
}

pub static AADF: Dataset = Dataset {
    table: "aadf",
    paths: &["/average-annual-daily-flow"],
    title: "AADF",
    about: "The average annual daily flow at a count point in a year: the number of vehicles that pass it on an average day, by vehicle type, with how the figure was made (counted or estimated).",
    count_unit: Some("vehicles on an average day of the year (both directions)"),
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
    natural_key: &["count_point_id", "year"],
    ids: Ids::FileOrder,
    filters: AADF_FILTERS,
    count_method: Some(CountMethod::Column("estimation_method")),
    run_columns: &["year"],
    own_values: false,
    unindexed: &[
        "region_id",
        "road_category",
        "road_type",
        "estimation_method",
    ],
    paginated: true,
    rollups: AADF_ROLLUPS,
    integers_strict: true,
    origin: Origin::Published(NationalFile {
        name: "dft_traffic_counts_aadf.csv",
        aliases: &[],
        layout: &[
            Layout::Columns(&["count_point_id", "year"]),
            Layout::Nested(NATIONAL_LOCATION),
            Layout::Columns(&["estimation_method", "estimation_method_detailed"]),
            Layout::Group(VEHICLES),
        ],
        quote_all_text: false,
        splits: Some(count_point_splits("aadf", "dft_aadf")),
    }),
    completion: None,
};

pub static AADF_BY_DIRECTION: Dataset = Dataset {
    table: "aadf_by_direction",
    paths: &["/average-annual-daily-flow-by-direction"],
    title: "AADF by direction",
    about: "The average annual daily flow at a count point in a year, in one direction of travel.",
    count_unit: Some("vehicles on an average day of the year, in the one direction"),
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
    natural_key: &["count_point_id", "year", "direction_of_travel"],
    ids: Ids::FileOrder,
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
    count_method: Some(CountMethod::Column("estimation_method")),
    run_columns: &["year"],
    own_values: false,
    unindexed: &[
        "region_id",
        "road_category",
        "road_type",
        "estimation_method",
        "direction_of_travel",
    ],
    paginated: true,
    rollups: AADF_BY_DIRECTION_ROLLUPS,
    integers_strict: true,
    origin: Origin::Published(NationalFile {
        name: "dft_traffic_counts_aadf_by_direction.csv",
        aliases: &[],
        layout: &[
            Layout::Columns(&["count_point_id", "year"]),
            Layout::Nested(NATIONAL_LOCATION),
            Layout::Columns(&[
                "estimation_method",
                "estimation_method_detailed",
                "direction_of_travel",
            ]),
            Layout::Group(VEHICLES),
        ],
        quote_all_text: false,
        splits: Some(count_point_splits("aadfbydirection", "dft_aadfbydirection")),
    }),
    completion: None,
};

pub static COUNT_POINTS: Dataset = Dataset {
    table: "count_points",
    paths: &["/count-points"],
    title: "count points",
    about: "A count point: the place on a road link where traffic is counted or estimated, with its road, area, coordinates and the latest year it has an AADF.",
    count_unit: None,
    groups: &[
        &[
            id(),
            required(ident("count_point_id")),
            col("aadf_year", Integer, Domain::Year),
        ],
        LOCATION,
        AREA_NAMES,
    ],
    natural_key: &["count_point_id"],
    ids: Ids::Column("count_point_id"),
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
    count_method: None,
    run_columns: &[],
    own_values: false,
    unindexed: &[],
    paginated: true,
    rollups: COUNT_POINTS_ROLLUPS,
    integers_strict: true,
    origin: Origin::Published(NationalFile {
        name: "count_points.csv",
        aliases: &["dft_count_points.csv"],
        layout: &[
            Layout::Columns(&["count_point_id", "aadf_year"]),
            Layout::Nested(NATIONAL_LOCATION),
        ],
        quote_all_text: false,
        splits: Some(Splits {
            folder: "countpoints",
            stem: "dft_countpoints",
            by: &["local_authority_id", "region_id"],
            omits: &["aadf_year", "region_ons_code", "local_authority_code", "road_category"],
            // Seen in DfT's count points of region 6: highest count point id first.
            ids_descending: true,
        }),
    }),
    completion: Some(Completion::LatestOf {
        source: &AADF,
        key: "count_point_id",
        latest_year: "aadf_year",
    }),
};

pub static RAW_COUNTS: Dataset = Dataset {
    table: "raw_counts",
    paths: &["/raw-counts"],
    title: "raw counts",
    about: "One hour of a manual count at a count point, in one direction, by vehicle type: the raw data behind the AADF (counts are made on weekdays between March and October, from 7:00 to 19:00).",
    count_unit: Some("vehicles counted in the hour, in the one direction"),
    groups: &[
        &[
            id(),
            required(ident("count_point_id")),
            required(code("direction_of_travel", DIRECTIONS)),
            required(year()),
            required(col("count_date", Date, Domain::Date)),
            required(col("hour", Integer, Domain::Hour)),
        ],
        LOCATION,
        VEHICLES,
        AREA_NAMES,
    ],
    natural_key: &[
        "count_point_id",
        "count_date",
        "hour",
        "direction_of_travel",
    ],
    ids: Ids::FileOrder,
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
    count_method: Some(CountMethod::AllCounted),
    run_columns: &RAW_COUNT_RUNS,
    own_values: true,
    unindexed: &[],
    paginated: true,
    rollups: RAW_COUNTS_ROLLUPS,
    integers_strict: true,
    origin: Origin::Published(NationalFile {
        name: "dft_traffic_counts_raw_counts.csv",
        aliases: &[],
        layout: &[
            Layout::Columns(&[
                "count_point_id",
                "direction_of_travel",
                "year",
                "count_date",
                "hour",
            ]),
            Layout::Nested(NATIONAL_LOCATION),
            Layout::Group(VEHICLES),
        ],
        quote_all_text: false,
        splits: Some(Splits {
            folder: "rawcount",
            stem: "dft_rawcount",
            by: &["local_authority_id", "region_id"],
            omits: NOT_IN_SPLITS,
            ids_descending: false,
        }),
    }),
    completion: None,
};

pub static LOCAL_AUTHORITY_TRAFFIC: Dataset = Dataset {
    table: "local_authority_traffic",
    paths: &["/local-authority-traffic", "/traffic/local-authorities"],
    title: "local authority traffic",
    about: "The traffic of a local authority in a year: vehicle miles travelled on all its roads, and their length.",
    count_unit: Some("vehicle miles travelled in the year"),
    groups: &[&[
        id(),
        required(year()),
        fill(ident("region_id"), Fill::RegionOfLocalAuthority),
        required(ident("local_authority_id")),
        area(
            aliases(text("local_authority_name"), &["name"]),
            AreaField::LocalAuthorityName,
        ),
        headed(
            area(
                aliases(
                    text("ons_code"),
                    &["local_authority_code", "local_authority_ons_code"],
                ),
                AreaField::LocalAuthorityCode,
            ),
            "local_authority_code",
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
    natural_key: &["local_authority_id", "year"],
    ids: Ids::FileOrder,
    filters: &["id", "local_authority_id", "region_id", "year"],
    count_method: None,
    run_columns: &[],
    own_values: false,
    unindexed: &[],
    paginated: true,
    rollups: &[],
    integers_strict: false,
    origin: Origin::Published(NationalFile {
        name: "local_authority_traffic.csv",
        aliases: &[],
        layout: &[Layout::Columns(&[
            "local_authority_id",
            "local_authority_name",
            "ons_code",
            "year",
            "link_length_km",
            "link_length_miles",
            "cars_and_taxis",
            "all_motor_vehicles",
        ])],
        quote_all_text: true,
        splits: Some(Splits {
            folder: "traffic",
            stem: "dft_traffic",
            by: &["local_authority_id"],
            omits: &["ons_code"],
            ids_descending: false,
        }),
    }),
    completion: None,
};

pub static REGION_TRAFFIC_BY_ROAD_TYPE: Dataset = Dataset {
    table: "region_traffic_by_road_type",
    paths: &["/region-traffic-by-road-type"],
    title: "region traffic by road type",
    about: "The traffic of a region in a year on one category of road (motorways, A roads, minor roads; trunk or principal), and the category's length.",
    count_unit: Some("vehicle miles travelled in the year"),
    groups: &[&[
        id(),
        required(year()),
        required(ident("region_id")),
        // Published as a code in road_category_name, or only as road_category_id 1..6.
        headed(
            fill(
                aliases(
                    code("road_category", ROAD_CATEGORIES),
                    &["road_category_name"],
                ),
                Fill::CodeOf {
                    column: "road_category_id",
                    codes: ROAD_CATEGORY_CODES,
                },
            ),
            "road_category_name",
        ),
        headed(
            required(aliases(
                number("total_link_length_km", 0.0, 1e7),
                &["link_length_km"],
            )),
            "link_length_km",
        ),
        headed(
            aliases(
                number("total_link_length_miles", 0.0, 1e7),
                &["link_length_miles"],
            ),
            "link_length_miles",
        ),
        required(count("all_motor_vehicles")),
        required(unstored(col(
            "road_category_id",
            Integer,
            Domain::Whole { min: 1, max: 6 },
        ))),
        unstored(area(text("region_name"), AreaField::RegionName)),
        unstored(area(
            aliases(text("region_ons_code"), &["ons_code"]),
            AreaField::RegionCode,
        )),
    ]],
    natural_key: &["region_id", "year", "road_category"],
    ids: Ids::FileOrder,
    filters: &["id", "region_id", "year", "road_category"],
    count_method: None,
    run_columns: &[],
    own_values: false,
    unindexed: &[],
    paginated: true,
    rollups: &[],
    integers_strict: false,
    origin: Origin::Published(NationalFile {
        name: "region_traffic_by_road_type.csv",
        aliases: &[],
        layout: &[Layout::Columns(&[
            "year",
            "region_id",
            "region_name",
            "region_ons_code",
            "road_category_id",
            "road_category",
            "total_link_length_km",
            "total_link_length_miles",
            "all_motor_vehicles",
        ])],
        quote_all_text: true,
        splits: None,
    }),
    completion: None,
};

pub static REGION_TRAFFIC_BY_VEHICLE_TYPE: Dataset = Dataset {
    table: "region_traffic_by_vehicle_type",
    paths: &["/region-traffic-by-vehicle-type"],
    title: "region traffic by vehicle type",
    about: "The traffic of a region in a year by vehicle type, and the length of its roads.",
    count_unit: Some("vehicle miles travelled in the year"),
    groups: &[&[
        id(),
        required(year()),
        required(ident("region_id")),
        headed(
            required(aliases(
                number("total_link_length_km", 0.0, 1e7),
                &["link_length_km"],
            )),
            "link_length_km",
        ),
        headed(
            aliases(
                number("total_link_length_miles", 0.0, 1e7),
                &["link_length_miles"],
            ),
            "link_length_miles",
        ),
        count("pedal_cycles"),
        count("two_wheeled_motor_vehicles"),
        required(count("cars_and_taxis")),
        count("buses_and_coaches"),
        headed(count("lgvs"), "LGVs"),
        headed(count("all_hgvs"), "all_HGVs"),
        required(count("all_motor_vehicles")),
        unstored(area(text("region_name"), AreaField::RegionName)),
        unstored(area(
            aliases(text("region_ons_code"), &["ons_code"]),
            AreaField::RegionCode,
        )),
    ]],
    natural_key: &["region_id", "year"],
    ids: Ids::FileOrder,
    filters: &["id", "region_id", "year"],
    count_method: None,
    run_columns: &[],
    own_values: false,
    unindexed: &[],
    paginated: true,
    rollups: &[],
    integers_strict: false,
    origin: Origin::Published(NationalFile {
        name: "region_traffic_by_vehicle_type.csv",
        aliases: &[],
        layout: &[Layout::Columns(&[
            "year",
            "region_id",
            "region_name",
            "region_ons_code",
            "total_link_length_km",
            "total_link_length_miles",
            "pedal_cycles",
            "two_wheeled_motor_vehicles",
            "cars_and_taxis",
            "buses_and_coaches",
            "lgvs",
            "all_hgvs",
            "all_motor_vehicles",
        ])],
        quote_all_text: true,
        splits: None,
    }),
    completion: None,
};

/// The unpaginated lists of areas: `filter[id]`, `filter[name]`.
const AREA_FILTERS: &[&str] = &["id", "name"];

pub static COUNTRIES: Dataset = Dataset {
    table: "countries",
    paths: &["/countries"],
    title: "countries",
    about: "A country of Great Britain: England, Scotland, Wales.",
    count_unit: None,
    groups: &[&[id(), derived("name", Text), derived("ons_code", Text)]],
    natural_key: &["id"],
    ids: Ids::Column("id"),
    filters: AREA_FILTERS,
    count_method: None,
    run_columns: &[],
    own_values: false,
    unindexed: &[],
    paginated: false,
    rollups: &[],
    integers_strict: true,
    origin: Origin::Derived(Derivation::Countries),
    completion: None,
};

pub static REGIONS: Dataset = Dataset {
    table: "regions",
    paths: &["/regions"],
    title: "regions",
    about: "A region (England's nine, Scotland and Wales), with its country.",
    count_unit: None,
    groups: &[&[
        id(),
        derived("name", Text),
        derived("ons_code", Text),
        derived("country_id", Integer),
    ]],
    natural_key: &["id"],
    ids: Ids::Column("id"),
    filters: AREA_FILTERS,
    count_method: None,
    run_columns: &[],
    own_values: false,
    unindexed: &[],
    paginated: false,
    rollups: &[],
    integers_strict: true,
    origin: Origin::Derived(Derivation::Regions),
    completion: None,
};

pub static LOCAL_AUTHORITIES: Dataset = Dataset {
    table: "local_authorities",
    paths: &["/local-authorities"],
    title: "local authorities",
    about: "A local authority, with its region.",
    count_unit: None,
    groups: &[&[
        id(),
        derived("name", Text),
        derived("region_id", Integer),
        derived("ita_id", Integer),
        derived("ons_code", Text),
    ]],
    natural_key: &["id"],
    ids: Ids::Column("id"),
    filters: AREA_FILTERS,
    count_method: None,
    run_columns: &[],
    own_values: false,
    unindexed: &[],
    paginated: false,
    rollups: &[],
    integers_strict: true,
    origin: Origin::Derived(Derivation::LocalAuthorities),
    completion: None,
};

/// Every dataset. The order is that of recognition and of loading: a file is given the first
/// kind whose required columns it has, so the more specific kinds come first; and the biggest
/// are loaded first, so that SQLite indexes each while the next files are read. The derived
/// tables come last.
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

/// The dataset whose records a column's value identifies (`region_id`: a region).
pub fn identified_by(column: &str) -> Option<&'static Dataset> {
    Some(match column {
        "count_point_id" => &COUNT_POINTS,
        "region_id" => &REGIONS,
        "local_authority_id" => &LOCAL_AUTHORITIES,
        "country_id" => &COUNTRIES,
        _ => return None,
    })
}

/// The datasets read from published CSV files, in recognition and load order.
pub fn published() -> impl Iterator<Item = &'static Dataset> {
    DATASETS
        .iter()
        .copied()
        .filter(|d| d.national_file().is_some())
}

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
            if let Some(c) = d.id_column() {
                assert!(d.column(c).is_some(), "{}: id {c}", d.table);
            }
        }
    }

    #[test]
    fn every_filter_is_a_stored_column_or_a_declared_count_method() {
        for d in DATASETS {
            for f in d.filters {
                assert!(d.is_filterable(f) || *f == COUNT_METHOD, "{}.{f}", d.table);
            }
            assert_eq!(
                d.filters.contains(&COUNT_METHOD),
                d.count_method.is_some(),
                "{}",
                d.table
            );
            if let Some(CountMethod::Column(c)) = d.count_method {
                assert!(d.column(c).is_some(), "{}.{c}", d.table);
            }
            for r in d.unindexed {
                assert!(d.is_filterable(r), "{}.{r}", d.table);
            }
            for r in d.run_columns {
                let stored = d.column(r).is_some_and(|c| c.stored);
                assert!(stored, "{}.{r}", d.table);
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

    #[test]
    fn national_files_name_columns_of_their_dataset_once_each() {
        for d in published() {
            let columns = d.national_file().unwrap().columns();
            for c in &columns {
                assert!(d.column(c).is_some(), "{}: {c}", d.table);
            }
            let mut unique = columns.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), columns.len(), "{}", d.table);
        }
    }

    #[test]
    fn completions_and_fills_name_real_columns() {
        for d in DATASETS {
            if let Some(Completion::LatestOf {
                source,
                key,
                latest_year,
            }) = d.completion
            {
                assert!(d.column(key).is_some() && source.column(key).is_some());
                assert!(d.column(latest_year).is_some() && source.column("year").is_some());
            }
            for c in d.columns() {
                if let Some(Fill::CodeOf { column, .. }) = c.fill {
                    assert!(d.column(column).is_some(), "{}.{column}", d.table);
                }
            }
        }
        assert!(!COUNT_POINTS.final_when_read() && !LOCAL_AUTHORITY_TRAFFIC.final_when_read());
        assert!(RAW_COUNTS.final_when_read() && REGION_TRAFFIC_BY_ROAD_TYPE.final_when_read());
    }

    /// Adding a vehicle column is one line in VEHICLES: the records, the schema and the
    /// national files all take their vehicle columns from the group, in its order.
    #[test]
    fn vehicle_columns_flow_from_one_group() {
        let vehicles: Vec<&str> = VEHICLES.iter().map(|c| c.name).collect();
        for d in [&AADF, &AADF_BY_DIRECTION, &RAW_COUNTS] {
            let records: Vec<&str> = d.stored_columns().map(|c| c.name).collect();
            let national = d.national_file().unwrap().columns();
            let table = crate::schema::create_table(d);
            for layout in [records, national] {
                let at = layout.iter().position(|c| *c == vehicles[0]).unwrap();
                assert_eq!(
                    &layout[at..at + vehicles.len()],
                    &vehicles[..],
                    "{}",
                    d.table
                );
            }
            assert!(vehicles.iter().all(|v| table.contains(v)), "{}", d.table);
        }
    }

    #[test]
    fn totals_apply_where_every_part_is() {
        let names = |d: &Dataset| d.totals().map(|t| t.total).collect::<Vec<_>>();
        assert_eq!(names(&AADF), ["all_hgvs", "all_motor_vehicles"]);
        assert_eq!(
            names(&REGION_TRAFFIC_BY_VEHICLE_TYPE),
            ["all_motor_vehicles"]
        );
        assert!(names(&LOCAL_AUTHORITY_TRAFFIC).is_empty());
    }
}
