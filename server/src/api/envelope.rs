//! Laravel's pagination envelope: its keys in order, its arithmetic, its page URLs and links;
//! and which envelope a listing is written in (this one, or the legacy one of `legacy`).

use roadtraffic_catalog::json;

use crate::query::php::{self, Params};

/// Which envelope a listing is written in: chosen by the base path it was asked under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Envelope {
    /// Today's Laravel envelope, under `--base-path`.
    #[default]
    Laravel,
    /// The 2019-2020 one, under `--legacy-base-path`.
    Legacy,
}

/// A requested page number: any positive integer. One past `i64::MAX` can only be past the
/// last page; its digits are kept so that the envelope writes it, and the page before it,
/// back exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageNumber {
    Small(i64),
    /// Decimal digits, no leading zero, greater than `i64::MAX`.
    Huge(String),
}

impl PageNumber {
    /// From decimal digits (any number of them); `None` for zero.
    pub fn from_digits(digits: &str) -> Option<PageNumber> {
        let digits = digits.trim_start_matches('0');
        if digits.is_empty() {
            return None;
        }
        Some(match digits.parse::<i64>() {
            Ok(n) => PageNumber::Small(n),
            Err(_) => PageNumber::Huge(digits.to_string()),
        })
    }

    /// The number, or `i64::MAX` for one beyond it (every page arithmetic saturates).
    pub fn value(&self) -> i64 {
        match self {
            PageNumber::Small(n) => *n,
            PageNumber::Huge(_) => i64::MAX,
        }
    }

    /// The page before this one, if any.
    pub(super) fn previous(&self) -> Option<PageNumber> {
        match self {
            PageNumber::Small(n) => (*n > 1).then(|| PageNumber::Small(n - 1)),
            PageNumber::Huge(digits) => PageNumber::from_digits(&decrement(digits)),
        }
    }

    pub(super) fn write(&self, out: &mut Vec<u8>) {
        match self {
            PageNumber::Small(n) => json::int(out, *n),
            PageNumber::Huge(digits) => out.extend_from_slice(digits.as_bytes()),
        }
    }
}

impl std::fmt::Display for PageNumber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PageNumber::Small(n) => write!(f, "{n}"),
            PageNumber::Huge(digits) => f.write_str(digits),
        }
    }
}

