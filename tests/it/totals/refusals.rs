//! What is asked wrong: a 400 that names the parameter and lists what it allows; facets and
//! summaries only of paginated listings (404 elsewhere), only by GET and HEAD (405); and
//! nothing a client can write makes a 500.

use roadtraffic_catalog::{AADF, COUNT_POINTS, RAW_COUNTS};

use super::*;
use crate::support::*;

/// `target` refused with a 400 whose message holds `words` and every name of `allowed`.
fn refused(target: &str, words: &[&str], allowed: &[&str]) {
    let reply = get(sample_server(), target);
    assert_refused(&reply, target, words);
    let listed = allowed.join(", ");
    assert_refused(&reply, target, &[&listed]);
}

#[test]
fn facets_asked_wrong_say_what_is_allowed() {
    let raw = "/api/raw-counts/facets";
    let facets = facet_names(&RAW_COUNTS);
    // No facet, an empty one, unknown ones, the id (one record each).
    for query in [
        "",
        "facet=",
        "facet=,",
        "facet%5B%5D=",
        "facet=nope",
        "facet=year,nope",
        "facet=id",
        "facet=all_motor_vehicles",
    ] {
        refused(&format!("{raw}?{query}"), &["facet"], &facets);
    }
    let reply = get(sample_server(), &format!("{raw}?facet=year,nope,id"));
    assert_refused(&reply, "nope, id", &["`nope, id`"]);
    // facet_size: a whole number from 1 to 1000.
    for size in [
        "0",
        "1001",
        "-1",
        "1.5",
        "abc",
        "99999999999999999999999",
        "1e3",
    ] {
        let target = format!("{raw}?facet=year&facet_size={size}");
        assert_refused(
            &get(sample_server(), &target),
            &target,
            &["facet_size", "1", "1000"],
        );
    }
    let target = format!("{raw}?facet=year&facet_size%5Ba%5D=3");
    assert_refused(&get(sample_server(), &target), &target, &["facet_size"]);
    // 1000 itself is allowed; an empty size is the default.
    for size in ["1000", ""] {
        let target = format!("{raw}?facet=hour&facet_size={size}");
        assert_eq!(get(sample_server(), &target).status, 200, "{target}");
    }
    // The listing's own filters, refused as the listing refuses them.
    let target = format!("{raw}?facet=year&filter%5Bnope%5D=1");
    assert_refused(
        &get(sample_server(), &target),
        &target,
        &["nope", "Allowed filter(s)", "count_method"],
    );
    let target = format!("{raw}?facet=year&filter%5Byear%5D=twenty");
    assert_refused(&get(sample_server(), &target), &target, &["twenty", "year"]);
    let target = "/api/local-authority-traffic/facets?facet=year&filter%5Bbbox%5D=-3,50,-2,51";
    assert_refused(&get(sample_server(), target), target, &["bbox"]);
    let target = format!("{raw}?facet=year&filter%5Bcount_method%5D=guessed");
    assert_refused(
        &get(sample_server(), &target),
        &target,
        &["guessed", "counted, estimated"],
    );
}

