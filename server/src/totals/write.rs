//! A summary's rows, written by the forms' writers (`forms::Spec::of_summary`: a JSON array,
//! CSV, NDJSON), each row a record: a JSON object of its columns, or its cells. Keys and
//! measures are written as SQLite gives them, averages as their decimal text: a JSON number
//! either way.

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::json;

use super::summary::{SummaryCell, SummaryRows};
use crate::error::ApiError;
use crate::forms::{CellValue, Form, Record, Spec};
use crate::rows::Found;

/// A summary's rows in `form` (JSON, CSV or NDJSON: `api::SUMMARY_FORMS`).
pub fn write(form: Form, summary: &SummaryRows) -> Result<Vec<u8>, ApiError> {
    let mut out = Vec::with_capacity(64 + summary.rows.len() * 64);
    let mut writer = Spec::of_summary(form, summary.names.clone());
    writer.open(&mut out, &Found::All)?;
    for row in &summary.rows {
        let mut record = SummaryRecord {
            names: &summary.names,
            cells: row,
        };
        writer.record(&mut out, &mut record)?;
    }
    writer.close(&mut out, &Found::All, summary.rows.len())?;
    Ok(out)
}

/// A summary's row as a record.
struct SummaryRecord<'a> {
    names: &'a [String],
    cells: &'a [SummaryCell],
}

impl Record for SummaryRecord<'_> {
    fn json(&mut self, out: &mut Vec<u8>) -> Result<(), ApiError> {
        out.push(b'{');
        for (i, (name, cell)) in self.names.iter().zip(self.cells).enumerate() {
            if i > 0 {
                out.push(b',');
            }
            json::string(out, name);
            out.push(b':');
            match cell {
                SummaryCell::Value(v) => json::value(out, v.into()),
                SummaryCell::Decimal(d) => out.extend_from_slice(d.as_bytes()),
            }
        }
        out.push(b'}');
        Ok(())
    }

    fn feature(&mut self, _: &mut Vec<u8>) -> Result<(), ApiError> {
        Err(ApiError::internal("a summary's row has no place"))
    }

    fn cells(
        &mut self,
        each: &mut dyn FnMut(CellValue) -> Result<(), ApiError>,
    ) -> Result<(), ApiError> {
        for cell in self.cells {
            each(match cell {
                SummaryCell::Value(SqlValue::Null) => CellValue::Null,
                SummaryCell::Value(SqlValue::Integer(n)) => CellValue::Integer(*n),
                SummaryCell::Value(SqlValue::Real(f)) => CellValue::Real(*f),
                SummaryCell::Value(SqlValue::Text(t)) => CellValue::Text(t.as_bytes()),
                SummaryCell::Value(SqlValue::Blob(b)) => CellValue::Text(b),
                SummaryCell::Decimal(d) => CellValue::Decimal(d),
            })?;
        }
        Ok(())
    }
}
