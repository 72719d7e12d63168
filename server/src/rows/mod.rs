//! What to read: the rows of a dataset a question asks for ([`Rows`]: which rows, in which
//! order, which fields, how many of them), built the same way by the listings, OGC's items,
//! the downloads, the revisions and the totals, and read the same way whatever form they are
//! written in (`crate::forms`). The parts, in the order a request goes through them:
//!
//! - `params`: filters, sort, fields and page checked against the catalogue (a 400 that says
//!   what is wrong), with `page`: a page number of any size and its arithmetic;
//! - `plan`: the SQL of the rows;
//! - `paging`: which rows make a page or a window, fast at any depth, with the filter sets
//!   learnt of the release (`filter_sets`).

pub mod area_filter;
mod filter_sets;
pub mod page;
mod paging;
mod params;
mod plan;

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::{Column, Dataset};

use crate::error::ApiError;
use crate::query::Query;

pub use area_filter::{AreaFilter, AreaGrouping, AreaLookup, NoAreas};
pub use filter_sets::FilterSets;
pub use page::{Page, PageNumber};
pub use paging::{Found, Pager, RowQuery, Window};
pub use params::{
    conditions, fields, fields_named, filter_condition, filter_words, list, page as page_asked,
    sort_by, sort_keys, sorts_not_allowed, Condition, Range, DEFAULT_PAGE_SIZE,
};
pub use plan::{column_list, conditions_key, Plan, Sql, ThenJoin};

/// Rows of a dataset, checked: which (its filters), in which order, which fields, how many.
#[derive(Debug, Clone)]
pub struct Rows {
    pub dataset: &'static Dataset,
    pub conditions: Vec<Condition>,
    /// (column, descending); ties broken by id.
    pub sort: Vec<(&'static Column, bool)>,
    pub fields: Vec<&'static Column>,
    pub reading: Reading,
}

/// How many of the rows are read.
#[derive(Debug, Clone)]
pub enum Reading {
    /// Every one (a whole download, an unpaginated listing).
    All,
    /// A page: (number, size), with the total counted.
    Page(PageNumber, i64),
    /// `size` rows after the first `offset` (OGC's `offset` and `limit`), with the total.
    Window(Window),
}

impl Rows {
    /// A listing's rows, as its parameters ask: its filters, sort and fields, and its page when
    /// it is paginated.
    pub fn listed(
        d: &'static Dataset,
        query: &Query,
        max_page_size: i64,
        areas: &dyn AreaLookup,
    ) -> Result<Rows, ApiError> {
        // Checked in this order, as the public service does: a 400 names the first fault.
        let whole = Rows::whole(d, query, areas)?;
        let reading = match d.paginated {
            true => {
                let (number, size) = params::page(query.php(), max_page_size)?;
                Reading::Page(number, size)
            }
            false => Reading::All,
        };
        Ok(Rows { reading, ..whole })
    }

    /// Every row a listing's filters keep, in its sort, with its fields (its whole forms:
    /// `.csv`, `.ndjson`, `.geojson`, `.parquet`).
    pub fn whole(
        d: &'static Dataset,
        query: &Query,
        areas: &dyn AreaLookup,
    ) -> Result<Rows, ApiError> {
        let params = query.php();
        Ok(Rows {
            dataset: d,
            conditions: params::conditions(d, query, areas)?,
            sort: params::sort(d, params)?,
            fields: params::fields(d, params)?,
            reading: Reading::All,
        })
    }

    /// Every row that meets `conditions`, every field, in `sort` (then id) order.
    pub fn all(
        d: &'static Dataset,
        conditions: Vec<Condition>,
        sort: Vec<(&'static Column, bool)>,
    ) -> Rows {
        Rows {
            dataset: d,
            conditions,
            sort,
            fields: d.stored_columns().collect(),
            reading: Reading::All,
        }
    }

    /// Every row whose `column` is `value`, every field, in `sort` (then id) order.
    pub fn matching(
        d: &'static Dataset,
        (column, value): (&'static Column, i64),
        sort: Vec<(&'static Column, bool)>,
    ) -> Rows {
        let condition = Condition::In(column, vec![SqlValue::Integer(value)]);
        Rows::all(d, vec![condition], sort)
    }

    /// How many rows it may read, for a heavy permit (every row of a small unpaginated list:
    /// none).
    pub fn asked(&self) -> i64 {
        match &self.reading {
            Reading::All => 0,
            Reading::Page(_, size) => *size,
            Reading::Window(window) => window.size,
        }
    }

    /// The rows in one canonical form: the same rows in the same order give the same text,
    /// whatever the order, encoding, letter case or repetition of the parameters that asked
    /// for them (the key of an answer that writes nothing else of its request).
    pub fn key(&self) -> String {
        let fields = match self.fields.len() == self.dataset.stored_columns().count() {
            true => "*".to_string(),
            false => (self.fields.iter().map(|c| c.name))
                .collect::<Vec<_>>()
                .join(","),
        };
        let sort: Vec<String> = (self.sort.iter())
            .map(|(c, desc)| format!("{}{}", if *desc { "-" } else { "" }, c.name))
            .collect();
        let reading = match &self.reading {
            Reading::All => "all".to_string(),
            Reading::Page(number, size) => format!("page {number} of {size}"),
            Reading::Window(w) => format!("{} after {}", w.size, w.offset),
        };
        format!(
            "{} sort {} fields {fields} {reading}",
            Plan(self).total_key(),
            sort.join(",")
        )
    }
}
