//! OGC API - Features of every kept release (issue 34): under `/releases/{name}/ogcapi`, every
//! link of every document, window and page to this server stays in the release and answers;
//! an older release's features are its own; a named release's features are kept for good under
//! a tag that holds on another server, its documents revalidated; an unknown release is the
//! named API's 404.

use std::collections::{BTreeSet, VecDeque};
use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::Value;

use crate::releases::fixtures::{inputs, ADDED_COUNT_POINT, B_REVISIONS};
use crate::site_releases::urls;
use crate::support::*;

const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// Releases A (`2024`) and B (`2025`, the latest) of the releases' fixtures, kept in one file
/// and served.
fn kept() -> &'static (PathBuf, TestServer) {
    static KEPT: OnceLock<(PathBuf, TestServer)> = OnceLock::new();
    KEPT.get_or_init(|| {
        let db = scratch_dir().join("ogc-releases.db");
        for (name, input) in inputs().all().into_iter().take(2) {
            load_ok(&db, &["--quiet", "--release", name], &[input]);
        }
        let server = serve(&db, &[]);
        (db, server)
    })
}

fn server() -> &'static TestServer {
    &kept().1
}

/// Every URL an answer links to: each `href` of a JSON document, each URL of a page but its
/// release picker's (which leads to the other releases).
fn links_of(reply: &Reply) -> Vec<String> {
    let html = reply
        .header("content-type")
        .unwrap_or("")
        .starts_with("text/html");
    if html {
        return urls(&reply.text());
    }
    let mut urls = Vec::new();
    hrefs(&reply.json(), &mut urls);
    urls
}

