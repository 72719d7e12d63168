//! A dataset's totals by area and year, kept in the mirror's file for each set so that a
//! national summary by area reads thousands of rows, not a join of every record: the table
//! `<table>_totals_area` of each dataset with derived measures (the AADF tables), one row per
//! set, area and year that holds records:
//!
//! `set_name TEXT, area_id TEXT, year INTEGER, records INTEGER`, then for each measure `m` of
//! `Dataset::measure_columns()` in order `sum_m, count_m, min_m, max_m`, then the same four of
//! each of `Dataset::derived_measures()` (in thousandths, as
//! `DerivedMeasure::thousandths_sql`), `PRIMARY KEY (set_name, area_id, year)`. A record in
//! several areas of a set (on a shared edge) counts in each.

use roadtraffic_catalog::Dataset;

/// The datasets that have a table of totals by area.
pub fn datasets() -> impl Iterator<Item = &'static Dataset> {
    roadtraffic_catalog::DATASETS
        .iter()
        .copied()
        .filter(|d| d.derived_measures().next().is_some())
}

/// Its table's name: `<table>_totals_area`.
pub fn table(d: &Dataset) -> String {
    format!("{}_totals_area", d.table)
}

/// The statement that makes the table, if not there.
pub fn create_sql(d: &Dataset) -> String {
    let _ = d;
    unimplemented!("issue 35: the areas crate's totals")
}

/// The statement that fills the table for one set (`?1`, its name) from the dataset's table
/// and `area_count_points`.
pub fn fill_sql(d: &Dataset) -> String {
    let _ = d;
    unimplemented!("issue 35: the areas crate's totals")
}
