//! A named release's answers are immutable and revalidatable (issue 36, part 5): every form of a
//! listing, the streamed whole ones included, carries a strong ETag made of the release and the
//! question in its canonical form; `If-None-Match` is answered `304` and `HEAD` with the
//! headers alone, neither running the query (the connections taken for queries, counted in
//! `/metrics`, stay as they were).

use super::fixtures::{load_alone, NAMES};
use crate::support::{get, queries_run, request, serve, Reply, TestServer};

/// The ETag of a `200`, checked strong.
fn strong_etag(reply: &Reply, target: &str) -> String {
    assert_eq!(reply.status, 200, "{target}: {}", reply.text());
    let etag = reply
        .header("etag")
        .unwrap_or_else(|| panic!("{target}: no ETag"));
    assert!(
        etag.starts_with('"') && etag.ends_with('"'),
        "{target}: {etag}"
    );
    etag.to_string()
}

/// The headers a `HEAD` and a `304` must say as the `200` did.
const SAME_HEADERS: [&str; 4] = [
    "etag",
    "cache-control",
    "content-type",
    "content-disposition",
];

/// Asks `target` (never asked before on this server) and checks its tag: the same for `same`
/// (the question written otherwise), another for `other`; a `304` and a `HEAD` that run nothing.
fn assert_revalidatable(server: &TestServer, target: &str, same: &str, other: &str) {
    let before = queries_run(server);
    let reply = get(server, target);
    let etag = strong_etag(&reply, target);
    assert!(
        queries_run(server) > before,
        "{target}: the first GET runs its query"
    );
    assert_eq!(
        reply.header("cache-control"),
        Some("public, max-age=31536000, immutable"),
        "{target}"
    );
    assert_eq!(strong_etag(&get(server, same), same), etag, "{same}");
    assert_ne!(strong_etag(&get(server, other), other), etag, "{other}");

    let before = queries_run(server);
    for asked in [target, same] {
        let held = request(server, "GET", asked, &[("If-None-Match", &etag)]);
        assert_eq!(held.status, 304, "{asked}");
        assert!(held.body.is_empty(), "{asked}");
        assert_eq!(held.header("etag"), Some(etag.as_str()), "{asked}");
        let head = request(server, "HEAD", asked, &[]);
        assert_eq!(head.status, 200, "{asked}");
        assert!(head.body.is_empty(), "HEAD {asked}");
        for name in SAME_HEADERS {
            assert_eq!(
                head.header(name),
                reply.header(name),
                "HEAD {asked}: {name}"
            );
        }
    }
    let missed = request(server, "GET", target, &[("If-None-Match", "\"other\"")]);
    assert_eq!(missed.status, 200, "{target}");
    assert_eq!(
        missed.body, reply.body,
        "{target}: the same bytes under the same tag"
    );
    let after = queries_run(server);
    // Only the last GET may have run its query (a page may come from the response cache).
    assert!(after <= before + 1, "{target}: {before} -> {after}");
}

#[test]
fn every_form_of_a_named_listing_is_tagged_and_revalidated_without_running() {
    let server = serve(load_alone(0), &["--lazy-downloads"]);
    let release = format!("/releases/{}/api/count-points", NAMES[0]);
    for suffix in [".csv", ".ndjson", ".geojson", ".parquet"] {
        let path = format!("{release}{suffix}");
        assert_revalidatable(
            &server,
            &format!("{path}?filter[road_name]=M4&sort=-id&fields=id,road_name,aadf_year"),
            &format!("{path}?fields=id,road_name,aadf_year&sort=-id&filter%5Broad_name%5D=M4"),
            &format!("{path}?filter[road_name]=M4&sort=id&fields=id,road_name,aadf_year"),
        );
    }
    // A page writes its parameters back in its links, in their order: the same question is
    // the same parameters in the same order, however encoded.
    assert_revalidatable(
        &server,
        &format!("{release}?filter[road_name]=M4&page[size]=3&page[number]=2"),
        &format!("{release}?filter%5Broad_name%5D=M4&page%5Bsize%5D=3&page%5Bnumber%5D=2"),
        &format!("{release}?filter[road_name]=M4&page[size]=3&page[number]=3"),
    );
}
