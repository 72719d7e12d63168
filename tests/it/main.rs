//! The one integration test binary: the real loader and the real server, spoken to over HTTP.

// A test reads best as one story, start to end.
#![allow(clippy::too_many_lines)]

mod api;
mod architecture;
mod areas_api;
mod areas_load;
mod browser;
mod caching;
mod changes;
mod columnar;
mod conditional;
mod deploy;
mod description;
mod downloads;
mod fetch;
mod filters;
mod fixtures;
mod hostile_files;
mod hostile_requests;
mod legacy;
mod loader;
mod negotiation;
mod ogc;
mod ops;
mod pipelining;
mod program;
mod releases;
mod reliability;
mod rendered;
mod revisions;
mod site;
mod site_areas;
mod site_explore;
mod site_places;
mod site_releases;
mod snapshots;
mod spatial;
mod support;
mod swap;
mod totals;
mod totals_docs;
