//! Where a question is answered from: the smallest source that gives the same answer as the
//! dataset's table.
//!
//! 1. A table of totals (`roadtraffic_catalog::totals`), when every filter and every column
//!    counted or grouped by is one of its columns, and every measure asked one it keeps (the
//!    loader's keep `Dataset::measure_columns`): thousands of rows.
//! 2. The runs table (see `Dataset::run_columns`), when filters and columns are all run
//!    columns and no measure is asked: a run of `last_id - first_id + 1` rows counts as many.
//! 3. The table, through the listing's own SQL (`api::Plan`): indexes and runs where the
//!    filters allow, the spatial index for an area.

use rusqlite::types::Value as SqlValue;
use rusqlite::Connection;

use roadtraffic_catalog::totals::{stat_column, SummaryMeasure, RECORDS};
use roadtraffic_catalog::{Column, Dataset, DATASETS};

use crate::error::ApiError;
use crate::release::Release;
use crate::rows::{Condition, Plan, Reading, Rows};

/// The tables of totals of a release that hold its totals: each filled one, by dataset
/// (kept with the release, learnt on its first question). A rollup left empty by the loader
/// (its sums would overflow) is not used.
pub struct Rollups(Vec<Usable>);

impl Rollups {
    /// No tables of totals: every question reads the runs or the rows.
    pub fn none() -> Rollups {
        Rollups(Vec::new())
    }
}

struct Usable {
    dataset: &'static str,
    table: String,
    by: &'static [&'static str],
    /// The measures it keeps the sum, count, minimum and maximum of.
    measures: Vec<&'static str>,
    rows: i64,
}

impl Rollups {
    pub fn of(release: &Release) -> Result<std::sync::Arc<Rollups>, ApiError> {
        release.kept.get_or_make(|| Rollups::read(release))
    }

    fn read(release: &Release) -> Result<Rollups, ApiError> {
        let conn = release.connection()?;
        let mut usable = Vec::new();
        for d in DATASETS.iter() {
            let table_rows = release.rows(d.table).0;
            for (table, rollup) in d.rollup_tables() {
                let sql = format!("SELECT count(*) FROM {table}");
                // A file without it (an older schema's) answers from its tables.
                let Ok(rows) = conn.query_row(&sql, [], |r| r.get::<_, i64>(0)) else {
                    continue;
                };
                if rows > 0 || table_rows == 0 {
                    let (dataset, by) = (d.table, rollup.by);
                    let measures = d.measure_columns().map(|c| c.name).collect();
                    usable.push(Usable {
                        dataset,
                        table,
                        by,
                        measures,
                        rows,
                    });
                }
            }
        }
        Ok(Rollups(usable))
    }
}

/// What a question reads.
pub enum ReadFrom {
    /// A table of totals, as `t`.
    Rollup(String),
    /// The runs table, as `u`.
    Runs,
    /// The dataset's table, through the listing's SQL.
    Table { plan: Box<Rows>, joined: bool },
}

/// Whether every filter is on one of `columns` (or keeps nothing).
fn filters_within(conditions: &[Condition], columns: &[&str]) -> bool {
    conditions.iter().all(|c| match c {
        Condition::In(col, _) => columns.contains(&col.name),
        Condition::Nothing => true,
        Condition::Within(..)
        | Condition::Range(_)
        | Condition::Cql2(_)
        | Condition::InAreas(..) => false,
    })
}

