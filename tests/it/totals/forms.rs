//! A summary in its three forms carries the same rows; answers are tagged and revalidated as
//! listings are; a kept release answers its own totals under its name, for good.

use roadtraffic_catalog::{
    Dataset, AADF, LOCAL_AUTHORITY_TRAFFIC, RAW_COUNTS, REGION_TRAFFIC_BY_ROAD_TYPE,
};

use super::*;
use crate::releases::fixtures::{load_alone, NAMES};
use crate::support::*;

#[test]
fn csv_and_ndjson_carry_the_rows_of_json() {
    let server = sample_server();
    let conn = open(sample_db());
    let cases: [(&Dataset, Vec<Filter>, Ask); 5] = [
        (
            &RAW_COUNTS,
            vec![],
            Ask::by(&["road_name", "hour"]).with_all(&RAW_COUNTS),
        ),
        (
            &RAW_COUNTS,
            vec![Filter::is("direction_of_travel", &["e", "W"])],
            Ask::by(&["count_date"]).with(Stat::Avg, &["lgvs"]),
        ),
        (
            &AADF,
            vec![Filter::CountMethod(vec!["estimated"])],
            Ask::by(&["road_category", "estimation_method"]).with_all(&AADF),
        ),
        (
            &LOCAL_AUTHORITY_TRAFFIC,
            vec![],
            Ask::by(&["year"]).with_all(&LOCAL_AUTHORITY_TRAFFIC),
        ),
        (
            &REGION_TRAFFIC_BY_ROAD_TYPE,
            vec![Filter::is("year", &["1900"])],
            Ask::default().with_all(&REGION_TRAFFIC_BY_ROAD_TYPE),
        ),
    ];
    for (d, filters, ask) in &cases {
        let expected = expected_summary(&conn, d, filters, ask);
        for (suffix, content_type) in [
            ("", "application/json"),
            (".ndjson", "application/x-ndjson"),
            (".csv", "text/csv; charset=utf-8"),
        ] {
            let target = summary_target(d, suffix, filters, ask);
            let reply = get(server, &target);
            assert_eq!(reply.status, 200, "{target}: {}", reply.text());
            assert_eq!(reply.header("content-type"), Some(content_type), "{target}");
            match suffix {
                "" => assert_rows(&reply.text(), &expected, false, &target),
                ".ndjson" => assert_rows(&reply.text(), &expected, true, &target),
                _ => assert_csv(&reply.text(), &expected, &target),
            }
        }
    }
    // A summary of no rows: one row, count 0, nothing added up.
    let target =
        "/api/raw-counts/summary?filter%5Byear%5D=1900&sum=lgvs&avg=lgvs&min=lgvs&max=lgvs";
    assert_eq!(
        get(server, target).text(),
        r#"[{"count":0,"sum_lgvs":null,"avg_lgvs":null,"min_lgvs":null,"max_lgvs":null}]"#,
        "{target}"
    );
    let target = "/api/raw-counts/summary.csv?filter%5Byear%5D=1900&sum=lgvs&avg=lgvs";
    assert_eq!(
        get(server, target).text(),
        "count,sum_lgvs,avg_lgvs\n0,,\n",
        "{target}"
    );
    // Grouped, no rows: no groups.
    assert_eq!(
        get(
            server,
            "/api/raw-counts/summary?filter%5Byear%5D=1900&group_by=hour"
        )
        .text(),
        "[]"
    );
    assert_eq!(
        get(
            server,
            "/api/raw-counts/summary.ndjson?filter%5Byear%5D=1900&group_by=hour"
        )
        .text(),
        ""
    );
    assert_eq!(
        get(
            server,
            "/api/raw-counts/summary.csv?filter%5Byear%5D=1900&group_by=hour"
        )
        .text(),
        "hour,count\n"
    );
}

#[test]
fn aliases_answer_as_their_listing() {
    let server = sample_server();
    for end in [
        "summary?group_by=year&sum=all_motor_vehicles&avg=link_length_km",
        "summary.csv?group_by=region_id",
        "facets?facet=year,region_id",
    ] {
        let own = get(server, &format!("/api/local-authority-traffic/{end}"));
        let alias = get(server, &format!("/api/traffic/local-authorities/{end}"));
        assert_eq!((own.status, alias.status), (200, 200), "{end}");
        assert_eq!(own.body, alias.body, "{end}");
    }
}

