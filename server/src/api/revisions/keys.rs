//! The page of keys: each release's natural keys of the records the filters match, read in key
//! order by one statement per release, merged as they come (a key in several releases counted
//! once) until the page is full. Memory holds a page; time grows with the page's depth, under
//! the query time limit.

use std::cmp::Ordering;

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::ValueType;

use super::RevisionsRequest;
use crate::error::ApiError;
use crate::release::TimedConnection;
use crate::rows::{Plan, Reading, Rows, Window};

/// A natural key's values, in the catalogue's order of its columns.
pub type Key = Vec<SqlValue>;

/// The keys of a page, and whether more follow.
pub struct KeyPage {
    pub keys: Vec<Key>,
    pub more: bool,
}

/// The keys of `window` in the union of every release's keys (`conns`, one a release).
pub fn page(
    request: &RevisionsRequest,
    conns: &[TimedConnection],
    window: Window,
) -> Result<KeyPage, ApiError> {
    // Each release's first offset + size + 1 keys hold the union's: SQLite may stop there.
    let limit = window.offset.saturating_add(window.size).saturating_add(1);
    let query = key_sql(request, limit);
    let mut statements = (conns.iter())
        .map(|c| c.prepare(&query.sql))
        .collect::<Result<Vec<_>, _>>()?;
    let mut cursors = (statements.iter_mut())
        .map(|s| {
            let rows = s.query(rusqlite::params_from_iter(query.args.iter()))?;
            Ok(Cursor::new(
                rows,
                request.dataset.natural_key.len(),
                query.ordered,
            ))
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    let mut heads = (cursors.iter_mut())
        .map(Cursor::next)
        .collect::<Result<Vec<_>, _>>()?;
    let (mut skipped, mut keys) = (0i64, Vec::new());
    while let Some(least) = heads.iter().flatten().min_by(|a, b| compare(a, b)).cloned() {
        for (head, cursor) in heads.iter_mut().zip(cursors.iter_mut()) {
            if head.as_ref().is_some_and(|h| compare(h, &least).is_eq()) {
                *head = cursor.next()?;
            }
        }
        if skipped < window.offset {
            skipped += 1;
        } else if keys.len() as i64 == window.size {
            return Ok(KeyPage { keys, more: true });
        } else {
            keys.push(least);
        }
    }
    Ok(KeyPage { keys, more: false })
}

/// A release's keys in key order: as SQLite gives them when it orders them whole; else in
/// groups that share the leading columns it orders, each group sorted here (a raw count's
/// count point and day: 24 rows).
struct Cursor<'s> {
    rows: rusqlite::Rows<'s>,
    width: usize,
    /// The leading key columns SQLite orders.
    ordered: usize,
    /// The rest of the group being read, largest first.
    group: Vec<Key>,
    /// The first key of the next group, read to find the group's end.
    ahead: Option<Key>,
}

impl<'s> Cursor<'s> {
    fn new(rows: rusqlite::Rows<'s>, width: usize, ordered: usize) -> Self {
        Cursor {
            rows,
            width,
            ordered,
            group: Vec::new(),
            ahead: None,
        }
    }

    fn next(&mut self) -> Result<Option<Key>, ApiError> {
        if let Some(key) = self.group.pop() {
            return Ok(Some(key));
        }
        if self.ordered == self.width {
            return next_key(&mut self.rows, self.width);
        }
        let Some(first) = self
            .ahead
            .take()
            .map_or_else(|| next_key(&mut self.rows, self.width), |k| Ok(Some(k)))?
        else {
            return Ok(None);
        };
        let mut group = vec![first];
        while let Some(key) = next_key(&mut self.rows, self.width)? {
            if compare(&key[..self.ordered], &group[0][..self.ordered]).is_ne() {
                self.ahead = Some(key);
                break;
            }
            group.push(key);
        }
        group.sort_by(|a, b| compare(b, a));
        self.group = group;
        Ok(self.group.pop())
    }
}

/// The rows whose plan gives the keys' FROM and WHERE: the filters, and (when the key's first
/// column is a run column, as a raw count's count point) sorted by it, so that the runs, whose
/// index holds it, are joined and read in its order rather than every row sorted.
fn key_request(request: &RevisionsRequest) -> Rows {
    let d = request.dataset;
    let first = d.natural_key.first().and_then(|k| d.column(k));
    let by_runs = first.filter(|c| d.run_columns.contains(&c.name));
    Rows {
        dataset: d,
        conditions: request.conditions.clone(),
        sort: by_runs.map(|c| (c, false)).into_iter().collect(),
        fields: d.natural_key.iter().filter_map(|k| d.column(k)).collect(),
        reading: Reading::All,
    }
}

/// A release's keys: the statement, its arguments, and how many of the key's leading columns
/// it orders.
struct KeyQuery {
    sql: String,
    args: Vec<SqlValue>,
    ordered: usize,
}

/// The statement of a release's keys, in key order (text compared as bytes, as [`compare`]
/// does), at most `limit` of them. Where the runs are joined (raw counts), SQLite orders only
/// the key's leading run columns: it then walks the runs' index, where ordering by the row's
/// own columns too it would sort every row (seconds, on five million raw counts); the rest of
/// the order is the [`Cursor`]'s. A limit is written in the statement, which SQLite plans with
/// it, and only when the order is whole (a cut inside a group would drop keys of it).
fn key_sql(request: &RevisionsRequest, limit: i64) -> KeyQuery {
    let d = request.dataset;
    let key_request = key_request(request);
    let plan = Plan(&key_request);
    let sql = plan.sql();
    let columns: Vec<String> = (d.natural_key.iter())
        .map(|k| plan.column_named(k, sql.joined))
        .collect();
    let ordered = match sql.joined {
        true => (d.natural_key.iter())
            .take_while(|k| d.run_columns.contains(k))
            .count()
            .max(1),
        false => columns.len(),
    };
    let order: Vec<String> = (d.natural_key.iter().zip(&columns))
        .take(ordered)
        .map(|(k, c)| match d.column(k).map(|c| c.ty) {
            Some(ValueType::Text | ValueType::Date) => format!("{c} COLLATE BINARY"),
            _ => c.clone(),
        })
        .collect();
    let limit = match ordered == columns.len() {
        true => format!(" LIMIT {limit}"),
        false => String::new(),
    };
    KeyQuery {
        sql: format!(
            "SELECT {} FROM {}{} ORDER BY {}{limit}",
            columns.join(", "),
            sql.from,
            sql.where_sql(&[]),
            order.join(", ")
        ),
        args: sql.args,
        ordered,
    }
}

/// The next key of a release's statement, if any.
fn next_key(rows: &mut rusqlite::Rows, width: usize) -> Result<Option<Key>, ApiError> {
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let key = (0..width).map(|i| row.get::<_, SqlValue>(i));
    Ok(Some(key.collect::<Result<_, _>>()?))
}

/// Keys in SQLite's order of values (numbers before text, text as bytes), column by column.
pub fn compare(a: &[SqlValue], b: &[SqlValue]) -> Ordering {
    let rank = |v: &SqlValue| match v {
        SqlValue::Null => 0,
        SqlValue::Integer(_) | SqlValue::Real(_) => 1,
        SqlValue::Text(_) => 2,
        SqlValue::Blob(_) => 3,
    };
    let number = |v: &SqlValue| match v {
        SqlValue::Integer(i) => *i as f64,
        SqlValue::Real(r) => *r,
        _ => 0.0,
    };
    let one = |x: &SqlValue, y: &SqlValue| match (x, y) {
        (SqlValue::Integer(i), SqlValue::Integer(j)) => i.cmp(j),
        (SqlValue::Text(s), SqlValue::Text(t)) => s.as_bytes().cmp(t.as_bytes()),
        (SqlValue::Blob(s), SqlValue::Blob(t)) => s.cmp(t),
        _ => (rank(x).cmp(&rank(y))).then(number(x).total_cmp(&number(y))),
    };
    (a.iter().zip(b))
        .map(|(x, y)| one(x, y))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys as SQLite gives them ordered by their first column only, each group's rest in
    /// any order: the cursor gives them in whole key order.
    #[test]
    fn a_cursor_sorts_each_group_that_sqlite_leaves_unsorted() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE k (a INTEGER, b TEXT, c INTEGER);
             INSERT INTO k VALUES (2, 'y', 1), (1, 'b', 2), (2, 'x', 9), (1, 'a', 3), (1, 'b', 1), (3, 'Z', 0);",
        )
        .unwrap();
        let mut statement = conn.prepare("SELECT a, b, c FROM k ORDER BY a").unwrap();
        let mut cursor = Cursor::new(statement.query([]).unwrap(), 3, 1);
        let mut keys = Vec::new();
        while let Some(key) = cursor.next().unwrap() {
            keys.push(key);
        }
        let mut sorted = keys.clone();
        sorted.sort_by(|a, b| compare(a, b));
        assert_eq!(keys, sorted);
        assert_eq!(keys.len(), 6);
        assert_eq!(
            keys[0],
            [
                SqlValue::Integer(1),
                SqlValue::Text("a".into()),
                SqlValue::Integer(3)
            ]
        );
    }

    #[test]
    fn keys_compare_as_sqlite_orders_values() {
        let key = |v: &[SqlValue]| v.to_vec();
        let (one, two) = (SqlValue::Integer(1), SqlValue::Integer(2));
        let text = |t: &str| SqlValue::Text(t.into());
        assert!(compare(
            &key(&[one.clone(), text("b")]),
            &key(&[two.clone(), text("a")])
        )
        .is_lt());
        assert!(compare(
            &key(&[one.clone(), text("B")]),
            &key(&[one.clone(), text("a")])
        )
        .is_lt());
        assert!(compare(&[SqlValue::Null], std::slice::from_ref(&one)).is_lt());
        assert!(compare(
            &key(&[two, text("a")]),
            &key(&[SqlValue::Real(1.5), text("a")])
        )
        .is_gt());
        assert!(compare(&key(&[one.clone(), text("a")]), &key(&[one, text("a")])).is_eq());
    }
}
