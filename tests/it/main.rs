//! The one integration test binary: the real loader and the real server, spoken to over HTTP.

mod api;
mod fixtures;
mod hostile;
mod hostile_input;
mod loader;
mod reliability;
mod support;
mod swap;