#[test]
fn answers_are_tagged_and_revalidated() {
    let server = sample_server();
    for target in [
        "/api/raw-counts/facets?facet=hour,road_name",
        "/api/raw-counts/summary?group_by=hour&sum=lgvs",
        "/api/raw-counts/summary.csv?group_by=hour&sum=lgvs",
        "/api/raw-counts/summary.ndjson?group_by=hour&sum=lgvs",
    ] {
        let first = get(server, target);
        assert_eq!(first.status, 200, "{target}");
        let etag = first.header("etag").expect("an ETag").to_string();
        assert_eq!(
            first.header("cache-control"),
            Some("no-cache, private"),
            "{target}"
        );
        let again = request(server, "GET", target, &[("If-None-Match", &etag)]);
        assert_eq!(again.status, 304, "{target}");
        assert!(again.body.is_empty());
        assert_eq!(again.header("etag"), Some(etag.as_str()));
        // Another question, another tag; the same again, the same bytes.
        let other = get(server, &format!("{target}&filter%5Byear%5D=2019"));
        assert_ne!(other.header("etag"), Some(etag.as_str()), "{target}");
        assert_eq!(
            request(server, "GET", target, &[("If-None-Match", "\"other\"")]).body,
            first.body
        );
    }
    // The three forms are three answers.
    let tags: Vec<String> = ["", ".csv", ".ndjson"]
        .iter()
        .map(|s| {
            get(server, &format!("/api/raw-counts/summary{s}?group_by=hour"))
                .header("etag")
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        tags[0] != tags[1] && tags[1] != tags[2] && tags[0] != tags[2],
        "{tags:?}"
    );
}

#[test]
fn kept_releases_answer_their_own_totals_for_good() {
    let server = serve(kept_releases(), &[]);
    for (which, name) in NAMES.iter().enumerate() {
        let conn = open(load_alone(which));
        for (d, ask) in [
            (&AADF, Ask::by(&["year"]).with_all(&AADF)),
            (
                &RAW_COUNTS,
                Ask::by(&["hour"]).with(Stat::Sum, &["all_motor_vehicles"]),
            ),
            (
                &RAW_COUNTS,
                Ask::by(&["count_point_id"]).with(Stat::Avg, &["lgvs"]),
            ),
            (
                &LOCAL_AUTHORITY_TRAFFIC,
                Ask::by(&["year"]).with(Stat::Sum, &["all_motor_vehicles"]),
            ),
        ] {
            let expected = expected_summary(&conn, d, &[], &ask);
            let target = format!("/releases/{name}{}", summary_target(d, "", &[], &ask));
            let reply = get(&server, &target);
            assert_eq!(reply.status, 200, "{target}: {}", reply.text());
            assert_rows(&reply.text(), &expected, false, &target);
            assert_eq!(
                reply.header("cache-control"),
                Some("public, max-age=31536000, immutable"),
                "{target}"
            );
            let facets = format!("/releases/{name}/api{}/facets?facet=year", path(d));
            let reply = get(&server, &facets);
            assert_eq!(reply.status, 200, "{facets}");
            assert_eq!(
                reply.json()["facets"]["year"],
                expected_facet(&conn, d, &[], "year", 30),
                "{facets}"
            );
            assert_eq!(
                reply.header("cache-control"),
                Some("public, max-age=31536000, immutable"),
                "{facets}"
            );
        }
    }
    // The latest under /api is the last release's, and not immutable.
    let reply = get(
        &server,
        "/api/average-annual-daily-flow/summary?group_by=year&sum=all_motor_vehicles",
    );
    let named = get(&server, &format!("/releases/{}/api/average-annual-daily-flow/summary?group_by=year&sum=all_motor_vehicles", NAMES[2]));
    assert_eq!(reply.body, named.body);
    assert_eq!(reply.header("cache-control"), Some("no-cache, private"));
    // A release that is not kept.
    assert_eq!(
        get(&server, "/releases/1999/api/raw-counts/summary").status,
        404
    );
}
