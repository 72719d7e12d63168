//! The features: a window of a collection's items as a GeoJSON `FeatureCollection` (with
//! `numberMatched`, `numberReturned`, `timeStamp` and links to the next and previous
//! windows), and one feature by its id. Written by the API's own feature writer and pager, so
//! a filtered window is found as fast at any offset as a filtered page of the JSON API.

use std::time::{Duration, SystemTime};

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::json;

use super::collection::Collection;
use super::links::{self, link, to, with_query, Urls};
use super::query::Items;
use crate::api::features::{write_features, FeatureWriter};
use crate::api::{Condition, FilterSets, ListRequest, Pager, RowQuery};
use crate::error::ApiError;
use crate::forms::Form;
use crate::query::Params;
use crate::release::Release;
use crate::spatial::Crs;
use crate::stream::{Body, Flush};

/// Writes the items' body. Full chunks go to `flush` as they fill; the last, partial chunk is
/// returned. A query over `time_limit` (spent in SQLite) is stopped with a 503.
pub fn write_items(
    items: &Items,
    links: &ItemLinks,
    release: &Release,
    filter_sets: &FilterSets,
    time_limit: Duration,
    flush: &mut Flush,
) -> Result<Vec<u8>, ApiError> {
    let conn = release.timed_connection(time_limit)?;
    let mut timed_flush = conn.paced(flush);
    let capacity = items.window.size.clamp(1, 1400) as usize * 800;
    let mut body = Body::new(capacity, &mut timed_flush);
    let mut writer = FeatureWriter::of(&items.request, release, items.crs);
    let sql = writer.sql(&items.request);
    let pager = Pager {
        request: &items.request,
        release,
        filter_sets,
    };
    let (matched, rows) = pager.window(&conn, &sql, items.window)?;
    body.buf
        .extend_from_slice(b"{\"type\":\"FeatureCollection\",\"features\":");
    let returned = match rows {
        Some(query) => write_features(&conn, &query, &mut writer, &mut body)?,
        None => {
            body.buf.extend_from_slice(b"[]");
            0
        }
    };
    body.buf.extend_from_slice(b",\"numberMatched\":");
    json::int(&mut body.buf, matched);
    body.buf.extend_from_slice(b",\"numberReturned\":");
    json::int(&mut body.buf, returned as i64);
    write_time_stamp(&mut body.buf);
    body.buf.extend_from_slice(b",\"links\":");
    let links = links.of_window(items, matched);
    body.buf
        .extend_from_slice(serde_json::Value::Array(links).to_string().as_bytes());
    body.buf.push(b'}');
    Ok(body.buf)
}

/// `timeStamp`: when the response was written (RFC 3339, UTC, to the second).
fn write_time_stamp(out: &mut Vec<u8>) {
    out.extend_from_slice(b",\"timeStamp\":");
    let now = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    json::string(out, &now);
}

/// Where the items are, how they were asked for and in which format they are answered: what
/// their links are made of.
pub struct ItemLinks {
    /// The items' URL, without its query.
    pub url: String,
    /// The collection's URL.
    pub collection: String,
    pub params: Params,
    pub format: Form,
}

impl ItemLinks {
    pub fn new(urls: &Urls, c: &Collection, params: Params, format: Form) -> ItemLinks {
        let collection = urls.ogc(&format!("/collections/{}", c.id()));
        ItemLinks {
            url: format!("{collection}/items"),
            collection,
            params,
            format,
        }
    }

    /// A resource's links to itself, as asked (`self`) and in the other format (`alternate`).
    fn this(&self, url: &str) -> [serde_json::Value; 2] {
        let other = links::other(self.format);
        let alternate = with_query(
            url,
            &self.params,
            &["f"],
            &[("f", links::name(other).into())],
        );
        [
            link(
                with_query(url, &self.params, &[], &[]),
                "self",
                links::media(self.format, true),
                "This document",
            ),
            link(
                alternate,
                "alternate",
                links::media(other, true),
                "This document in another format",
            ),
        ]
    }

    /// This window, the next one while features remain, the previous one after the first,
    /// and the collection.
    fn of_window(&self, items: &Items, matched: i64) -> Vec<serde_json::Value> {
        let (offset, limit) = (items.window.offset, items.window.size);
        let media = links::media(self.format, true);
        let window = |offset: i64| {
            let extra = [("limit", limit.to_string()), ("offset", offset.to_string())];
            with_query(&self.url, &self.params, &["limit", "offset"], &extra)
        };
        let mut links = self.this(&self.url).to_vec();
        if offset.saturating_add(limit) < matched {
            links.push(link(
                window(offset + limit),
                "next",
                media,
                "The next features",
            ));
        }
        if offset > 0 {
            let prev = window((offset - limit).max(0));
            links.push(link(prev, "prev", media, "The previous features"));
        }
        links.push(self.to_collection());
        links
    }

    fn to_collection(&self) -> serde_json::Value {
        to(
            self.collection.clone(),
            "collection",
            self.format,
            false,
            "The collection",
        )
    }
}

/// One feature of `c` by its id, in `crs`, with its links; `None` when there is no such
/// feature.
pub fn write_item(
    release: &Release,
    c: &Collection,
    id: i64,
    crs: Crs,
    links: &ItemLinks,
) -> Result<Option<Vec<u8>>, ApiError> {
    let d = c.dataset();
    let id_column = d
        .column("id")
        .ok_or_else(|| ApiError::internal(format!("{} has no id", d.table)))?;
    let condition = Condition::In(id_column, vec![SqlValue::Integer(id)]);
    let request = ListRequest::features(d, vec![condition], crs);
    let mut writer = FeatureWriter::of(&request, release, crs);
    let query = RowQuery::all(&writer.sql(&request));
    let conn = release.connection()?;
    let mut stmt = conn.prepare_cached(&query.sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(query.args.iter()))?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(2048);
    writer.write_open(&conn, &mut out, row)?;
    let mut item_links = links.this(&format!("{}/{id}", links.url)).to_vec();
    item_links.push(links.to_collection());
    out.extend_from_slice(b",\"links\":");
    out.extend_from_slice(serde_json::Value::Array(item_links).to_string().as_bytes());
    out.push(b'}');
    Ok(Some(out))
}
