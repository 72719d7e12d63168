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

#[derive(Debug)]
pub struct Column {
    pub name: &'static str,
    pub ty: ValueType,
    pub source: Source,
    /// The kind of a file is recognised by the presence of all its required columns.
    pub required: bool,
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

const fn col(name: &'static str, ty: ValueType) -> Column {
    Column {
        name,
        ty,
        source: Source::Csv(&[]),
        required: false,
        stored: true,
    }
}
const fn id() -> Column {
    Column {
        name: "id",
        ty: ValueType::Integer,
        source: Source::Id,
        required: false,
        stored: true,
    }
}
const fn required(mut c: Column) -> Column {
    c.required = true;
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

const VEHICLES: &[Column] = &[
    col("pedal_cycles", Integer),
    col("two_wheeled_motor_vehicles", Integer),
    col("cars_and_taxis", Integer),
    col("buses_and_coaches", Integer),
    col("lgvs", Integer),
    col("hgvs_2_rigid_axle", Integer),
    col("hgvs_3_rigid_axle", Integer),
    col("hgvs_4_or_more_rigid_axle", Integer),
    col("hgvs_3_or_4_articulated_axle", Integer),
    col("hgvs_5_articulated_axle", Integer),
    col("hgvs_6_articulated_axle", Integer),
    col("all_hgvs", Integer),
    required(col("all_motor_vehicles", Integer)),
];

const LOCATION: &[Column] = &[
    required(col("region_id", Integer)),
    required(col("local_authority_id", Integer)),
    required(col("road_name", Text)),
    col("road_category", Text),
    required(col("road_type", Text)),
    col("start_junction_road_name", Text),
    col("end_junction_road_name", Text),
    col("easting", Integer),
    col("northing", Integer),
    col("latitude", Text),
    col("longitude", Text),
    col("link_length_km", Text),
    col("link_length_miles", Text),
];

/// Names and ONS codes that feed the regions and local authorities tables.
const AREA_NAMES: &[Column] = &[
    unstored(col("region_name", Text)),
    unstored(aliases(col("region_ons_code", Text), &["region_code"])),
    unstored(col("local_authority_name", Text)),
    unstored(aliases(
        col("local_authority_code", Text),
        &["local_authoirty_ons_code", "local_authority_ons_code"],
    )),
];

pub static AADF: Dataset = Dataset {
    table: "aadf",
    paths: &["/average-annual-daily-flow"],
    title: "AADF",
    groups: &[
        &[
            id(),
            required(col("count_point_id", Integer)),
            required(col("year", Integer)),
        ],
        LOCATION,
        &[
            required(col("estimation_method", Text)),
            col("estimation_method_detailed", Text),
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
        &[
            id(),
            required(col("count_point_id", Integer)),
            required(col("year", Integer)),
        ],
        LOCATION,
        &[
            required(col("estimation_method", Text)),
            col("estimation_method_detailed", Text),
            required(col("direction_of_travel", Text)),
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
            required(col("count_point_id", Integer)),
            // Recomputed by the loader from the AADF rows when there are any.
            col("aadf_year", Integer),
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
            required(col("count_point_id", Integer)),
            required(col("direction_of_travel", Text)),
            required(col("year", Integer)),
            required(col("count_date", Date)),
            required(col("hour", Integer)),
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
        required(col("year", Integer)),
        col("region_id", Integer),
        required(col("local_authority_id", Integer)),
        aliases(col("local_authority_name", Text), &["name"]),
        aliases(
            col("ons_code", Text),
            &["local_authority_code", "local_authority_ons_code"],
        ),
        required(aliases(
            col("link_length_km", Number),
            &["total_link_length_km"],
        )),
        aliases(
            col("link_length_miles", Number),
            &["total_link_length_miles"],
        ),
        required(col("cars_and_taxis", Integer)),
        required(col("all_motor_vehicles", Integer)),
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
        required(col("year", Integer)),
        required(col("region_id", Integer)),
        // Published as a code in road_category_name, or only as road_category_id 1..6.
        aliases(col("road_category", Text), &["road_category_name"]),
        required(aliases(
            col("total_link_length_km", Number),
            &["link_length_km"],
        )),
        aliases(
            col("total_link_length_miles", Number),
            &["link_length_miles"],
        ),
        required(col("all_motor_vehicles", Integer)),
        required(unstored(col("road_category_id", Integer))),
        unstored(col("region_name", Text)),
        unstored(aliases(col("region_ons_code", Text), &["ons_code"])),
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
        required(col("year", Integer)),
        required(col("region_id", Integer)),
        required(aliases(
            col("total_link_length_km", Number),
            &["link_length_km"],
        )),
        aliases(
            col("total_link_length_miles", Number),
            &["link_length_miles"],
        ),
        col("pedal_cycles", Integer),
        col("two_wheeled_motor_vehicles", Integer),
        required(col("cars_and_taxis", Integer)),
        col("buses_and_coaches", Integer),
        col("lgvs", Integer),
        col("all_hgvs", Integer),
        required(col("all_motor_vehicles", Integer)),
        unstored(aliases(col("region_name", Text), &[])),
        unstored(aliases(col("region_ons_code", Text), &["ons_code"])),
    ]],
    filters: &["id", "region_id", "year"],
    run_columns: &[],
    unindexed: &[],
    natural_key: &["region_id", "year"],
    paginated: true,
    integers_strict: false,
    from_csv: true,
};

const fn derived(name: &'static str, ty: ValueType) -> Column {
    Column {
        name,
        ty,
        source: Source::Derived,
        required: false,
        stored: true,
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
