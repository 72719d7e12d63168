//! The public API's listings, one stage a module, in the order a request goes through them:
//!
//! - `query`: the query string as PHP (and so the public service) reads it;
//! - `request`: filters, sort, fields and page checked against the catalogue;
//! - `plan`: the request's SQL;
//! - `paging`: which rows make the page, fast at any depth;
//! - `write`: the rows as JSON (`json`) in the Laravel envelope (`envelope`), or in the
//!   2019-2020 one under the legacy base path (`legacy`).

pub mod envelope;
mod legacy;
mod paging;
mod plan;
pub mod query;
mod request;
mod write;

pub use legacy::Envelope;
pub use paging::{FilterSets, RowQuery};
pub use request::{ListRequest, DEFAULT_PAGE_SIZE};
pub use write::JsonRecord;
