//! JSON bytes as PHP's `json_encode` writes them (the public service is a Laravel app): no
//! spaces, `/` escaped as `\/`, everything outside ASCII as `\uXXXX` (UTF-16, lower-case hex).
//! Rows go straight from SQLite values to these bytes, with no intermediate document.

use rusqlite::types::ValueRef;

pub fn string(out: &mut Vec<u8>, s: &str) {
    text(out, s.as_bytes());
}

/// Whether an ASCII byte is written escaped: `"`, `\`, `/` and the control characters.
const ESCAPED: [bool; 128] = {
    let mut table = [false; 128];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table[b'/' as usize] = true;
    table
};

/// Text as a JSON string, straight from SQLite's bytes: runs of plain ASCII are copied whole;
/// bytes that are not UTF-8 become U+FFFD, as `String::from_utf8_lossy` would make them.
pub fn text(out: &mut Vec<u8>, bytes: &[u8]) {
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut plain_from = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 && !ESCAPED[b as usize] {
            i += 1;
            continue;
        }
        out.extend_from_slice(&bytes[plain_from..i]);
        if b < 0x80 {
            ascii_escape(out, b);
            i += 1;
        } else {
            // Valid and invalid UTF-8 sequences alike never hold an ASCII byte.
            let end = bytes[i..]
                .iter()
                .position(|&b| b < 0x80)
                .map_or(bytes.len(), |n| i + n);
            for chunk in bytes[i..end].utf8_chunks() {
                chunk.valid().chars().for_each(|c| utf16_escape(out, c));
                if !chunk.invalid().is_empty() {
                    utf16_escape(out, char::REPLACEMENT_CHARACTER);
                }
            }
            i = end;
        }
        plain_from = i;
    }
    out.extend_from_slice(&bytes[plain_from..]);
    out.push(b'"');
}

fn ascii_escape(out: &mut Vec<u8>, b: u8) {
    match b {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        b'/' => out.extend_from_slice(b"\\/"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'\t' => out.extend_from_slice(b"\\t"),
        0x08 => out.extend_from_slice(b"\\b"),
        0x0c => out.extend_from_slice(b"\\f"),
        _ => utf16_escape(out, char::from(b)),
    }
}

/// `\uXXXX` for each UTF-16 unit of `c`, in lower-case hex.
fn utf16_escape(out: &mut Vec<u8>, c: char) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut units = [0u16; 2];
    for unit in c.encode_utf16(&mut units) {
        out.extend_from_slice(b"\\u");
        for shift in [12, 8, 4, 0] {
            out.push(HEX[((*unit >> shift) & 0xf) as usize]);
        }
    }
}

pub fn int(out: &mut Vec<u8>, v: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

/// A float as PHP 7.1+ writes it (shortest round-trip form, `.0` kept on whole numbers).
pub fn float(out: &mut Vec<u8>, v: f64) {
    if v.is_finite() {
        // Written in place: no String per value.
        let _ = std::io::Write::write_fmt(out, format_args!("{v:?}"));
    } else {
        out.extend_from_slice(b"0");
    }
}

pub fn opt_int(out: &mut Vec<u8>, v: Option<i64>) {
    match v {
        Some(v) => int(out, v),
        None => out.extend_from_slice(b"null"),
    }
}

pub fn opt_string(out: &mut Vec<u8>, v: Option<&str>) {
    match v {
        Some(v) => string(out, v),
        None => out.extend_from_slice(b"null"),
    }
}

/// A SQLite value as the JSON of its column: the catalogue's types are enforced by the schema,
/// so the stored type is the JSON type.
pub fn value(out: &mut Vec<u8>, v: ValueRef<'_>) {
    match v {
        ValueRef::Null => out.extend_from_slice(b"null"),
        ValueRef::Integer(i) => int(out, i),
        ValueRef::Real(f) => float(out, f),
        ValueRef::Text(t) => text(out, t),
        ValueRef::Blob(b) => text(out, b),
    }
}

/// A decimal the files give as text (latitude, a link length: `Column::is_decimal_text`) as a
/// JSON number, for readers that type their fields from the values (GIS clients): its digits
/// as published where they are already JSON's (`"1.10"` is `1.10`), else the number they read
/// as (`+.5` is `0.5`); `null` for an empty value, or one that is no number.
pub fn decimal(out: &mut Vec<u8>, v: ValueRef<'_>) {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => decimal_text(out, t),
        other => value(out, other),
    }
}

