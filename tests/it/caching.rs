//! The response cache and HTTP caching: a cached body is the body the uncached path writes,
//! byte for byte; the cache key and the ETag ignore how a request is encoded; `If-None-Match`
//! compares weakly; a new file never gets an old file's body; `cache-control` follows its
//! option and `Vary` comes with compression.

use std::io::Read;
use std::sync::OnceLock;

use proptest::prelude::*;

use crate::support::*;

/// The sample served with its response cache on (as by default) and off: page URLs name one
/// public URL, so the two answer the same bytes.
fn cached_server() -> &'static TestServer {
    static SERVER: OnceLock<TestServer> = OnceLock::new();
    SERVER.get_or_init(|| serve(sample_db(), &["--public-url", "http://mirror.test"]))
}

/// The options of a server that builds every body: its response cache off, its page URLs
/// naming one public URL.
pub const UNCACHED: [&str; 4] = [
    "--public-url",
    "http://mirror.test",
    "--response-cache-mb",
    "0",
];

pub fn uncached_server() -> &'static TestServer {
    static SERVER: OnceLock<TestServer> = OnceLock::new();
    SERVER.get_or_init(|| serve(sample_db(), &UNCACHED))
}

/// A request's parts, chosen at random; written out by [`target`] in one of several
/// encodings.
#[derive(Debug, Clone)]
pub struct Asked {
    dataset: usize,
    filter: Option<(usize, String)>,
    size: Option<u32>,
    number: Option<u32>,
    sort: Option<(usize, bool)>,
    brackets_encoded: bool,
    page_keys_swapped: bool,
}

pub fn asked() -> impl Strategy<Value = Asked> {
    let n = roadtraffic_catalog::DATASETS.len();
    (
        0..n,
        proptest::option::of((0usize..8, prop_oneof!["1", "2", "6", "2019", "A1", "x", ""])),
        proptest::option::of(prop_oneof![Just(1u32), Just(3), Just(25), Just(500)]),
        proptest::option::of(0u32..6),
        proptest::option::of((0usize..8, any::<bool>())),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(dataset, filter, size, number, sort, brackets_encoded, page_keys_swapped)| Asked {
                dataset,
                filter: filter.map(|(i, v)| (i, v.to_string())),
                size,
                number,
                sort,
                brackets_encoded,
                page_keys_swapped,
            },
        )
}

