//! One conditional layer for every answer that has a tag (listings, their GeoJSON pages,
//! totals, revisions, change reports, releases, stored downloads, OGC's documents, features and
//! pages, of the latest and of a named release): `If-None-Match` (compared
//! weakly) answers 304 with the tag, and `Vary` where the answer varies; `If-Match` (compared
//! strongly) that names another tag answers 412; a tag is the question's, whatever the order
//! of its parameters where the answer does not write them back.

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::support::*;

/// The sample loaded twice, as releases `first` and `second`: answers of a named release, the
/// releases listed, a change report between two.
fn releases_server() -> &'static TestServer {
    static SERVER: OnceLock<(PathBuf, TestServer)> = OnceLock::new();
    let (_, server) = SERVER.get_or_init(|| {
        let db = scratch_dir().join("conditional.db");
        let sample = repo_path("data/sample");
        load_ok(&db, &["--quiet", "--release", "first"], &[&sample]);
        load_ok(&db, &["--quiet", "--release", "second"], &[&sample]);
        let server = serve(&db, &[]);
        (db, server)
    });
    server
}

/// A tagged answer: the server, the target, and what else it is asked with.
type Tagged = (
    &'static TestServer,
    String,
    Vec<(&'static str, &'static str)>,
);

/// What each tagged answer is asked with to be answered 200.
fn tagged_targets() -> Vec<Tagged> {
    let (sample, releases) = (sample_server(), releases_server());
    let plain = Vec::new();
    vec![
        (
            sample,
            "/api/count-points?page%5Bsize%5D=3".into(),
            plain.clone(),
        ),
        (
            sample,
            "/api/count-points?page%5Bsize%5D=3".into(),
            vec![("Accept", "application/geo+json")],
        ),
        (sample, "/api/regions".into(), plain.clone()),
        (sample, "/legacy/api/regions".into(), plain.clone()),
        (
            sample,
            "/api/raw-counts/facets?facet=year".into(),
            plain.clone(),
        ),
        (
            sample,
            "/api/raw-counts/summary.csv?group_by=year&sum=all_motor_vehicles".into(),
            plain.clone(),
        ),
        (
            sample,
            "/downloads/dft_traffic_counts_aadf.parquet".into(),
            plain.clone(),
        ),
        (
            releases,
            "/api/count-points/revisions?page%5Bsize%5D=2".into(),
            plain.clone(),
        ),
        (releases, "/releases".into(), plain.clone()),
        (releases, "/releases/second/changes".into(), plain.clone()),
        (
            releases,
            "/releases/first/api/regions".into(),
            plain.clone(),
        ),
        (
            releases,
            "/api/releases/latest/changes".into(),
            plain.clone(),
        ),
        (sample, "/ogcapi".into(), plain.clone()),
        (
            sample,
            "/ogcapi/collections".into(),
            vec![("Accept", "text/html")],
        ),
        (
            sample,
            "/ogcapi/collections/count-points/items?limit=3&road_name=M4".into(),
            plain.clone(),
        ),
        (
            sample,
            "/ogcapi/collections/raw-counts/items?limit=3".into(),
            vec![("Accept", "text/html")],
        ),
        (
            sample,
            "/ogcapi/collections/count-points/items/501".into(),
            plain.clone(),
        ),
        (
            releases,
            "/releases/first/ogcapi/collections/raw-counts/items?limit=2".into(),
            plain,
        ),
    ]
}

#[test]
fn every_tagged_answer_answers_its_preconditions() {
    for (server, target, headers) in tagged_targets() {
        let whole = request(server, "GET", &target, &headers);
        assert_eq!(whole.status, 200, "{target}: {}", whole.text());
        let etag = whole
            .header("etag")
            .unwrap_or_else(|| panic!("{target}: no tag"))
            .to_string();
        let with = |extra: (&'static str, &str)| {
            let mut sent: Vec<(&str, &str)> = headers.clone();
            sent.push(extra);
            request(server, "GET", &target, &sent)
        };
        let opaque = etag.trim_start_matches("W/");
        for held in [
            etag.clone(),
            format!("W/{opaque}"),
            "*".into(),
            format!("\"x\", {etag}"),
        ] {
            let reply = with(("If-None-Match", &held));
            assert_eq!(reply.status, 304, "{target} If-None-Match: {held}");
            assert_eq!(reply.header("etag"), Some(etag.as_str()), "{target}");
            assert_eq!(
                reply.header("vary"),
                whole.header("vary"),
                "{target}: a 304 repeats Vary"
            );
            assert!(reply.text().is_empty(), "{target}");
        }
        let other = with(("If-None-Match", "\"another\""));
        assert_eq!(other.status, 200, "{target}");
        let failed = with(("If-Match", "\"another\""));
        assert_eq!(failed.status, 412, "{target}");
        assert_eq!(failed.header("etag"), Some(etag.as_str()), "{target}");
        // If-Match compares strongly: a strong tag matches itself, a weak one nothing.
        let strong = with(("If-Match", &etag));
        let expected = if etag.starts_with("W/") { 412 } else { 200 };
        assert_eq!(strong.status, expected, "{target} If-Match: {etag}");
        assert_eq!(with(("If-Match", "*")).status, 200, "{target} If-Match: *");
        // If-Match is evaluated first (RFC 9110 §13.2.2).
        let both = request(
            server,
            "GET",
            &target,
            &[("If-Match", "\"another\""), ("If-None-Match", &etag)],
        );
        assert_eq!(both.status, 412, "{target}");
    }
}

