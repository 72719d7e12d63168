//! Links: where this server is as its clients reach it, each resource's URL, the formats and
//! their media types, and the query of a link to another window or format of the same items.

use serde_json::{json, Value};

use super::resource::PREFIX;
use crate::forms::Form;
use crate::query::{self, Param, Params};

pub const JSON: &str = "application/json";
pub const GEOJSON: &str = "application/geo+json";
pub const OPENAPI: &str = "application/vnd.oai.openapi+json;version=3.0";
pub const HTML: &str = "text/html";
pub const SCHEMA: &str = "application/schema+json";
/// The relation of a collection to its queryables (OGC API - Features Part 3).
pub const QUERYABLES_REL: &str = "http://www.opengis.net/def/rel/ogc/1.0/queryables";

/// A resource's form (`forms::Form::Json`, GeoJSON for features, or `Form::Html` for a
/// person) as its links name it: `f`'s value.
pub fn name(form: Form) -> &'static str {
    match form {
        Form::Html => "html",
        _ => "json",
    }
}

/// The media type of a resource in this form: GeoJSON for `features`.
pub fn media(form: Form, features: bool) -> &'static str {
    match (form, features) {
        (Form::Html, _) => HTML,
        (_, true) => GEOJSON,
        (_, false) => JSON,
    }
}

/// The other form of a resource: the page of a JSON one, the JSON of a page.
pub fn other(form: Form) -> Form {
    match form {
        Form::Html => Form::Json,
        _ => Form::Html,
    }
}

/// What a URL adds to ask for this form: nothing for JSON, the default.
pub fn query_of(form: Form) -> &'static str {
    match form {
        Form::Html => "?f=html",
        _ => "",
    }
}

/// Where the service of the release asked for is: this server's address (scheme and host:
/// `--public-url`, else the request's), then the release's prefix (`/releases/{name}` for a
/// named one, nothing for the latest), so that every link stays in the release.
#[derive(Debug, Clone)]
pub struct Urls {
    pub root: String,
}

impl Urls {
    /// An OGC resource's URL: `path` under the prefix.
    pub fn ogc(&self, path: &str) -> String {
        format!("{}{PREFIX}{path}", self.root)
    }

    /// A page of the site (the docs, the licence), in the release.
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
pub fn to(url: String, rel: &str, format: Form, features: bool, title: &str) -> Value {
    let href = format!("{url}{}", query_of(format));
    link(href, rel, media(format, features), title)
}

/// A document's links to itself (`url`, without a query): `self` in its `format` and
/// `alternate` in the other.
pub fn this(url: &str, format: Form, features: bool) -> [Value; 2] {
    let other = other(format);
    let alternate = format!("{url}?f={}", name(other));
    [
        to(url.to_string(), "self", format, features, "This document"),
        link(
            alternate,
            "alternate",
            media(other, features),
            "This document in another format",
        ),
    ]
}

/// `url` with the request's parameters but those named in `replaced`, in the order of their
/// names (`f` last, where the links to another format add it), then `extra` (already
/// encoded): the same request, another window or format. In one order whatever the
/// request's, so that a question has one answer, byte for byte, and one tag (the items' key
/// is their `self` link).
pub fn with_query(
    url: &str,
    params: &Params,
    replaced: &[&str],
    extra: &[(&str, String)],
) -> String {
    let mut parts = Vec::new();
    let mut sorted: Vec<&(String, Param)> = params.iter().collect();
    sorted.sort_by_key(|(name, _)| (name == "f", name));
    for (name, value) in sorted {
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
    fn another_window_has_the_other_parameters_in_one_order() {
        let next = |query: &str| {
            let params = query::Query::read(query).php().clone();
            with_query(
                "http://h/x",
                &params,
                &["limit", "offset"],
                &[("limit", "5".into()), ("offset", "15".into())],
            )
        };
        let asked = next("road_name=A 3&limit=5&bbox=-2,52,-1,53&offset=10");
        assert_eq!(
            asked,
            "http://h/x?bbox=-2%2C52%2C-1%2C53&road_name=A%203&limit=5&offset=15"
        );
        assert_eq!(asked, next("bbox=-2%2C52%2C-1%2C53&road_name=A+3&x.y="));
        assert_eq!(
            next("f=html&road_name=M4"),
            "http://h/x?road_name=M4&f=html&limit=5&offset=15"
        );
        assert_eq!(
            with_query("http://h/x", &Params::new(), &[], &[]),
            "http://h/x"
        );
    }
}
