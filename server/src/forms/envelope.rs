//! A page of records in its envelope (the JSON form of a paginated listing): Laravel's, its
//! keys in order, its page URLs and links; or the 2019-2020 one (`legacy`), chosen by the base
//! path the listing was asked under.

use roadtraffic_catalog::json;

use super::json::JsonArray;
use super::writer::{Record, Writer};
use crate::error::ApiError;
use crate::query::php::{self, Params};
use crate::rows::{Found, Page, PageNumber};

/// Which envelope a listing is written in: chosen by the base path it was asked under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Envelope {
    /// Today's Laravel envelope, under `--base-path`.
    #[default]
    Laravel,
    /// The 2019-2020 one, under `--legacy-base-path`.
    Legacy,
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
    /// `<path>?<query>page%5Bnumber%5D=`.
    url: String,
    /// The same escaped as a JSON string, with no closing quote.
    open: Vec<u8>,
}

impl PageUrls {
    pub fn new(path: &str, params: &Params) -> Self {
        let mut open = Vec::new();
        let url = format!("{path}?{}", php::page_query_to_number(params));
        json::string(&mut open, &url);
        open.pop(); // the closing quote, which follows the number
        PageUrls { url, open }
    }

    /// The URL of page `n`.
    pub fn url(&self, n: &PageNumber) -> String {
        format!("{}{n}", self.url)
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

/// A page of records in its envelope (today's or the 2019-2020 one), its page URLs at `path`
/// with the request's parameters.
pub struct PageWriter {
    envelope: Envelope,
    path: String,
    params: Params,
    records: JsonArray,
}

impl PageWriter {
    pub fn new(envelope: Envelope, path: String, params: Params) -> PageWriter {
        PageWriter {
            envelope,
            path,
            params,
            records: JsonArray::default(),
        }
    }
}

/// The page a page's envelope is of.
pub fn page_of(found: &Found) -> Result<&Page, ApiError> {
    match found {
        Found::Page(page) => Ok(page),
        _ => Err(ApiError::internal("an envelope of no page")),
    }
}

impl Writer for PageWriter {
    /// The envelope up to its `data`: the records are written straight after it.
    fn open(&mut self, out: &mut Vec<u8>, found: &Found) -> Result<(), ApiError> {
        match self.envelope {
            Envelope::Laravel => {
                out.extend_from_slice(b"{\"current_page\":");
                page_of(found)?.number.write(out);
                out.extend_from_slice(b",\"data\":");
            }
            Envelope::Legacy => out.extend_from_slice(b"{\"data\":"),
        }
        self.records.open(out, found)
    }

    fn record(&mut self, out: &mut Vec<u8>, record: &mut dyn Record) -> Result<(), ApiError> {
        self.records.record(out, record)
    }

    /// The envelope after its `data`.
    fn close(&mut self, out: &mut Vec<u8>, found: &Found, written: usize) -> Result<(), ApiError> {
        self.records.close(out, found, written)?;
        let (page, path, params) = (page_of(found)?, &self.path, &self.params);
        match self.envelope {
            Envelope::Laravel => write_tail(out, page, path, params),
            Envelope::Legacy => super::legacy::write_tail(out, page, path, params),
        }
        Ok(())
    }
}

/// The envelope after its `data`: page URLs, links, and the arithmetic.
fn write_tail(out: &mut Vec<u8>, page: &Page, path: &str, params: &Params) {
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
}
