//! The JSON API's listings: each endpoint (`endpoint`: a dataset at its path in each of its
//! forms), a listing asked for (`listing`: its rows, its writer, its key); beside them,
//! `revisions`: a listing's records by natural key in every kept release. What rows are read
//! is `crate::rows`'s; how they are written, `crate::forms`'s.

mod endpoint;
mod listing;
mod revisions;

pub use endpoint::{Endpoint, FACETS, SUMMARY, SUMMARY_FORMS};
pub use listing::ListingAsked;
pub use revisions::{NamedRelease, RevisionsRequest, DEFAULT_KEYS, REVISIONS};
