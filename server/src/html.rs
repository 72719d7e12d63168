//! Pages for people: the one layout of every HTML page of the server (the site's pages, the API
//! docs, the downloads, error pages): head, header with the navigation, main, footer with the
//! licence; and how a page is sent (its type, its Content-Security-Policy).
//!
//! [`page`] and [`response`] are a page without script (the docs, the downloads, errors);
//! [`page_in`] and [`send`] a page of the site, whose one script draws its map.
//!
//! Every page but the API's own shows which kept release it is of, in a [`Frame`]: the header
//! names it and links to the same page in each other kept release, and a page of a named
//! release (`/releases/{name}/...`) links only to pages, API listings and downloads of that
//! release.

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
    Explore,
    About,
    Docs,
    Downloads,
    /// A page outside the navigation (a count point, an error).
    None,
}

const NAVIGATION: &[(Section, &str, &str)] = &[
    (Section::Map, "/", "Map"),
    (Section::Regions, "/regions", "Regions"),
    (Section::Explore, "/explore", "Explore"),
    (Section::About, "/about", "About"),
    (Section::Docs, "/docs", "API docs"),
    (Section::Downloads, "/downloads", "Downloads"),
];

/// The root of the paths of the kept releases (`routes::table::RELEASES`): `/releases` lists
/// them, `/releases/{name}/...` serves each.
pub const RELEASES: &str = "/releases";

/// Which release a page is of, and where the same page is in each kept release: the header's
/// release picker, and the prefix of the page's own links.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frame {
    /// The path prefix of the release shown: `""` for the latest at its own paths,
    /// `/releases/{name}` for a named one.
    pub prefix: String,
    /// The kept releases, newest first; empty when the served file has no name (loaded without
    /// `--release`).
    pub releases: Vec<Choice>,
}

/// A kept release in the picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub name: String,
    /// The same page in that release: its own path for the latest, under `/releases/{name}`
    /// for any other.
    pub href: String,
    /// Whether it is the release the page shows.
    pub shown: bool,
    pub latest: bool,
}

impl Frame {
    /// A path of the site (`/regions`, `/api/...`, `/downloads/...`) in the release shown.
    pub fn link(&self, path: &str) -> String {
        format!("{}{path}", self.prefix)
    }
}

/// A whole page without script, `section` marked as the current one in the navigation:
/// `title` is the document's title (the site's name is added) and `content` the content of its
/// `<main>`, which should start with its `<h1>`. Sent by [`response`]. Of the latest, without
/// a release picker: [`in_release`] adds one; [`page_framed`] draws it in.
pub fn page(section: Section, title: &str, content: Markup) -> String {
    document(&Frame::default(), section, title, content, false).into_string()
}

/// [`page`], of the release of `frame`: its links to pages in that release (`content`'s are
/// its writer's), the picker in its header.
pub fn page_framed(frame: &Frame, section: Section, title: &str, content: Markup) -> String {
    document(frame, section, title, content, false).into_string()
}

/// A page of the site, with its script, `section` marked as the current one in the
/// navigation. Sent by [`send`].
pub fn page_in(frame: &Frame, section: Section, title: &str, body: Markup) -> Markup {
    document(frame, section, title, body, true)
}

/// The release picker: the release shown, and (when more are kept) the same page in each.
fn picker(frame: &Frame) -> Markup {
    html! {
        @match frame.releases.as_slice() {
            [] => {}
            [only] => p.release-shown { "Release " (only.name) },
            all => nav.releases aria-label="Release" {
                span.releases-label aria-hidden="true" { "Release:" }
                ul {
                    @for r in all {
                        li {
                            @if r.shown {
                                span.shown aria-current="page" { (r.name) @if r.latest { " (latest)" } }
                            } @else {
                                a href=(r.href) { (r.name) @if r.latest { " (latest)" } }
                            }
                        }
                    }
                }
                a.all-releases href=(RELEASES) { "All releases (JSON)" }
            }
        }
    }
}

