//! The query string as PHP (and so the public service) reads it, and page URLs as Laravel
//! writes them.
//!
//! PHP parses `a[b]=1&a[c]=2` into nested ordered maps: a repeated name keeps its first place
//! and its last value, and `page[size]` / `page[number]` share the place of `page`. Laravel
//! trims every value and drops empty ones. Page URLs are the request's parameters written back
//! in that order without `page[number]`, then `page[number]=N`, encoded as RFC 3986.

/// A parsed query parameter value: text, or a map of bracketed sub-keys.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    Text(String),
    Map(Vec<(String, Param)>),
}

/// An ordered map, as PHP arrays are.
pub type Params = Vec<(String, Param)>;

/// Nesting deeper than this is not followed (PHP's `max_input_nesting_level` is 64).
const MAX_DEPTH: usize = 16;

/// Splits `filter[a][b]` into `filter` and `["a", "b"]`, the way PHP does: an unclosed
/// bracket makes the whole name plain, and `.` or ` ` in the base name become `_`.
fn split_name(name: &str) -> (String, Vec<String>) {
    let Some(open) = name.find('[').filter(|&i| i > 0) else {
        return (php_base_name(name), Vec::new());
    };
    let mut keys = Vec::new();
    let mut rest = &name[open..];
    while let Some(stripped) = rest.strip_prefix('[') {
        let Some(close) = stripped.find(']') else {
            break;
        };
        keys.push(stripped[..close].to_string());
        rest = &stripped[close + 1..];
        if keys.len() >= MAX_DEPTH {
            break;
        }
    }
    if keys.is_empty() {
        return (php_base_name(name), Vec::new());
    }
    (php_base_name(&name[..open]), keys)
}

fn php_base_name(name: &str) -> String {
    name.replace(['.', ' '], "_")
}

fn insert(map: &mut Params, key: String, path: &[String], value: String) {
    let (head, tail) = match path.split_first() {
        None => {
            match map.iter_mut().find(|(k, _)| *k == key) {
                // Unlike PHP, a plain `page=3` does not wipe out `page[size]`: the public
                // service ignores plain `page`, and so does the mirror, whatever the order.
                Some((_, Param::Map(_))) => {}
                Some((_, v)) => *v = Param::Text(value),
                None => map.push((key, Param::Text(value))),
            }
            return;
        }
        Some(p) => p,
    };
    let slot = match map.iter().position(|(k, _)| *k == key) {
        Some(i) => i,
        None => {
            map.push((key, Param::Map(Vec::new())));
            map.len() - 1
        }
    };
    let inner = match &mut map[slot].1 {
        Param::Map(inner) => inner,
        text => {
            // A plain `a=1` then `a[b]=2`: the map replaces the text, as in PHP.
            *text = Param::Map(Vec::new());
            match text {
                Param::Map(inner) => inner,
                Param::Text(_) => return,
            }
        }
    };
    // `a[]=x` appends with the next integer key, as PHP does.
    let sub_key = if head.is_empty() {
        inner
            .iter()
            .filter_map(|(k, _)| k.parse::<i64>().ok())
            .max()
            .map_or(0, |m| m + 1)
            .to_string()
    } else {
        head.clone()
    };
    insert(inner, sub_key, tail, value);
}

/// PHP's parameters of the decoded `(name, value)` pairs of a query string, in order, values
/// trimmed as Laravel does.
pub fn parse<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> Params {
    let mut params = Params::new();
    for (name, value) in pairs {
        if name.is_empty() || name.starts_with('[') {
            continue;
        }
        let (base, path) = split_name(name);
        let value = value
            .trim_matches([' ', '\t', '\n', '\r', '\0', '\x0B'])
            .to_string();
        insert(&mut params, base, &path, value);
    }
    params
}

pub fn get<'a>(params: &'a Params, key: &str) -> Option<&'a Param> {
    params.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// `http_build_query(..., PHP_QUERY_RFC3986)`: nested keys as `a[b]`, empty values left out.
