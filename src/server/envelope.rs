//! Laravel's pagination envelope: its keys in order, its arithmetic, its page URLs and links.

use super::json;
use super::query::{self, Params};

/// One page of a listing, as the envelope describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub number: i64,
    pub size: i64,
    pub total: i64,
}

impl Page {
    pub fn last_page(&self) -> i64 {
        ((self.total + self.size - 1) / self.size).max(1)
    }
    /// 0-based position of the first record of the page.
    pub fn offset(&self) -> i64 {
        (self.number - 1).saturating_mul(self.size)
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

/// The envelope up to its `data`: the rows are written straight after it, then [`write_tail`].
pub fn write_head(out: &mut Vec<u8>, page: Page) {
    out.extend_from_slice(b"{\"current_page\":");
    json::int(out, page.number);
    out.extend_from_slice(b",\"data\":");
}

/// The envelope after its `data`: page URLs, links, and the arithmetic.
pub fn write_tail(out: &mut Vec<u8>, page: Page, path: &str, params: &Params) {
    let url = |n: i64| format!("{path}?{}", query::page_query(params, n));
    let last = page.last_page();
    let prev = (page.number > 1).then(|| page.number - 1);
    let next = (page.number < last).then(|| page.number + 1);
    let range = page.range();
    let opt_url = |out: &mut Vec<u8>, n: Option<i64>| json::opt_string(out, n.map(url).as_deref());

    out.extend_from_slice(b",\"first_page_url\":");
    json::string(out, &url(1));
    out.extend_from_slice(b",\"from\":");
    json::opt_int(out, range.map(|r| r.0));
    out.extend_from_slice(b",\"last_page\":");
    json::int(out, last);
    out.extend_from_slice(b",\"last_page_url\":");
    json::string(out, &url(last));
    out.extend_from_slice(b",\"links\":[");
    link(
        out,
        prev.map(url).as_deref(),
        "&laquo; Previous",
        prev,
        false,
    );
    for n in window(last, page.number) {
        out.push(b',');
        match n {
            Some(n) => link(
                out,
                Some(&url(n)),
                &n.to_string(),
                Some(n),
                n == page.number,
            ),
            None => out.extend_from_slice(b"{\"url\":null,\"label\":\"...\",\"active\":false}"),
        }
    }
    out.push(b',');
    link(out, next.map(url).as_deref(), "Next &raquo;", next, false);
    out.extend_from_slice(b"],\"next_page_url\":");
    opt_url(out, next);
    out.extend_from_slice(b",\"path\":");
    json::string(out, path);
    out.extend_from_slice(b",\"per_page\":");
    json::int(out, page.size);
    out.extend_from_slice(b",\"prev_page_url\":");
    opt_url(out, prev);
    out.extend_from_slice(b",\"to\":");
    json::opt_int(out, range.map(|r| r.1));
    out.extend_from_slice(b",\"total\":");
    json::int(out, page.total);
    out.push(b'}');
}

fn link(out: &mut Vec<u8>, url: Option<&str>, label: &str, page: Option<i64>, active: bool) {
    out.extend_from_slice(b"{\"url\":");
    json::opt_string(out, url);
    out.extend_from_slice(b",\"label\":");
    json::string(out, label);
    out.extend_from_slice(b",\"page\":");
    json::opt_int(out, page);
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
        let p = Page {
            number: 3,
            size: 10,
            total: 25,
        };
        assert_eq!((p.last_page(), p.range()), (3, Some((21, 25))));
        let p = Page {
            number: 4,
            size: 10,
            total: 25,
        };
        assert_eq!(p.range(), None);
        let p = Page {
            number: 1,
            size: 10,
            total: 0,
        };
        assert_eq!((p.last_page(), p.range()), (1, None));
    }
}