fn hrefs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(members) => {
            for (name, member) in members {
                match (name.as_str(), member) {
                    ("href", Value::String(url)) => out.push(url.clone()),
                    _ => hrefs(member, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| hrefs(i, out)),
        _ => {}
    }
}

/// From the landing page, a window and a feature of release 2024, in both forms: every link to
/// this server stays in the release (or is an asset), and answers; OGC's answers are followed,
/// the site's pages they link to only asked (their own links are the site's tests'). The
/// identifiers the documents give as URIs (a CRS's, the licence's) are other hosts': not this
/// server's links.
#[test]
fn every_link_of_a_named_release_stays_in_it_and_answers() {
    let server = server();
    let origin = server.url("");
    let mut queue: VecDeque<String> = [
        "/releases/2024/ogcapi",
        "/releases/2024/ogcapi?f=html",
        "/releases/2024/ogcapi/collections/count-points/items?limit=3&offset=3",
        "/releases/2024/ogcapi/collections/raw-counts/items?limit=2&f=html",
    ]
    .map(String::from)
    .into();
    let mut asked = BTreeSet::new();
    while let Some(target) = queue.pop_front() {
        if asked.len() >= 60 || !asked.insert(target.clone()) {
            continue;
        }
        let reply = get(server, &target);
        assert_eq!(reply.status, 200, "{target}: {}", reply.text());
        if !target.starts_with("/releases/2024/ogcapi") {
            continue;
        }
        for url in links_of(&reply) {
            let Some(local) = url
                .strip_prefix(&origin)
                .or(url.strip_prefix('/').map(|_| &url[..]))
            else {
                assert!(!url.starts_with("http://127.0.0.1"), "{target}: {url}");
                continue;
            };
            let inside = local.starts_with("/releases/2024/") || local.starts_with("/assets/");
            assert!(inside, "{target} links out of release 2024: {url}");
            if local.starts_with("/releases/2024/") {
                queue.push_back(local.split('#').next().unwrap().to_string());
            }
        }
    }
    assert!(asked.len() >= 40, "{asked:#?}");
    assert!(asked.iter().any(|t| t.contains("/items/")), "a feature");
    assert!(
        asked.iter().any(|t| t.contains("offset=0")),
        "a previous window"
    );
    assert!(
        asked.iter().any(|t| t.starts_with("/releases/2024/docs")),
        "the docs"
    );
    let definition = get(server, "/releases/2024/ogcapi/api").json();
    assert_eq!(
        definition["servers"][0]["url"],
        server.url("/releases/2024/ogcapi")
    );
    // The docs page of the release sends GIS clients to the release's service.
    let docs = get(server, "/releases/2024/docs").text();
    assert!(docs.contains("href=\"/releases/2024/ogcapi\""), "{docs}");
}

/// The same question of each release: each release's own values and count points;
/// the latest by name is the latest at its own paths but for the prefix of its links.
#[test]
fn an_older_release_answers_with_its_own_features() {
    let server = server();
    let revised = B_REVISIONS[0];
    let query: Vec<String> = (revised.key.iter())
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    let items = "/ogcapi/collections/average-annual-daily-flow/items";
    let at = |prefix: &str| get(server, &format!("{prefix}{items}?{}", query.join("&")));
    let (old, new, latest) = (at("/releases/2024"), at("/releases/2025"), at(""));
    let value = |reply: &Reply| reply.json()["features"][0]["properties"][revised.column].clone();
    assert_eq!(value(&old), revised.old.parse::<i64>().unwrap());
    assert_eq!(value(&new), revised.new.parse::<i64>().unwrap());
    let unprefixed = new.text().replace("/releases/2025/ogcapi", "/ogcapi");
    assert_eq!(unprefixed, latest.text());
    // The count point B added is in B only.
    let added =
        format!("/ogcapi/collections/count-points/items?count_point_id={ADDED_COUNT_POINT}");
    for (prefix, matched) in [("/releases/2024", 0), ("/releases/2025", 1), ("", 1)] {
        let page = get(server, &format!("{prefix}{added}")).json();
        assert_eq!(page["numberMatched"], matched, "{prefix}");
    }
    // A release that is not kept: the named API's 404, as OGC's exception (its message the
    // API's).
    let api = get(server, "/releases/1999/api/regions");
    for target in [
        "/releases/1999/ogcapi",
        "/releases/1999/ogcapi/collections/count-points/items",
    ] {
        let reply = get(server, target);
        assert_eq!(reply.status, 404, "{target}");
        assert_eq!(reply.status, api.status);
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(reply.json()["message"], api.json()["message"], "{target}");
        assert_eq!(reply.json()["code"], "NotFound", "{target}");
    }
}

/// A named release's features (JSON and pages, a window and one) are kept for good under a
/// strong tag from the load alone, the same on another replica of the same releases (at the
/// same public URL); its documents and the latest's answers are revalidated; a `304` says the
/// same, and `HEAD` is the `GET` without its body.
#[test]
fn a_named_releases_features_are_kept_for_good_and_its_documents_revalidated() {
    let (db, server) = kept();
    let public = ["--public-url", "https://mirror.example"];
    let replicas = [serve(db, &public), serve(db, &public)];
    let features = [
        "/releases/2024/ogcapi/collections/count-points/items?limit=2",
        "/releases/2024/ogcapi/collections/count-points/items?limit=2&f=html",
        "/releases/2024/ogcapi/collections/raw-counts/items/1",
    ];
    let revalidated = [
        "/releases/2024/ogcapi",
        "/releases/2024/ogcapi/collections?f=html",
        "/releases/2024/ogcapi/api",
        "/ogcapi/collections/count-points/items?limit=2",
    ];
    for target in features.iter().chain(&revalidated) {
        let reply = get(server, target);
        assert_eq!(reply.status, 200, "{target}");
        let etag = reply
            .header("etag")
            .unwrap_or_else(|| panic!("{target}: no tag"));
        assert!(etag.starts_with('"'), "{target}: {etag}");
        let caching = match features.contains(target) {
            true => IMMUTABLE,
            false => "no-cache, private",
        };
        assert_eq!(reply.header("cache-control"), Some(caching), "{target}");
        let held = request(server, "GET", target, &[("If-None-Match", etag)]);
        assert_eq!(held.status, 304, "{target}");
        assert_eq!(held.header("cache-control"), Some(caching), "{target}");
        // A browser puts a 304's headers on the page it keeps: a page's CSP must stay its own.
        let csp = "content-security-policy";
        assert_eq!(held.header(csp), reply.header(csp), "{target}");
        assert!(held.body.is_empty());
        let head = request(server, "HEAD", target, &[]);
        assert_eq!(head.status, 200, "{target}");
        assert!(head.body.is_empty(), "{target}");
        assert_eq!(head.header("etag"), Some(etag), "{target}");
        assert_eq!(head.header("content-type"), reply.header("content-type"));
        if target.starts_with("/releases/") {
            let [a, b] = replicas.each_ref().map(|r| get(r, target));
            assert_eq!(a.header("etag"), b.header("etag"), "{target}");
            assert_eq!(a.body, b.body, "{target}");
        }
    }
}
