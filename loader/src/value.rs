//! Cell values: parsing published CSV text into typed SQLite values.

use compact_str::CompactString;
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::ToSql;

use roadtraffic_catalog::dates::{days_from_civil, days_in_month};
use roadtraffic_catalog::{Column, Domain, ValueType, MAX_COUNT, YEARS};

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

/// A value as a message shows it.
impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Null => f.write_str("(empty)"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Real(v) => write!(f, "{v}"),
            Value::Text(t) => f.write_str(&shown(t)),
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

/// A cell that cannot be stored: what it holds, and what its column takes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("value '{shown}' is not {expected}")]
pub struct BadValue {
    /// The value as read, cut short and with control characters escaped.
    pub shown: String,
    pub expected: String,
}

impl BadValue {
    fn new(text: &str, expected: impl Into<String>) -> Self {
        BadValue {
            shown: shown(text),
            expected: expected.into(),
        }
    }
}

/// Values echoed in messages are cut to this many characters.
const SHOWN_CHARS: usize = 60;

/// A value as echoed in a message: at most [`SHOWN_CHARS`] characters, control characters
/// escaped, so that a huge or binary cell cannot flood the report.
pub fn shown(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == SHOWN_CHARS {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Surprises in a cell that is kept: reported as warnings.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Notes {
    /// Bytes that are not UTF-8, read as Windows-1252.
    pub not_utf8: bool,
    /// A `"` inside the field: a quoting mistake in the file, most likely.
    pub quote: bool,
    /// A code outside its column's known vocabulary.
    pub unknown_code: bool,
}

impl Notes {
    pub fn any(self) -> bool {
        self.not_utf8 || self.quote || self.unknown_code
    }
}

/// Decodes a cell: UTF-8, or, for bytes that are not UTF-8 (older files saved by Excel),
/// Windows-1252, noted.
pub fn decode(raw: &[u8]) -> (std::borrow::Cow<'_, str>, bool) {
    match std::str::from_utf8(raw) {
        Ok(s) => (s.into(), false),
        Err(_) => (
            encoding_rs::WINDOWS_1252.decode_without_bom_handling(raw).0,
            true,
        ),
    }
}

/// Parses one cell of a column: checks it against the column's domain and gives the value to
/// store (an empty cell is null), with the surprises to report. `strict` refuses fractions in
/// counts (AADF and raw counts are whole vehicles); otherwise published totals such as
/// `918298.653` are rounded.
pub fn parse(raw: &[u8], column: &Column, strict: bool) -> Result<(Value, Notes), BadValue> {
    let (text, not_utf8) = decode(raw);
    let mut notes = Notes {
        not_utf8,
        ..Notes::default()
    };
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok((Value::Null, notes));
    }
    // Numbers refuse a NUL or a quote by their syntax; text is looked through (cells are short:
    // a plain loop beats a call to memchr).
    if matches!(column.domain, Domain::Text | Domain::Code(_))
        && trimmed.bytes().any(|b| b == 0 || b == b'"')
    {
        if trimmed.bytes().any(|b| b == 0) {
            return Err(BadValue::new(trimmed, "text without NUL bytes"));
        }
        notes.quote = true;
    }
    let value = match column.domain {
        Domain::Text => Value::Text(CompactString::from(text.as_ref())),
        Domain::Code(vocabulary) => {
            notes.unknown_code = !vocabulary.iter().any(|v| v.eq_ignore_ascii_case(trimmed));
            Value::Text(CompactString::from(text.as_ref()))
        }
        Domain::Whole { min, max } => {
            let v = plain_integer(trimmed)
                .filter(|v| (min..=max).contains(v))
                .ok_or_else(|| {
                    BadValue::new(trimmed, format!("a whole number from {min} to {max}"))
                })?;
            Value::Int(v)
        }
        Domain::Year => Value::Int(year(trimmed)?),
        Domain::Hour => Value::Int(
            plain_integer(trimmed)
                .filter(|h| (0..=23).contains(h))
                .ok_or_else(|| BadValue::new(trimmed, "a whole number from 0 to 23"))?,
        ),
        Domain::Count => Value::Int(count(trimmed, strict)?),
        Domain::Decimal { min, max } => {
            let bad = || BadValue::new(trimmed, format!("a decimal number from {min} to {max}"));
            match column.ty {
                // Carried verbatim, as published (`"1.10"` stays `"1.10"`).
                ValueType::Text if decimal_within(trimmed, min, max) => {
                    Value::Text(CompactString::from(trimmed))
                }
                ValueType::Text => return Err(bad()),
                _ => Value::Real(
                    decimal(trimmed)
                        .filter(|v| (min..=max).contains(v))
                        .ok_or_else(bad)?,
                ),
            }
        }
        Domain::Date => Value::Text(
            parse_date(trimmed)
                .ok_or_else(|| {
                    BadValue::new(trimmed, "a real date (YYYY-MM-DD) from 1950 to 2100")
                })?
                .into(),
        ),
    };
    Ok((value, notes))
}

/// `[+-]digits`, nothing else (no `1e3`, no `2019.0`).
fn plain_integer(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn year(text: &str) -> Result<i64, BadValue> {
    let bad = || {
        BadValue::new(
            text,
            format!(
                "a four-digit year from {} to {}",
                YEARS.start(),
                YEARS.end()
            ),
        )
    };
    if text.len() != 4 {
        return Err(bad());
    }
    plain_integer(text)
        .filter(|y| YEARS.contains(y))
        .ok_or_else(bad)
}

/// A finite decimal, in the notations published files use: `52.5`, `-0.14`, `.12`, `1.`,
/// `2.28e+08`, `8.00E+05`. Refuses what Rust's float parser would otherwise take (`NaN`,
/// `inf`, `infinity`) and what it would not (`0x10`, `1,000`).
pub fn decimal(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let mantissa_start = i;
    let mut digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 || i == mantissa_start {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        i += usize::from(matches!(b.get(i), Some(b'+' | b'-')));
        let exponent_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exponent_start {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Whether `text` is a decimal within `min..=max`. A plain decimal whose whole part lies
/// strictly inside the range is inside whatever its fraction, which spares the float parse of
/// nearly every coordinate and length.
fn decimal_within(text: &str, min: f64, max: f64) -> bool {
    let b = text.as_bytes();
    let digits_at = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let whole_end = b[digits_at..]
        .iter()
        .position(|c| !c.is_ascii_digit())
        .map_or(b.len(), |p| digits_at + p);
    let plain = whole_end > digits_at
        && whole_end - digits_at <= 15
        && (whole_end == b.len()
            || (b[whole_end] == b'.' && b[whole_end + 1..].iter().all(u8::is_ascii_digit)));
    if plain {
        let whole: f64 = text[digits_at..whole_end].parse::<u64>().unwrap_or(0) as f64;
        let whole = if b[0] == b'-' { -whole } else { whole };
        if min < whole && whole < max {
            return true;
        }
    }
    decimal(text).is_some_and(|v| (min..=max).contains(&v))
}

fn count(text: &str, strict: bool) -> Result<i64, BadValue> {
    if let Some(v) = plain_integer(text) {
        return (v.unsigned_abs() as f64 <= MAX_COUNT)
            .then_some(v)
            .ok_or_else(|| BadValue::new(text, "a count within 1e13"));
    }
    let v = decimal(text).ok_or_else(|| BadValue::new(text, "a whole number"))?;
    if strict && v.fract() != 0.0 {
        return Err(BadValue::new(text, "a whole number (it is a fraction)"));
    }
    if v.abs() > MAX_COUNT {
        return Err(BadValue::new(text, "a count within 1e13"));
    }
    Ok(v.round() as i64)
}

/// `2000-05-03`, `2000-05-03 00:00:00`, `2000-05-03T00:00:00` or `03/05/2000`, as
/// `2000-05-03`, if it is a real calendar date within [`YEARS`].
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
    let (yy, mm, dd): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    let real =
        YEARS.contains(&yy) && (1..=12).contains(&mm) && (1..=days_in_month(yy, mm)).contains(&dd);
    real.then(|| format!("{y}-{m}-{d}"))
}

/// Days since 1950-01-01 (the first of [`YEARS`]) of a `YYYY-MM-DD` date: a compact, ordered
/// key component (16 bits hold every date of [`YEARS`]).
pub fn day_number(date: &str) -> Option<i64> {
    let y: i64 = date.get(0..4)?.parse().ok()?;
    let m: i64 = date.get(5..7)?.parse().ok()?;
    let d: i64 = date.get(8..10)?.parse().ok()?;
    Some(days_from_civil(y, m, d) + 7305)
}

#[cfg(test)]
mod tests {
    use super::*;
    use roadtraffic_catalog::{AADF, LOCAL_AUTHORITY_TRAFFIC, RAW_COUNTS};

    fn cell(
        dataset: &roadtraffic_catalog::Dataset,
        column: &str,
        raw: &[u8],
    ) -> Result<Value, String> {
        let c = dataset.column(column).unwrap();
        parse(raw, c, dataset.integers_strict)
            .map(|(v, _)| v)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn counts_in_every_published_notation() {
        let raw = |v: &[u8]| cell(&RAW_COUNTS, "cars_and_taxis", v);
        let la = |v: &[u8]| cell(&LOCAL_AUTHORITY_TRAFFIC, "cars_and_taxis", v);
        assert_eq!(raw(b"1.2e+08"), Ok(Value::Int(120_000_000)));
        assert_eq!(raw(b"8.00E+05"), Ok(Value::Int(800_000)));
        assert_eq!(la(b"9e+05"), Ok(Value::Int(900_000)));
        assert_eq!(la(b"918298.653"), Ok(Value::Int(918_299)));
        assert!(raw(b"918298.653").unwrap_err().contains("fraction"));
        assert_eq!(
            raw(b"abc").unwrap_err(),
            "value 'abc' is not a whole number"
        );
        assert_eq!(raw(b""), Ok(Value::Null));
        assert_eq!(raw(b"-3"), Ok(Value::Int(-3)));
        assert!(raw(b"99999999999999999999").is_err());
        for bad in [
            &b"NaN"[..],
            b"inf",
            b"0x10",
            b"1,000",
            b"1e400",
            b"e5",
            b".",
        ] {
            assert!(raw(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn years_hours_and_dates_are_real() {
        let r = |c: &str, v: &[u8]| cell(&RAW_COUNTS, c, v);
        assert_eq!(r("year", b"2019"), Ok(Value::Int(2019)));
        for bad in [
            &b"0"[..],
            b"99999",
            b"-1",
            b"209",
            b"1e3",
            b"2019.0",
            b"1900",
        ] {
            let e = r("year", bad).unwrap_err();
            assert!(e.contains("four-digit year"), "{e}");
        }
        assert!(r("hour", b"25").is_err());
        assert!(r("hour", b"-1").is_err());
        assert_eq!(r("hour", b"0"), Ok(Value::Int(0)));
        assert!(r("count_date", b"2019-02-30").is_err());
        assert!(r("count_date", b"2019-02-29").is_err());
        assert_eq!(
            r("count_date", b"2020-02-29"),
            Ok(Value::Text("2020-02-29".into()))
        );
        assert_eq!(
            r("count_date", b"2000-05-03 00:00:00"),
            Ok(Value::Text("2000-05-03".into()))
        );
        assert_eq!(
            r("count_date", b"03/05/2000"),
            Ok(Value::Text("2000-05-03".into()))
        );
        assert!(r("count_date", b"2000-13-03").is_err());
    }

    #[test]
    fn decimals_are_checked_and_carried_verbatim() {
        let a = |c: &str, v: &[u8]| cell(&AADF, c, v);
        assert_eq!(a("link_length_km", b"1.10"), Ok(Value::Text("1.10".into())));
        assert_eq!(
            a("latitude", b"53.39597741"),
            Ok(Value::Text("53.39597741".into()))
        );
        for bad in [
            &b"1e400"[..],
            b"NaN",
            b"inf",
            b"0x10",
            b"1,000",
            b"91",
            b"Infinity",
        ] {
            assert!(
                a("latitude", bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        assert!(a("link_length_miles", b"0.9g").is_err());
        let la = |v: &[u8]| cell(&LOCAL_AUTHORITY_TRAFFIC, "link_length_km", v);
        assert_eq!(la(b".12000000000000000"), Ok(Value::Real(0.12)));
        assert!(la(b"99999999999999999999").is_err());
    }

    #[test]
    fn decimal_ranges_hold_at_their_edges() {
        for (text, inside) in [
            ("89.99999", true),
            ("90", true),
            ("90.0", true),
            ("90.00001", false),
            ("-90.5", false),
            ("-89.5", true),
            ("+45.", true),
            (".5", true),
            ("1e1", true),
            ("1e2", false),
            ("", false),
            ("-", false),
            ("1.2.3", false),
        ] {
            assert_eq!(decimal_within(text, -90.0, 90.0), inside, "{text}");
        }
    }

    #[test]
    fn text_notes_and_nul_bytes() {
        let c = AADF.column("road_name").unwrap();
        let (v, notes) = parse(b"Ynys M\xf4n", c, true).unwrap();
        assert_eq!((v, notes.not_utf8), (Value::Text("Ynys Môn".into()), true));
        let (_, notes) = parse(b"Nottinghamshire\"", c, true).unwrap();
        assert!(notes.quote);
        assert!(parse(b"Kent\0", c, true)
            .unwrap_err()
            .to_string()
            .contains("NUL"));
        let code = AADF.column("road_type").unwrap();
        assert!(parse(b"Mi'or", code, true).unwrap().1.unknown_code);
        assert!(!parse(b"major", code, true).unwrap().1.unknown_code);
    }

    #[test]
    fn shown_values_are_short_and_printable() {
        let long = "x".repeat(1 << 20);
        assert_eq!(shown(&long).len(), 63);
        assert_eq!(shown("a\0b\n"), "a\\u{0}b\\n");
    }

    #[test]
    fn day_numbers_are_ordered() {
        assert_eq!(day_number("1950-01-01"), Some(0));
        assert_eq!(day_number("1950-03-01"), Some(59));
        assert!(day_number("2100-12-31").unwrap() < 1 << 16);
        assert!(day_number("2024-12-31") > day_number("2024-01-01"));
    }
}
