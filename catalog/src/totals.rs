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

use crate::{Column, Dataset, Domain, Rollup, Source, ValueType};

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
}
