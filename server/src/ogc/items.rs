//! The features: a window of a collection's items as a GeoJSON `FeatureCollection` (with
//! `numberMatched`, `numberReturned` and links to the next and previous windows), and one
//! feature by its id. Written by the forms' own `FeatureCollection` writer
//! and the rows' pager, as the API's GeoJSON is, so a filtered window is found as fast at any
//! offset as a filtered page of the JSON API; but their properties' decimals kept as text
//! (latitude, longitude, link lengths) are numbers, so that GIS clients, which type a field
//! by its values, read them as numbers. The same question of the same release has the same
//! bytes (the links' parameters in one order), as its tag promises: so a window has no
//! `timeStamp`, which Part 1 makes optional and, where given, the time the response was
//! generated (Requirement 28, `/req/core/fc-timeStamp`), other bytes each time.

use std::time::Duration;

use roadtraffic_catalog::json;
use roadtraffic_catalog::record::Decimals;

use super::collection::Collection;
use super::links::{self as ogc_links, with_query, Urls, QUERYABLES_REL, SCHEMA};
use super::query::Items;
use crate::error::ApiError;
use crate::forms::links::{self, Escaping, Link};
use crate::forms::{self, FeatureWriter, Form, Members, Spec};
use crate::query::Params;
use crate::release::Release;
use crate::rows::{FilterSets, Found, RowQuery, Rows, Window};
use crate::spatial::Crs;
use crate::stream::Flush;

/// Writes the items' body: the window of features, then OGC's members (`Window`). Full chunks
/// go to `flush` as they fill; the last, partial chunk is returned. A query over `time_limit`
/// (spent in SQLite) is stopped with a 503.
pub fn write_items(
    items: &Items,
    links: ItemLinks,
    release: &Release,
    filter_sets: &FilterSets,
    time_limit: Duration,
    flush: &mut Flush,
) -> Result<Vec<u8>, ApiError> {
    let members = WindowMembers { links };
    let spec = Spec::Features(items.crs, Decimals::AsNumbers, Box::new(members));
    forms::write_timed(release, (&items.rows, filter_sets), spec, time_limit, flush)
}

/// What a window of features says after them: `numberMatched`, `numberReturned` and its
/// links, in plain JSON.
struct WindowMembers {
    links: ItemLinks,
}

impl Members for WindowMembers {
    fn write(&self, out: &mut Vec<u8>, found: &Found, returned: usize) -> Result<(), ApiError> {
        let (window, matched) = match found {
            Found::Window { window, matched } => (*window, *matched),
            _ => return Err(ApiError::internal("items that are no window")),
        };
        out.extend_from_slice(b",\"numberMatched\":");
        json::int(out, matched);
        out.extend_from_slice(b",\"numberReturned\":");
        json::int(out, returned as i64);
        out.extend_from_slice(b",\"links\":");
        let links = self.links.of_window(window, matched);
        links::write(out, &links, Escaping::Plain);
        Ok(())
    }
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

    /// What the answer at `url` (the items', or a feature's) is known by, its tag and its kept
    /// body: its `self` link, whose parameters say every row and every link, and its form.
    pub fn key(&self, url: &str) -> String {
        format!(
            "{} {:?}",
            with_query(url, &self.params, &[], &[]),
            self.format
        )
    }

    /// A feature's URL, without its query.
    pub fn item_url(&self, id: i64) -> String {
        format!("{}/{id}", self.url)
    }

    /// A resource's links to itself, as asked (`self`) and in the other format (`alternate`).
    pub(super) fn this(&self, url: &str) -> [Link; 2] {
        let other = ogc_links::other(self.format);
        let alternate = with_query(
            url,
            &self.params,
            &["f"],
            &[("f", ogc_links::name(other).into())],
        );
        [
            Link {
                href: with_query(url, &self.params, &[], &[]),
                rel: "self",
                media: ogc_links::media(self.format, true),
                title: Some("This document"),
            },
            Link {
                href: alternate,
                rel: "alternate",
                media: ogc_links::media(other, true),
                title: Some("This document in another format"),
            },
        ]
    }

    /// The resource's own links and its collection's queryables as an HTTP `Link` header
    /// (RFC 8288), where clients that ask with `HEAD` (ogctests' Part 3 suite) look for them.
    pub fn header(&self, url: &str) -> String {
        let mut links: Vec<String> = (self.this(url).iter())
            .map(|l| format!("<{}>; rel=\"{}\"; type=\"{}\"", l.href, l.rel, l.media))
            .collect();
        links.push(format!(
            "<{}/queryables>; rel=\"{QUERYABLES_REL}\"; type=\"{SCHEMA}\"",
            self.collection
        ));
        links.join(", ")
    }

    /// This window, the next one while features remain, the previous one after the first,
    /// and the collection.
    pub(super) fn of_window(&self, window: Window, matched: i64) -> Vec<Link> {
        let (offset, limit) = (window.offset, window.size);
        let media = ogc_links::media(self.format, true);
        let at = |offset: i64| {
            let extra = [("limit", limit.to_string()), ("offset", offset.to_string())];
            with_query(&self.url, &self.params, &["limit", "offset"], &extra)
        };
        let mut links = self.this(&self.url).to_vec();
        let link = |href, rel, title| Link {
            href,
            rel,
            media,
            title: Some(title),
        };
        if offset.saturating_add(limit) < matched {
            links.push(link(at(offset + limit), "next", "The next features"));
        }
        if offset > 0 {
            let prev = at((offset - limit).max(0));
            links.push(link(prev, "prev", "The previous features"));
        }
        links.push(self.to_collection());
        links
    }

    pub(super) fn to_collection(&self) -> Link {
        Link {
            href: format!("{}{}", self.collection, ogc_links::query_of(self.format)),
            rel: "collection",
            media: ogc_links::media(self.format, false),
            title: Some("The collection"),
        }
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
    let rows = Rows::matching(d, (id_column, id), Vec::new());
    let mut writer = FeatureWriter::of(&rows, release, crs, Decimals::AsNumbers);
    let query = RowQuery::all(&writer.sql(&rows));
    let conn = release.connection()?;
    let mut stmt = conn.prepare_cached(&query.sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(query.args.iter()))?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(2048);
    writer.write_open(&conn, &mut out, row)?;
    let mut item_links = links.this(&links.item_url(id)).to_vec();
    item_links.push(links.to_collection());
    out.extend_from_slice(b",\"links\":");
    links::write(&mut out, &item_links, Escaping::Plain);
    out.push(b'}');
    Ok(Some(out))
}
