//! A row's cells, each checked against its column (see `value::parse`), and the surprises of
//! the kept ones reported.

use roadtraffic_catalog::{Column, Dataset, Domain, ValueType};

use crate::report::{LoadReport, WarningKind};
use crate::value::{self, Notes, Value};

/// Why a row is unreadable: the column, if one is to blame, and the reason.
pub type RowProblem = (Option<&'static str>, String);

/// The cells of one dataset's rows. Text cells (names, codes, coordinates) are the costly ones
/// to check; when one's bytes are those of its column's last cell (a raw count file repeats a
/// count point's location on each of its 24 rows), the last value is taken again.
pub struct Cells {
    strict: bool,
    /// Each column's last text cell as read, and its value, when it had nothing to report.
    last: Vec<Option<(Vec<u8>, Value)>>,
}

impl Cells {
    pub fn new(d: &Dataset) -> Self {
        Cells {
            strict: d.integers_strict,
            last: vec![None; d.columns().count()],
        }
    }

    /// The value of column `at` (`c`) from its raw cell.
    pub fn value(
        &mut self,
        at: usize,
        c: &'static Column,
        raw: &[u8],
        place: (&str, u64),
        report: &mut LoadReport,
    ) -> Result<Value, RowProblem> {
        if let Some((bytes, v)) = &self.last[at] {
            if bytes.as_slice() == raw {
                return Ok(v.clone());
            }
        }
        let (v, notes) =
            value::parse(raw, c, self.strict).map_err(|bad| (Some(c.name), bad.to_string()))?;
        if notes.any() {
            note_cell(report, place, c, &v, notes);
            self.last[at] = None;
        } else if c.ty == ValueType::Text {
            let last = self.last[at].get_or_insert_with(|| (Vec::new(), Value::Null));
            last.0.clear();
            last.0.extend_from_slice(raw);
            last.1 = v.clone();
        }
        Ok(v)
    }
}

/// Warnings for the surprises in a cell that is kept.
fn note_cell(report: &mut LoadReport, place: (&str, u64), c: &Column, v: &Value, notes: Notes) {
    let at = format!("{}:{}", place.0, place.1);
    let shown = || v.as_text().map_or_else(String::new, value::shown);
    if notes.not_utf8 {
        let detail = format!("{}: read as '{}'", c.name, shown());
        report.warn(WarningKind::NotUtf8, &at, Some(detail));
    }
    if notes.quote {
        let detail = format!("{}: '{}'", c.name, shown());
        report.warn(WarningKind::QuoteInField, &at, Some(detail));
    }
    if let (true, Domain::Code(codes)) = (notes.unknown_code, c.domain) {
        let detail = format!(
            "{}: '{}' is not one of {}",
            c.name,
            shown(),
            codes.join(", ")
        );
        report.warn(WarningKind::UnknownCode, &at, Some(detail));
    }
}
