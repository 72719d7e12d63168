//! The envelope the public service served until about 2020, for the clients written for it
//! (the R package trafficr, scripts that read `meta.last_page` or follow `links.next`), served
//! under `--legacy-base-path`: `{"data": [...], "links": {first, last, prev, next}, "meta":
//! {current_page, from, last_page, path, per_page, to, total}}`, keys in that order. Pages,
//! URLs and records are today's (`envelope`), but for the record fields of that era that
//! releases no longer hold (`roadtraffic_catalog::legacy`), written as null.

use roadtraffic_catalog::json;

use super::envelope::PageUrls;
use crate::query::Params;
use crate::rows::{Page, PageNumber};

/// The envelope after its `data` (`{"data":` and the records before it): `links`, then
/// `meta`.
pub fn write_tail(out: &mut Vec<u8>, page: &Page, path: &str, params: &Params) {
    let urls = PageUrls::new(path, params);
    let last = page.last_page();
    let prev = page.number.previous();
    let next = (page.number.value() < last).then(|| PageNumber::Small(page.number.value() + 1));
    let range = page.range();

    out.extend_from_slice(b",\"links\":{\"first\":");
    urls.write(out, Some(&PageNumber::Small(1)));
    out.extend_from_slice(b",\"last\":");
    urls.write(out, Some(&PageNumber::Small(last)));
    out.extend_from_slice(b",\"prev\":");
    urls.write(out, prev.as_ref());
    out.extend_from_slice(b",\"next\":");
    urls.write(out, next.as_ref());
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
