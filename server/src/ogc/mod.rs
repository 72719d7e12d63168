//! OGC API - Features, Part 1 (Core) and Part 2 (CRS by reference), under `/ogcapi` (and, for
//! each kept release, `/releases/{name}/ogcapi`, its links in that prefix: `links::Urls`): each
//! dataset of the catalogue with places is a feature collection, its records features (a
//! point each, at the record's own coordinates), so that GIS clients (GDAL, QGIS, OWSLib)
//! read the mirror as they read any such service. A room beside the JSON API, built on its
//! parts: the same conditions, feature writer and pager.
//!
//! - `resource`: the paths under `/ogcapi`, parsed once into what they name;
//! - `collection`: the collections, from the catalogue, and what gives a record its time;
//! - `query`: each resource's parameters, checked (`datetime`'s in `datetime`);
//! - `documents`: the landing page, the conformance classes, the collections (with their
//!   `extent`, learnt once per release), in `links`' URLs;
//! - `items`: the features, a window or one;
//! - `openapi`: the OpenAPI 3.0 definition;
//! - `html`: every resource as a page, from its JSON (the features' with a `map` of them);
//! - `areas`: the area sets stored in the file, each a collection of polygons.

pub mod areas;
pub mod collection;
mod datetime;
pub mod documents;
pub mod extent;
pub mod html;
pub mod items;
pub mod links;
mod map;
pub mod openapi;
pub mod query;
pub mod resource;

pub use collection::Collection;
pub use resource::{Resource, PREFIX};
