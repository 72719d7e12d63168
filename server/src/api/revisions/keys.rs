//! The page of keys: each release's natural keys of the records the filters match, read in key
//! order by one statement per release, merged as they come (a key in several releases counted
//! once) until the page is full. Memory holds a page; time grows with the page's depth, under
//! the query time limit.

use std::cmp::Ordering;

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::ValueType;

use super::RevisionsRequest;
use crate::api::envelope::Envelope;
use crate::api::params::ListRequest;
use crate::api::plan::Plan;
use crate::api::Window;
use crate::error::ApiError;
use crate::release::TimedConnection;

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
    let (sql, mut args) = key_sql(request);
    // Each release's first offset + size + 1 keys hold the union's: SQLite stops there.
    let limit = window.offset.saturating_add(window.size).saturating_add(1);
    args.push(SqlValue::Integer(limit));
    let mut statements = (conns.iter())
        .map(|c| c.prepare(&sql))
        .collect::<Result<Vec<_>, _>>()?;
    let mut cursors = (statements.iter_mut())
        .map(|s| s.query(rusqlite::params_from_iter(args.iter())))
        .collect::<Result<Vec<_>, _>>()?;
    let width = request.dataset.natural_key.len();
    let mut heads = (cursors.iter_mut())
        .map(|c| next_key(c, width))
        .collect::<Result<Vec<_>, _>>()?;
    let (mut skipped, mut keys) = (0i64, Vec::new());
    while let Some(least) = heads.iter().flatten().min_by(|a, b| compare(a, b)).cloned() {
        for (head, cursor) in heads.iter_mut().zip(cursors.iter_mut()) {
            if head.as_ref().is_some_and(|h| compare(h, &least).is_eq()) {
                *head = next_key(cursor, width)?;
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

/// The request whose plan gives the keys' FROM and WHERE: the filters, and (when the key's
/// first column is a run column, as a raw count's count point) sorted by it, so that the
/// runs, whose index holds it, are joined and read in its order rather than every row sorted.
fn key_request(request: &RevisionsRequest) -> ListRequest {
    let d = request.dataset;
    let first = d.natural_key.first().and_then(|k| d.column(k));
    let by_runs = first.filter(|c| d.run_columns.contains(&c.name));
    ListRequest {
        dataset: d,
        conditions: request.conditions.clone(),
        sort: by_runs.map(|c| (c, false)).into_iter().collect(),
        fields: d.natural_key.iter().filter_map(|k| d.column(k)).collect(),
        page: None,
        envelope: Envelope::Laravel,
        features: None,
    }
}

/// The statement of a release's keys, in key order (text compared as bytes, as [`compare`]
/// does), at most `?` (its last mark) of them; and the filters' arguments.
fn key_sql(request: &RevisionsRequest) -> (String, Vec<SqlValue>) {
    let d = request.dataset;
    let key_request = key_request(request);
    let plan = Plan(&key_request);
    let sql = plan.sql();
    let columns: Vec<String> = (d.natural_key.iter())
        .map(|k| plan.column_named(k, sql.joined))
        .collect();
    let order: Vec<String> = (d.natural_key.iter().zip(&columns))
        .map(|(k, c)| match d.column(k).map(|c| c.ty) {
            Some(ValueType::Text | ValueType::Date) => format!("{c} COLLATE BINARY"),
            _ => c.clone(),
        })
        .collect();
    let text = format!(
        "SELECT {} FROM {}{} ORDER BY {} LIMIT ?",
        columns.join(", "),
        sql.from,
        sql.where_sql(&[]),
        order.join(", ")
    );
    (text, sql.args)
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
pub fn compare(a: &Key, b: &Key) -> Ordering {
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