/// A positive decimal number minus one, in decimal.
fn decrement(digits: &str) -> String {
    let mut out: Vec<u8> = digits.bytes().collect();
    for d in out.iter_mut().rev() {
        if *d == b'0' {
            *d = b'9';
        } else {
            *d -= 1;
            break;
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// One page of a listing, as the envelope describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub number: PageNumber,
    pub size: i64,
    pub total: i64,
}

impl Page {
    pub fn last_page(&self) -> i64 {
        ((self.total + self.size - 1) / self.size).max(1)
    }
    /// 0-based position of the first record of the page.
    pub fn offset(&self) -> i64 {
        (self.number.value() - 1).saturating_mul(self.size)
    }
    /// `from` and `to`: 1-based positions of the first and last record, when there are any.
    pub fn range(&self) -> Option<(i64, i64)> {
        let first = self.offset().saturating_add(1);
        (first <= self.total).then(|| {
            (
                first,
                self.offset().saturating_add(self.size).min(self.total),
            )
        })
    }
}

/// Laravel's `UrlWindow` with 3 pages on each side: `None` stands for a `...` gap.
pub fn window(last: i64, current: i64) -> Vec<Option<i64>> {
    let pages = |a: i64, b: i64| (a..=b).map(Some).collect::<Vec<_>>();
    if last < 14 {
        return pages(1, last);
    }
    let mut out;
    if current <= 7 {
        out = pages(1, 10);
        out.push(None);
        out.extend(pages(last - 1, last));
    } else if current > last - 7 {
        out = pages(1, 2);
        out.push(None);
        out.extend(pages(last - 9, last));
    } else {
        out = pages(1, 2);
        out.push(None);
        out.extend(pages(current - 3, current + 3));
        out.push(None);
        out.extend(pages(last - 1, last));
    }
    out
}

/// The URLs of a listing's pages, as JSON strings: what comes before the page number is
/// escaped once, not once per URL (an envelope holds up to 16 of them).
pub struct PageUrls {
    /// `"<path>?<query>page%5Bnumber%5D=`, escaped, with no closing quote.
    open: Vec<u8>,
}

impl PageUrls {
    pub fn new(path: &str, params: &Params) -> Self {
        let mut open = Vec::new();
        let url = format!("{path}?{}", php::page_query_to_number(params));
        json::string(&mut open, &url);
        open.pop(); // the closing quote, which follows the number
        PageUrls { open }
    }

    /// The URL of page `n`, as a JSON string (or `null` when there is no such page).
    pub fn write(&self, out: &mut Vec<u8>, n: Option<&PageNumber>) {
        let Some(n) = n else {
            return out.extend_from_slice(b"null");
        };
        out.extend_from_slice(&self.open);
        n.write(out);
        out.push(b'"');
    }
}

/// The envelope up to its `data`: the rows are written straight after it, then [`write_tail`].
pub fn write_head(out: &mut Vec<u8>, page: &Page) {
    out.extend_from_slice(b"{\"current_page\":");
    page.number.write(out);
    out.extend_from_slice(b",\"data\":");
}

/// The envelope after its `data`: page URLs, links, and the arithmetic.
pub fn write_tail(out: &mut Vec<u8>, page: &Page, path: &str, params: &Params) {
    let urls = PageUrls::new(path, params);
    let last = page.last_page();
    let current = page.number.value();
    let prev = page.number.previous();
    // Lazily: past the last page, the current one may be the largest number there is.
    let next = (current < last).then(|| PageNumber::Small(current + 1));
    let range = page.range();

    out.extend_from_slice(b",\"first_page_url\":");
    urls.write(out, Some(&PageNumber::Small(1)));
    out.extend_from_slice(b",\"from\":");
    json::opt_int(out, range.map(|r| r.0));
    out.extend_from_slice(b",\"last_page\":");
    json::int(out, last);
    out.extend_from_slice(b",\"last_page_url\":");
    urls.write(out, Some(&PageNumber::Small(last)));
    out.extend_from_slice(b",\"links\":[");
    link(out, &urls, "&laquo; Previous", prev.as_ref(), false);
    for n in window(last, current) {
        out.push(b',');
        match n {
            Some(n) => link(
                out,
                &urls,
                &n.to_string(),
                Some(&PageNumber::Small(n)),
                n == current,
            ),
            None => out.extend_from_slice(b"{\"url\":null,\"label\":\"...\",\"active\":false}"),
        }
    }
    out.push(b',');
    link(out, &urls, "Next &raquo;", next.as_ref(), false);
    out.extend_from_slice(b"],\"next_page_url\":");
    urls.write(out, next.as_ref());
    out.extend_from_slice(b",\"path\":");
    json::string(out, path);
    out.extend_from_slice(b",\"per_page\":");
    json::int(out, page.size);
    out.extend_from_slice(b",\"prev_page_url\":");
    urls.write(out, prev.as_ref());
    out.extend_from_slice(b",\"to\":");
    json::opt_int(out, range.map(|r| r.1));
    out.extend_from_slice(b",\"total\":");
    json::int(out, page.total);
    out.push(b'}');
}

/// One of the envelope's `links`: to `page`, if there is one.
fn link(out: &mut Vec<u8>, urls: &PageUrls, label: &str, page: Option<&PageNumber>, active: bool) {
    out.extend_from_slice(b"{\"url\":");
    urls.write(out, page);
    out.extend_from_slice(b",\"label\":");
    json::string(out, label);
    out.extend_from_slice(b",\"page\":");
    match page {
        Some(p) => p.write(out),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(if active {
        b",\"active\":true}"
    } else {
        b",\"active\":false}"
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(last: i64, current: i64) -> String {
        window(last, current)
            .iter()
            .map(|p| p.map_or("...".to_string(), |n| n.to_string()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn laravel_window() {
        assert_eq!(w(1, 1), "1");
        assert_eq!(w(13, 5), "1 2 3 4 5 6 7 8 9 10 11 12 13");
        assert_eq!(w(14, 7), "1 2 3 4 5 6 7 8 9 10 ... 13 14");
        assert_eq!(w(14, 8), "1 2 ... 5 6 7 8 9 10 11 12 13 14");
        assert_eq!(w(100, 50), "1 2 ... 47 48 49 50 51 52 53 ... 99 100");
        assert_eq!(w(100, 93), "1 2 ... 90 91 92 93 94 95 96 ... 99 100");
        assert_eq!(w(100, 94), "1 2 ... 91 92 93 94 95 96 97 98 99 100");
        assert_eq!(w(100, 500), "1 2 ... 91 92 93 94 95 96 97 98 99 100");
    }

    #[test]
    fn arithmetic() {
        let page = |number: i64, total: i64| Page {
            number: PageNumber::Small(number),
            size: 10,
            total,
        };
        assert_eq!(
            (page(3, 25).last_page(), page(3, 25).range()),
            (3, Some((21, 25)))
        );
        assert_eq!(page(4, 25).range(), None);
        assert_eq!((page(1, 0).last_page(), page(1, 0).range()), (1, None));
    }

    #[test]
    fn page_numbers_of_any_size() {
        let huge = PageNumber::from_digits("0009223372036854775808").unwrap();
        assert_eq!(huge, PageNumber::Huge("9223372036854775808".into()));
        assert_eq!(huge.previous(), Some(PageNumber::Small(i64::MAX)));
        let more = PageNumber::from_digits("100000000000000000000000").unwrap();
        assert_eq!(
            more.previous().unwrap().to_string(),
            "99999999999999999999999"
        );
        assert_eq!(PageNumber::from_digits("000"), None);
        let page = Page {
            number: more,
            size: 250,
            total: 1000,
        };
        assert_eq!(page.range(), None);
    }
}