impl ReadFrom {
    /// The smallest source of a question on `columns` (counted or grouped by) under
    /// `conditions`, adding up `measures` (their names; none for a count).
    pub fn choose(
        d: &'static Dataset,
        conditions: &[Condition],
        columns: &[&'static Column],
        measures: &[&str],
        rollups: &Rollups,
    ) -> ReadFrom {
        let fits = |by: &[&str]| {
            filters_within(conditions, by) && columns.iter().all(|c| by.contains(&c.name))
        };
        let keeps = |r: &Usable| measures.iter().all(|m| r.measures.contains(m));
        let rollup = (rollups.0.iter())
            .filter(|r| r.dataset == d.table && fits(r.by) && keeps(r))
            .min_by_key(|r| r.rows);
        if let Some(r) = rollup {
            return ReadFrom::Rollup(r.table.clone());
        }
        if measures.is_empty() && d.runs_table().is_some() && fits(d.run_columns) {
            return ReadFrom::Runs;
        }
        let plan = Rows {
            dataset: d,
            conditions: conditions.to_vec(),
            sort: Vec::new(),
            fields: Vec::new(),
            reading: Reading::All,
        };
        let joined = Plan(&plan).sql().joined;
        ReadFrom::Table {
            plan: Box::new(plan),
            joined,
        }
    }

    /// Whether it reads the dataset's rows themselves (a scan of them, at worst).
    pub fn reads_rows(&self) -> bool {
        matches!(self, ReadFrom::Table { .. })
    }

    /// FROM, WHERE and the arguments of the WHERE.
    pub fn filtered(&self, d: &Dataset, conditions: &[Condition]) -> (String, Vec<SqlValue>) {
        let (from, alias) = match self {
            ReadFrom::Rollup(table) => (format!("{table} t"), "t"),
            // Unfiltered, every run is read: in table order, not through the index of the
            // column grouped by, which would look each run up (seconds, from a cold cache).
            ReadFrom::Runs => {
                let runs = d.runs_table().unwrap_or_default();
                let all = if conditions.is_empty() {
                    " NOT INDEXED"
                } else {
                    ""
                };
                (format!("{runs} u{all}"), "u")
            }
            ReadFrom::Table { plan, .. } => {
                let sql = Plan(plan).sql();
                return (format!("{}{}", sql.from, sql.where_sql(&[])), sql.args);
            }
        };
        let mut terms = Vec::new();
        let mut args = Vec::new();
        for c in conditions {
            match c {
                Condition::In(col, values) => {
                    let marks = vec!["?"; values.len()].join(",");
                    terms.push(format!("{alias}.{} IN ({marks})", col.name));
                    args.extend(values.iter().cloned());
                }
                // Only a table of totals by area of the set is chosen under it (`by_area`).
                Condition::InAreas(_, areas) => {
                    terms.push(format!(
                        "{alias}.area_id IN (SELECT value FROM json_each(?))"
                    ));
                    args.push(SqlValue::Text(
                        serde_json::to_string(&areas.ids).unwrap_or_default(),
                    ));
                }
                _ => terms.push("0".to_string()),
            }
        }
        match terms.is_empty() {
            true => (from, args),
            false => (format!("{from} WHERE {}", terms.join(" AND ")), args),
        }
    }

    /// A column, as the query reads it.
    pub fn column(&self, c: &Column) -> String {
        self.column_named(c.name)
    }

    /// A column by name, as the query reads it.
    fn column_named(&self, name: &str) -> String {
        match self {
            ReadFrom::Rollup(_) => format!("t.{name}"),
            ReadFrom::Runs => format!("u.{name}"),
            ReadFrom::Table { plan, joined } => Plan(plan).column_named(name, *joined),
        }
    }

    /// How many records a group holds: 0, not NULL, for the one row of a summary without
    /// groups over no records (as `count(*)` of the table gives it).
    pub fn records(&self) -> String {
        match self {
            ReadFrom::Rollup(_) => format!("coalesce(sum(t.{RECORDS}), 0)"),
            ReadFrom::Runs => "coalesce(sum(u.last_id - u.first_id + 1), 0)".to_string(),
            ReadFrom::Table { .. } => "count(*)".to_string(),
        }
    }

    /// A statistic of a measure over a group: `sum`, `count` (of values), `min`, `max`; of
    /// a measure added up as integers (`SummaryMeasure::scale`), in its units.
    pub fn stat(&self, stat: &str, m: &SummaryMeasure) -> String {
        match self {
            ReadFrom::Rollup(_) => {
                let of_parts = match stat {
                    "sum" | "count" => "sum",
                    other => other,
                };
                format!("{of_parts}(t.{})", stat_column(stat, m.name()))
            }
            _ => {
                let column = |name: &str| self.column_named(name);
                let value = match stat {
                    "min" | "max" => m.extreme_sql(&column),
                    _ => m.addend_sql(&column),
                };
                format!("{stat}({value})")
            }
        }
    }

    /// A name for the logs and the tests: which source answered.
    pub fn name(&self) -> &'static str {
        match self {
            ReadFrom::Rollup(_) => "totals",
            ReadFrom::Runs => "runs",
            ReadFrom::Table { .. } => "table",
        }
    }
}

/// Runs `sql` and hands each row to `row`, a query error mapped as the API maps it, and a
/// sum beyond 64 bits said in words.
pub fn each_row(
    conn: &Connection,
    sql: &str,
    args: &[SqlValue],
    mut row: impl FnMut(&rusqlite::Row) -> Result<(), ApiError>,
) -> Result<(), ApiError> {
    let overflow = |e: rusqlite::Error| match e.to_string().contains("integer overflow") {
        true => ApiError::BadRequest(
            "A sum over these records is beyond 64-bit integers and cannot be given exactly: \
             narrow the filters, or group by more columns."
                .to_string(),
        ),
        false => ApiError::from(e),
    };
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt
        .query(rusqlite::params_from_iter(args.iter()))
        .map_err(overflow)?;
    while let Some(r) = rows.next().map_err(overflow)? {
        row(r)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use roadtraffic_catalog::AADF;

    /// AADF's loader-kept tables of totals, as a release with rows in them has them.
    fn rollups() -> Rollups {
        let usable = (AADF.rollup_tables())
            .map(|(table, r)| Usable {
                dataset: AADF.table,
                table,
                by: r.by,
                measures: AADF.measure_columns().map(|c| c.name).collect(),
                rows: r.by.len() as i64,
            })
            .collect();
        Rollups(usable)
    }

    #[test]
    fn a_table_of_totals_answers_only_the_measures_it_keeps() {
        let year = AADF.column("year").unwrap();
        let source =
            |measures: &[&str]| ReadFrom::choose(&AADF, &[], &[year], measures, &rollups()).name();
        assert_eq!(source(&["all_motor_vehicles", "pedal_cycles"]), "totals");
        for other in ["vehicle_km", "link_length_km", "year", "easting"] {
            assert_eq!(source(&["all_motor_vehicles", other]), "table", "{other}");
        }
        // A count alone by year.
        assert_eq!(source(&[]), "totals");
        let empty = Rollups(Vec::new());
        let count = ReadFrom::choose(&AADF, &[], &[year], &[], &empty);
        assert_eq!(count.name(), "runs");
        let km = ReadFrom::choose(&AADF, &[], &[year], &["vehicle_km"], &empty);
        assert_eq!(km.name(), "table");
    }
}
