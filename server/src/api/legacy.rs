//! The envelope the public service served until about 2020, for the clients written for it
//! (the R package trafficr, scripts that read `meta.last_page` or follow `links.next`), served
//! under `--legacy-base-path`: `{"data": [...], "links": {first, last, prev, next}, "meta":
//! {current_page, from, last_page, path, per_page, to, total}}`, keys in that order. Pages,
//! URLs and records are today's (`envelope`), but for the record fields of that era that
//! releases no longer hold (`roadtraffic_catalog::legacy`), written as null.

use roadtraffic_catalog::json;

use super::envelope::Page;
use super::query::{self, Params};

/// Which envelope a listing is written in: chosen by the base path it was asked under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Envelope {
    /// Today's Laravel envelope, under `--base-path`.
    #[default]
    Laravel,
    /// The 2019-2020 one, under `--legacy-base-path`.
    Legacy,
}

/// The envelope up to its `data`: the rows are written straight after it, then [`write_tail`].
pub fn write_head(out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"data\":");
}

/// The envelope after its `data`: `links`, then `meta`.
pub fn write_tail(out: &mut Vec<u8>, page: &Page, path: &str, params: &Params) {
    let url = |n: &dyn std::fmt::Display| format!("{path}?{}", query::page_query(params, n));
    let last = page.last_page();
    let prev = page.number.previous();
    let next = (page.number.value() < last).then(|| page.number.value() + 1);
    let range = page.range();

    out.extend_from_slice(b",\"links\":{\"first\":");
    json::string(out, &url(&1));
    out.extend_from_slice(b",\"last\":");
    json::string(out, &url(&last));
    out.extend_from_slice(b",\"prev\":");
    json::opt_string(out, prev.as_ref().map(|p| url(p)).as_deref());
    out.extend_from_slice(b",\"next\":");
    json::opt_string(out, next.as_ref().map(|n| url(n)).as_deref());
    out.extend_from_slice(b"},\"meta\":{\"current_page\":");
    page.number.write(out);
    out.extend_from_slice(b",\"from\":");
    json::opt_int(out, range.map(|r| r.0));
    out.extend_from_slice(b",\"last_page\":");
    json::int(out, last);
    out.extend_from_slice(b",\"path\":");
    json::string(out, path);
    out.extend_from_slice(b",\"per_page\":");
    json::int(out, page.size);
    out.extend_from_slice(b",\"to\":");
    json::opt_int(out, range.map(|r| r.1));
    out.extend_from_slice(b",\"total\":");
    json::int(out, page.total);
    out.extend_from_slice(b"}}");
}
