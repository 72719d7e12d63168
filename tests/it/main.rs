//! The one integration test binary: the real loader and the real server, spoken to over HTTP.

// A test reads best as one story, start to end.
#![allow(clippy::too_many_lines)]

mod api;
mod deploy;
mod fixtures;
mod hostile;
mod hostile_input;
mod loader;
mod ops;
mod program;
mod reliability;
mod snapshots;
mod support;
mod swap;