/// The request as a URI, its filter and sort names taken from the catalogue.
pub fn target(a: &Asked) -> String {
    let d = &roadtraffic_catalog::DATASETS[a.dataset];
    let (open, close) = if a.brackets_encoded {
        ("%5B", "%5D")
    } else {
        ("%5B", "]")
    };
    let mut params = Vec::new();
    if let Some((i, v)) = &a.filter {
        if !d.filters.is_empty() {
            params.push(format!(
                "filter{open}{}{close}={v}",
                d.filters[i % d.filters.len()]
            ));
        }
    }
    let mut page = Vec::new();
    if let Some(s) = a.size {
        page.push(format!("page{open}size{close}={s}"));
    }
    if let Some(n) = a.number {
        page.push(format!("page{open}number{close}={n}"));
    }
    if a.page_keys_swapped {
        page.reverse();
    }
    params.extend(page);
    if let Some((i, descending)) = a.sort {
        let names: Vec<_> = d.sorts().collect();
        if let Some(name) = names.get(i % names.len().max(1)) {
            params.push(format!("sort={}{name}", if descending { "-" } else { "" }));
        }
    }
    format!("/api{}?{}", d.paths[0], params.join("&"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn cached_bodies_are_the_uncached_bodies(a in asked()) {
        let target = target(&a);
        let plain = get(uncached_server(), &target);
        let first = get(cached_server(), &target);
        let again = get(cached_server(), &target);
        prop_assert_eq!(first.status, plain.status, "{}", target);
        prop_assert!(first.body == plain.body, "first answer differs: {}", target);
        prop_assert!(again.body == plain.body, "cached answer differs: {}", target);
        prop_assert_eq!(first.header("etag"), plain.header("etag"));
        prop_assert_eq!(again.header("etag"), plain.header("etag"));
    }
}

#[test]
fn encodings_of_one_request_share_one_etag_and_one_entry() {
    let server = sample_server();
    let spellings = [
        "/api/count-points?page%5Bsize%5D=3&page%5Bnumber%5D=2",
        "/api/count-points?page%5Bnumber%5D=2&page%5Bsize%5D=3",
        "/api/count-points?page%5bsize%5d=3&page%5Bnumber%5D=2",
        "/api/count-points?page%5Bsize%5D=3&page%5Bnumber%5D=2&page%5Bsize%5D=3",
    ];
    let replies: Vec<_> = spellings.iter().map(|t| get(server, t)).collect();
    // Raw brackets, as some clients send them (same Host as the encoded form beside it).
    let raw = raw_get(server, b"/api/count-points?page[size]=3&page[number]=2");
    let encoded = raw_get(server, spellings[1].as_bytes());
    for (reply, spelling) in replies.iter().zip(spellings) {
        assert_eq!(reply.status, 200, "{spelling}");
        assert_eq!(reply.body, replies[0].body, "{spelling}");
        assert_eq!(
            reply.header("etag"),
            replies[0].header("etag"),
            "{spelling}"
        );
    }
    assert_eq!(raw.header("etag"), encoded.header("etag"));
    assert_eq!(raw.body, encoded.body);
    let other = get(
        server,
        "/api/count-points?page%5Bsize%5D=3&page%5Bnumber%5D=3",
    );
    assert_ne!(other.header("etag"), replies[0].header("etag"));
}

#[test]
fn if_none_match_compares_weakly() {
    let server = sample_server();
    let target = "/api/regions";
    let etag = get(server, target).header("etag").unwrap().to_string();
    let weak = format!("W/{etag}");
    let listed = format!("\"other\", {weak}");
    for inm in [etag.as_str(), weak.as_str(), listed.as_str(), "*"] {
        let reply = request(server, "GET", target, &[("If-None-Match", inm)]);
        assert_eq!(reply.status, 304, "If-None-Match: {inm}");
        assert_eq!(reply.header("etag"), Some(etag.as_str()));
        assert!(reply.body.is_empty());
    }
    for inm in ["\"other\"", "W/\"other\""] {
        let reply = request(server, "GET", target, &[("If-None-Match", inm)]);
        assert_eq!(reply.status, 200, "If-None-Match: {inm}");
    }
}

#[test]
fn a_new_file_never_gets_the_old_files_bodies() {
    let dir = scratch_dir();
    let db = dir.join("cached.db");
    let sample = repo_path("data/sample");
    load_ok(
        &db,
        &["--quiet"],
        &[&sample.join("local_authority_traffic.csv")],
    );
    let server = serve(&db, &[]);
    let target = "/api/count-points?page%5Bsize%5D=5";
    let old = get(&server, target);
    assert_eq!(old.json()["total"], 0);
    assert_eq!(get(&server, target).body, old.body, "served from the cache");
    let old_about = get(&server, "/about").text();
    assert_eq!(
        get(&server, "/about").text(),
        old_about,
        "a page from the cache"
    );
    load_ok(&db, &["--quiet"], &[&sample]);
    wait_until("the new file is served", || {
        get(&server, target).json()["total"] != 0
    });
    let new = get(&server, target);
    assert_eq!(new.json()["total"], sample_rows("count_points"));
    assert_ne!(
        get(&server, "/about").text(),
        old_about,
        "the site's pages too"
    );
    assert_ne!(new.header("etag"), old.header("etag"));
    let conditional = request(
        &server,
        "GET",
        target,
        &[("If-None-Match", old.header("etag").unwrap())],
    );
    assert_eq!(conditional.status, 200, "an old file's ETag is stale");
}

/// Waits up to ten seconds for `done`.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !done() {
        assert!(std::time::Instant::now() < deadline, "{what}: timed out");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn cache_control_follows_its_option() {
    let default = get(sample_server(), "/api/regions");
    assert_eq!(default.header("cache-control"), Some("no-cache, private"));
    assert_eq!(
        default.header("vary"),
        None,
        "no compression, nothing varies"
    );
    let shared = serve(
        sample_db(),
        &["--cache-control", "public, max-age=300", "--compress"],
    );
    let reply = get(&shared, "/api/regions");
    assert_eq!(reply.header("cache-control"), Some("public, max-age=300"));
    assert_eq!(
        reply.header("vary").map(str::to_ascii_lowercase).as_deref(),
        Some("accept-encoding")
    );
}

/// With `--compress`, a cached body is sent in the client's encoding, and decodes to the
/// plain body; a client that accepts no encoding gets the plain body from the same entry.
#[test]
fn compressed_forms_decode_to_the_plain_body() {
    let server = serve(sample_db(), &["--compress"]);
    let target = b"/api/count-points?page%5Bsize%5D=200";
    let plain = raw_request(&server, target, "Accept-Encoding: identity\r\n");
    assert_eq!(plain.header("content-encoding"), None);
    for _ in 0..2 {
        let gz = raw_request(&server, target, "Accept-Encoding: gzip\r\n");
        assert_eq!(gz.header("content-encoding"), Some("gzip"));
        assert!(gz.body.len() < plain.body.len() / 3);
        let mut decoded = Vec::new();
        flate2::read::GzDecoder::new(&gz.body[..])
            .read_to_end(&mut decoded)
            .unwrap();
        assert_eq!(decoded, plain.body);
        let br = raw_request(&server, target, "Accept-Encoding: br;q=1, gzip;q=0.5\r\n");
        assert_eq!(br.header("content-encoding"), Some("br"));
        let mut decoded = Vec::new();
        brotli::Decompressor::new(&br.body[..], 4096)
            .read_to_end(&mut decoded)
            .unwrap();
        assert_eq!(decoded, plain.body);
    }
    let uncached = serve(sample_db(), &["--compress", "--response-cache-mb", "0"]);
    let gz = raw_request(&uncached, target, "Accept-Encoding: gzip\r\n");
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    let mut decoded = Vec::new();
    flate2::read::GzDecoder::new(&gz.body[..])
        .read_to_end(&mut decoded)
        .unwrap();
    assert_eq!(decoded, plain.body);
}

/// A gzip or brotli body is other bytes than the plain one, so its ETag is weak (a strong tag
/// promises the bytes); either tag revalidates either form, since `If-None-Match` compares
/// weakly.
#[test]
fn encoded_bodies_have_weak_etags() {
    let server = serve(sample_db(), &["--compress"]);
    let target = b"/api/count-points?page%5Bsize%5D=5";
    let plain = raw_request(&server, target, "Accept-Encoding: identity\r\n");
    let strong = plain.header("etag").unwrap().to_string();
    assert!(strong.starts_with('"'), "{strong}");
    let weak = format!("W/{strong}");
    for _ in 0..2 {
        let gz = raw_request(&server, target, "Accept-Encoding: gzip\r\n");
        assert_eq!(gz.header("content-encoding"), Some("gzip"));
        assert_eq!(gz.header("etag"), Some(weak.as_str()));
    }
    for tag in [&strong, &weak] {
        let gz = raw_request(
            &server,
            target,
            &format!("Accept-Encoding: gzip\r\nIf-None-Match: {tag}\r\n"),
        );
        assert_eq!(gz.status, 304, "If-None-Match: {tag}");
        assert_eq!(gz.header("etag"), Some(weak.as_str()));
        let plain = raw_request(&server, target, &format!("If-None-Match: {tag}\r\n"));
        assert_eq!(plain.status, 304, "If-None-Match: {tag}");
        assert_eq!(plain.header("etag"), Some(strong.as_str()));
    }
}

/// A client that takes only `deflate` (the compression middleware's third encoding) gets it
/// under a weak tag too, whether the body comes from the cache or the middleware encodes it.
#[test]
fn deflate_only_clients_get_weak_etags() {
    let target = b"/api/count-points?page%5Bsize%5D=5";
    for cache_mb in ["64", "0"] {
        let server = serve(
            sample_db(),
            &["--compress", "--response-cache-mb", cache_mb],
        );
        let plain = raw_request(&server, target, "");
        let weak = format!("W/{}", plain.header("etag").unwrap());
        let deflated = raw_request(&server, target, "Accept-Encoding: deflate\r\n");
        assert_eq!(
            deflated.header("content-encoding"),
            Some("deflate"),
            "cache {cache_mb} MB"
        );
        assert_eq!(
            deflated.header("etag"),
            Some(weak.as_str()),
            "cache {cache_mb} MB"
        );
        let mut body = Vec::new();
        flate2::read::ZlibDecoder::new(&deflated.body[..])
            .read_to_end(&mut body)
            .unwrap();
        assert_eq!(body, plain.body, "cache {cache_mb} MB");
    }
}