#[test]
fn summaries_asked_wrong_say_what_is_allowed() {
    let raw = "/api/raw-counts/summary";
    let facets = facet_names(&RAW_COUNTS);
    let measures: Vec<&str> = RAW_COUNTS.summary_measures().map(|m| m.name()).collect();
    for query in [
        "group_by=",
        "group_by=,",
        "group_by=nope",
        "group_by=hour,nope",
        "group_by=id",
        "group_by=pedal_cycles",
    ] {
        refused(&format!("{raw}?{query}"), &["group_by"], &facets);
    }
    // At most 5 columns.
    let six = facets[..6].join(",");
    let target = format!("{raw}?group_by={six}");
    assert_refused(&get(sample_server(), &target), &target, &["group_by", "5"]);
    let five = facets[..5].join(",");
    assert_eq!(
        get(sample_server(), &format!("{raw}?group_by={five}")).status,
        200
    );
    // Measures: the numeric columns only (not the id), each stat alike.
    for stat in ["sum", "avg", "min", "max"] {
        for value in [
            "",
            ",",
            "nope",
            "road_name",
            "count_date",
            "id",
            "direction_of_travel",
            "vehicle_km",
        ] {
            refused(&format!("{raw}?{stat}={value}"), &[stat], &measures);
        }
    }
    let target = "/api/raw-counts/summary?sum=road_name,nope";
    assert_refused(
        &get(sample_server(), target),
        target,
        &["`road_name, nope`", "numeric"],
    );
    // A dataset whose tables of totals keep no measure still adds up its numbers.
    assert!(measure_names(&COUNT_POINTS).is_empty());
    let target = "/api/count-points/summary?sum=aadf_year,link_length_km";
    assert_eq!(get(sample_server(), target).status, 200);
    // limit: a whole number from 1 to 200000; offset from 0.
    for limit in ["0", "200001", "-5", "x", "2.0", "18446744073709551616"] {
        let target = format!("{raw}?group_by=hour&limit={limit}");
        assert_refused(
            &get(sample_server(), &target),
            &target,
            &["limit", "200000"],
        );
    }
    for offset in ["-1", "x", "1000000001"] {
        let target = format!("{raw}?group_by=hour&offset={offset}");
        assert_refused(&get(sample_server(), &target), &target, &["offset", "0 to"]);
    }
    // sort: an output column, `-` for descending; a measure not asked is no output column.
    let target = format!("{raw}?group_by=hour&sum=cars_and_taxis&sort=-sum_lgvs");
    assert_refused(
        &get(sample_server(), &target),
        &target,
        &["sort", "sum_lgvs", "hour, count, sum_cars_and_taxis"],
    );
    for sort in ["nope", "-nope", "year", "--count", "count,nope"] {
        let target = format!("{raw}?group_by=hour&sort={sort}");
        assert_refused(
            &get(sample_server(), &target),
            &target,
            &["sort", "hour, count"],
        );
    }
    let target = format!("{raw}?group_by=hour&sort%5Ba%5D=count");
    assert_refused(&get(sample_server(), &target), &target, &["sort"]);
    // Filters as the listing's.
    let target = "/api/average-annual-daily-flow/summary?filter%5Bhour%5D=8";
    assert_refused(
        &get(sample_server(), target),
        target,
        &["hour", "Allowed filter(s)"],
    );
    assert!(!AADF.filters.contains(&"hour"));
}

#[test]
fn only_paginated_listings_have_facets_and_summaries() {
    let server = sample_server();
    for path in ["regions", "countries", "local-authorities"] {
        for end in [
            "facets?facet=id",
            "summary",
            "summary.csv",
            "summary.ndjson",
        ] {
            let target = format!("/api/{path}/{end}");
            let reply = get(server, &target);
            assert_eq!(reply.status, 404, "{target}: {}", reply.text());
            assert!(
                reply.json()["message"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("api/{path}/")),
                "{target}"
            );
        }
    }
    for target in [
        "/api/raw-counts/summary.json",
        "/api/raw-counts/summary.parquet",
        "/api/raw-counts/facets.csv",
        "/api/raw-counts.csv/summary",
        "/api/raw-counts/summaries",
        "/api/raw-counts/facets/year",
        "/api/nope/summary",
    ] {
        assert_eq!(get(server, target).status, 404, "{target}");
    }
    // The aliases of a paginated listing have them (one trailing slash is the same).
    for target in [
        "/api/traffic/local-authorities/summary?group_by=year",
        "/api/traffic/local-authorities/facets/?facet=year",
        "/api/raw-counts/summary/?group_by=hour",
    ] {
        assert_eq!(get(server, target).status, 200, "{target}");
    }
}

