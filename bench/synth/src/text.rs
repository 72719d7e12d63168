//! Values as the CSV files write them: whole numbers, text quoted as a file quotes it, and the
//! summary tables' numbers in R's shortest form.

/// A whole number in plain digits, without going through `format!` (the big files have
/// hundreds of millions of them).
pub fn push_u64(buf: &mut Vec<u8>, mut n: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
}

/// A signed whole number in plain digits.
pub fn push_i64(buf: &mut Vec<u8>, n: i64) {
    if n < 0 {
        buf.push(b'-');
    }
    push_u64(buf, n.unsigned_abs());
}

/// How a file quotes the text of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    /// Only text that needs it (see [`needs_quotes`]), as DfT's national files do.
    AsNeeded,
    /// Every value: the text columns of the summary tables (`NationalFile::quote_all_text`).
    Always,
}

/// Whether a CSV field must be quoted: it holds a comma, a quote, a space (DfT quotes those
/// too) or a line break.
pub fn needs_quotes(text: &[u8]) -> bool {
    text.iter()
        .any(|b| matches!(b, b',' | b'"' | b' ' | b'\n' | b'\r'))
}

/// A text field, quoted as `quote` says.
pub fn push_text(buf: &mut Vec<u8>, text: &[u8], quote: Quote) {
    if quote == Quote::Always || needs_quotes(text) {
        push_quoted(buf, text);
    } else {
        buf.extend_from_slice(text);
    }
}

/// A record's text, where it has one.
pub fn push_some_text(buf: &mut Vec<u8>, text: Option<&str>, quote: Quote) {
    if let Some(text) = text {
        push_text(buf, text.as_bytes(), quote);
    }
}

/// A record's number, where it has one.
pub fn push_some_number(buf: &mut Vec<u8>, n: Option<u64>) {
    if let Some(n) = n {
        push_u64(buf, n);
    }
}

/// A text field in quotes, its quotes doubled.
pub fn push_quoted(buf: &mut Vec<u8>, text: &[u8]) {
    buf.push(b'"');
    for (i, part) in text.split(|&b| b == b'"').enumerate() {
        if i > 0 {
            buf.extend_from_slice(b"\"\"");
        }
        buf.extend_from_slice(part);
    }
    buf.push(b'"');
}

/// A number as R's `write.csv` prints it: the shortest of fixed and scientific notation
/// (`9e+05`, `1400000`, `2.231e+09`, `4650.69`).
pub fn fmt_r(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    let fixed = format!("{x}");
    let e = format!("{x:e}");
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sci = format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    if fixed.len() <= sci.len() {
        fixed
    } else {
        sci
    }
}

/// A number of a summary table, as R wrote it.
pub fn push_r(buf: &mut Vec<u8>, x: f64) {
    buf.extend_from_slice(fmt_r(x).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_number_format() {
        assert_eq!(fmt_r(900000.0), "9e+05");
        assert_eq!(fmt_r(1400000.0), "1400000");
        assert_eq!(fmt_r(228000000.0), "2.28e+08");
        assert_eq!(fmt_r(2231000000.0), "2.231e+09");
        assert_eq!(fmt_r(19674300000.0), "19674300000");
        assert_eq!(fmt_r(23730000000.0), "2.373e+10");
        assert_eq!(fmt_r(4650.69), "4650.69");
        assert_eq!(fmt_r(22.38), "22.38");
        assert_eq!(fmt_r(0.0), "0");
        assert_eq!(fmt_r(80540342.58), "80540342.58");
    }

    #[test]
    fn quoting() {
        let mut b = Vec::new();
        for text in ["Leeds", "East of England", "Bristol, City of", "a\"b", ""] {
            push_text(&mut b, text.as_bytes(), Quote::AsNeeded);
            b.push(b'|');
        }
        push_text(&mut b, b"Leeds", Quote::Always);
        assert_eq!(
            String::from_utf8(b).unwrap(),
            "Leeds|\"East of England\"|\"Bristol, City of\"|\"a\"\"b\"||\"Leeds\""
        );
    }
}
