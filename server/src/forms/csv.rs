//! The CSV form: a header line, then a line of cells per record (a download's layout, a
//! listing's fields, a summary's columns), each cell as the layout quotes it.

use super::file_layout::{CellValue, Quoting};
use super::writer::{Record, Writer};
use crate::error::ApiError;
use crate::rows::Found;

/// Records as CSV lines under `headers`.
pub struct Csv {
    headers: Vec<String>,
    quoting: Quoting,
}

impl Csv {
    pub fn new(headers: Vec<String>, quoting: Quoting) -> Csv {
        Csv { headers, quoting }
    }
}

impl Writer for Csv {
    fn open(&mut self, out: &mut Vec<u8>, _: &Found) -> Result<(), ApiError> {
        for (i, h) in self.headers.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            text(out, h.as_bytes(), self.quoting);
        }
        out.push(b'\n');
        Ok(())
    }

    fn record(&mut self, out: &mut Vec<u8>, record: &mut dyn Record) -> Result<(), ApiError> {
        let mut first = true;
        record.cells(&mut |value| {
            if !first {
                out.push(b',');
            }
            first = false;
            cell(out, value, self.quoting);
            Ok(())
        })?;
        out.push(b'\n');
        Ok(())
    }

    fn close(&mut self, _: &mut Vec<u8>, _: &Found, _: usize) -> Result<(), ApiError> {
        Ok(())
    }
}

fn cell(out: &mut Vec<u8>, value: CellValue, quoting: Quoting) {
    match value {
        CellValue::Null => {}
        CellValue::Integer(i) => out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes()),
        // The shortest text that reads back as the same number.
        CellValue::Real(f) => out.extend_from_slice(f.to_string().as_bytes()),
        CellValue::Decimal(d) => out.extend_from_slice(d.as_bytes()),
        CellValue::Text(t) => text(out, t, quoting),
    }
}

/// Text, quoted as the layout says; a quote inside is doubled. Where needed is where PHP's
/// `fputcsv` (DfT's) quotes: a comma, a quote, a backslash, a space, a tab or a line end.
fn text(out: &mut Vec<u8>, t: &[u8], quoting: Quoting) {
    let needs = quoting == Quoting::AllText
        || t.iter()
            .any(|b| matches!(b, b' ' | b',' | b'"' | b'\\' | b'\t' | b'\n' | b'\r'));
    if !needs {
        out.extend_from_slice(t);
        return;
    }
    out.push(b'"');
    for &b in t {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_quoted_where_fputcsv_quotes_it() {
        let quoted = |t: &str, q| {
            let mut out = Vec::new();
            text(&mut out, t.as_bytes(), q);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(quoted("A38", Quoting::WhereNeeded), "A38");
        assert_eq!(quoted("A38", Quoting::AllText), "\"A38\"");
        assert_eq!(quoted("a \"b\"", Quoting::WhereNeeded), "\"a \"\"b\"\"\"");
        assert_eq!(quoted("x,y", Quoting::WhereNeeded), "\"x,y\"");
    }
}