#[test]
fn dates_are_compared_only_where_an_answer_has_a_date() {
    let server = sample_server();
    let long_ago = "Thu, 01 Jan 1970 00:00:00 GMT";
    let future = "Fri, 01 Jan 2100 00:00:00 GMT";
    // A listing has no Last-Modified: the dates say nothing of it.
    for (header, date) in [
        ("If-Modified-Since", future),
        ("If-Unmodified-Since", long_ago),
    ] {
        let reply = request(server, "GET", "/api/regions", &[(header, date)]);
        assert_eq!(reply.status, 200, "{header}");
    }
    // A stored download has one.
    let file = "/downloads/dft_traffic_counts_aadf.csv";
    assert!(get(server, file).header("last-modified").is_some());
    assert_eq!(
        request(server, "GET", file, &[("If-Modified-Since", future)]).status,
        304
    );
    assert_eq!(
        request(server, "GET", file, &[("If-Unmodified-Since", long_ago)]).status,
        412
    );
}

/// The tag of a target on the sample.
fn tag(target: &str) -> String {
    let reply = get(sample_server(), target);
    assert_eq!(reply.status, 200, "{target}: {}", reply.text());
    reply.header("etag").unwrap().to_string()
}

#[test]
fn a_question_has_one_tag_in_any_parameter_order() {
    for same in [
        [
            "/api/raw-counts/facets?facet=year&facet_size=5&filter%5Bregion_id%5D=4,3",
            "/api/raw-counts/facets?filter[region_id]=3,4&facet_size=5&facet=year&unknown=1",
        ],
        [
            "/api/raw-counts/summary?group_by=year&sum=all_motor_vehicles&avg=cars_and_taxis",
            "/api/raw-counts/summary?avg=cars_and_taxis&group_by=year&sum=all_motor_vehicles",
        ],
        [
            "/api/average-annual-daily-flow/summary.csv?group_by=road_category&sort=-count&limit=3",
            "/api/average-annual-daily-flow/summary.csv?limit=3&sort=-count&group_by[]=road_category",
        ],
        // An unpaginated listing writes nothing of its request back.
        ["/api/regions?sort=-id&fields=id,name", "/api/regions?fields=id,name&sort=-id"],
        // OGC's links write the parameters back in one order.
        [
            "/ogcapi/collections/count-points/items?limit=3&road_name=M4&bbox=-6,50,2,56&f=json",
            "/ogcapi/collections/count-points/items?f=json&bbox=-6%2C50%2C2%2C56&road_name=M4&limit=3",
        ],
    ] {
        assert_eq!(tag(same[0]), tag(same[1]), "{same:?}");
        let bodies = same.map(|t| get(sample_server(), t).body);
        assert_eq!(bodies[0], bodies[1], "{same:?}");
    }
    for differ in [
        // Facets and groups come in the order asked: another answer.
        [
            "/api/raw-counts/facets?facet=year,hour",
            "/api/raw-counts/facets?facet=hour,year",
        ],
        [
            "/api/raw-counts/summary?group_by=year,hour",
            "/api/raw-counts/summary?group_by=hour,year",
        ],
        // A page writes its parameters back in its links, in their order.
        [
            "/api/count-points?page%5Bsize%5D=2&sort=-id",
            "/api/count-points?sort=-id&page%5Bsize%5D=2",
        ],
        ["/api/raw-counts/summary", "/api/raw-counts/summary.ndjson"],
        [
            "/ogcapi/collections/count-points/items?limit=3",
            "/ogcapi/collections/count-points/items?limit=3&f=html",
        ],
    ] {
        assert_ne!(tag(differ[0]), tag(differ[1]), "{differ:?}");
    }
}
