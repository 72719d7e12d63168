//! The query string, read once per request (by `routes::dispatch`) into a [`Query`]: every
//! `name=value` in the order given, decoded, none lost. What the handlers read of it is derived
//! from that one reading:
//!
//! - [`Query::php`]: PHP's view, in which a repeated name keeps its first place and its last
//!   value and `a[b]=` nests (`php`): how the public service, and so the API's listings, read
//!   their parameters;
//! - [`Query::values`]: every value of a name given as a list by repetition (`facet=a&facet=b`,
//!   `facet[]=a`), which PHP's view would reduce to the last;
//! - [`Query::first`]: the first value of a plain name (the site's `q`, `page`, `dataset`).
//!
//! Beside it, the URL encoding both ways ([`url_decode`], [`encode`]).

pub mod php;

pub use php::{Param, Params};

/// Parameters past this many are ignored (PHP's `max_input_vars` is 1000).
const MAX_VARS: usize = 1000;

/// One `name=value` of the query string, as given.
#[derive(Debug, Clone)]
struct Pair {
    /// Decoded.
    name: String,
    /// Decoded, not trimmed (each view trims as its readers expect).
    value: String,
    /// Whether the pair had an `=` (`q` alone is a name with no value).
    has_value: bool,
}

/// A request's query string, read once.
#[derive(Debug, Clone, Default)]
pub struct Query {
    raw: String,
    pairs: Vec<Pair>,
    php: Params,
}

impl Query {
    /// Reads a raw query string (what follows `?`, still encoded).
    pub fn read(raw: &str) -> Query {
        let pairs: Vec<Pair> = (raw.split('&').filter(|p| !p.is_empty()))
            .take(MAX_VARS)
            .map(|pair| {
                let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                Pair {
                    name: url_decode(name),
                    value: url_decode(value),
                    has_value: pair.contains('='),
                }
            })
            .collect();
        let php = php::parse(pairs.iter().map(|p| (p.name.as_str(), p.value.as_str())));
        Query {
            raw: raw.to_string(),
            pairs,
            php,
        }
    }

    /// The query string as the request gave it, still encoded.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// PHP's view of the parameters (see `php`).
    pub fn php(&self) -> &Params {
        &self.php
    }

    /// Every value given for `name`, in order: `name=`, `name[]=` and `name[i]=` alike, each
    /// trimmed. For the parameters that take a repeated name as a list.
    pub fn values(&self, name: &str) -> Vec<&str> {
        let named = |key: &str| {
            let Some(rest) = key.strip_prefix(name) else {
                return false;
            };
            let indexed = rest.starts_with('[') && rest.ends_with(']') && !rest[1..].contains('[');
            rest.is_empty() || indexed
        };
        (self.pairs.iter())
            .filter(|p| named(&p.name))
            .map(|p| p.value.trim())
            .collect()
    }

    /// Whether any `name[...]=` is given.
    pub fn has_bracketed(&self, name: &str) -> bool {
        (self.pairs.iter()).any(|p| {
            p.name
                .strip_prefix(name)
                .is_some_and(|r| r.starts_with('['))
        })
    }

    /// The first value of a plain `name=value`, as given (not trimmed).
    pub fn first(&self, name: &str) -> Option<&str> {
        (self.pairs.iter())
            .find(|p| p.has_value && p.name == name)
            .map(|p| p.value.as_str())
    }
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// `application/x-www-form-urlencoded` decoding: `+` is a space, `%XX` a byte; invalid UTF-8
/// is replaced rather than refused (the value then simply matches nothing).
pub fn url_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// RFC 3986 encoding, as PHP's `rawurlencode`: unreserved characters are left as they are.
pub fn encode(s: &str, out: &mut String) {
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 15) as usize] as char);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_is_kept_in_order() {
        let q =
            Query::read("facet=year&x=1&facet[]=%20hour%20&facet[2]=a&facet[a][b]=no&facetx=no");
        assert_eq!(q.values("facet"), ["year", "hour", "a"]);
        // PHP's view keeps the last of a repeated plain name.
        let q = Query::read("a=1&b=2&a=3");
        assert_eq!(php::get(q.php(), "a"), Some(&Param::Text("3".into())));
        assert_eq!(q.values("a"), ["1", "3"]);
    }

    #[test]
    fn first_takes_a_plain_name_with_a_value() {
        let q = Query::read("q&q=%20M4+&q=A1");
        assert_eq!(q.first("q"), Some(" M4 "));
        assert_eq!(q.first("page"), None);
        assert_eq!(Query::read("page=").first("page"), Some(""));
    }

    #[test]
    fn decoding_tolerates_junk() {
        assert_eq!(url_decode("a%2"), "a%2");
        assert_eq!(url_decode("%zz+%41"), "%zz A");
        assert_eq!(url_decode("%ff"), "\u{fffd}");
        assert_eq!(url_decode("%"), "%");
    }
}
