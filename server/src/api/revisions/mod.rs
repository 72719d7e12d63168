//! The revisions of a listing's records (`<endpoint>/revisions`): the natural keys of the
//! records its filters match in any kept release, in key order, a page of keys at a time, each
//! with its record in every kept release, oldest first, as that release's listing writes it
//! (or `null` where the release lacks the key), and the fields that changed since the release
//! before.
//!
//! - `keys`: the page of keys, merged from every release's keys in key order;
//! - `records`: each key's record in each release, the fields that changed, the JSON.
//!
//! A key is matched by the filters in any release, then shown in every release whatever its
//! record there: a count point whose road was renamed still shows both names. `id` is a
//! release's own row number (file order), not a figure: it is never among the changed fields.

mod keys;
mod records;

use std::sync::Arc;
use std::time::{Duration, Instant};

use roadtraffic_catalog::{Column, Dataset};

use crate::error::ApiError;
use crate::query::php::{self, Param, Params};
use crate::query::Query;
use crate::release::Release;
use crate::rows::{self, Condition, PageNumber, Window};

/// What follows a listing's path for the revisions of its records.
pub const REVISIONS: &str = "/revisions";

/// Keys a page holds when `page[size]` is not given: each with a record per kept release.
pub const DEFAULT_KEYS: i64 = 100;

/// A revisions request, checked: the listing's filters and fields, and a page of keys.
#[derive(Debug)]
pub struct RevisionsRequest {
    pub dataset: &'static Dataset,
    pub conditions: Vec<Condition>,
    pub fields: Vec<&'static Column>,
    /// (number, size): a page of keys.
    pub page: (PageNumber, i64),
}

/// A kept release as the revisions name it.
pub struct NamedRelease {
    pub name: String,
    pub release: Arc<Release>,
}

/// The answer: a JSON array, and whether keys follow this page.
pub struct RevisionsPage {
    pub body: Vec<u8>,
    pub more: bool,
}

impl RevisionsRequest {
    /// The listing's filters, fields and page parameters (of `query`), with
    /// the listing's 400s, but a page of [`DEFAULT_KEYS`] by default, and a `page[size]` or
    /// `page[number]` given empty or more than once refused (the listing takes the last, as
    /// PHP does; this endpoint has no PHP client to follow). `sort` is not taken (keys come
    /// in key order), like any parameter the listing does not know.
    pub fn parse(
        d: &'static Dataset,
        query: &Query,
        max_page_size: i64,
        areas: &dyn rows::AreaLookup,
    ) -> Result<Self, ApiError> {
        let params = query.php();
        for name in ["page[size]", "page[number]"] {
            let values = query.values(name);
            if values.len() > 1 || values.iter().any(|v| v.is_empty()) {
                return Err(ApiError::BadRequest(format!(
                    "{name} must be given once, as a positive integer."
                )));
            }
        }
        let (number, size) = rows::page_asked(params, max_page_size)?;
        let sized = matches!(php::get(params, "page"), Some(Param::Map(page)) if page.iter().any(|(k, _)| k == "size"));
        Ok(RevisionsRequest {
            dataset: d,
            conditions: rows::conditions(d, query, areas)?,
            fields: rows::fields(d, params)?,
            page: (number, if sized { size } else { DEFAULT_KEYS }),
        })
    }

    /// Records the request may read: a record per key in each release.
    pub fn rows_asked(&self, releases: usize) -> i64 {
        self.page.1.saturating_mul(releases as i64)
    }

    /// The request in one canonical form: its URL and its parameters as its `Link`s write them
    /// back (as a listing's page, `ListingAsked::key`).
    pub fn canonical(&self, url: &str, params: &Params) -> String {
        format!("{url}?{}", php::page_query(params, &self.page.0))
    }

    /// The `Link` header's value: the next page when keys follow, the previous one when this
    /// is not the first (RFC 8288).
    pub fn links(&self, url: &str, params: &Params, more: bool) -> Option<String> {
        let number = &self.page.0;
        let next = match number {
            PageNumber::Small(n) if more => n.checked_add(1).map(PageNumber::Small),
            _ => None,
        };
        let link = |n: PageNumber, rel: &str| {
            format!("<{url}?{}>; rel=\"{rel}\"", php::page_query(params, &n))
        };
        let links: Vec<String> = [(next, "next"), (number.previous(), "prev")]
            .into_iter()
            .filter_map(|(n, rel)| Some(link(n?, rel)))
            .collect();
        (!links.is_empty()).then(|| links.join(", "))
    }

    /// The page of keys and their revisions across `releases` (oldest first). Every query
    /// stops once the whole request has taken `time_limit` (a 503).
    pub fn run(
        &self,
        releases: &[NamedRelease],
        time_limit: Duration,
    ) -> Result<RevisionsPage, ApiError> {
        let deadline = Deadline {
            at: (!time_limit.is_zero()).then(|| Instant::now() + time_limit),
            release: releases.first().map(|k| k.release.clone()),
        };
        let conns = (releases.iter())
            .map(|k| k.release.timed_connection(time_limit))
            .collect::<Result<Vec<_>, _>>()?;
        let (number, size) = &self.page;
        let window = Window {
            offset: (number.value() - 1).saturating_mul(*size),
            size: *size,
        };
        let page = keys::page(self, &conns, window)?;
        let mut sides: Vec<records::Side> = (releases.iter().zip(&conns))
            .map(|(k, conn)| records::Side::new(self, &k.name, &k.release, conn))
            .collect();
        let body = records::write(self, &mut sides, &page.keys, &deadline)?;
        Ok(RevisionsPage {
            body,
            more: page.more,
        })
    }
}

/// When the request's time is up. SQLite stops a long statement itself (`timed_connection`);
/// the lookups of a page's keys are many short ones, each under SQLite's check, so the time
/// is looked at between keys too. Under a limit of 0 there is no time to look at: SQLite
/// counts every instruction of the lookups, and stops them.
pub struct Deadline {
    at: Option<Instant>,
    /// Where a time out is counted.
    release: Option<Arc<Release>>,
}

impl Deadline {
    /// A 503 once the time is up.
    pub fn check(&self) -> Result<(), ApiError> {
        if self.at.is_none_or(|at| Instant::now() <= at) {
            return Ok(());
        }
        if let Some(release) = &self.release {
            release.metrics().query_timeouts.inc();
        }
        Err(ApiError::Unavailable)
    }
}
