//! Hostile and malformed requests: each gets a JSON answer (an HTML page outside the API) with a 2xx, 3xx or 4xx status,
//! never a 5xx, a hang or a dropped connection, and the server answers correctly afterwards.

use proptest::prelude::*;

use crate::support::*;

fn assert_handled(server: &TestServer, target: &[u8]) {
    let reply = raw_get(server, target);
    let shown = String::from_utf8_lossy(&target[..target.len().min(200)]).into_owned();
    assert!(
        reply.status < 500,
        "{} for {shown}: {}",
        reply.status,
        reply.text()
    );
    // 304 and redirects (the API's address to its docs) have no body; the website's pages
    // (outside the API's base path, `/` among them) are HTML; every other answer is JSON.
    let page = !target.starts_with(b"/api")
        && reply.header("content-type") == Some("text/html; charset=utf-8");
    if !(300..400).contains(&reply.status) && !page {
        // Every answer is JSON, errors included. (Checked without holding numbers: a page
        // number past 2^64 comes back as written, valid JSON that no f64 holds.)
        let _: serde::de::IgnoredAny = serde_json::from_slice(&reply.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}) for {shown}: {}", reply.text()));
        assert_eq!(
            reply.header("content-type"),
            Some("application/json"),
            "{shown}"
        );
    }
}

/// The server still answers, and with the whole file: every count point, the first as before.
fn still_answers_correctly(server: &TestServer) {
    let body = get(server, "/api/count-points?page%5Bsize%5D=1").json();
    assert_eq!(body["current_page"], 1);
    assert_eq!(body["total"], sample_rows("count_points"));
    let first = &body["data"][0];
    assert_eq!(first["id"], first["count_point_id"]);
}

const INJECTIONS: [&str; 8] = [
    "1'%20OR%20'1'='1",
    "1;DROP%20TABLE%20raw_counts;--",
    "1)%20UNION%20SELECT%20*%20FROM%20metadata--",
    "%27%22%60",
    "1%00",
    "%00",
    "..%2F..%2Fetc%2Fpasswd",
    "x%0d%0aSet-Cookie:%20a=b",
];

#[test]
fn injection_attempts_in_every_parameter() {
    let server = sample_server();
    for bad in INJECTIONS {
        for param in [
            "filter%5Bid%5D",
            "filter%5Broad_name%5D",
            "filter%5Bcount_date%5D",
            "road_type",
            "sort",
            "fields",
            "page%5Bsize%5D",
            "page%5Bnumber%5D",
            "filter%5B",
            "",
        ] {
            for path in [
                "/api/raw-counts",
                "/api/average-annual-daily-flow",
                "/api/regions",
            ] {
                assert_handled(server, format!("{path}?{param}={bad}").as_bytes());
            }
        }
        assert_handled(server, format!("/api/{bad}").as_bytes());
    }
    still_answers_correctly(server);
    // Nothing was changed: the data is all still there.
    let total = get(server, "/api/raw-counts").json()["total"].clone();
    assert_eq!(total, sample_rows("raw_counts"));
}

#[test]
fn malformed_and_absurd_requests() {
    let server = sample_server();
    let huge = "9".repeat(400);
    let long_query = format!(
        "/api/raw-counts?filter%5Broad_name%5D={}",
        "A".repeat(60 * 1024)
    );
    let many_params = format!("/api/raw-counts?{}", "x=1&".repeat(12_000));
    let deep = format!("/api/raw-counts?filter{}=1", "%5Ba%5D".repeat(500));
    for target in [
        format!("/api/raw-counts?page%5Bnumber%5D={huge}"),
        format!("/api/raw-counts?page%5Bsize%5D={huge}"),
        "/api/raw-counts?page%5Bnumber%5D=9223372036854775807&page%5Bsize%5D=100000".to_string(),
        "/api/raw-counts?page%5Bnumber%5D=-9223372036854775808".to_string(),
        "/api/raw-counts?page[size]=1&page[number]=1e9".to_string(),
        "/api/raw-counts?filter[year][]=2020&filter[year][]=2021".to_string(),
        "/api/raw-counts?filter[year][a][b]=1".to_string(),
        "/api/raw-counts?filter=2020".to_string(),
        "/api/raw-counts?page=abc&limit=-1&page[size]=".to_string(),
        "/api/raw-counts?[]=1&=2&&&=&%".to_string(),
        "/api/raw-counts?%ff%fe=%c0%80".to_string(),
        "/api/raw-counts?filter%5Byear%5D=,,,,".to_string(),
        "/api/raw-counts?filter%5Bcount_point_id%5D=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30".to_string(),
        format!("/api/raw-counts?filter%5Bcount_point_id%5D={}", (0..5000).map(|i| i.to_string()).collect::<Vec<_>>().join(",")),
        format!("/api/raw-counts?filter%5Bhour%5D={huge}"),
        "/api/raw-counts?sort=-,--id,%2B".to_string(),
        "/api/raw-counts?fields=".to_string(),
        "/api/raw-counts?fields[a][b]=id".to_string(),
        "/api/../../etc/passwd".to_string(),
        "/api/%2e%2e/%2e%2e/etc/passwd".to_string(),
        "/api/raw-counts/../regions".to_string(),
        "/api//raw-counts".to_string(),
        "/api/raw-counts%00".to_string(),
        "/".to_string(),
        "/api".to_string(),
        "/api/".to_string(),
        long_query,
        many_params,
        deep,
    ] {
        assert_handled(server, target.as_bytes());
    }
    still_answers_correctly(server);
}

