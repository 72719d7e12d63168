//! The public API's listings, one part a module. A request's story, from its parameters to its
//! bytes, is `listing` (`ListRequest`); the parts it calls, in the order it calls them:
//!
//! - `params`: filters, sort, fields and page checked against the catalogue;
//! - `plan`: the request's SQL;
//! - `paging`: which rows make the page, fast at any depth, with the filter sets learnt of
//!   the release (`filter_sets`);
//! - `records`: the rows as JSON records;
//! - `envelope`: the Laravel envelope around them, or the 2019-2020 one (`legacy`);
//! - `endpoint`: the paths a listing is served at, in each of its forms (JSON, CSV, NDJSON,
//!   GeoJSON, Parquet).
//!
//! Beside them, `revisions`: a listing's records by natural key in every kept release.

mod endpoint;
pub mod envelope;
pub mod features;
mod filter_sets;
mod legacy;
mod listing;
mod paging;
mod params;
mod plan;
mod records;
mod revisions;

pub use endpoint::{Endpoint, FACETS, SUMMARY, SUMMARY_FORMS};
pub use envelope::Envelope;
pub use filter_sets::FilterSets;

pub use paging::{Pager, RowQuery, Window};
pub use params::{
    conditions, filter_condition, sort_keys, sorts_not_allowed, Condition, ListRequest, Range,
    DEFAULT_PAGE_SIZE,
};
pub use plan::Plan;
pub use records::{Distance, JsonRecord};
pub use revisions::{Kept, RevisionsRequest, DEFAULT_KEYS, REVISIONS};
