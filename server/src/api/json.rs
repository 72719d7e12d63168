//! JSON bytes as PHP's `json_encode` writes them (the public service is a Laravel app): no
//! spaces, `/` escaped as `\/`, everything outside ASCII as `\uXXXX` (UTF-16, lower-case hex).
//! Rows go straight from SQLite values to these bytes, with no intermediate document.

use rusqlite::types::ValueRef;

pub fn string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    let mut plain_from = 0;
    let bytes = s.as_bytes();
    for (i, ch) in s.char_indices() {
        let escape: Option<&[u8]> = match ch {
            '"' => Some(b"\\\""),
            '\\' => Some(b"\\\\"),
            '/' => Some(b"\\/"),
            '\n' => Some(b"\\n"),
            '\r' => Some(b"\\r"),
            '\t' => Some(b"\\t"),
            '\u{8}' => Some(b"\\b"),
            '\u{c}' => Some(b"\\f"),
            c if (c as u32) < 0x20 || !c.is_ascii() => Some(b""),
            _ => None,
        };
        let Some(escape) = escape else { continue };
        out.extend_from_slice(&bytes[plain_from..i]);
        plain_from = i + ch.len_utf8();
        if !escape.is_empty() {
            out.extend_from_slice(escape);
            continue;
        }
        let mut units = [0u16; 2];
        for unit in ch.encode_utf16(&mut units) {
            out.extend_from_slice(b"\\u");
            for shift in [12, 8, 4, 0] {
                out.push(HEX[((*unit >> shift) & 0xf) as usize]);
            }
        }
    }
    out.extend_from_slice(&bytes[plain_from..]);
    out.push(b'"');
}

pub fn int(out: &mut Vec<u8>, v: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

/// A float as PHP 7.1+ writes it (shortest round-trip form, `.0` kept on whole numbers).
pub fn float(out: &mut Vec<u8>, v: f64) {
    if v.is_finite() {
        out.extend_from_slice(format!("{v:?}").as_bytes());
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
        ValueRef::Text(t) => string(out, &String::from_utf8_lossy(t)),
        ValueRef::Blob(b) => string(out, &String::from_utf8_lossy(b)),
    }
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
