//! A summary run: one SQL statement grouping its source (see `source`), then each row's
//! averages made from its exact sums.

use rusqlite::types::Value as SqlValue;
use rusqlite::Connection;

use super::by_area::{self, AreaSource};
use super::question::{Measure, SortKey, Stat, Summary, AVG_DECIMALS};
use super::question::{DECIMAL_TEXT_DECIMALS, DERIVED_DECIMALS};
use super::question::{MAX_SUMMARY_LIMIT, MAX_SUMMARY_ROWS};
use super::read_from::{each_row, ReadFrom, Rollups};
use crate::error::ApiError;
use roadtraffic_catalog::totals::{key_value, SummaryMeasure};

/// A value of a summary's row.
#[derive(Debug, Clone, PartialEq)]
pub enum SummaryCell {
    /// As SQLite gives it: a group key, a count, a sum, a minimum or maximum.
    Value(SqlValue),
    /// A decimal written as is: an average, rounded to [`AVG_DECIMALS`] places; a statistic
    /// of a measure added up as integers (`SummaryMeasure::scale`: vehicle-km, link lengths).
    Decimal(String),
}

/// One group: its cells in the summary's output order (`Summary::output_names`).
pub type SummaryRow = Vec<SummaryCell>;

/// A summary's answer.
pub struct SummaryRows {
    pub names: Vec<String>,
    pub rows: Vec<SummaryRow>,
}

/// What the statement selects of a measure: its sum, with how many values for an average, or
/// its minimum or maximum (each part costs its expression again: vehicle-km's is not free).
fn selected(stat: Stat) -> &'static [&'static str] {
    match stat {
        Stat::Sum => &["sum"],
        Stat::Avg => &["sum", "count"],
        Stat::Min => &["min"],
        Stat::Max => &["max"],
    }
}

impl Summary {
    /// Where it is answered from.
    pub fn source(&self, rollups: &Rollups) -> ReadFrom {
        if let Some(area) = self.area_source() {
            return area.read;
        }
        let measures: Vec<&str> = self.measures.iter().map(|m| m.of.name()).collect();
        ReadFrom::choose(
            self.dataset,
            &self.conditions,
            &self.group_by,
            &measures,
            rollups,
        )
    }

    /// Where a question by area is read from (`by_area`).
    fn area_source(&self) -> Option<AreaSource> {
        let grouping = self.by_area.as_ref()?;
        let measures: Vec<&str> = self.measures.iter().map(|m| m.of.name()).collect();
        let asked = (grouping, self.group_by.as_slice());
        Some(AreaSource::choose(
            self.dataset,
            &self.conditions,
            asked,
            &measures,
        ))
    }

    /// The statement: `ga` the area, `g0..` the keys, `n` the count, `m0_sum`, `m0_count`...
    /// each measure's parts; grouped by the keys, in the asked order, from the offset, one row
    /// past the cap.
    pub fn sql(&self, source: &ReadFrom, area: Option<&AreaSource>) -> (String, Vec<SqlValue>) {
        let mut select: Vec<String> = area.iter().map(|a| format!("{} AS ga", a.area)).collect();
        select.extend(
            (self.group_by.iter().enumerate())
                .map(|(i, c)| format!("{} AS g{i}", key_value(c, &source.column(c)))),
        );
        select.push(format!("{} AS n", source.records()));
        for (i, m) in self.measures.iter().enumerate() {
            for part in selected(m.stat) {
                select.push(format!("{} AS m{i}_{part}", source.stat(part, &m.of)));
            }
        }
        let (from, args) = match (area, &self.by_area) {
            (Some(a), Some(grouping)) => a.filtered(self.dataset, &self.conditions, grouping),
            _ => source.filtered(self.dataset, &self.conditions),
        };
        // Grouped and ordered by the columns, in their collation (letter case ignored where
        // filters ignore it); each key written in one spelling (`key_value`).
        let areas = area.iter().map(|_| "ga".to_string());
        let columns = self.group_by.iter().map(|c| source.column(c));
        let groups: Vec<String> = areas.chain(columns).collect();
        let group_by = match groups.is_empty() {
            true => String::new(),
            false => format!(" GROUP BY {}", groups.join(", ")),
        };
        let mut order: Vec<String> = self
            .sort
            .iter()
            .map(|(k, desc)| self.order_term(source, *k, *desc))
            .collect();
        order.extend(groups);
        let order_by = match order.is_empty() {
            true => String::new(),
            false => format!(" ORDER BY {}", order.join(", ")),
        };
        let limit = self.limit.unwrap_or(MAX_SUMMARY_ROWS + 1);
        let offset = self
            .offset
            .map_or(String::new(), |n| format!(" OFFSET {n}"));
        let sql = format!(
            "SELECT {} FROM {from}{group_by}{order_by} LIMIT {limit}{offset}",
            select.join(", ")
        );
        (sql, args)
    }

