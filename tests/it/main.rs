//! The one integration test binary: the real loader and the real server, spoken to over HTTP.

// A test reads best as one story, start to end.
#![allow(clippy::too_many_lines)]

mod api;
mod browser;
mod fixtures;
mod hostile;
mod hostile_input;
mod loader;
mod reliability;
mod site;
mod snapshots;
mod support;
mod swap;
