//! The HTML form of every resource, for a person with a browser (Part 1's HTML class): each
//! page written from the very document (JSON or GeoJSON) the resource answers with, so the two
//! cannot differ: every member shown, every link an `<a>`. The features' page adds a form that
//! asks for them with the same parameters. Each page is in the frame of its release: the
//! site's links in the layout lead to that release's pages.

use maud::{html, Markup};
use serde_json::{Map, Value};

use super::collection::Collection;
use super::map;
use super::query::ITEMS_PARAMETERS;
use crate::html::{page_framed, Frame, Section};
use crate::query::{self, Param, Params};
use crate::spatial::Crs;

/// A document (the landing page, the conformance, the collections, a collection, the
/// definition) as a page: its title, then every member.
pub fn document(frame: &Frame, title: &str, doc: &Value) -> String {
    let body = html! {
        h1 { (title) }
        (value(doc))
    };
    page_framed(frame, Section::Docs, title, body)
}

/// A window of a collection's features (at `url`, their coordinates in `crs`): how many, their
/// links, the form, a map of them, then a table of them (id, point, properties).
pub fn items(
    frame: &Frame,
    (c, crs): (&Collection, Crs),
    doc: &Value,
    url: &str,
    params: &Params,
) -> String {
    let title = format!("{}: features", c.title());
    let features = doc["features"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let columns: Vec<&String> = features
        .first()
        .and_then(|f| f["properties"].as_object())
        .map(|p| p.keys().collect())
        .unwrap_or_default();
    let body = html! {
        h1 { (title) }
        p { (doc["numberReturned"]) " of " (doc["numberMatched"]) " features." }
        (links(&doc["links"]))
        (form(c, params))
        @if let Some(map) = map::map(&map::points(features, crs), features.len()) { (map) }
        // A record has up to 40 fields: the table scrolls within the page (focusable, so a
        // keyboard can scroll it), as the site's wide tables do.
        div.table-scroll tabindex="0" role="region" aria-label={ (title) " (table)" } {
            table {
                caption { (title) }
                thead { tr {
                    th scope="col" { "feature" } th scope="col" { "point" }
                    @for name in &columns { th scope="col" { (name) } }
                } }
                tbody { @for f in features { tr {
                    td { a href={ (url) "/" (f["id"]) "?f=html" } { (f["id"]) } }
                    td { (point(&f["geometry"])) }
                    @for name in &columns { td { (text(&f["properties"][name.as_str()])) } }
                } } }
            }
        }
    };
    page_framed(frame, Section::Docs, &title, body)
}

/// A window of an area set's features (at `url`): how many, their links, then a table of
/// them (id, name, count points, vehicle-km and its year), each id a link to its page.
pub fn area_items(frame: &Frame, set: &str, doc: &Value, url: &str) -> String {
    let title = format!("Areas of {set}: features");
    let features = doc["features"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let columns = ["name", "count_points", "vehicle_km", "year"];
    let body = html! {
        h1 { (title) }
        p { (doc["numberReturned"]) " of " (doc["numberMatched"]) " features." }
        (links(&doc["links"]))
        div.table-scroll tabindex="0" role="region" aria-label={ (title) " (table)" } {
            table {
                caption { (title) }
                thead { tr {
                    th scope="col" { "feature" }
                    @for name in columns { th scope="col" { (name) } }
                } }
                tbody { @for f in features { tr {
                    @let id = text(&f["id"]);
                    td { a href={ (super::areas::item_url(url, &id)) "?f=html" } { (id) } }
                    @for name in columns { td { (text(&f["properties"][name])) } }
                } } }
            }
        }
    };
    page_framed(frame, Section::Docs, &title, body)
}

/// One feature: its point, its properties, its links.
pub fn item(frame: &Frame, c: &Collection, doc: &Value) -> String {
    let title = format!("{} {}", c.title(), doc["id"]);
    let body = html! {
        h1 { (title) }
        p { "Point: " (point(&doc["geometry"])) }
        (value(&doc["properties"]))
        (links(&doc["links"]))
    };
    page_framed(frame, Section::Docs, &title, body)
}

/// Any JSON value: an object as a list of its members, an array as a list, a URL as a link.
fn value(v: &Value) -> Markup {
    match v {
        Value::Object(members) => object(members),
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => html! {
            @for (i, item) in items.iter().enumerate() { @if i > 0 { ", " } (value(item)) }
        },
        Value::Array(items) => html! { ol { @for item in items { li { (value(item)) } } } },
        Value::String(s) if s.starts_with("http://") || s.starts_with("https://") => {
            html! { a href=(s) { (s) } }
        }
        other => html! { (text(other)) },
    }
}

fn object(members: &Map<String, Value>) -> Markup {
    html! { dl.members { @for (name, v) in members {
        dt { code { (name) } }
        dd { @if name == "links" { (links(v)) } @else { (value(v)) } }
    } } }
}

/// Links, each an `<a>` with its relation and media type.
fn links(v: &Value) -> Markup {
    let none = Vec::new();
    let all = v.as_array().unwrap_or(&none);
    html! { ul.links { @for l in all {
        li {
            a href=(text(&l["href"])) rel=(text(&l["rel"])) type=(text(&l["type"])) {
                (l["title"].as_str().unwrap_or_else(|| l["href"].as_str().unwrap_or("")))
            }
            " (" (text(&l["rel"])) ", " (text(&l["type"])) ")"
        }
    } } }
}

/// A value as text: a string bare, `null` as nothing, anything else as JSON.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn point(geometry: &Value) -> String {
    match geometry["coordinates"].as_array() {
        Some(xy) => format!("{}, {}", text(&xy[0]), text(&xy[1])),
        None => "none".to_string(),
    }
}

/// The items' parameters as a form (GET, to this page): what was asked filled in.
fn form(c: &Collection, params: &Params) -> Markup {
    let given = |name: &str| match query::php::get(params, name) {
        Some(Param::Text(t)) => t.clone(),
        _ => String::new(),
    };
    let crss = [Crs::CRS84_URI, Crs::BNG_URI];
    let free = ITEMS_PARAMETERS
        .iter()
        .filter(|p| !matches!(**p, "bbox-crs" | "crs" | "f"));
    html! {
        form method="get" {
            fieldset {
                legend { "Ask for features" }
                input type="hidden" name="f" value="html";
                @for name in free {
                    label { (name) " " input type="text" name=(name) value=(given(name)); } " "
                }
                @for name in ["bbox-crs", "crs"] {
                    label { (name) " " select name=(name) {
                        @for uri in crss { option value=(uri) selected[given(name) == uri] { (uri) } }
                    } } " "
                }
                @for name in c.dataset().filters {
                    label { (name) " " input type="text" name=(name) value=(given(name)); } " "
                }
                button type="submit" { "Ask" }
            }
        }
    }
}