    fn order_term(&self, source: &ReadFrom, key: SortKey, desc: bool) -> String {
        let term = match key {
            SortKey::Group(i) => source.column(self.group_by[i]),
            SortKey::Area => "ga".to_string(),
            SortKey::Count => "n".to_string(),
            SortKey::Measure(i) => match self.measures[i].stat {
                Stat::Sum => format!("m{i}_sum"),
                Stat::Avg => format!("m{i}_sum * 1.0 / m{i}_count"),
                Stat::Min => format!("m{i}_min"),
                Stat::Max => format!("m{i}_max"),
            },
        };
        match desc {
            true => format!("{term} DESC"),
            false => term,
        }
    }

    /// Runs it on `conn` (a connection under the time limit).
    pub fn run(&self, conn: &Connection, rollups: &Rollups) -> Result<SummaryRows, ApiError> {
        let area = self.area_source();
        let source = match &area {
            Some(a) => &a.read,
            None => &self.source(rollups),
        };
        let (sql, args) = self.sql(source, area.as_ref());
        let name = area.as_ref().map_or(source.name(), AreaSource::name);
        log::debug!("{} summary: {name}", self.dataset.table);
        let mut rows = Vec::new();
        each_row(conn, &sql, &args, |r| {
            rows.push(self.row(r)?);
            Ok(())
        })?;
        // Without GROUP BY, SQLite gives its one row even over no records: a count of 0.
        if self.limit.is_none() && rows.len() > MAX_SUMMARY_ROWS {
            return Err(ApiError::BadRequest(format!(
                "The summary has more than {MAX_SUMMARY_ROWS} groups: filter it, group by fewer columns, or give limit (at most {MAX_SUMMARY_LIMIT}) for the first rows in order, and offset for the rows after them."
            )));
        }
        Ok(SummaryRows {
            names: self.output_names(),
            rows,
        })
    }

    fn row(&self, r: &rusqlite::Row) -> Result<SummaryRow, ApiError> {
        let mut cells = Vec::with_capacity(self.group_by.len() + 1 + self.measures.len());
        let mut at = 0;
        let mut next = || {
            at += 1;
            r.get::<_, SqlValue>(at - 1)
        };
        if let Some(grouping) = &self.by_area {
            let id = next()?;
            let name = by_area::name_of(grouping, &id);
            cells.extend([SummaryCell::Value(id), SummaryCell::Value(name)]);
        }
        for _ in &self.group_by {
            cells.push(SummaryCell::Value(next()?));
        }
        cells.push(SummaryCell::Value(next()?));
        for m in &self.measures {
            let cell = match m.stat {
                Stat::Avg => {
                    let sum = next()?;
                    measure_cell(m, sum, next()?)
                }
                Stat::Sum | Stat::Min | Stat::Max => measure_cell(m, next()?, SqlValue::Integer(1)),
            };
            cells.push(cell);
        }
        Ok(cells)
    }
}

/// A measure's cell from what the statement selects of it: its sum (or minimum, or maximum)
/// and how many values it has. Measures added up as integers of a unit's `scale`ths are
/// written as exact decimals: vehicle-km to [`DERIVED_DECIMALS`] places, decimal text's sums
/// and averages to [`DECIMAL_TEXT_DECIMALS`] (its least and most as the numbers read).
fn measure_cell(m: &Measure, value: SqlValue, count: SqlValue) -> SummaryCell {
    let (scale, places) = match m.of {
        SummaryMeasure::Number(_) => (None, AVG_DECIMALS),
        SummaryMeasure::DecimalText(_) if matches!(m.stat, Stat::Min | Stat::Max) => {
            (None, AVG_DECIMALS)
        }
        SummaryMeasure::DecimalText(_) => (m.of.scale(), DECIMAL_TEXT_DECIMALS),
        SummaryMeasure::Derived(_) => (m.of.scale(), DERIVED_DECIMALS),
    };
    match (m.stat, scale, &value) {
        (Stat::Avg, None, _) => average(&value, count),
        (_, None, _) => SummaryCell::Value(value),
        (Stat::Avg, Some(scale), SqlValue::Integer(sum)) => match count {
            SqlValue::Integer(n) if n > 0 => {
                SummaryCell::Decimal(decimal(*sum as i128, n as i128 * scale as i128, places))
            }
            _ => SummaryCell::Value(SqlValue::Null),
        },
        (_, Some(scale), SqlValue::Integer(v)) => {
            SummaryCell::Decimal(decimal(*v as i128, scale as i128, places))
        }
        // No value in the group (null), or none an integer could hold.
        _ => SummaryCell::Value(SqlValue::Null),
    }
}

/// The average of values summing to `sum`, `count` of them: exact for integers (the exact sum
/// over the count, rounded half away from zero), rounded from the float for decimals; null
/// when there are none.
pub fn average(sum: &SqlValue, count: SqlValue) -> SummaryCell {
    let n = match count {
        SqlValue::Integer(n) if n > 0 => n,
        _ => return SummaryCell::Value(SqlValue::Null),
    };
    match sum {
        SqlValue::Integer(s) => SummaryCell::Decimal(exact_average(*s, n)),
        SqlValue::Real(s) => SummaryCell::Decimal(rounded_average(*s, n)),
        _ => SummaryCell::Value(SqlValue::Null),
    }
}

