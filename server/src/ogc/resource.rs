//! The paths under `/ogcapi`, parsed once (by the route table) into the resource they name,
//! with the collection resolved; and each resource's template, the metric label.

use super::areas::{self, AreaPart};
use super::collection::Collection;

/// Where OGC API - Features lives on this server.
pub const PREFIX: &str = "/ogcapi";

/// What a path under [`PREFIX`] names.
#[derive(Debug, Clone)]
pub enum Resource {
    /// `/ogcapi`: what the service is, and links to the rest.
    Landing,
    Conformance,
    /// The OpenAPI 3.0 definition.
    Api,
    Collections,
    Collection(Collection),
    Items(Collection),
    /// What a filter of the collection's features may name (Part 3's queryables).
    Queryables(Collection),
    /// The JSON Schema of the collection's features (its `describedby`).
    Schema(Collection),
    /// A feature by its id; `None` for an id that is not a whole number (no feature has it).
    Item(Collection, Option<i64>),
    /// A resource of the collection `areas-{set}` of an area set (the set is resolved when
    /// answered: the sets are the file's).
    Areas(String, AreaPart),
    /// `/collections/{id}...` of an id that names no collection.
    NoCollection(String),
    /// Anything else under the prefix.
    Unknown,
}

impl Resource {
    /// The resource at `rest`, the path after [`PREFIX`] (empty or from a `/`); one trailing
    /// `/` names the same resource, as clients that join relative paths write it.
    pub fn parse(rest: &str) -> Resource {
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let parts: Vec<&str> = rest.split('/').skip(1).collect();
        match parts.as_slice() {
            [] => Resource::Landing,
            ["conformance"] => Resource::Conformance,
            ["api"] => Resource::Api,
            ["collections"] => Resource::Collections,
            ["collections", id, more @ ..] => match Collection::find(id) {
                Some(c) => Resource::under_collection(c, more),
                None if id.starts_with(areas::PREFIX) => match AreaPart::parse(more) {
                    Some(part) => Resource::Areas(id[areas::PREFIX.len()..].to_string(), part),
                    None => Resource::Unknown,
                },
                None if more.len() <= 2 => Resource::NoCollection(id.to_string()),
                None => Resource::Unknown,
            },
            _ => Resource::Unknown,
        }
    }

    /// A path under a collection's.
    fn under_collection(c: Collection, more: &[&str]) -> Resource {
        match more {
            [] => Resource::Collection(c),
            ["items"] => Resource::Items(c),
            ["queryables"] => Resource::Queryables(c),
            ["schema"] => Resource::Schema(c),
            ["items", id] => Resource::Item(c, feature_id(id)),
            _ => Resource::Unknown,
        }
    }

    /// The route's template: the metric label, never a raw id.
    pub fn template(&self) -> &'static str {
        match self {
            Resource::Landing => "/ogcapi",
            Resource::Conformance => "/ogcapi/conformance",
            Resource::Api => "/ogcapi/api",
            Resource::Collections => "/ogcapi/collections",
            Resource::Collection(_) | Resource::NoCollection(_) => {
                "/ogcapi/collections/{collectionId}"
            }
            Resource::Items(_) => "/ogcapi/collections/{collectionId}/items",
            Resource::Queryables(_) => "/ogcapi/collections/{collectionId}/queryables",
            Resource::Schema(_) => "/ogcapi/collections/{collectionId}/schema",
            Resource::Item(..) => "/ogcapi/collections/{collectionId}/items/{featureId}",
            Resource::Areas(_, part) => match part {
                AreaPart::Collection => "/ogcapi/collections/{collectionId}",
                AreaPart::Items => "/ogcapi/collections/{collectionId}/items",
                AreaPart::Item(_) => "/ogcapi/collections/{collectionId}/items/{featureId}",
                AreaPart::Queryables => "/ogcapi/collections/{collectionId}/queryables",
                AreaPart::Schema => "/ogcapi/collections/{collectionId}/schema",
            },
            Resource::Unknown => "/ogcapi/unknown",
        }
    }
}

/// A feature id: the record's id, a whole number as written in its URL.
fn feature_id(text: &str) -> Option<i64> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    digits.then(|| text.parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(rest: &str) -> String {
        match Resource::parse(rest) {
            Resource::Collection(c) => format!("Collection {}", c.id()),
            Resource::Items(c) => format!("Items {}", c.id()),
            Resource::Item(c, id) => format!("Item {} {id:?}", c.id()),
            Resource::Queryables(c) => format!("Queryables {}", c.id()),
            Resource::Schema(c) => format!("Schema {}", c.id()),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn each_path_names_its_resource() {
        for (rest, resource) in [
            ("", "Landing"),
            ("/", "Landing"),
            ("/conformance", "Conformance"),
            ("/api/", "Api"),
            ("/collections", "Collections"),
            ("/collections/count-points", "Collection count-points"),
            ("/collections/raw-counts/items/", "Items raw-counts"),
            (
                "/collections/raw-counts/items/12",
                "Item raw-counts Some(12)",
            ),
            ("/collections/raw-counts/items/x", "Item raw-counts None"),
            ("/collections/raw-counts/items/-1", "Item raw-counts None"),
            ("/collections/regions", "NoCollection(\"regions\")"),
            ("/collections/regions/items/1", "NoCollection(\"regions\")"),
            (
                "/collections/raw-counts/queryables",
                "Queryables raw-counts",
            ),
            ("/collections/count-points/schema/", "Schema count-points"),
            ("/collections/raw-counts/queryables/x", "Unknown"),
            ("/collections/areas-wards/items/", "Areas(\"wards\", Items)"),
            (
                "/collections/areas-wards/items/E05%2F1",
                "Areas(\"wards\", Item(\"E05/1\"))",
            ),
            ("/collections/areas-wards/x", "Unknown"),
            ("//", "Unknown"),
            ("/apix", "Unknown"),
        ] {
            assert_eq!(shown(rest), resource, "{rest}");
        }
    }
}
