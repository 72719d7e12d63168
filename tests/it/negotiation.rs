//! One negotiation for every route: a path's suffix, OGC's `f`, or `Accept` with its q-values.
//! A form at `q=0` is never chosen where there is another; an answer whose form `Accept` chose
//! says `Vary: Accept`, and one whose form the path or `f` chose does not.

use crate::support::*;

const BROWSER: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

fn asked(target: &str, accept: &str) -> Reply {
    let server = sample_server();
    match accept {
        "" => get(server, target),
        accept => request(server, "GET", target, &[("Accept", accept)]),
    }
}

/// The media type a reply was written in, without its parameters.
fn media(reply: &Reply) -> &str {
    let content_type = reply.header("content-type").unwrap_or("");
    content_type.split(';').next().unwrap_or("").trim()
}

#[test]
fn ogc_honours_q_values_and_says_it_varies() {
    for (target, accept, expected) in [
        ("/ogcapi", "", "application/json"),
        ("/ogcapi", "*/*", "application/json"),
        ("/ogcapi", BROWSER, "text/html"),
        // The fault: the one form the client refused was sent.
        (
            "/ogcapi",
            "text/html;q=0, application/json",
            "application/json",
        ),
        ("/ogcapi", "application/json;q=0, text/html", "text/html"),
        (
            "/ogcapi/conformance",
            "application/json, text/html",
            "application/json",
        ),
        (
            "/ogcapi/collections",
            "text/html, application/json",
            "text/html",
        ),
        (
            "/ogcapi/collections/count-points/items",
            "application/json",
            "application/geo+json",
        ),
        (
            "/ogcapi/collections/count-points/items",
            "application/geo+json, application/json",
            "application/geo+json",
        ),
        (
            "/ogcapi/collections/count-points/items",
            "application/geo+json;q=0, text/html",
            "text/html",
        ),
        (
            "/ogcapi/collections/count-points/items",
            BROWSER,
            "text/html",
        ),
        (
            "/ogcapi/collections/count-points/items/501",
            "text/html;q=0, */*",
            "application/geo+json",
        ),
    ] {
        let reply = asked(target, accept);
        assert_eq!(reply.status, 200, "{target} {accept}");
        assert_eq!(media(&reply), expected, "{target} {accept}");
        assert_eq!(reply.header("vary"), Some("Accept"), "{target} {accept}");
    }
}

#[test]
fn f_chooses_the_form_whatever_accept_says() {
    for (target, expected) in [
        ("/ogcapi?f=json", "application/json"),
        ("/ogcapi?f=html", "text/html"),
        (
            "/ogcapi/collections/count-points/items?f=geojson",
            "application/geo+json",
        ),
    ] {
        for accept in ["", BROWSER, "application/json", "text/html;q=0"] {
            let reply = asked(target, accept);
            assert_eq!(media(&reply), expected, "{target} {accept}");
            assert_eq!(reply.header("vary"), None, "{target} {accept}");
        }
    }
    let refused = asked("/ogcapi?f=xml", BROWSER);
    assert_eq!(refused.status, 400);
    assert!(refused.text().contains("f=`xml`"), "{}", refused.text());
    assert_eq!(refused.header("vary"), None);
}

#[test]
fn a_listing_with_places_pages_as_geojson_when_accept_prefers_it() {
    let target = "/api/count-points?page%5Bsize%5D=2";
    for (accept, expected) in [
        ("", "application/json"),
        ("*/*", "application/json"),
        (BROWSER, "application/json"),
        ("application/geo+json", "application/geo+json"),
        ("application/geo+json;q=0", "application/json"),
        (
            "application/json;q=0, application/geo+json;q=0.1",
            "application/geo+json",
        ),
        ("*/*, application/geo+json;q=0.5", "application/json"),
        // Equally preferred, GeoJSON is JSON too.
        (
            "application/json, application/geo+json",
            "application/geo+json",
        ),
    ] {
        let reply = asked(target, accept);
        assert_eq!(reply.status, 200, "{accept}");
        assert_eq!(media(&reply), expected, "{accept}");
        assert_eq!(reply.header("vary"), Some("Accept"), "{accept}");
    }
    // Nothing to choose: no Vary, whatever is asked.
    for target in [
        "/api/regions",
        "/api/count-points.csv",
        "/api/raw-counts/summary",
    ] {
        let reply = asked(target, "application/geo+json");
        assert_eq!(reply.status, 200, "{target}");
        assert_eq!(reply.header("vary"), None, "{target}");
    }
    // An error is JSON whatever was asked, and does not vary.
    let bad = asked("/api/count-points?page%5Bsize%5D=x", "application/geo+json");
    assert_eq!((bad.status, media(&bad)), (400, "application/json"));
    assert_eq!(bad.header("vary"), None);
}

#[test]
fn nobody_s_path_is_a_page_for_a_browser_and_json_for_anyone_else() {
    for (accept, expected) in [
        (BROWSER, "text/html"),
        ("text/html", "text/html"),
        ("text/html;q=0, */*", "application/json"),
        ("", "application/json"),
        ("*/*", "application/json"),
    ] {
        let reply = asked("/nope", accept);
        assert_eq!(reply.status, 404, "{accept}");
        assert_eq!(media(&reply), expected, "{accept}");
        assert_eq!(reply.header("vary"), Some("Accept"), "{accept}");
    }
}
