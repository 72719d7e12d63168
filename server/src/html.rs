//! Pages for people: the one layout of every HTML page of the server (the site's pages, the API
//! docs, the downloads, error pages): head, header with the navigation, main, footer with the
//! licence; and how a page is sent (its type, its Content-Security-Policy).
//!
//! [`page`] and [`response`] are a page without script (the docs, the downloads, errors);
//! [`page_in`] and [`send`] a page of the site, whose one script draws its map.

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use maud::{html, Markup, DOCTYPE};

use crate::assets;
use crate::error::ApiError;

/// A page of the site: the site's script and its data from this server; no inline script or
/// style, nothing from another host; forms only to the server itself.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'";

/// A page without script: no script at all (`default-src 'none'`), the stylesheet only.
pub const CSP_NO_SCRIPT: &str = "default-src 'none'; style-src 'self'; img-src 'self' data:; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The sections of the navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Map,
    Regions,
    About,
    Docs,
    Downloads,
    /// A page outside the navigation (a count point, an error).
    None,
}

const NAVIGATION: &[(Section, &str, &str)] = &[
    (Section::Map, "/", "Map"),
    (Section::Regions, "/regions", "Regions"),
    (Section::About, "/about", "About"),
    (Section::Docs, "/docs", "API docs"),
    (Section::Downloads, "/downloads", "Downloads"),
];

/// A whole page without script, `section` marked as the current one in the navigation:
/// `title` is the document's title (the site's name is added) and `content` the content of its
/// `<main>`, which should start with its `<h1>`. Sent by [`response`].
pub fn page(section: Section, title: &str, content: Markup) -> String {
    document(section, title, content, false).into_string()
}

/// A page of the site, with its script, `section` marked as the current one in the
/// navigation. Sent by [`send`].
pub fn page_in(section: Section, title: &str, body: Markup) -> Markup {
    document(section, title, body, true)
}

fn document(section: Section, title: &str, body: Markup, scripted: bool) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en-GB" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " – Road traffic statistics" }
                link rel="stylesheet" href=(assets::url(assets::STYLESHEET));
                link rel="icon" href=(assets::url(assets::ICON));
                @if scripted { script src=(assets::url(assets::SCRIPT)) defer {} }
            }
            body {
                a.skip href="#main" { "Skip to main content" }
                header.site-header {
                    div.wrap {
                        a.brand href="/" { "Road traffic statistics" }
                        nav aria-label="Main" {
                            ul {
                                @for (s, href, label) in NAVIGATION {
                                    li {
                                        @if *s == section {
                                            a href=(href) aria-current="page" { (label) }
                                        } @else {
                                            a href=(href) { (label) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                main #main.wrap tabindex="-1" { (body) }
                footer.site-footer {
                    div.wrap {
                        p {
                            "Data: Department for Transport road traffic statistics. Contains public sector information licensed under the "
                            // The licence's page on this site: nothing links off it (it works offline).
                            a href="/about#licence" rel="license" { "Open Government Licence v3.0" }
                            "."
                        }
                        p {
                            "An offline mirror: every page, map and chart is served by this server alone. "
                            a href="/about" { "About the data" }
                        }
                    }
                }
            }
        }
    }
}

/// A page of [`page`], sent.
pub fn response(page: String) -> HttpResponse {
    build(StatusCode::OK, page, CSP_NO_SCRIPT)
}

/// A page of [`page_in`], sent with `status`.
pub fn send(status: StatusCode, markup: Markup) -> HttpResponse {
    build(status, markup.into_string(), CSP)
}

/// A finished page of the site (200), from the response cache or just rendered.
pub fn send_page(page: bytes::Bytes) -> HttpResponse {
    build(StatusCode::OK, page, CSP)
}

/// An HTML page with its own headers: the default ones of the server (JSON, a CSP that
/// forbids everything) are only added where a response lacks them.
fn build<B>(status: StatusCode, page: B, csp: &'static str) -> HttpResponse
where
    B: actix_web::body::MessageBody + 'static,
{
    HttpResponse::build(status)
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .insert_header((header::CONTENT_SECURITY_POLICY, csp))
        .insert_header((header::REFERRER_POLICY, "same-origin"))
        .body(page)
}

/// The HTML page of an error: its status, what went wrong in words, and ways back.
pub fn error_page(e: &ApiError) -> HttpResponse {
    let status = e.status_code();
    let (title, message) = match e {
        ApiError::NotFound(_) => (
            "Page not found",
            "There is no such page. The count point, local authority or region may not be in the data loaded here.",
        ),
        ApiError::MethodNotAllowed(_) => ("Method not allowed", "Pages are read with GET only."),
        ApiError::Unavailable => (
            "Busy",
            "The server is busy or the page took too long to build. Please try again in a moment.",
        ),
        _ => ("Something went wrong", "The page could not be built. The error has been logged."),
    };
    if let ApiError::Internal(detail) = e {
        log::error!("internal error: {detail}");
    }
    let body = html! {
        h1 { (title) }
        p { (message) }
        p { "Try:" }
        ul {
            li { a href="/" { "the map of every count point, and the search" } }
            li { a href="/regions" { "the regions and their local authorities" } }
            li { a href="/about" { "what data is loaded" } }
        }
    };
    let mut response = build(status, page(Section::None, title, body), CSP_NO_SCRIPT);
    if let ApiError::MethodNotAllowed(_) = e {
        response
            .headers_mut()
            .insert(header::ALLOW, header::HeaderValue::from_static("GET, HEAD"));
    }
    if let ApiError::Unavailable = e {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("5"));
    }
    response
}