/// `sum / n` of decimals, to [`AVG_DECIMALS`] places, rounded half away from zero as an exact
/// average is (`format!` would round a tie such as 0.0625 to even); never `-0.000`.
fn rounded_average(sum: f64, n: i64) -> String {
    let scale = 10f64.powi(AVG_DECIMALS as i32);
    let scaled = (sum / n as f64 * scale).round() + 0.0;
    let places = AVG_DECIMALS as usize;
    format!("{:.places$}", scaled / scale)
}

/// `sum / n` in decimal, to [`AVG_DECIMALS`] places, rounded half away from zero.
fn exact_average(sum: i64, n: i64) -> String {
    decimal(sum as i128, n as i128, AVG_DECIMALS)
}

/// `numerator / denominator` (positive) in decimal, to `places` places, rounded half away
/// from zero; never `-0.000`.
fn decimal(numerator: i128, denominator: i128, places: u32) -> String {
    let scale = 10i128.pow(places);
    let scaled = numerator * scale;
    let magnitude = (2 * scaled.abs() + denominator) / (2 * denominator);
    let sign = if scaled < 0 && magnitude != 0 {
        "-"
    } else {
        ""
    };
    let places = places as usize;
    format!("{sign}{}.{:0places$}", magnitude / scale, magnitude % scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn averages_are_exact_and_rounded_half_away_from_zero() {
        assert_eq!(exact_average(10, 4), "2.500");
        assert_eq!(exact_average(2, 3), "0.667");
        assert_eq!(exact_average(-2, 3), "-0.667");
        assert_eq!(exact_average(1, 2000), "0.001");
        assert_eq!(exact_average(-1, 2001), "0.000");
        assert_eq!(exact_average(i64::MAX, 1), format!("{}.000", i64::MAX));
        assert_eq!(
            exact_average(i64::MIN, 1),
            format!("-{}.000", (i64::MIN as i128).abs())
        );
        let big = 9_007_199_254_740_993i64; // 2^53 + 1: no f64 holds it
        assert_eq!(exact_average(big, 1), "9007199254740993.000");
        assert_eq!(
            average(&SqlValue::Null, SqlValue::Integer(0)),
            SummaryCell::Value(SqlValue::Null)
        );
        assert_eq!(
            average(&SqlValue::Real(1.0), SqlValue::Integer(3)),
            SummaryCell::Decimal("0.333".into())
        );
        assert_eq!(rounded_average(0.125, 2), "0.063");
        assert_eq!(rounded_average(2.3125, 1), "2.313");
        assert_eq!(rounded_average(-0.0625, 1), "-0.063");
        assert_eq!(rounded_average(-0.0001, 1), "0.000");
    }

    #[test]
    fn scaled_measures_are_written_exactly_to_their_places() {
        let aadf = &roadtraffic_catalog::AADF;
        let measure = |stat, name| Measure {
            stat,
            of: aadf.summary_measure(name).unwrap(),
        };
        let int = SqlValue::Integer;
        let cell =
            |stat, name, value: SqlValue, n| measure_cell(&measure(stat, name), value, int(n));
        let decimal = |text: &str| SummaryCell::Decimal(text.to_string());
        // Vehicle-km in thousandths: 3 places; an average rounded half away from zero.
        assert_eq!(
            cell(Stat::Sum, "vehicle_km", int(4_540_515), 2),
            decimal("4540.515")
        );
        assert_eq!(
            cell(Stat::Avg, "vehicle_km", int(4_540_515), 2),
            decimal("2270.258")
        );
        assert_eq!(cell(Stat::Max, "vehicle_km", int(-5), 1), decimal("-0.005"));
        // Decimal text in hundred-millionths: sums and averages to 6 places, extremes as read.
        let lat = 5_256_592_300;
        assert_eq!(
            cell(Stat::Sum, "latitude", int(lat), 1),
            decimal("52.565923")
        );
        assert_eq!(
            cell(Stat::Avg, "latitude", int(lat + 1), 3),
            decimal("17.521974")
        );
        let real = SqlValue::Real(52.565923);
        assert_eq!(
            cell(Stat::Min, "latitude", real.clone(), 1),
            SummaryCell::Value(real)
        );
        // Stored integers as before: sums as SQLite gives them, averages to 3 places.
        assert_eq!(
            cell(Stat::Sum, "year", int(4039), 2),
            SummaryCell::Value(int(4039))
        );
        assert_eq!(cell(Stat::Avg, "year", int(4039), 2), decimal("2019.500"));
        // No value: null, whatever the measure.
        for name in ["vehicle_km", "latitude", "year"] {
            for stat in Stat::ALL {
                let none = cell(stat, name, SqlValue::Null, 0);
                assert_eq!(none, SummaryCell::Value(SqlValue::Null), "{name}");
            }
        }
    }
}