#[test]
fn facets_and_summaries_answer_get_and_head_only() {
    let server = sample_server();
    for target in [
        "/api/raw-counts/facets?facet=hour",
        "/api/raw-counts/summary?group_by=hour",
        "/api/raw-counts/summary.csv?group_by=hour",
        "/api/average-annual-daily-flow/summary.ndjson?group_by=year",
    ] {
        for method in ["POST", "PUT", "DELETE", "PATCH"] {
            let reply = request(server, method, target, &[]);
            assert_eq!(reply.status, 405, "{method} {target}: {}", reply.text());
            assert_eq!(
                reply.header("allow"),
                Some("GET, HEAD"),
                "{method} {target}"
            );
            assert!(reply.json()["message"].as_str().unwrap().contains(method));
        }
        let head = request(server, "HEAD", target, &[]);
        let get = get(server, target);
        assert_eq!((head.status, get.status), (200, 200), "{target}");
        assert!(head.body.is_empty(), "HEAD {target}");
        assert_eq!(head.header("content-type"), get.header("content-type"));
        assert_eq!(head.header("etag"), get.header("etag"));
    }
}

/// Answered with a status below 500; a refusal in JSON, as every error of the API.
fn handled(target: &[u8]) {
    let reply = raw_get(sample_server(), target);
    let shown = String::from_utf8_lossy(&target[..target.len().min(300)]).into_owned();
    assert!(
        reply.status < 500,
        "{} for {shown}: {}",
        reply.status,
        reply.text()
    );
    if reply.status >= 400 {
        let _: serde::de::IgnoredAny = serde_json::from_slice(&reply.body).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}) for {shown}: {} {}",
                reply.status,
                reply.text()
            )
        });
    }
}

#[test]
fn hostile_query_strings_never_make_a_500() {
    let facets = facet_names(&RAW_COUNTS).join(",");
    let measures = measure_names(&RAW_COUNTS).join(",");
    let huge = "9".repeat(400);
    let mut targets: Vec<String> = Vec::new();
    for base in [
        "/api/raw-counts/facets?facet=hour&",
        "/api/raw-counts/summary?",
        "/api/raw-counts/summary.csv?",
        "/api/average-annual-daily-flow/summary.ndjson?",
    ] {
        for query in [
            format!("group_by={}", "year,".repeat(5_000)),
            format!("facet={}", "hour,".repeat(5_000)),
            "facet=hour&".repeat(3_000),
            "group_by=hour&".repeat(3_000),
            format!(
                "sum={measures}&avg={measures}&min={measures}&max={measures}&group_by={facets}"
            ),
            format!("sum={}", "cars_and_taxis,".repeat(3_000)),
            format!("sort={}", "-count,".repeat(5_000)),
            format!(
                "filter%5Bcount_point_id%5D={}",
                (1..3_000)
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            format!("limit={huge}&facet_size={huge}"),
            "group_by=%ZZ&sum=%&avg=%%&min=%E2%82&max=%FF%FE".into(),
            "facet=%00&group_by=hour%00&sum=lgvs%0d%0a".into(),
            "facet%5B%5D%5B%5D=hour&group_by%5Ba%5D%5Bb%5D=1&sum%5B%5D=lgvs".into(),
            "facet=year'%20OR%201=1--&group_by=year);DROP%20TABLE%20raw_counts;--".into(),
            "sort=-&sort=+&sort=,,,&limit=&facet_size=".into(),
            "group_by=hour&sort=-sum_lgvs&sum=lgvs&sum=lgvs&sum=LGVS".into(),
            "filter%5Bbbox%5D=1,2,3&filter%5Bnear%5D=nan,nan,nan".into(),
            "filter%5Bbbox%5D=-1e308,-1e308,1e308,1e308&group_by=hour".into(),
            "filter=year&group_by=year".into(),
            format!("filter{}=1", "%5Ba%5D".repeat(300)),
        ] {
            targets.push(format!("{base}{query}"));
        }
    }
    for target in &targets {
        handled(target.as_bytes());
    }
    // Repeated and doubled names are one column each.
    let reply = get(
        sample_server(),
        "/api/raw-counts/summary?group_by=hour,hour&group_by=hour&sum=lgvs,lgvs&sum=lgvs",
    );
    assert_eq!(reply.status, 200, "{}", reply.text());
    let first = reply.json()[0].clone();
    let keys: Vec<&String> = first.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["hour", "count", "sum_lgvs"]);
    // The server still answers the sample whole.
    let conn = open(sample_db());
    check_summary(
        sample_server(),
        &conn,
        &RAW_COUNTS,
        &[],
        &Ask::by(&["hour"]).with_all(&RAW_COUNTS),
    );
}
