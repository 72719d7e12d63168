//! Which kept release a page is of, and where the same page is in each other: the page's
//! [`Frame`] (drawn by `crate::html`), from the listing of the kept releases as it is when the
//! page is asked for. A kept page depends on that listing: [`Releases::key`] is part of its key.

use actix_web::HttpRequest;

use crate::html::{Choice, Frame, RELEASES};
use crate::state::{AppState, Served};

/// What a page of the site learns of the kept releases.
pub struct Releases {
    pub frame: Frame,
    /// The name of the release shown, when it has one, and of the kept release before it.
    pub shown: Option<String>,
    pub previous: Option<String>,
    /// The listing the frame was drawn from (names and ids), as a short text for cache keys.
    pub key: String,
}

/// The releases of a page at `req`'s path (and query) in the release `served`.
pub fn of(req: &HttpRequest, state: &AppState, served: &Served) -> Releases {
    let listing = state.named.listing().unwrap_or_default();
    let releases = &listing.releases;
    let by_name = served.prefix.strip_prefix(RELEASES).map(|p| &p[1..]);
    let shown = match by_name {
        Some(name) => releases.iter().position(|r| r.name == name),
        None => releases
            .iter()
            .position(|r| r.id == served.release.about.id),
    };
    let mut here = page_path(req.path());
    if !req.query_string().is_empty() {
        here = format!("{here}?{}", req.query_string());
    }
    let last = releases.len().saturating_sub(1);
    let choices = (releases.iter().enumerate().rev())
        .map(|(i, r)| Choice {
            name: r.name.clone(),
            href: match i == last {
                true => here.clone(),
                false => format!("{RELEASES}/{}{here}", r.name),
            },
            shown: Some(i) == shown,
            latest: i == last,
        })
        .collect();
    let listed: String = (releases.iter())
        .map(|r| format!("{}={}\n", r.name, r.id))
        .collect();
    Releases {
        frame: Frame {
            prefix: served.prefix.clone(),
            releases: choices,
        },
        shown: shown.map(|i| releases[i].name.clone()),
        previous: shown
            .and_then(|i| i.checked_sub(1))
            .map(|i| releases[i].name.clone()),
        key: format!("{:x}", roadtraffic_catalog::stable_hash(&listed)),
    }
}

/// The path of the page asked for, as each release has it: without `/releases/{name}`, one `/`
/// first (never `//`, another host's), and percent-encoded but for the characters of a path.
pub fn page_path(path: &str) -> String {
    let rest = match path.strip_prefix(RELEASES).filter(|r| r.starts_with('/')) {
        Some(named) => named[1..].find('/').map_or("", |at| &named[1 + at..]),
        None => path,
    };
    let mut out = String::from("/");
    for b in rest.trim_start_matches('/').bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => out.push(b as char),
            b'-' | b'.' | b'_' | b'~' | b'/' | b'%' | b'!' | b'$' | b'&' | b'\'' | b'(' | b')'
            | b'*' | b'+' | b',' | b';' | b'=' | b':' | b'@' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::page_path;

    #[test]
    fn a_page_path_is_the_same_in_every_release() {
        for (path, same) in [
            ("/", "/"),
            ("/regions/3", "/regions/3"),
            ("/releases/2024", "/"),
            ("/releases/2024/", "/"),
            (
                "/releases/2024/manualcountpoints/501",
                "/manualcountpoints/501",
            ),
            ("/releases/latest/about", "/about"),
            ("//elsewhere.example/x", "/elsewhere.example/x"),
            ("/releases/2024//elsewhere.example", "/elsewhere.example"),
            ("/a\\b\"<c> d", "/a%5Cb%22%3Cc%3E%20d"),
        ] {
            assert_eq!(page_path(path), same, "{path}");
        }
    }
}
