//! Cell values: parsing published CSV text into typed SQLite values.

use compact_str::CompactString;
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::ToSql;

use crate::catalog::ValueType;

/// A cell. Text is a `CompactString`: the codes, names and coordinates that make up most
/// cells fit inline, so reading millions of rows does not allocate for each of them.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(CompactString),
}

impl Value {
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            _ => None,
        }
    }
    pub fn to_sql_value(&self) -> rusqlite::types::Value {
        match self {
            Value::Null => rusqlite::types::Value::Null,
            Value::Int(v) => rusqlite::types::Value::Integer(*v),
            Value::Real(v) => rusqlite::types::Value::Real(*v),
            Value::Text(s) => rusqlite::types::Value::Text(s.to_string()),
        }
    }
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }
}

impl ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            Value::Null => ValueRef::Null,
            Value::Int(v) => ValueRef::Integer(*v),
            Value::Real(v) => ValueRef::Real(*v),
            Value::Text(s) => ValueRef::Text(s.as_bytes()),
        }))
    }
}

/// Decodes a cell: UTF-8, or Windows-1252's Latin-1 range for older files saved by Excel.
pub fn decode(raw: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(raw) {
        Ok(s) => s.into(),
        Err(_) => raw.iter().map(|&b| b as char).collect::<String>().into(),
    }
}

fn parse_float(text: &str) -> Option<f64> {
    let v: f64 = text.parse().ok()?;
    v.is_finite().then_some(v)
}

/// Parses one cell. An empty cell is null. `strict` refuses fractions in integer columns
/// (counts must be whole); otherwise published totals like `918298.653` are rounded.
pub fn parse(raw: &[u8], ty: ValueType, strict: bool) -> Result<Value, String> {
    let text = decode(raw);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(Value::Null);
    }
    match ty {
        ValueType::Text => Ok(Value::Text(CompactString::from(text.as_ref()))),
        ValueType::Integer => {
            if let Ok(v) = trimmed.parse::<i64>() {
                return Ok(Value::Int(v));
            }
            let v = parse_float(trimmed)
                .ok_or_else(|| format!("expected an integer, found {trimmed:?}"))?;
            if strict && v.fract() != 0.0 {
                return Err(format!(
                    "expected a whole number, found the fraction {trimmed:?}"
                ));
            }
            if v.abs() >= 9.0e18 {
                return Err(format!("number out of range: {trimmed:?}"));
            }
            Ok(Value::Int(v.round() as i64))
        }
        ValueType::Number => parse_float(trimmed)
            .map(Value::Real)
            .ok_or_else(|| format!("expected a number, found {trimmed:?}")),
        ValueType::Date => parse_date(trimmed)
            .map(|d| Value::Text(d.into()))
            .ok_or_else(|| format!("expected a date YYYY-MM-DD, found {trimmed:?}")),
    }
}

/// `2000-05-03`, `2000-05-03 00:00:00`, `2000-05-03T00:00:00` or `03/05/2000`, as `2000-05-03`.
fn parse_date(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b.get(r.clone())
            .is_some_and(|s| s.iter().all(u8::is_ascii_digit))
    };
    let (y, m, d) = if b.len() >= 10
        && b[4] == b'-'
        && b[7] == b'-'
        && digits(0..4)
        && digits(5..7)
        && digits(8..10)
    {
        if b.len() > 10 && b[10] != b' ' && b[10] != b'T' {
            return None;
        }
        (&text[0..4], &text[5..7], &text[8..10])
    } else if b.len() >= 10
        && b[2] == b'/'
        && b[5] == b'/'
        && digits(0..2)
        && digits(3..5)
        && digits(6..10)
    {
        if b.len() > 10 && b[10] != b' ' {
            return None;
        }
        (&text[6..10], &text[3..5], &text[0..2])
    } else {
        return None;
    };
    let (mm, dd): (u32, u32) = (m.parse().ok()?, d.parse().ok()?);
    ((1..=12).contains(&mm) && (1..=31).contains(&dd)).then(|| format!("{y}-{m}-{d}"))
}

/// Days since 1960-01-01 of a `YYYY-MM-DD` date: a compact, ordered key component.
pub fn day_number(date: &str) -> Option<i64> {
    let y: i64 = date.get(0..4)?.parse().ok()?;
    let m: i64 = date.get(5..7)?.parse().ok()?;
    let d: i64 = date.get(8..10)?.parse().ok()?;
    Some(days_from_civil(y, m, d) + 3653)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use ValueType::*;

    #[test]
    fn numbers_in_every_published_notation() {
        assert_eq!(
            parse(b"1.2e+08", Integer, true),
            Ok(Value::Int(120_000_000))
        );
        assert_eq!(parse(b"8.00E+05", Integer, true), Ok(Value::Int(800_000)));
        assert_eq!(parse(b"9e+05", Integer, false), Ok(Value::Int(900_000)));
        assert_eq!(
            parse(b"918298.653", Integer, false),
            Ok(Value::Int(918_299))
        );
        assert!(parse(b"918298.653", Integer, true)
            .unwrap_err()
            .contains("fraction"));
        assert!(parse(b"abc", Integer, true)
            .unwrap_err()
            .contains("integer"));
        assert_eq!(
            parse(b".12000000000000000", Number, true),
            Ok(Value::Real(0.12))
        );
        assert_eq!(parse(b"", Integer, true), Ok(Value::Null));
        assert_eq!(parse(b"-3", Integer, true), Ok(Value::Int(-3)));
    }

    #[test]
    fn text_is_verbatim_and_dates_lose_their_time() {
        assert_eq!(parse(b"1.10", Text, true), Ok(Value::Text("1.10".into())));
        assert_eq!(
            parse(b"2000-05-03 00:00:00", Date, true),
            Ok(Value::Text("2000-05-03".into()))
        );
        assert_eq!(
            parse(b"03/05/2000", Date, true),
            Ok(Value::Text("2000-05-03".into()))
        );
        assert!(parse(b"2000-13-03", Date, true).is_err());
        assert_eq!(
            parse(b"Ynys M\xf4n", Text, true),
            Ok(Value::Text("Ynys Môn".into()))
        );
    }

    #[test]
    fn day_numbers_are_ordered() {
        assert_eq!(day_number("1960-01-01"), Some(0));
        assert_eq!(day_number("1960-03-01"), Some(60));
        assert!(day_number("2024-12-31") > day_number("2024-01-01"));
    }
}