fn build(params: &Params, prefix: Option<&str>, out: &mut String) {
    for (k, v) in params {
        let name = match prefix {
            Some(p) => format!("{p}[{k}]"),
            None => k.clone(),
        };
        match v {
            Param::Text(t) if t.is_empty() => {}
            Param::Text(t) => {
                if !out.is_empty() {
                    out.push('&');
                }
                super::encode(&name, out);
                out.push('=');
                super::encode(t, out);
            }
            Param::Map(m) => build(m, Some(&name), out),
        }
    }
}

/// The query string of a page URL: the request's parameters without `page[number]`, then
/// `page[number]=N` (Laravel's `LengthAwarePaginator::url`).
pub fn page_query(params: &Params, page: &dyn std::fmt::Display) -> String {
    let mut out = page_query_to_number(params);
    out.push_str(&page.to_string());
    out
}

/// A page URL's query string up to its page number: [`page_query`] without the `N`.
pub fn page_query_to_number(params: &Params) -> String {
    let mut without_number: Params = params.clone();
    if let Some((_, Param::Map(page_map))) = without_number.iter_mut().find(|(k, _)| k == "page") {
        page_map.retain(|(k, _)| k != "number");
    }
    let mut out = String::new();
    build(&without_number, None, &mut out);
    if !out.is_empty() {
        out.push('&');
    }
    out.push_str("page%5Bnumber%5D=");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &str) -> Params {
        super::super::Query::read(raw).php().clone()
    }

    #[test]
    fn page_urls_as_the_public_service_writes_them() {
        let p = parse("page[size]=1&page[number]=1&filter[id]=6046");
        assert_eq!(
            page_query(&p, &1),
            "page%5Bsize%5D=1&filter%5Bid%5D=6046&page%5Bnumber%5D=1"
        );
        let p = parse("page%5Bsize%5D=30000&filter%5Byear%5D=2024,2023&page%5Bnumber%5D=3");
        assert_eq!(
            page_query(&p, &4),
            "page%5Bsize%5D=30000&filter%5Byear%5D=2024%2C2023&page%5Bnumber%5D=4"
        );
    }

    #[test]
    fn php_grouping_trimming_and_empties() {
        let p = parse(
            "filter[year]=2019&page[number]=2&limit=5&filter[road_name]=%20M6%20&page[size]=3&x=",
        );
        assert_eq!(
            page_query(&p, &1),
            "filter%5Byear%5D=2019&filter%5Broad_name%5D=M6&page%5Bsize%5D=3&limit=5&page%5Bnumber%5D=1"
        );
        // Repeated: first place, last value.
        let p = parse("page[size]=5&page=3");
        assert_eq!(page_query(&p, &2), "page%5Bsize%5D=5&page%5Bnumber%5D=2");
        let p = parse("a=1&b=2&a=3");
        assert_eq!(
            p,
            vec![
                ("a".into(), Param::Text("3".into())),
                ("b".into(), Param::Text("2".into()))
            ]
        );
    }

    #[test]
    fn names_are_split_like_php() {
        assert_eq!(
            split_name("a[b][c]"),
            ("a".into(), vec!["b".into(), "c".into()])
        );
        assert_eq!(split_name("a[b"), ("a[b".into(), vec![]));
        assert_eq!(split_name("a.b"), ("a_b".into(), vec![]));
        let p = parse("x[]=1&x[]=2");
        assert_eq!(
            page_query(&p, &1),
            "x%5B0%5D=1&x%5B1%5D=2&page%5Bnumber%5D=1"
        );
    }

    proptest::proptest! {
        /// Whatever the query string, parsing and writing page URLs neither panics nor writes
        /// anything but RFC 3986 characters, and a written URL reads back to itself.
        #[test]
        fn any_query_string_parses_and_rebuilds(query in "\\PC{0,300}", page in 1i64..i64::MAX) {
            let params = parse(&query);
            let url = page_query(&params, &page);
            let last = format!("page%5Bnumber%5D={}", page);
            let rfc3986 = url.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.~%&=".contains(&b));
            proptest::prop_assert!(url.ends_with(&last));
            proptest::prop_assert!(rfc3986, "{}", url);
            proptest::prop_assert_eq!(page_query(&parse(&url), &page), url);
        }

        #[test]
        fn bracket_soup_parses(query in "[a-z\\[\\]=&%5BD]{0,200}") {
            let _ = page_query(&parse(&query), &1);
        }
    }
}