/// The bytes of a decimal as a JSON number (see [`decimal`]).
pub fn decimal_text(out: &mut Vec<u8>, text: &[u8]) {
    let text = text.trim_ascii();
    if is_json_number(text) {
        out.extend_from_slice(text);
        return;
    }
    let read = std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse::<f64>().ok());
    match read.filter(|v| v.is_finite()) {
        Some(v) => float(out, v),
        None => out.extend_from_slice(b"null"),
    }
}

/// RFC 8259's number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn is_json_number(text: &[u8]) -> bool {
    let digits = |from: usize| {
        text[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let mut at = usize::from(text.first() == Some(&b'-'));
    let whole = digits(at);
    if whole == 0 || (whole > 1 && text[at] == b'0') {
        return false;
    }
    at += whole;
    if text.get(at) == Some(&b'.') {
        let fraction = digits(at + 1);
        if fraction == 0 {
            return false;
        }
        at += 1 + fraction;
    }
    if matches!(text.get(at), Some(b'e' | b'E')) {
        at += 1 + usize::from(matches!(text.get(at + 1), Some(b'+' | b'-')));
        let exponent = digits(at);
        if exponent == 0 {
            return false;
        }
        at += exponent;
    }
    at == text.len()
}

/// `{"message":"..."}`, the shape of every error.
pub fn message(text: &str) -> Vec<u8> {
    let mut out = b"{\"message\":".to_vec();
    string(&mut out, text);
    out.push(b'}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> String {
        let mut out = Vec::new();
        string(&mut out, x);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escapes_as_php() {
        assert_eq!(s("https://x/y"), r#""https:\/\/x\/y""#);
        assert_eq!(s("Ynys Môn"), r#""Ynys M\u00f4n""#);
        assert_eq!(s("a\"b\\c\n\u{1}"), r#""a\"b\\c\n\u0001""#);
        assert_eq!(s("😀"), r#""\ud83d\ude00""#);
        assert_eq!(s("&laquo; Previous"), r#""&laquo; Previous""#);
        assert_eq!(s("\u{1f}\u{8}\u{c}\t\r"), r#""\u001f\b\f\t\r""#);
    }

    #[test]
    fn bytes_not_utf8_as_lossy_conversion_makes_them() {
        let cases: [&[u8]; 5] = [
            b"caf\xc3\xa9 \xff x",
            b"\xe2\x82 end",
            b"\xf0\x9f\x98\x80\xf0\x9f",
            b"a\xc3",
            b"\x80\x80\"/",
        ];
        for bytes in cases {
            let mut direct = Vec::new();
            text(&mut direct, bytes);
            assert_eq!(direct, {
                let mut lossy = Vec::new();
                string(&mut lossy, &String::from_utf8_lossy(bytes));
                lossy
            });
        }
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_as_lossy_conversion_makes_them(bytes: Vec<u8>) {
            let mut direct = Vec::new();
            text(&mut direct, &bytes);
            let mut lossy = Vec::new();
            string(&mut lossy, &String::from_utf8_lossy(&bytes));
            proptest::prop_assert_eq!(direct, lossy);
        }
    }

    #[test]
    fn decimals_as_numbers_keep_their_digits_where_json_has_them() {
        let d = |v: ValueRef| {
            let mut out = Vec::new();
            decimal(&mut out, v);
            String::from_utf8(out).unwrap()
        };
        for (text, number) in [
            ("53.39597741", "53.39597741"),
            ("-2.24809417", "-2.24809417"),
            ("1.10", "1.10"),
            ("0", "0"),
            (" 0.6 ", "0.6"),
            ("1e-5", "1e-5"),
            ("+1.5", "1.5"),
            (".5", "0.5"),
            ("5.", "5.0"),
            ("007", "7.0"),
            ("-0", "-0"),
            ("", "null"),
            ("x", "null"),
        ] {
            assert_eq!(d(ValueRef::Text(text.as_bytes())), number, "{text:?}");
        }
        assert_eq!(d(ValueRef::Null), "null");
        assert_eq!(d(ValueRef::Real(1.5)), "1.5");
        // Whatever it writes, JSON reads as the number the text is.
        for text in ["53.39597741", "+.5", "5.", "007", "1E+3"] {
            let mut out = Vec::new();
            decimal_text(&mut out, text.as_bytes());
            let read: f64 = serde_json::from_slice(&out).unwrap();
            assert_eq!(read, text.parse::<f64>().unwrap(), "{text}");
        }
    }

    #[test]
    fn floats_as_php() {
        let f = |v| {
            let mut out = Vec::new();
            float(&mut out, v);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(f(36.01), "36.01");
        assert_eq!(f(377.0), "377.0");
        assert_eq!(f(4650.69), "4650.69");
    }
}
