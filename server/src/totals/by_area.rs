//! Totals by area: `group_by=area:{set}` and `facet=area:{set}`, the key `area` (the area's
//! id) with `area_name` beside it. A record counts in every area of its count point (in each
//! of two areas sharing the edge it sits on) and in none when its count point is in none.
//!
//! Two sources give the same rows: the latest file's totals by set, area and year
//! (`roadtraffic_areas::totals`), when the question groups by nothing but the area and the
//! year, filters on nothing but the year and areas of the same set, and adds up measures that
//! table keeps; otherwise the rows the listing's filters keep, joined to the release's pairs
//! of (area, count point) held in memory (`json_each` of one argument: no temporary table).

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::{Column, Dataset};

use super::read_from::ReadFrom;
use crate::error::ApiError;
use crate::rows::{AreaGrouping, AreaLookup, Condition, Plan};

/// The key column, and the name beside it.
pub const AREA: &str = "area";
pub const AREA_NAME: &str = "area_name";
/// How a list parameter names a set: `area:{set}`.
const PREFIX: &str = "area:";

/// `area:{set}` taken out of a list parameter's names (`group_by`, `facet`): the set's areas,
/// if named, and the other names. Two sets in one question are a 400.
pub fn split(
    param: &str,
    names: Vec<String>,
    areas: &dyn AreaLookup,
) -> Result<(Option<AreaGrouping>, Vec<String>), ApiError> {
    let (sets, others): (Vec<String>, Vec<String>) =
        names.into_iter().partition(|n| n.starts_with(PREFIX));
    let sets: Vec<&str> = sets.iter().map(|s| s[PREFIX.len()..].trim()).collect();
    match sets.as_slice() {
        [] => Ok((None, others)),
        [set] => Ok((Some(areas.grouping(set)?), others)),
        _ => Err(ApiError::BadRequest(format!(
            "{param} names more than one area set (`{}`): a question is by the areas of one set.",
            sets.join("`, `")
        ))),
    }
}

/// The question's part of its canonical key.
pub fn key(grouping: Option<&AreaGrouping>) -> String {
    grouping.map_or(String::new(), |g| {
        format!(" by area {:?} {}", g.set, g.sha256)
    })
}

/// Where a question by area is read from, and the expression of its area's id there.
pub struct AreaSource {
    pub read: ReadFrom,
    /// The area's id, as the statement selects it.
    pub area: &'static str,
    /// The join with the pairs of (area, count point), when the rows are read.
    join: Option<String>,
}

impl AreaSource {
    /// The latest file's totals by area when they answer the question exactly, else the rows
    /// joined to the pairs.
    pub fn choose(
        d: &'static Dataset,
        conditions: &[Condition],
        (grouping, columns): (&AreaGrouping, &[&'static Column]),
        measures: &[&str],
    ) -> AreaSource {
        let table = roadtraffic_areas::totals::table(d);
        let kept = grouping.totals_tables.contains(&table);
        let by_year = columns.iter().all(|c| c.name == "year");
        let filters_fit = conditions.iter().all(|c| match c {
            Condition::In(col, _) => col.name == "year",
            Condition::InAreas(_, f) => f.set == grouping.set,
            Condition::Nothing => true,
            _ => false,
        });
        let kept_measures: Vec<&str> = (d.measure_columns().map(|c| c.name))
            .chain(d.derived_measures().map(|m| m.name))
            .collect();
        let measures_fit = measures.iter().all(|m| kept_measures.contains(m));
        if kept && by_year && filters_fit && measures_fit {
            // The set's rows of the table, by name (quoted: a name is text, never SQL).
            let set = grouping.set.replace('\'', "''");
            let rows = format!("(SELECT * FROM {table} WHERE set_name = '{set}')");
            return AreaSource {
                read: ReadFrom::Rollup(rows),
                area: "t.area_id",
                join: None,
            };
        }
        // The rows themselves: asked for a measure, with no table of totals, the choice is the
        // table (the runs hold no measures).
        let rows = ReadFrom::choose(d, conditions, columns, &[AREA], &super::Rollups::none());
        let read = rows;
        let ReadFrom::Table { plan, joined } = &read else {
            unreachable!("without rollups, measures are read from the table")
        };
        let count_point = Plan(plan).column_named(roadtraffic_catalog::places::PLACE_KEY, *joined);
        AreaSource {
            join: Some(format!(
                " JOIN json_each(?) m ON m.value ->> 1 = {count_point}"
            )),
            read,
            area: "m.value ->> 0",
        }
    }

    /// FROM (joined to the pairs when the rows are read), WHERE, and their arguments.
    pub fn filtered(
        &self,
        d: &Dataset,
        conditions: &[Condition],
        grouping: &AreaGrouping,
    ) -> (String, Vec<SqlValue>) {
        let (Some(join), ReadFrom::Table { plan, .. }) = (&self.join, &self.read) else {
            return self.read.filtered(d, conditions);
        };
        let sql = Plan(plan).sql();
        let mut args = vec![SqlValue::Text(grouping.pairs.to_string())];
        args.extend(sql.args.iter().cloned());
        (format!("{}{join}{}", sql.from, sql.where_sql(&[])), args)
    }

    /// The source's name, for the logs and the tests.
    pub fn name(&self) -> &'static str {
        match self.join {
            None => "totals by area",
            Some(_) => "rows joined to the areas",
        }
    }
}

/// An area's name, by its id (a cell beside it).
pub fn name_of(grouping: &AreaGrouping, id: &SqlValue) -> SqlValue {
    match id {
        SqlValue::Text(id) => grouping
            .names
            .get(id)
            .map_or(SqlValue::Null, |n| SqlValue::Text(n.clone())),
        _ => SqlValue::Null,
    }
}
