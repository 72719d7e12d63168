//! Numbers by x (years, hours) read from SQLite into columns: what the pages' charts and their
//! tables are drawn from. Shared by the pages' queries.

use rusqlite::types::Value;

use roadtraffic_catalog::{AADF, COUNT_POINTS};

use crate::error::ApiError;
use crate::site::View;

/// Numbers by x, in columns: `xs` in order, and each column's value at each x.
pub struct Columns {
    pub xs: Vec<i64>,
    pub columns: Vec<Column>,
}

/// One column: what it is (a column of the table, a code) and its values, one per x.
pub struct Column {
    pub key: String,
    pub values: Vec<Option<f64>>,
}

impl Columns {
    /// The last x and the value of column `key` there, when it has one (the latest total).
    pub fn last_of(&self, key: &str) -> Option<(i64, f64)> {
        let column = self.columns.iter().find(|c| c.key == key);
        self.xs
            .last()
            .copied()
            .zip(column.and_then(|c| c.values.last().copied().flatten()))
    }
}

/// Rows of `(x, value per column)` as columns by x: one per name of `columns`.
pub fn wide(
    view: &View,
    sql: &str,
    params: &[&dyn rusqlite::ToSql],
    columns: &[&str],
) -> Result<Columns, ApiError> {
    wide_in(view.conn, sql, params, columns)
}

/// [`wide`], on any connection (another release's).
pub fn wide_in(
    conn: &rusqlite::Connection,
    sql: &str,
    params: &[&dyn rusqlite::ToSql],
    columns: &[&str],
) -> Result<Columns, ApiError> {
    let mut stmt = conn.prepare(sql)?;
    let mut xs = Vec::new();
    let mut values: Vec<Vec<Option<f64>>> = vec![Vec::new(); columns.len()];
    let mut rows = stmt.query(params)?;
    while let Some(r) = rows.next()? {
        xs.push(r.get(0)?);
        for (i, v) in values.iter_mut().enumerate() {
            v.push(number(r.get(i + 1)?));
        }
    }
    let columns = columns
        .iter()
        .zip(values)
        .map(|(c, values)| Column {
            key: (*c).to_string(),
            values,
        })
        .collect();
    Ok(Columns { xs, columns })
}

/// Rows of `(x, key, value)` as columns by x: one per key, in `keys` order and then in the
/// order keys are first met; a key without a row has no column.
pub fn long(
    view: &View,
    sql: &str,
    params: &[&dyn rusqlite::ToSql],
    keys: &[&str],
) -> Result<Columns, ApiError> {
    let mut stmt = view.conn.prepare(sql)?;
    let mut cells: Vec<(i64, String, Option<f64>)> = Vec::new();
    let mut rows = stmt.query(params)?;
    while let Some(r) = rows.next()? {
        let key: Option<String> = r.get(1)?;
        cells.push((r.get(0)?, key.unwrap_or_default(), number(r.get(2)?)));
    }
    let mut xs: Vec<i64> = cells.iter().map(|c| c.0).collect();
    xs.sort_unstable();
    xs.dedup();
    let mut order: Vec<String> = keys.iter().map(|k| (*k).to_string()).collect();
    for (_, k, _) in &cells {
        if !order.contains(k) {
            order.push(k.clone());
        }
    }
    order.retain(|k| cells.iter().any(|c| &c.1 == k));
    let columns = order
        .into_iter()
        .map(|key| {
            let mut values = vec![None; xs.len()];
            for (x, k, v) in &cells {
                if *k == key {
                    if let Ok(i) = xs.binary_search(x) {
                        values[i] = *v;
                    }
                }
            }
            Column { key, values }
        })
        .collect();
    Ok(Columns { xs, columns })
}

/// A value that a release revised: its column, its x, and what the release before had there.
#[derive(Debug, Clone, PartialEq)]
pub struct Revised {
    pub key: String,
    pub x: i64,
    pub before: Option<f64>,
}

