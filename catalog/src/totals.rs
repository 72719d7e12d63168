//! What a dataset's totals are made of, from its declaration alone: the columns its records
//! can be counted by (facets, summary groups), the columns that can be added up (measures),
//! and the small tables of totals the loader keeps so that a national summary reads thousands
//! of rows rather than millions (`Dataset::rollups`).
//!
//! A rollup table `<table>_totals_<name>` holds one row per combination of its `by` columns
//! that the table holds: the combination, `records` (how many rows have it), and for each
//! measure `m`: `sum_m`, `count_m` (rows where it is not empty), `min_m` and `max_m`. Any
//! summary whose filters and groups are all among the `by` columns is the same summary of the
//! rollup: counts and sums add up, minima and maxima of minima and maxima, averages are sums
//! over counts.

use crate::{Column, Dataset, Domain, Ids, Rollup, Source, ValueType};

/// The rollup column holding the number of rows of each combination.
pub const RECORDS: &str = "records";

/// What a rollup keeps of each measure, as `<stat>_<measure>`: its sum, how many rows hold a
/// value, its minimum and maximum.
pub const STATS: [&str; 4] = ["sum", "count", "min", "max"];

impl Dataset {
    /// The columns its records can be counted by and grouped by: every filter that is a
    /// stored column, but the id (one record each).
    pub fn facet_columns(&self) -> impl Iterator<Item = &'static Column> + Clone + '_ {
        self.filters
            .iter()
            .filter_map(|f| self.filter_column(f))
            .filter(|c| c.source != Source::Id)
    }

    /// The columns a summary can add up: counts and measured numbers (not ids, years,
    /// coordinates or decimal text).
    pub fn measure_columns(&self) -> impl Iterator<Item = &'static Column> + Clone + '_ {
        self.stored_columns().filter(|c| is_measure(c))
    }

    /// Each rollup with its table's name.
    pub fn rollup_tables(&self) -> impl Iterator<Item = (String, &'static Rollup)> + '_ {
        self.rollups
            .iter()
            .map(move |r| (format!("{}_totals_{}", self.table, r.name), r))
    }
}

/// A measure made of a record's columns rather than stored: traffic over a road link in a
/// year, DfT's own method for major roads (`all_motor_vehicles` x the link's length x the
/// days in the year, 366 in a leap year). Summed exactly: each record's value is an integer
/// of thousandths (the lengths are published to two decimals), written back as a decimal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DerivedMeasure {
    /// The summary's measure name (`sum=vehicle_km`).
    pub name: &'static str,
    /// The daily count multiplied.
    pub count: &'static str,
    /// The link length (decimal text) multiplied.
    pub length: &'static str,
    /// The tables whose counts are daily flows over a link (not hourly counts, not totals
    /// already in vehicle-miles): the AADF tables.
    pub tables: &'static [&'static str],
}

/// Every derived measure; a dataset has those whose columns it stores (`derived_measures`).
pub const DERIVED_MEASURES: [DerivedMeasure; 2] = [
    DerivedMeasure {
        name: "vehicle_km",
        count: "all_motor_vehicles",
        length: "link_length_km",
        tables: DAILY_FLOWS,
    },
    DerivedMeasure {
        name: "vehicle_miles",
        count: "all_motor_vehicles",
        length: "link_length_miles",
        tables: DAILY_FLOWS,
    },
];

const DAILY_FLOWS: &[&str] = &["aadf", "aadf_by_direction"];

/// A derived measure's thousandths per unit: its values are integers of this many a unit.
pub const DERIVED_SCALE: i64 = 1_000;

impl DerivedMeasure {
    /// A record's value in thousandths, as SQL over its columns at `alias` (`r`): null where
    /// the count, the length or the year is.
    pub fn thousandths_sql(&self, alias: &str) -> String {
        self.thousandths_of(&|name| format!("{alias}.{name}"))
    }

    /// The same over its columns as `column` names each (a query that reads some columns
    /// from another table than the others: the runs' year).
    pub fn thousandths_of(&self, column: &dyn Fn(&str) -> String) -> String {
        let (count, length, year) = (column(self.count), column(self.length), column("year"));
        format!(
            "({count} * CAST(round(CAST(NULLIF({length}, '') AS REAL) * {DERIVED_SCALE}) AS INTEGER) \
             * (CASE WHEN {year} % 400 = 0 OR ({year} % 4 = 0 AND {year} % 100 <> 0) \
             THEN 366 ELSE 365 END))"
        )
    }
}

impl Dataset {
    /// Its derived measures: vehicle-km and -miles of the AADF tables.
    pub fn derived_measures(&self) -> impl Iterator<Item = &'static DerivedMeasure> + '_ {
        let stored = |name: &str| self.column(name).is_some_and(|c| c.stored);
        DERIVED_MEASURES.iter().filter(move |m| {
            m.tables.contains(&self.table) && stored(m.count) && stored(m.length) && stored("year")
        })
    }
}