fn document(frame: &Frame, section: Section, title: &str, body: Markup, scripted: bool) -> Markup {
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
                        a.brand href=(frame.link("/")) { "Road traffic statistics" }
                        nav aria-label="Main" {
                            ul {
                                @for (s, href, label) in NAVIGATION {
                                    li {
                                        @if *s == section {
                                            a href=(frame.link(href)) aria-current="page" { (label) }
                                        } @else {
                                            a href=(frame.link(href)) { (label) }
                                        }
                                    }
                                }
                            }
                        }
                        (picker(frame))
                    }
                }
                main #main.wrap tabindex="-1" { (body) }
                footer.site-footer {
                    div.wrap {
                        p {
                            "Data: Department for Transport road traffic statistics. Contains public sector information licensed under the "
                            // The licence's page on this site: nothing links off it (it works offline).
                            a href=(frame.link("/about#licence")) rel="license" { "Open Government Licence v3.0" }
                            "."
                        }
                        p {
                            "An offline mirror: every page, map and chart is served by this server alone. "
                            a href=(frame.link("/about")) { "About the data" }
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

/// A page made elsewhere (a tagged answer's body, `routes::tagged`), given a page's own
/// headers as [`response`] sends them: its CSP (which lets its stylesheet in) and its referrer
/// policy.
pub fn as_page(mut response: HttpResponse) -> HttpResponse {
    let headers = response.headers_mut();
    let csp = header::HeaderValue::from_static(CSP_NO_SCRIPT);
    headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    let referrer = header::HeaderValue::from_static("same-origin");
    headers.insert(header::REFERRER_POLICY, referrer);
    response
}

/// The HTML page of an error: its status, what went wrong in words, and ways back.
pub fn error_page(e: &ApiError) -> HttpResponse {
    error_page_in(&Frame::default(), e)
}

/// [`error_page`] in the release of `frame`: its ways back lead to pages of that release, and
/// its picker to the same path in the others (where it may be found).
pub fn error_page_in(frame: &Frame, e: &ApiError) -> HttpResponse {
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
    let elsewhere = matches!(e, ApiError::NotFound(_)) && frame.releases.len() > 1;
    let body = html! {
        h1 { (title) }
        p { (message) }
        @if elsewhere {
            p { "Another kept release may have it: each is linked at the top of this page, after “Release”." }
        }
        p { "Try:" }
        ul {
            li { a href=(frame.link("/")) { "the map of every count point, and the search" } }
            li { a href=(frame.link("/regions")) { "the regions and their local authorities" } }
            li { a href=(frame.link("/about")) { "what data is loaded" } }
        }
    };
    let page = page_framed(frame, Section::None, title, body);
    let mut response = build(status, page, CSP_NO_SCRIPT);
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

/// A finished page of [`page`] (written by another module: the docs), in the release of
/// `frame`: its picker drawn into its header and, for a named release, every link of the page
/// to a page, listing or download of the site moved under the release's prefix.
pub fn in_release(page: &str, frame: &Frame) -> String {
    const HEADER_END: &str = "</div></header>";
    let page = match frame.prefix.as_str() {
        "" => page.to_string(),
        prefix => with_prefix(page, prefix),
    };
    // The picker after: its link to the latest is at the latest's own path.
    match page.find(HEADER_END) {
        Some(at) => format!(
            "{}{}{}",
            &page[..at],
            picker(frame).into_string(),
            &page[at..]
        ),
        None => page,
    }
}

/// The attributes whose root-relative values are the site's URLs.
const URL_ATTRIBUTES: &[&str] = &["href", "action", "data-api"];

/// Paths that no release serves by name: the assets (one set for all), the list of releases
/// and the releases themselves (links already in one).
const UNDER_NO_RELEASE: &[&str] = &["/assets", RELEASES];

/// `page` with the prefix put before each root-relative URL of its links (`href`, `action`,
/// `data-api`) but those under no release. Maud escapes `"` in text, so `="/` is always an
/// attribute's value starting with `/`.
fn with_prefix(page: &str, prefix: &str) -> String {
    const VALUE: &str = "=\"/";
    let mut out = String::with_capacity(page.len() + 4096);
    let mut rest = page;
    while let Some(at) = rest.find(VALUE) {
        let (before, value) = (&rest[..at + 2], &rest[at + 2..]);
        out.push_str(before);
        let is_url = URL_ATTRIBUTES
            .iter()
            .any(|a| before[..at].ends_with(&format!(" {a}")));
        if is_url && in_a_release(value) {
            out.push_str(prefix);
        }
        rest = value;
    }
    out.push_str(rest);
    out
}

/// Whether the URL at the start of `value` (up to its closing `"`) is one a release serves: a
/// root-relative path (not `//host`) outside [`UNDER_NO_RELEASE`].
fn in_a_release(value: &str) -> bool {
    let path_end = value.find(['"', '?', '#']).unwrap_or(value.len());
    let path = &value[..path_end];
    let under = |root: &str| {
        path.strip_prefix(root)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    !path.starts_with("//") && !UNDER_NO_RELEASE.iter().any(|root| under(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(prefix: &str, names: &[&str], shown: &str) -> Frame {
        Frame {
            prefix: prefix.to_string(),
            releases: (names.iter().enumerate())
                .map(|(i, n)| Choice {
                    name: n.to_string(),
                    href: match i {
                        0 => "/docs".to_string(),
                        _ => format!("/releases/{n}/docs"),
                    },
                    shown: *n == shown,
                    latest: i == 0,
                })
                .collect(),
        }
    }

    #[test]
    fn a_page_of_a_named_release_links_into_it() {
        let body = maud::html! {
            a href="/downloads/a.csv" { "a" }
            a href="/api/x?y=1" { "b" }
            a href="/releases/2024/api/z" { "already" }
            a href="/releases" { "list" }
            a href="/releasesx" { "not the list" }
            a href="/ogcapi/collections" { "ogc" }
            a href="//elsewhere.example.org/x" { "other host" }
            a href="https://example.org/" { "absolute" }
            p title="/not-a-link" { "href=\"/x\" in text" }
        };
        let page = page(Section::Docs, "Docs", body);
        let framed = in_release(&page, &frame("/releases/2024", &["2025", "2024"], "2024"));
        for kept in [
            "href=\"/releases/2024/downloads/a.csv\"",
            "href=\"/releases/2024/api/x?y=1\"",
            "href=\"/releases/2024/api/z\"",
            "href=\"/releases\"",
            "href=\"/releases/2024/releasesx\"",
            "href=\"/releases/2024/ogcapi/collections\"",
            "href=\"//elsewhere.example.org/x\"",
            "href=\"https://example.org/\"",
            "title=\"/not-a-link\"",
            "href=&quot;/x&quot;",
            // The layout's own links, and the picker's.
            "class=\"brand\" href=\"/releases/2024/\"",
            "href=\"/releases/2024/docs\" aria-current=\"page\"",
            "href=\"/releases/2024/about#licence\"",
            "href=\"/assets/site.",
            "<span class=\"shown\" aria-current=\"page\">2024</span>",
            // The latest at its own path: the picker's links are not moved.
            "<a href=\"/docs\">2025 (latest)</a>",
        ] {
            assert!(framed.contains(kept), "{kept}:\n{framed}");
        }
        // The latest at its own paths: the same page, its picker added.
        let latest = in_release(&page, &frame("", &["2025", "2024"], "2025"));
        let picker = picker(&frame("", &["2025", "2024"], "2025")).into_string();
        assert_eq!(latest.replacen(&picker, "", 1), page);
        assert!(latest.contains("</nav><nav class=\"releases\""), "{latest}");
    }

    #[test]
    fn one_release_is_named_without_a_list_and_none_without_a_name() {
        let one = picker(&frame("", &["2025"], "2025")).into_string();
        assert_eq!(one, "<p class=\"release-shown\">Release 2025</p>");
        assert_eq!(picker(&frame("", &[], "")).into_string(), "");
    }
}