/// What changed from `before` to `now` (the same columns, of two releases): the values revised
/// at the xs both have, column by column, and the xs only `now` has.
pub fn revisions(now: &Columns, before: &Columns) -> (Vec<Revised>, Vec<i64>) {
    let mut revised = Vec::new();
    let mut new_xs = Vec::new();
    for (i, x) in now.xs.iter().enumerate() {
        let Ok(j) = before.xs.binary_search(x) else {
            new_xs.push(*x);
            continue;
        };
        for column in &now.columns {
            let was =
                (before.columns.iter().find(|c| c.key == column.key)).and_then(|c| c.values[j]);
            if column.values[i] != was {
                revised.push(Revised {
                    key: column.key.clone(),
                    x: *x,
                    before: was,
                });
            }
        }
    }
    (revised, new_xs)
}

/// A count point of a page's table, with its latest AADF.
pub struct PointRow {
    pub id: i64,
    pub road: Option<String>,
    pub category: Option<String>,
    pub road_type: Option<String>,
    pub aadf_year: Option<i64>,
    pub aadf: Option<f64>,
}

/// Page `page` (from 1, `per_page` a page) of the count points `condition` (SQL over the
/// count points table, its one parameter `?1` = `arg`) keeps, by road, with their latest
/// AADF.
pub fn count_point_rows(
    view: &View,
    (condition, arg): (&str, &dyn rusqlite::ToSql),
    page: i64,
    per_page: i64,
) -> Result<Vec<PointRow>, ApiError> {
    // The page of count points first, then their latest AADF: joining before the limit would
    // look up the AADF of every count point kept (thousands) for a page of 50.
    let sql = format!(
        "SELECT c.count_point_id, c.road_name, c.road_category, c.aadf_year, a.all_motor_vehicles, c.road_type \
         FROM (SELECT * FROM {} WHERE {condition} \
               ORDER BY road_name, count_point_id LIMIT ?2 OFFSET ?3) c \
         LEFT JOIN {} a ON a.count_point_id = c.count_point_id AND a.year = c.aadf_year \
         ORDER BY c.road_name, c.count_point_id",
        COUNT_POINTS.table, AADF.table
    );
    let mut stmt = view.conn.prepare(&sql)?;
    let args: [&dyn rusqlite::ToSql; 3] = [arg, &per_page, &((page - 1) * per_page)];
    let rows = stmt.query_map(&args[..], |r| {
        Ok(PointRow {
            id: r.get(0)?,
            road: r.get(1)?,
            category: r.get(2)?,
            aadf_year: r.get(3)?,
            aadf: r.get(4)?,
            road_type: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// A number stored as an integer or a real (published totals may be decimals).
fn number(v: Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(i as f64),
        Value::Real(r) => Some(r),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns(xs: &[i64], columns: &[(&str, &[Option<f64>])]) -> Columns {
        Columns {
            xs: xs.to_vec(),
            columns: (columns.iter())
                .map(|(key, values)| Column {
                    key: key.to_string(),
                    values: values.to_vec(),
                })
                .collect(),
        }
    }

    #[test]
    fn revisions_are_the_values_that_differ_and_the_new_xs() {
        let before = columns(
            &[2018, 2019, 2020],
            &[
                ("cars", &[Some(1.0), Some(2.0), Some(3.0)]),
                ("all", &[Some(10.0), Some(20.0), None]),
            ],
        );
        let now = columns(
            &[2019, 2020, 2025],
            &[
                ("cars", &[Some(2.0), Some(4.0), Some(5.0)]),
                ("all", &[Some(20.0), Some(30.0), Some(50.0)]),
            ],
        );
        let revised = |key: &str, x, before| Revised {
            key: key.into(),
            x,
            before,
        };
        assert_eq!(
            revisions(&now, &before),
            (
                vec![revised("cars", 2020, Some(3.0)), revised("all", 2020, None)],
                vec![2025]
            )
        );
        assert_eq!(revisions(&now, &now), (vec![], vec![]));
    }
}
