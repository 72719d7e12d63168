//! A summary's rows written as JSON (an array of objects), CSV (a header, then a line per
//! row) or NDJSON (an object per line). Keys and measures are written as SQLite gives them,
//! averages as their decimal text: a JSON number either way.

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::json;

use super::summary::{Cell, SummaryRows};
use crate::downloads::csv_text;
use crate::downloads::layout::Quoting;
use crate::forms::Form;

/// A summary's rows in `form` (JSON, CSV or NDJSON: `api::SUMMARY_FORMS`).
pub fn write(form: Form, summary: &SummaryRows) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + summary.rows.len() * 64);
    match form {
        Form::Ndjson => {
            for row in &summary.rows {
                object(&mut out, &summary.names, row);
                out.push(b'\n');
            }
        }
        Form::Csv => {
            let names = summary
                .names
                .iter()
                .map(|n| Cell::Value(SqlValue::Text(n.clone())));
            csv_line(&mut out, &names.collect::<Vec<_>>());
            for row in &summary.rows {
                csv_line(&mut out, row);
            }
        }
        _ => {
            out.push(b'[');
            for (i, row) in summary.rows.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                object(&mut out, &summary.names, row);
            }
            out.push(b']');
        }
    }
    out
}

fn object(out: &mut Vec<u8>, names: &[String], row: &[Cell]) {
    out.push(b'{');
    for (i, (name, cell)) in names.iter().zip(row).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json::string(out, name);
        out.push(b':');
        match cell {
            Cell::Value(v) => json::value(out, v.into()),
            Cell::Decimal(d) => out.extend_from_slice(d.as_bytes()),
        }
    }
    out.push(b'}');
}

fn csv_line(out: &mut Vec<u8>, row: &[Cell]) {
    for (i, cell) in row.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match cell {
            Cell::Value(SqlValue::Null) => {}
            Cell::Value(SqlValue::Integer(n)) => json::int(out, *n),
            Cell::Value(SqlValue::Real(f)) => out.extend_from_slice(f.to_string().as_bytes()),
            Cell::Value(SqlValue::Text(t)) => csv_text(out, t.as_bytes(), Quoting::WhereNeeded),
            Cell::Value(SqlValue::Blob(b)) => csv_text(out, b, Quoting::WhereNeeded),
            Cell::Decimal(d) => out.extend_from_slice(d.as_bytes()),
        }
    }
    out.push(b'\n');
}
