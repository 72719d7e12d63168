//! Links: where this server is as its clients reach it, each resource's URL, the formats and
//! their media types, and the query of a link to another window or format of the same items.

use serde_json::{json, Value};

use super::resource::PREFIX;
use crate::query::{self, Param, Params};

pub const JSON: &str = "application/json";
pub const GEOJSON: &str = "application/geo+json";
pub const OPENAPI: &str = "application/vnd.oai.openapi+json;version=3.0";
pub const HTML: &str = "text/html";

/// The formats of every resource: JSON (GeoJSON for features), or HTML for a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Html,
}

impl Format {
    /// Its name as `f` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Html => "html",
        }
    }

    /// The media type of a resource in this format: GeoJSON for `features`.
    pub fn media(self, features: bool) -> &'static str {
        match (self, features) {
            (Format::Html, _) => HTML,
            (Format::Json, true) => GEOJSON,
            (Format::Json, false) => JSON,
        }
    }

    pub fn other(self) -> Format {
        match self {
            Format::Json => Format::Html,
            Format::Html => Format::Json,
        }
    }

    /// What a URL adds to ask for this format: nothing for JSON, the default.
    fn query(self) -> &'static str {
        match self {
            Format::Json => "",
            Format::Html => "?f=html",
        }
    }
}

/// This server's address (scheme and host: `--public-url`, else the request's).
#[derive(Debug, Clone)]
pub struct Urls {
    pub root: String,
}

impl Urls {
    /// An OGC resource's URL: `path` under the prefix.
    pub fn ogc(&self, path: &str) -> String {
        format!("{}{PREFIX}{path}", self.root)
    }

    /// A page of the site (the docs, the licence).
    pub fn site(&self, path: &str) -> String {
        format!("{}{path}", self.root)
    }
}

/// A link as Part 1's `link.yaml` has it.
pub fn link(href: String, rel: &str, media: &str, title: &str) -> Value {
    json!({"href": href, "rel": rel, "type": media, "title": title})
}

/// A link to another resource (`url`, without a query) in `format`: a page of the HTML links
/// to the other pages, JSON to JSON.
pub fn to(url: String, rel: &str, format: Format, features: bool, title: &str) -> Value {
    let href = format!("{url}{}", format.query());
    link(href, rel, format.media(features), title)
}

/// A document's links to itself (`url`, without a query): `self` in its `format` and
/// `alternate` in the other.
pub fn this(url: &str, format: Format, features: bool) -> [Value; 2] {
    let other = format.other();
    let alternate = format!("{url}?f={}", other.name());
    [
        to(url.to_string(), "self", format, features, "This document"),
        link(
            alternate,
            "alternate",
            other.media(features),
            "This document in another format",
        ),
    ]
}

/// `url` with the request's parameters but those named in `replaced`, then `extra` (already
/// encoded): the same request, another window or format.
pub fn with_query(
    url: &str,
    params: &Params,
    replaced: &[&str],
    extra: &[(&str, String)],
) -> String {
    let mut parts = Vec::new();
    for (name, value) in params {
        let Param::Text(text) = value else { continue };
        if replaced.contains(&name.as_str()) || text.is_empty() {
            continue;
        }
        let mut part = String::new();
        query::encode(name, &mut part);
        part.push('=');
        query::encode(text, &mut part);
        parts.push(part);
    }
    parts.extend(extra.iter().map(|(name, value)| format!("{name}={value}")));
    match parts.is_empty() {
        true => url.to_string(),
        false => format!("{url}?{}", parts.join("&")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_window_keeps_the_other_parameters_in_order() {
        let params = query::Query::read("road_name=A 3&limit=5&bbox=-2,52,-1,53&offset=10")
            .php()
            .clone();
        let next = with_query(
            "http://h/x",
            &params,
            &["limit", "offset"],
            &[("limit", "5".into()), ("offset", "15".into())],
        );
        assert_eq!(
            next,
            "http://h/x?road_name=A%203&bbox=-2%2C52%2C-1%2C53&limit=5&offset=15"
        );
        assert_eq!(
            with_query("http://h/x", &Params::new(), &[], &[]),
            "http://h/x"
        );
    }
}
