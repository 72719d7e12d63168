//! The page every HTML answer of the server is: head, header with the navigation, main,
//! footer with the licence; and how it is sent (its type, its Content-Security-Policy). The
//! site's pages and any other HTML page of the server (the API docs, the downloads) call
//! [`page`] or [`page_in`], so they all look and behave alike.

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use maud::{html, Markup, DOCTYPE};

use crate::error::ApiError;
use crate::site::assets;

/// No inline script or style, nothing from another host; forms only to the server itself.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'";

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

/// A whole page: `title` is the document's title (the site's name is added) and `body` the
/// content of its `<main>`, which should start with its `<h1>`.
pub fn page(title: &str, body: Markup) -> Markup {
    page_in(Section::None, title, body)
}

/// [`page`], with `section` marked as the current one in the navigation.
pub fn page_in(section: Section, title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en-GB" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " – Road traffic statistics" }
                link rel="stylesheet" href=(assets::url(assets::STYLESHEET));
                link rel="icon" href=(assets::url(assets::ICON));
                script src=(assets::url(assets::SCRIPT)) defer {}
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
                            a href="https://www.nationalarchives.gov.uk/doc/open-government-licence/version/3/" rel="license" {
                                "Open Government Licence v3.0"
                            }
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

/// An HTML page with its own headers: the default ones of the server (JSON, a CSP that
/// forbids everything) are only added where a response lacks them.
pub fn send(status: StatusCode, markup: Markup) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .insert_header((header::CONTENT_SECURITY_POLICY, CSP))
        .insert_header((header::REFERRER_POLICY, "same-origin"))
        .body(markup.into_string())
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
    let mut response = send(status, page(title, body));
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
