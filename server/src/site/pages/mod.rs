//! The site's pages, one folder per kind of page, each split the same way:
//!
//! - `query.rs` reads what the page shows from the loaded file (SQLite, or what was learnt of
//!   it once) into plain structs (no markup);
//! - `template.rs` draws the page from those structs (no SQL, no connection: it gets a
//!   [`Context`] instead of the [`View`]);
//! - `mod.rs` is the page: the query, then the template.
//!
//! A template reads the types its query returns, never calls it; a query never imports a
//! template. What pages share sits beside them, split the same way: [`query`] (numbers by year
//! or hour, read into columns) and [`template`] (the map, a chart with its table, breadcrumbs,
//! a pager).

pub mod about;
pub mod area;
pub mod count_point;
pub mod explore;
pub mod home;
pub mod local_authority;
pub mod query;
pub mod regions;
pub mod template;

use crate::site::overview::Overview;
use crate::site::View;

use template::Context;

/// What a template may read of the view: not the connection.
fn context<'a>(view: &View<'a>) -> Context<'a> {
    Context {
        overview: view.overview,
        points_asset: Overview::points_asset(view.release),
        api_base: format!("{}{}", view.prefix, view.api_base),
        max_page_size: view.max_page_size,
        frame: view.frame,
    }
}