/// What a summary's `sum`, `avg`, `min` and `max` can take of a dataset
/// (`Dataset::summary_measures`): any number a record holds, and its derived measures.
#[derive(Debug, Clone, Copy)]
pub enum SummaryMeasure {
    /// A stored column of integers or numbers, read as stored.
    Number(&'static Column),
    /// A decimal published as text (a link length, a coordinate), read as a number: added up
    /// exactly as an integer of [`DECIMAL_TEXT_SCALE`]ths (the files give at most 8 places).
    DecimalText(&'static Column),
    /// Made of a record's columns (vehicle-km), in integer thousandths.
    Derived(&'static DerivedMeasure),
}

/// A decimal text's units per unit when it is added up: each value to 8 places.
pub const DECIMAL_TEXT_SCALE: i64 = 100_000_000;

impl SummaryMeasure {
    /// Its name, as a summary takes it and after `<stat>_` in the output.
    pub fn name(&self) -> &'static str {
        match self {
            SummaryMeasure::Number(c) | SummaryMeasure::DecimalText(c) => c.name,
            SummaryMeasure::Derived(m) => m.name,
        }
    }

    /// The units of one of its values where it is added up as integers (decimal text, derived
    /// measures), or `None` where it is added up as stored.
    pub fn scale(&self) -> Option<i64> {
        match self {
            SummaryMeasure::Number(_) => None,
            SummaryMeasure::DecimalText(_) => Some(DECIMAL_TEXT_SCALE),
            SummaryMeasure::Derived(_) => Some(DERIVED_SCALE),
        }
    }

    /// What is summed and counted of a record, as SQL over its columns as `column` names
    /// each: null where it has no value; an integer of `scale()`ths where it has one.
    pub fn addend_sql(&self, column: &dyn Fn(&str) -> String) -> String {
        match self {
            SummaryMeasure::Number(c) => column(c.name),
            SummaryMeasure::DecimalText(c) => format!(
                "CAST(round(CAST(NULLIF({}, '') AS REAL) * {DECIMAL_TEXT_SCALE}) AS INTEGER)",
                column(c.name)
            ),
            SummaryMeasure::Derived(m) => m.thousandths_of(column),
        }
    }

    /// What the minimum and maximum are taken of: decimal text as the number it reads as
    /// (written back as that number), the others as added up.
    pub fn extreme_sql(&self, column: &dyn Fn(&str) -> String) -> String {
        match self {
            SummaryMeasure::DecimalText(c) => {
                format!("CAST(NULLIF({}, '') AS REAL)", column(c.name))
            }
            other => other.addend_sql(column),
        }
    }

    /// The measure of a stored column, if its values are numbers.
    fn of_column(c: &'static Column) -> Option<SummaryMeasure> {
        match c.ty {
            ValueType::Integer | ValueType::Number => Some(SummaryMeasure::Number(c)),
            _ if c.is_decimal_text() => Some(SummaryMeasure::DecimalText(c)),
            _ => None,
        }
    }
}

impl Dataset {
    /// What its summaries can add up, average and find the least and most of: every stored
    /// column whose values are numbers (counts, years, hours, coordinates, link lengths), but
    /// the record's own id; then its derived measures. A superset of `measure_columns`, which
    /// are what its tables of totals keep.
    pub fn summary_measures(&self) -> impl Iterator<Item = SummaryMeasure> + '_ {
        let own_id = |c: &Column| c.source == Source::Id || self.ids == Ids::Column(c.name);
        let columns = (self.stored_columns())
            .filter(move |c| !own_id(c))
            .filter_map(SummaryMeasure::of_column);
        columns.chain(self.derived_measures().map(SummaryMeasure::Derived))
    }

    /// The summary measure of this name.
    pub fn summary_measure(&self, name: &str) -> Option<SummaryMeasure> {
        self.summary_measures().find(|m| m.name() == name)
    }
}

fn is_measure(c: &Column) -> bool {
    let numeric = matches!(c.ty, ValueType::Integer | ValueType::Number);
    numeric && matches!(c.domain, Domain::Count | Domain::Decimal { .. })
}

/// The name of a rollup's column of one statistic of a measure.
pub fn stat_column(stat: &str, measure: &str) -> String {
    format!("{stat}_{measure}")
}

/// A group's key as written: a text column, grouped ignoring letter case where it is filtered
/// so (its collation), in one of its spellings, the same whatever rows are read (the first in
/// binary order), so that every source of a total writes it alike.
pub fn key_value(c: &Column, expr: &str) -> String {
    match c.ty {
        ValueType::Text | ValueType::Date => format!("min({expr} COLLATE BINARY)"),
        ValueType::Integer | ValueType::Number => expr.to_string(),
    }
}

/// The rollup's keys as selected, and as grouped by.
fn keys(d: &Dataset, rollup: &Rollup) -> (String, String) {
    let column = |name: &str| d.column(name).expect("rollup column");
    let keys: Vec<String> = (rollup.by.iter())
        .map(|c| format!("{} AS {c}", key_value(column(c), c)))
        .collect();
    (keys.join(", "), rollup.by.join(", "))
}

/// The statement that fills a rollup from its dataset's final table.
pub fn fill_rollup(d: &Dataset, table: &str, rollup: &Rollup) -> String {
    let (keys, by) = keys(d, rollup);
    let mut stats = vec!["count(*)".to_string()];
    for m in d.measure_columns() {
        stats.extend(STATS.iter().map(|stat| format!("{stat}({})", m.name)));
    }
    format!(
        "INSERT INTO {table} SELECT {keys}, {} FROM {} GROUP BY {by}",
        stats.join(", "),
        d.table
    )
}

/// The statement that fills a rollup from `parts`, a table of its shape holding totals of
/// parts of the rows (groups told apart by letter case, that the rollup's collation joins).
pub fn regroup_rollup(d: &Dataset, table: &str, rollup: &Rollup, parts: &str) -> String {
    let (keys, by) = keys(d, rollup);
    let mut stats = vec![format!("sum({RECORDS})")];
    for m in d.measure_columns() {
        stats.extend(STATS.iter().map(|stat| {
            let of_parts = if *stat == "count" { "sum" } else { stat };
            format!("{of_parts}({})", stat_column(stat, m.name))
        }));
    }
    format!(
        "INSERT INTO {table} SELECT {keys}, {} FROM {parts} GROUP BY {by}",
        stats.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use crate::{AADF, COUNT_POINTS, DATASETS, RAW_COUNTS};

    #[test]
    fn rollups_are_kept_by_facet_columns() {
        for d in DATASETS {
            for (_, r) in d.rollup_tables() {
                for c in r.by {
                    assert!(d.facet_columns().any(|f| f.name == *c), "{}: {c}", d.table);
                }
            }
        }
    }

    #[test]
    fn measures_are_the_counts_not_the_ids() {
        let names: Vec<&str> = AADF.measure_columns().map(|c| c.name).collect();
        assert_eq!(names.first(), Some(&"pedal_cycles"));
        assert_eq!(names.last(), Some(&"all_motor_vehicles"));
        assert!(!names.contains(&"year") && !names.contains(&"easting"));
        assert_eq!(COUNT_POINTS.measure_columns().count(), 0);
        let facets: Vec<&str> = RAW_COUNTS.facet_columns().map(|c| c.name).collect();
        assert!(facets.contains(&"hour") && !facets.contains(&"id"));
    }

    #[test]
    fn summaries_take_every_number_but_the_record_id() {
        let names =
            |d: &crate::Dataset| -> Vec<&str> { d.summary_measures().map(|m| m.name()).collect() };
        let aadf = names(&AADF);
        for m in [
            "year",
            "easting",
            "latitude",
            "link_length_km",
            "vehicle_km",
        ] {
            assert!(aadf.contains(&m), "{m}");
        }
        assert!(!aadf.contains(&"id") && !aadf.contains(&"road_name"));
        // Every measure the tables of totals keep, in the same order.
        let kept: Vec<&str> = AADF.measure_columns().map(|c| c.name).collect();
        let kept_here: Vec<&str> = aadf.iter().copied().filter(|m| kept.contains(m)).collect();
        assert_eq!(kept, kept_here);
        assert!(!names(&COUNT_POINTS).contains(&"count_point_id"));
        assert!(names(&RAW_COUNTS).contains(&"hour"));
        assert_eq!(
            AADF.summary_measure("latitude").and_then(|m| m.scale()),
            Some(100_000_000)
        );
        let sql = AADF
            .summary_measure("latitude")
            .unwrap()
            .addend_sql(&|c| format!("r.{c}"));
        assert!(sql.contains("NULLIF(r.latitude, '')"), "{sql}");
    }

    #[test]
    fn vehicle_km_is_exact_thousandths_with_leap_years() {
        let with: Vec<&str> = (DATASETS.iter())
            .filter(|d| d.derived_measures().count() == 2)
            .map(|d| d.table)
            .collect();
        assert_eq!(with, ["aadf_by_direction", "aadf"]);
        let db = rusqlite::Connection::open_in_memory().unwrap();
        let km = &super::DERIVED_MEASURES[0];
        let sql = format!(
            "SELECT {} FROM (SELECT ?1 AS all_motor_vehicles, ?2 AS link_length_km, ?3 AS year) r",
            km.thousandths_sql("r")
        );
        let value = |amv: i64, len: Option<&str>, year: i64| -> Option<i64> {
            db.query_row(&sql, rusqlite::params![amv, len, year], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(value(11311, Some("1.10"), 2019), Some(11311 * 1100 * 365));
        assert_eq!(value(2, Some("0.30"), 2020), Some(2 * 300 * 366));
        assert_eq!(value(2, Some("0.30"), 1900), Some(2 * 300 * 365));
        assert_eq!(value(2, Some("0.30"), 2000), Some(2 * 300 * 366));
        assert_eq!(value(5, None, 2019), None);
        assert_eq!(value(5, Some(""), 2019), None);
    }
}
