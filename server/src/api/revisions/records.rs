//! Each key's record in each release, written as that release's listing writes it (same
//! fields, order and bytes: the listing's record writer, on a query of the key), and the
//! fields whose values differ from the release before.

use rusqlite::types::{Value as SqlValue, ValueRef};
use serde_json::{Map, Value};

use roadtraffic_catalog::{json, Source};

use super::keys::Key;
use super::{Deadline, RevisionsRequest};
use crate::error::ApiError;
use crate::forms::JsonRecord;
use crate::release::{Release, TimedConnection};
use crate::rows::{Condition, Reading, RowQuery, Rows};

/// One release's side: its name, and how a key's record is read and written in it.
pub struct Side<'a> {
    name: &'a str,
    conn: &'a TimedConnection,
    record: JsonRecord,
    /// The record of a key: one mark per key column, in the key's order.
    sql: String,
}

impl<'a> Side<'a> {
    pub fn new(
        request: &RevisionsRequest,
        name: &'a str,
        release: &Release,
        conn: &'a TimedConnection,
    ) -> Side<'a> {
        let d = request.dataset;
        // One condition per key column, each one mark: the key's values are the arguments.
        let conditions = (d.natural_key.iter())
            .filter_map(|k| d.column(k))
            .map(|c| Condition::In(c, vec![SqlValue::Null]))
            .collect();
        let lookup = Rows {
            dataset: d,
            conditions,
            sort: Vec::new(),
            fields: request.fields.clone(),
            reading: Reading::All,
        };
        let record = JsonRecord::of(&lookup, release, false);
        let sql = RowQuery::all(&record.sql(&lookup)).sql;
        Side {
            name,
            conn,
            record,
            sql,
        }
    }

    /// The key's record in this release, if it has one.
    fn record_of(&mut self, key: &Key) -> Result<Option<Vec<u8>>, ApiError> {
        let conn: &rusqlite::Connection = self.conn;
        let mut statement = conn.prepare_cached(&self.sql)?;
        let mut rows = statement.query(rusqlite::params_from_iter(key.iter()))?;
        let Some(row) = rows.next()? else {
            return Ok(None);
        };
        let mut out = Vec::new();
        self.record.write(conn, &mut out, row)?;
        Ok(Some(out))
    }
}

/// The answer's JSON array: each key with its releases.
pub fn write(
    request: &RevisionsRequest,
    sides: &mut [Side],
    keys: &[Key],
    deadline: &Deadline,
) -> Result<Vec<u8>, ApiError> {
    // `id` is each release's row number, not a figure: never compared.
    let compared: Vec<&str> = (request.fields.iter())
        .filter(|c| c.source != Source::Id)
        .map(|c| c.name)
        .collect();
    let mut out = b"[".to_vec();
    for (i, key) in keys.iter().enumerate() {
        deadline.check()?;
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"key\":");
        write_key(&mut out, request, key);
        out.extend_from_slice(b",\"releases\":[");
        // The record of the release before: `None` before the first release.
        let mut before: Option<Option<Map<String, Value>>> = None;
        for (j, side) in sides.iter_mut().enumerate() {
            let record = side.record_of(key)?;
            let parsed = record.as_deref().map(parse).transpose()?;
            if j > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"release\":");
            json::string(&mut out, side.name);
            out.extend_from_slice(b",\"record\":");
            out.extend_from_slice(record.as_deref().unwrap_or(b"null"));
            out.extend_from_slice(b",\"changed\":");
            let changed = match &before {
                None => Vec::new(),
                Some(before) => changed(&compared, before.as_ref(), parsed.as_ref()),
            };
            write_names(&mut out, &changed);
            out.push(b'}');
            before = Some(parsed);
        }
        out.extend_from_slice(b"]}");
    }
    out.push(b']');
    Ok(out)
}

/// `{"count_point_id":6046,"year":2019}`: the key's columns and values.
fn write_key(out: &mut Vec<u8>, request: &RevisionsRequest, key: &Key) {
    out.push(b'{');
    for (i, (name, value)) in request.dataset.natural_key.iter().zip(key).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json::string(out, name);
        out.push(b':');
        json::value(out, ValueRef::from(value));
    }
    out.push(b'}');
}

fn write_names(out: &mut Vec<u8>, names: &[&str]) {
    out.push(b'[');
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json::string(out, name);
    }
    out.push(b']');
}

fn parse(record: &[u8]) -> Result<Map<String, Value>, ApiError> {
    serde_json::from_slice(record).map_err(|e| ApiError::internal(format!("a record: {e}")))
}

/// The compared fields whose values differ between two releases' records: every field of
/// the one present when the other is absent, none when both are.
fn changed<'n>(
    compared: &[&'n str],
    before: Option<&Map<String, Value>>,
    now: Option<&Map<String, Value>>,
) -> Vec<&'n str> {
    let differs = |name: &&str| match (before, now) {
        (Some(b), Some(n)) => b.get(*name) != n.get(*name),
        (Some(one), None) | (None, Some(one)) => one.contains_key(*name),
        (None, None) => false,
    };
    compared.iter().copied().filter(differs).collect()
}
