//! The CSV text of a download, one writer for the loader and the server: a header line, then
//! a line of cells per record, each cell as the layout quotes it. Both programs write a
//! national file's CSV with these functions, so a file is the same bytes whichever wrote it.

use crate::file_layout::{CellValue, Quoting};

/// The header line of these column headers.
pub fn header(out: &mut Vec<u8>, headers: &[String], quoting: Quoting) {
    for (i, h) in headers.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        text(out, h.as_bytes(), quoting);
    }
    out.push(b'\n');
}

/// A cell's text: nothing for no value, a number as SQLite gives it back, text quoted as the
/// layout says.
pub fn cell(out: &mut Vec<u8>, value: CellValue, quoting: Quoting) {
    match value {
        CellValue::Null => {}
        CellValue::Integer(i) => out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes()),
        // The shortest text that reads back as the same number.
        CellValue::Real(f) => out.extend_from_slice(f.to_string().as_bytes()),
        CellValue::Decimal(d) => out.extend_from_slice(d.as_bytes()),
        CellValue::Text(t) => text(out, t, quoting),
    }
}

/// Whether text is quoted: always, or where PHP's `fputcsv` (DfT's) quotes it: a comma, a
/// quote, a backslash, a space, a tab or a line end.
pub fn needs_quotes(t: &[u8], quoting: Quoting) -> bool {
    quoting == Quoting::AllText
        || t.iter()
            .any(|b| matches!(b, b' ' | b',' | b'"' | b'\\' | b'\t' | b'\n' | b'\r'))
}

/// Text, quoted as the layout says; a quote inside is doubled.
pub fn text(out: &mut Vec<u8>, t: &[u8], quoting: Quoting) {
    if !needs_quotes(t, quoting) {
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

    #[test]
    fn numbers_are_written_as_sqlite_gives_them_back() {
        let written = |v| {
            let mut out = Vec::new();
            cell(&mut out, v, Quoting::AllText);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(written(CellValue::Integer(-12)), "-12");
        assert_eq!(written(CellValue::Real(0.1)), "0.1");
        assert_eq!(written(CellValue::Real(3.0)), "3");
        assert_eq!(written(CellValue::Null), "");
    }
}