/// Any positive page number, however large, is a page past the last: 200, no data, the
/// number written back exactly, the page before it as `prev`. Anything else is a 400 that
/// says so.
#[test]
fn any_positive_page_number_is_a_page() {
    let server = sample_server();
    let huge = "9".repeat(400);
    let below_huge = format!("{}8", "9".repeat(399));
    for (n, prev) in [
        ("9223372036854775807", "9223372036854775806"),
        ("9223372036854775808", "9223372036854775807"),
        ("0018446744073709551616", "18446744073709551615"),
        (huge.as_str(), below_huge.as_str()),
    ] {
        let reply = get(server, &format!("/api/raw-counts?page%5Bnumber%5D={n}"));
        assert_eq!(reply.status, 200, "{n}: {}", reply.text());
        let text = reply.text();
        let n = n.trim_start_matches('0');
        assert!(
            text.starts_with(&format!("{{\"current_page\":{n},\"data\":[],")),
            "{text}"
        );
        let prev_url = format!("page%5Bnumber%5D={prev}\"");
        for part in [
            "\"from\":null",
            "\"to\":null",
            "\"next_page_url\":null",
            prev_url.as_str(),
        ] {
            assert!(text.contains(part), "{part} in {text}");
        }
        assert!(
            text.contains(&format!("\"page\":{prev},\"active\":false}}")),
            "{text}"
        );
    }
    for bad in ["0", "-1", "abc", "1.5", "1e3", "0x10"] {
        let reply = get(server, &format!("/api/raw-counts?page%5Bnumber%5D={bad}"));
        assert_eq!(reply.status, 400, "{bad}");
        assert_eq!(
            reply.json()["message"],
            format!("page[number] must be a positive integer, not `{bad}`.")
        );
    }
}

/// Past 64 KB the request head never reaches the application: actix-http's parser answers a
/// bare 400 (its limit is not configurable). Still a 4xx, and the server carries on.
#[test]
fn request_heads_over_64_kib_get_a_400() {
    let server = sample_server();
    let target = format!(
        "/api/raw-counts?filter%5Broad_name%5D={}",
        "A".repeat(100 * 1024)
    );
    assert_eq!(raw_get(server, target.as_bytes()).status, 400);
    still_answers_correctly(server);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Any query string, made of the characters that matter to a parser, gets a handled answer.
    #[test]
    fn any_query_string_is_answered(query in "[a-z_\\[\\]%0-9A-F=&,+.~ -]{0,120}") {
        let server = sample_server();
        let encoded = query.replace(' ', "+");
        let reply = raw_get(server, format!("/api/raw-counts?{encoded}").as_bytes());
        prop_assert!(reply.status < 500, "{} for {query}", reply.status);
    }

    /// Filter names and values built from parts of real ones.
    #[test]
    fn filter_like_requests_are_answered(
        name in prop::sample::select(vec!["year", "hour", "road_name", "count_date", "id", "count_method", "nope", ""]),
        wrap in prop::sample::select(vec!["filter%5B{}%5D", "{}", "filter[{}]", "filter%5B{}", "page%5B{}%5D"]),
        value in "[0-9a-zA-Z,%.\\-]{0,40}",
    ) {
        let server = sample_server();
        let param = wrap.replace("{}", name);
        let reply = raw_get(server, format!("/api/raw-counts?{param}={value}").as_bytes());
        prop_assert!(reply.status < 500, "{} for {param}={value}", reply.status);
    }
}
