//! The API contract (../shared/spec/API.md) against the bundled sample, over HTTP.

use serde_json::Value;

use crate::support::*;

const ENVELOPE_KEYS: [&str; 13] = [
    "current_page",
    "data",
    "first_page_url",
    "from",
    "last_page",
    "last_page_url",
    "links",
    "next_page_url",
    "path",
    "per_page",
    "prev_page_url",
    "to",
    "total",
];

const LOCATION: &str = "region_id,local_authority_id,road_name,road_category,road_type,start_junction_road_name,end_junction_road_name,easting,northing,latitude,longitude,link_length_km,link_length_miles";
const VEHICLES: &str = "pedal_cycles,two_wheeled_motor_vehicles,cars_and_taxis,buses_and_coaches,lgvs,hgvs_2_rigid_axle,hgvs_3_rigid_axle,hgvs_4_or_more_rigid_axle,hgvs_3_or_4_articulated_axle,hgvs_5_articulated_axle,hgvs_6_articulated_axle,all_hgvs,all_motor_vehicles";

/// Record field orders, written out from API.md section 3 (not from the catalogue).
fn record_fields(path: &str) -> String {
    match path {
        "average-annual-daily-flow" => format!("id,count_point_id,year,{LOCATION},estimation_method,estimation_method_detailed,{VEHICLES}"),
        "average-annual-daily-flow-by-direction" => format!("id,count_point_id,year,{LOCATION},estimation_method,estimation_method_detailed,direction_of_travel,{VEHICLES}"),
        "count-points" => format!("id,count_point_id,aadf_year,{LOCATION}"),
        "raw-counts" => format!("id,count_point_id,direction_of_travel,year,count_date,hour,{LOCATION},{VEHICLES}"),
        "countries" => "id,name,ons_code".into(),
        "regions" => "id,name,ons_code,country_id".into(),
        "local-authority-traffic" | "traffic/local-authorities" => "id,year,region_id,local_authority_id,local_authority_name,ons_code,link_length_km,link_length_miles,cars_and_taxis,all_motor_vehicles".into(),
        "region-traffic-by-road-type" => "id,year,region_id,road_category,total_link_length_km,total_link_length_miles,all_motor_vehicles".into(),
        "region-traffic-by-vehicle-type" => "id,year,region_id,total_link_length_km,total_link_length_miles,pedal_cycles,two_wheeled_motor_vehicles,cars_and_taxis,buses_and_coaches,lgvs,all_hgvs,all_motor_vehicles".into(),
        "local-authorities" => "id,name,region_id,ita_id,ons_code".into(),
        other => panic!("{other}"),
    }
}

const PAGINATED: [&str; 8] = [
    "average-annual-daily-flow",
    "average-annual-daily-flow-by-direction",
    "count-points",
    "raw-counts",
    "local-authority-traffic",
    "traffic/local-authorities",
    "region-traffic-by-road-type",
    "region-traffic-by-vehicle-type",
];
const UNPAGINATED: [&str; 3] = ["countries", "regions", "local-authorities"];

/// Filters per endpoint, from API.md section 2.
fn filters(path: &str) -> Vec<&'static str> {
    let aadf = vec![
        "id",
        "count_point_id",
        "region_id",
        "local_authority_id",
        "year",
        "count_method",
        "road_name",
        "road_category",
        "road_type",
        "estimation_method",
    ];
    match path {
        "average-annual-daily-flow" => aadf,
        "average-annual-daily-flow-by-direction" => [aadf, vec!["direction_of_travel"]].concat(),
        "count-points" => vec![
            "id",
            "count_point_id",
            "region_id",
            "local_authority_id",
            "road_name",
            "road_category",
            "road_type",
            "aadf_year",
        ],
        "raw-counts" => vec![
            "id",
            "count_point_id",
            "region_id",
            "local_authority_id",
            "year",
            "count_method",
            "road_name",
            "road_category",
            "road_type",
            "direction_of_travel",
            "count_date",
            "hour",
        ],
        "local-authority-traffic" | "traffic/local-authorities" => {
            vec!["id", "local_authority_id", "region_id", "year"]
        }
        "region-traffic-by-road-type" => vec!["id", "region_id", "year", "road_category"],
        "region-traffic-by-vehicle-type" => vec!["id", "region_id", "year"],
        _ => vec!["id", "name"],
    }
}

fn keys(v: &Value) -> String {
    v.as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect::<Vec<_>>()
        .join(",")
}

fn all_records(path: &str) -> Vec<Value> {
    let reply = get(
        sample_server(),
        &format!("/api/{path}?page%5Bsize%5D=100000"),
    );
    assert_eq!(reply.status, 200);
    reply.json()["data"].as_array().unwrap().clone()
}

fn ids(records: &[Value]) -> Vec<i64> {
    records.iter().map(|r| r["id"].as_i64().unwrap()).collect()
}

#[test]
fn every_endpoint_answers_records_in_contract_order() {
    let server = sample_server();
    for path in PAGINATED {
        let reply = get(server, &format!("/api/{path}"));
        assert_eq!(reply.status, 200, "{path}: {}", reply.text());
        let body = reply.json();
        assert_eq!(keys(&body), ENVELOPE_KEYS.join(","), "{path}");
        let data = body["data"].as_array().unwrap();
        assert!(!data.is_empty(), "{path} has no rows in the sample");
        assert_eq!(keys(&data[0]), record_fields(path), "{path}");
        assert_eq!(body["per_page"], 250);
    }
    for path in UNPAGINATED {
        let body = get(server, &format!("/api/{path}")).json();
        let rows = body
            .as_array()
            .unwrap_or_else(|| panic!("{path} is a bare array"));
        assert!(!rows.is_empty(), "{path}");
        assert_eq!(keys(&rows[0]), record_fields(path), "{path}");
        let ids = ids(rows);
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{path} ordered by id");
    }
}

#[test]
fn json_types_follow_the_contract() {
    let r = &all_records("raw-counts")[0];
    for text in [
        "latitude",
        "longitude",
        "direction_of_travel",
        "count_date",
        "road_name",
    ] {
        assert!(r[text].is_string(), "{text}: {}", r[text]);
    }
    for int in [
        "easting",
        "northing",
        "hour",
        "year",
        "all_motor_vehicles",
        "region_id",
    ] {
        assert!(r[int].is_i64(), "{int}: {}", r[int]);
    }
    assert_eq!(r["count_date"].as_str().unwrap().len(), 10);
    let la = &all_records("local-authority-traffic")[0];
    assert!(la["link_length_km"].is_number() && la["cars_and_taxis"].is_i64());
    let text = get(sample_server(), "/api/count-points").text();
    assert!(text.contains(r#":\/\/"#), "slashes escaped as PHP does");
}

#[test]
fn envelope_arithmetic_and_urls() {
    let server = sample_server();
    let all = all_records("raw-counts");
    let total = all.len() as i64;
    let body = get(
        server,
        "/api/raw-counts?page%5Bsize%5D=100&page%5Bnumber%5D=2",
    )
    .json();
    let base = format!("http://{}/api/raw-counts", server.addr);
    assert_eq!(body["current_page"], 2);
    assert_eq!(body["total"], total);
    assert_eq!(body["last_page"], (total + 99) / 100);
    assert_eq!(body["from"], 101);
    assert_eq!(body["to"], 200);
    assert_eq!(body["path"], base);
    assert_eq!(ids(body["data"].as_array().unwrap()), ids(&all[100..200]));
    assert_eq!(
        body["first_page_url"],
        format!("{base}?page%5Bsize%5D=100&page%5Bnumber%5D=1")
    );
    assert_eq!(
        body["prev_page_url"],
        format!("{base}?page%5Bsize%5D=100&page%5Bnumber%5D=1")
    );
    assert_eq!(
        body["next_page_url"],
        format!("{base}?page%5Bsize%5D=100&page%5Bnumber%5D=3")
    );
    // Past the end: empty data, null from/to and next, everything else as usual.
    let body = get(
        server,
        "/api/raw-counts?page%5Bsize%5D=100&page%5Bnumber%5D=999",
    )
    .json();
    assert_eq!(body["data"], serde_json::json!([]));
    assert!(body["from"].is_null() && body["to"].is_null() && body["next_page_url"].is_null());
    assert_eq!(
        body["prev_page_url"],
        format!("{base}?page%5Bsize%5D=100&page%5Bnumber%5D=998")
    );
    assert_eq!(body["total"], total);
}

/// Laravel's window, written from API.md section 4.
fn expected_window(last: i64, current: i64) -> Vec<String> {
    let r = |a: i64, b: i64| (a..=b).map(|n| n.to_string()).collect::<Vec<_>>();
    let gap = || vec!["...".to_string()];
    if last < 14 {
        r(1, last)
    } else if current <= 7 {
        [r(1, 10), gap(), r(last - 1, last)].concat()
    } else if current > last - 7 {
        [r(1, 2), gap(), r(last - 9, last)].concat()
    } else {
        [
            r(1, 2),
            gap(),
            r(current - 3, current + 3),
            gap(),
            r(last - 1, last),
        ]
        .concat()
    }
}

#[test]
fn links_window_for_many_pages() {
    let server = sample_server();
    let total = all_records("raw-counts").len() as i64;
    for size in [1i64, 7, 29, 30, 40, 1000] {
        let last = ((total + size - 1) / size).max(1);
        let mut currents: Vec<i64> = vec![
            1,
            2,
            6,
            7,
            8,
            9,
            last / 2,
            last - 8,
            last - 7,
            last - 6,
            last - 1,
            last,
            last + 1,
            last + 50,
        ];
        currents.retain(|c| *c >= 1);
        currents.dedup();
        for current in currents {
            let body = get(
                server,
                &format!("/api/raw-counts?page%5Bsize%5D={size}&page%5Bnumber%5D={current}"),
            )
            .json();
            assert_eq!(body["last_page"], last);
            let links = body["links"].as_array().unwrap();
            let labels: Vec<String> = links
                .iter()
                .map(|l| l["label"].as_str().unwrap().to_string())
                .collect();
            let mut expected = vec!["&laquo; Previous".to_string()];
            expected.extend(expected_window(last, current));
            expected.push("Next &raquo;".into());
            assert_eq!(labels, expected, "size {size} page {current}");
            let url = |n: i64| {
                format!(
                    "http://{}/api/raw-counts?page%5Bsize%5D={size}&page%5Bnumber%5D={n}",
                    server.addr
                )
            };
            for l in &links[1..links.len() - 1] {
                match l["label"].as_str().unwrap() {
                    "..." => {
                        assert!(
                            l["url"].is_null() && l.get("page").is_none() && l["active"] == false
                        );
                    }
                    n => {
                        let n: i64 = n.parse().unwrap();
                        assert_eq!(l["url"], url(n));
                        assert_eq!(l["page"], n);
                        assert_eq!(l["active"], n == current);
                    }
                }
            }
            let (prev, next) = (&links[0], &links[links.len() - 1]);
            if current > 1 {
                assert_eq!(
                    (&prev["url"], &prev["page"]),
                    (&Value::from(url(current - 1)), &Value::from(current - 1))
                );
            } else {
                assert!(prev["url"].is_null() && prev["page"].is_null());
            }
            if current < last {
                assert_eq!(next["url"], url(current + 1));
                assert_eq!(body["next_page_url"], url(current + 1));
            } else {
                assert!(
                    next["url"].is_null()
                        && next["page"].is_null()
                        && body["next_page_url"].is_null()
                );
            }
        }
    }
}

fn matches(record: &Value, name: &str, wanted: &[Value]) -> bool {
    wanted.iter().any(|w| match (&record[name], w) {
        (Value::String(a), Value::String(b)) => a.eq_ignore_ascii_case(b),
        (a, b) => a == b,
    })
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[test]
fn every_filter_of_every_endpoint() {
    let server = sample_server();
    for path in PAGINATED {
        let all = all_records(path);
        for name in filters(path) {
            if name == "count_method" {
                continue;
            }
            // Two distinct values (where the sample has them): a single value and a list.
            let mut values: Vec<Value> = Vec::new();
            for r in &all {
                if !r[name].is_null() && !values.contains(&r[name]) {
                    values.push(r[name].clone());
                }
            }
            assert!(!values.is_empty(), "{path}: sample has no {name}");
            for wanted in [&values[..1], &values[..values.len().min(2)]] {
                let list: Vec<String> = wanted.iter().map(value_text).collect();
                let expected: Vec<i64> = ids(&all
                    .iter()
                    .filter(|r| matches(r, name, wanted))
                    .cloned()
                    .collect::<Vec<_>>());
                for form in [format!("filter%5B{name}%5D"), name.to_string()] {
                    // Text filters ignore letter case.
                    let query = list.join(",").to_lowercase().replace(' ', "%20");
                    let body = get(
                        server,
                        &format!("/api/{path}?{form}={query}&page%5Bsize%5D=100000"),
                    )
                    .json();
                    assert_eq!(
                        ids(body["data"].as_array().unwrap()),
                        expected,
                        "{path} {form}={query}"
                    );
                    assert_eq!(body["total"], expected.len(), "{path} {form}={query}");
                }
            }
        }
    }
}

#[test]
fn text_filters_match_whole_values_only() {
    let server = sample_server();
    let all = all_records("average-annual-daily-flow");
    let road = all[0]["road_name"].as_str().unwrap();
    let prefix = &road[..road.len() - 1];
    let body = get(
        server,
        &format!("/api/average-annual-daily-flow?filter%5Broad_name%5D={prefix}"),
    )
    .json();
    assert!(body["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["road_name"] == prefix));
}

#[test]
fn count_method() {
    let server = sample_server();
    let aadf = all_records("average-annual-daily-flow");
    for (method, published) in [("counted", "Counted"), ("estimated", "Estimated")] {
        let body = get(server, &format!("/api/average-annual-daily-flow?filter%5Bcount_method%5D={method}&page%5Bsize%5D=100000")).json();
        let expected = aadf
            .iter()
            .filter(|r| r["estimation_method"] == published)
            .count();
        assert_eq!(body["total"], expected, "{method}");
    }
    let raw_total = all_records("raw-counts").len();
    assert_eq!(
        get(server, "/api/raw-counts?filter%5Bcount_method%5D=counted").json()["total"],
        raw_total
    );
    assert_eq!(
        get(server, "/api/raw-counts?filter%5Bcount_method%5D=estimated").json()["total"],
        0
    );
    assert_eq!(
        get(server, "/api/raw-counts?filter%5Bcount_method%5D=guessed").status,
        400
    );
}

#[test]
fn sort_and_fields() {
    let server = sample_server();
    let body = get(
        server,
        "/api/average-annual-daily-flow?sort=-year&page%5Bsize%5D=100000",
    )
    .json();
    let rows = body["data"].as_array().unwrap();
    let keys: Vec<(i64, i64)> = rows
        .iter()
        .map(|r| (r["year"].as_i64().unwrap(), r["id"].as_i64().unwrap()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(
        keys, sorted,
        "year descending, ties by id in the same direction"
    );
    let body = get(
        server,
        "/api/count-points?sort=road_name,-aadf_year&page%5Bsize%5D=100000",
    )
    .json();
    let names: Vec<String> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["road_name"].as_str().unwrap().to_lowercase())
        .collect();
    assert!(names.windows(2).all(|w| w[0] <= w[1]), "{names:?}");
    let reply = get(server, "/api/count-points?sort=latitude");
    assert_eq!(reply.status, 400);
    assert!(reply.json()["message"].as_str().unwrap().contains("sort"));

    let body = get(server, "/api/raw-counts?fields=year,id,hour").json();
    assert_eq!(
        keys_of(&body["data"][0]),
        "id,year,hour",
        "record order, not request order"
    );
    let body = get(server, "/api/regions?fields=name").json();
    assert_eq!(keys_of(&body[0]), "name");
    let reply = get(server, "/api/raw-counts?fields=id,nope");
    assert_eq!(reply.status, 400);
    assert!(reply.text().contains("nope"));
}

fn keys_of(v: &Value) -> String {
    keys(v)
}

#[test]
fn unpaginated_filters() {
    let server = sample_server();
    let regions = get(server, "/api/regions").json();
    let name = regions[0]["name"]
        .as_str()
        .unwrap()
        .to_uppercase()
        .replace(' ', "%20");
    let body = get(server, &format!("/api/regions?filter%5Bname%5D={name}")).json();
    assert_eq!(body.as_array().unwrap().len(), 1);
    let body = get(server, "/api/local-authorities?filter%5Bid%5D=999999").json();
    assert_eq!(body, serde_json::json!([]));
    assert_eq!(
        get(server, "/api/countries?filter%5Bregion_id%5D=1").status,
        400
    );
}

#[test]
fn alias_path_serves_the_same_records() {
    let server = sample_server();
    let a = get(server, "/api/local-authority-traffic?page%5Bsize%5D=5").json();
    let b = get(server, "/api/traffic/local-authorities?page%5Bsize%5D=5").json();
    assert_eq!(a["data"], b["data"]);
    assert!(b["path"]
        .as_str()
        .unwrap()
        .ends_with("/api/traffic/local-authorities"));
}

fn assert_error(reply: &Reply, status: u16, needle: &str) {
    assert_eq!(reply.status, status, "{}", reply.text());
    let message = reply.json()["message"].as_str().unwrap().to_string();
    assert!(message.contains(needle), "{message:?} lacks {needle:?}");
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
}

#[test]
fn every_error_is_json_with_its_status() {
    let server = sample_server();
    for bad in ["0", "-1", "abc", "100001", "1.5", "99999999999999999999"] {
        assert_error(
            &get(server, &format!("/api/raw-counts?page%5Bsize%5D={bad}")),
            400,
            "page[size]",
        );
    }
    for bad in ["0", "-3", "x", "2.0"] {
        assert_error(
            &get(server, &format!("/api/raw-counts?page%5Bnumber%5D={bad}")),
            400,
            "page[number]",
        );
    }
    assert_error(
        &get(server, "/api/raw-counts?filter%5Byear%5D=abc"),
        400,
        "`abc`",
    );
    assert_error(
        &get(server, "/api/raw-counts?filter%5Bcount_date%5D=yesterday"),
        400,
        "count_date",
    );
    let reply = get(server, "/api/count-points?filter%5Byear%5D=2020");
    assert_eq!(
        reply.text(),
        r#"{"message":"Requested filter(s) `year` are not allowed. Allowed filter(s) are `id, count_point_id, region_id, local_authority_id, road_name, road_category, road_type, aadf_year`."}"#
    );
    assert_error(
        &get(server, "/api/nope"),
        404,
        "The route api/nope could not be found.",
    );
    assert_eq!(
        get(server, "/api/nope").text(),
        r#"{"message":"The route api\/nope could not be found."}"#
    );
    assert_error(
        &get(server, "/elsewhere/raw-counts"),
        404,
        "elsewhere/raw-counts",
    );
    for method in ["POST", "PUT", "DELETE", "PATCH"] {
        let reply = request(server, method, "/api/raw-counts", &[]);
        assert_error(&reply, 405, method);
        assert_eq!(reply.header("allow"), Some("GET, HEAD"));
    }
}

#[test]
fn headers_etag_head_and_cors() {
    let server = sample_server();
    let target = "/api/count-points?page%5Bsize%5D=3";
    let reply = request(server, "GET", target, &[("Accept-Encoding", "gzip, br")]);
    assert_eq!(reply.status, 200);
    for (name, value) in [
        ("content-type", "application/json"),
        ("access-control-allow-origin", "*"),
        ("x-content-type-options", "nosniff"),
        ("x-frame-options", "Deny"),
        ("cache-control", "no-cache, private"),
    ] {
        assert_eq!(reply.header(name), Some(value), "{name}");
    }
    assert!(reply.header("content-security-policy").is_some());
    assert!(
        reply.header("content-encoding").is_none(),
        "no compression by default"
    );
    let etag = reply.header("etag").expect("an ETag").to_string();
    let again = request(server, "GET", target, &[("If-None-Match", &etag)]);
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    let other = request(
        server,
        "GET",
        "/api/count-points?page%5Bsize%5D=4",
        &[("If-None-Match", &etag)],
    );
    assert_eq!(other.status, 200, "an ETag belongs to one URL");

    let head = request(server, "HEAD", target, &[]);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(head.header("content-type"), Some("application/json"));

    let pre = request(
        server,
        "OPTIONS",
        "/api/raw-counts",
        &[
            ("Origin", "https://example.org"),
            ("Access-Control-Request-Method", "GET"),
        ],
    );
    assert_eq!(pre.status, 204);
    assert_eq!(pre.header("access-control-allow-origin"), Some("*"));
    assert!(pre
        .header("access-control-allow-methods")
        .unwrap()
        .contains("GET"));
}

#[test]
fn request_shapes_real_clients_send() {
    let server = sample_server();
    let all = all_records("average-annual-daily-flow");
    let years: Vec<i64> = all.iter().map(|r| r["year"].as_i64().unwrap()).collect();
    let (a, b) = (years.iter().max().unwrap(), years.iter().min().unwrap());
    let expected = years.iter().filter(|y| *y == a || *y == b).count();
    // Raw brackets, as curl -g and browsers send them; encoded, as Python requests does.
    for target in [
        format!("/api/average-annual-daily-flow?filter[year]={a},{b}&page[size]=30000"),
        format!("/api/average-annual-daily-flow?filter%5Byear%5D={a}%2C{b}&page%5Bsize%5D=30000&limit=5&page=3&per_page=2"),
    ] {
        let reply = raw_get(server, target.as_bytes());
        assert_eq!(reply.status, 200, "{target}: {}", reply.text());
        let body = reply.json();
        assert_eq!(body["total"], expected);
        assert_eq!(body["per_page"], 30000);
        assert_eq!(body["current_page"], 1);
    }
    let reply = request(
        server,
        "GET",
        "/api/count-points?page%5Bsize%5D=2&filter%5Bregion_id%5D=",
        &[
            ("Accept", "application/json"),
            ("Content-Type", "application/json"),
        ],
    );
    assert_eq!(reply.status, 200);
    let body = reply.json();
    assert_eq!(
        body["total"],
        all_records("count-points").len(),
        "an empty filter is ignored"
    );
    assert!(
        !body["first_page_url"]
            .as_str()
            .unwrap()
            .contains("region_id"),
        "empty values left out of URLs"
    );
}

#[test]
fn options_public_url_base_path_rate_limit_compress() {
    let db = sample_db();
    let server = serve(
        db,
        &[
            "--public-url",
            "https://traffic.example.org/",
            "--base-path",
            "/v1",
            "--rate-limit",
            "3",
            "--compress",
        ],
    );
    let reply = get(&server, "/v1/regions");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("x-ratelimit-limit"), Some("3"));
    assert_eq!(reply.header("x-ratelimit-remaining"), Some("2"));
    let body = get(&server, "/v1/count-points?page%5Bsize%5D=1").json();
    assert_eq!(body["path"], "https://traffic.example.org/v1/count-points");
    assert_eq!(
        get(&server, "/v1/countries").header("x-ratelimit-remaining"),
        Some("0")
    );
    let zipped = request(
        &server,
        "GET",
        "/v1/countries",
        &[("Accept-Encoding", "gzip")],
    );
    assert_eq!(zipped.status, 429, "fourth request in the minute");
    assert!(zipped.header("retry-after").is_some());
    assert_eq!(zipped.json()["message"], "Too Many Attempts.");

    let server = serve(db, &["--compress"]);
    let zipped = raw_request(&server, b"/api/raw-counts", "Accept-Encoding: gzip\r\n");
    assert_eq!(zipped.header("content-encoding"), Some("gzip"));
    assert_eq!(get(&server, "/api/nope").status, 404);
}

#[test]
fn filtered_pages_at_any_depth_concatenate_to_the_whole() {
    let server = sample_server();
    let all = all_records("raw-counts");
    let mut years: Vec<String> = all.iter().map(|r| r["year"].to_string()).collect();
    years.sort();
    years.dedup();
    let all_ids = ids(&all);
    // Every row, through the filtered path: more rows than one checkpoint interval. Years are
    // filtered on the rows' index, road types through the runs table.
    for filter in [
        format!("filter%5Byear%5D={}", years.join(",")),
        "filter%5Broad_type%5D=major,minor".to_string(),
    ] {
        pages_concatenate(server, &filter, &all_ids);
    }
}

fn pages_concatenate(server: &TestServer, filter: &str, all_ids: &[i64]) {
    // Single rows on each side of the checkpoints, and the last.
    for page in [1, 2, 255, 256, 257, 258, 300, all_ids.len()] {
        let body = get(
            server,
            &format!("/api/raw-counts?{filter}&page%5Bsize%5D=1&page%5Bnumber%5D={page}"),
        )
        .json();
        assert_eq!(
            ids(body["data"].as_array().unwrap()),
            vec![all_ids[page - 1]],
            "page {page}"
        );
    }
    for size in [7usize, 100, 255, 256, 257] {
        let mut seen = Vec::new();
        let mut page = 1;
        loop {
            let body = get(
                server,
                &format!("/api/raw-counts?{filter}&page%5Bsize%5D={size}&page%5Bnumber%5D={page}"),
            )
            .json();
            let rows = body["data"].as_array().unwrap();
            if rows.is_empty() {
                break;
            }
            assert_eq!(body["from"], (page - 1) * size + 1);
            seen.extend(ids(rows));
            page += 1;
        }
        assert_eq!(seen, all_ids, "{filter} page size {size}");
    }
}

/// Raw counts filter and sort their location columns through the runs table: the answers must
/// equal the same filter and sort applied to the rows themselves.
#[test]
fn raw_counts_through_the_runs_table_agree_with_the_rows() {
    let server = sample_server();
    let all = all_records("raw-counts");
    let la = all[all.len() / 2]["local_authority_id"].as_i64().unwrap();
    let cps: Vec<i64> = vec![
        all[0]["count_point_id"].as_i64().unwrap(),
        all[all.len() - 1]["count_point_id"].as_i64().unwrap(),
    ];
    let int = |r: &Value, k: &str| r[k].as_i64().unwrap();
    let text = |r: &Value, k: &str| r[k].as_str().unwrap_or("").to_lowercase();
    let select =
        |keep: &dyn Fn(&Value) -> bool| all.iter().filter(|r| keep(r)).cloned().collect::<Vec<_>>();

    let expected = ids(&select(&|r| {
        int(r, "local_authority_id") == la && int(r, "hour") == 12
    }));
    let body = get(server, &format!("/api/raw-counts?filter%5Blocal_authority_id%5D={la}&filter%5Bhour%5D=12&page%5Bsize%5D=1000")).json();
    assert_eq!(ids(body["data"].as_array().unwrap()), expected);

    let mut rows = all.clone();
    rows.sort_by_key(|r| std::cmp::Reverse((int(r, "local_authority_id"), int(r, "id"))));
    let body = get(
        server,
        "/api/raw-counts?sort=-local_authority_id&page%5Bsize%5D=1000",
    )
    .json();
    assert_eq!(ids(body["data"].as_array().unwrap()), ids(&rows));

    let mut rows = select(&|r| text(r, "road_type") == "major");
    rows.sort_by_key(|r| (text(r, "road_name"), int(r, "id")));
    let body = get(
        server,
        "/api/raw-counts?filter%5Broad_type%5D=MAJOR&sort=road_name&page%5Bsize%5D=1000",
    )
    .json();
    assert_eq!(ids(body["data"].as_array().unwrap()), ids(&rows));

    let rows = select(&|r| cps.contains(&int(r, "count_point_id")));
    let body = get(
        server,
        &format!(
            "/api/raw-counts?filter%5Bcount_point_id%5D={},{}&page%5Bsize%5D=3&page%5Bnumber%5D=2",
            cps[0], cps[1]
        ),
    )
    .json();
    assert_eq!(body["total"], rows.len());
    assert_eq!(ids(body["data"].as_array().unwrap()), ids(&rows[3..6]));
}

/// The bytes of a listing's records: the `data` array of either envelope, or a whole NDJSON
/// body.
fn records_bytes(reply: &Reply) -> &[u8] {
    let body = &reply.body[..];
    let find = |what: &[u8]| body.windows(what.len()).position(|w| w == what);
    let Some(start) = find(b"\"data\":") else {
        return body; // NDJSON
    };
    let end = find(b",\"first_page_url\":")
        .or_else(|| find(b",\"links\":{"))
        .unwrap();
    &body[start..end]
}

/// Raw counts are written run by run (the fields their run shares, once per run) when rows
/// come in id order, and from their columns otherwise. A filter on the hour sorted by the hour
/// takes the columns (every row ties, so the order is still the ids'): both ways must give the
/// same bytes, whatever the fields, page, order and envelope, on the sample and the real files.
#[test]
fn records_written_run_by_run_are_those_written_from_the_columns() {
    let mut files = vec![sample_db()];
    files.extend(real_db());
    for db in files {
        let runs_are_long = rusqlite::Connection::open(db)
            .unwrap()
            .query_row(
                "SELECT (SELECT count(*) FROM raw_counts) >= 8 * (SELECT count(*) FROM raw_counts_runs)",
                [],
                |r| r.get::<_, bool>(0),
            )
            .unwrap();
        assert!(
            runs_are_long,
            "{}: records are written run by run",
            db.display()
        );
        let server = serve(db, &["--response-cache-mb", "0"]);
        for hour in [7, 12, 18] {
            for fields in [
                "",
                "&fields=hour,year,id,road_name,pedal_cycles",
                "&fields=count_date,road_name",
                "&fields=hour",
                "&fields=latitude,direction_of_travel,link_length_miles",
            ] {
                for (page, (by_runs, by_columns)) in [
                    ("page%5Bsize%5D=1000", ("", "&sort=hour")),
                    (
                        "page%5Bsize%5D=5&page%5Bnumber%5D=3",
                        ("&sort=-id", "&sort=-hour"),
                    ),
                ] {
                    for (base, query) in [
                        ("/api/raw-counts", page),
                        ("/legacy/api/raw-counts", page),
                        ("/api/raw-counts.ndjson", ""),
                    ] {
                        let target = format!("{base}?filter%5Bhour%5D={hour}{fields}&{query}");
                        let runs = get(&server, &format!("{target}{by_runs}"));
                        let columns = get(&server, &format!("{target}{by_columns}"));
                        assert_eq!((runs.status, columns.status), (200, 200), "{target}");
                        assert!(!records_bytes(&runs).is_empty());
                        assert!(
                            records_bytes(&runs) == records_bytes(&columns),
                            "{target}{by_runs}"
                        );
                    }
                }
            }
        }
    }
}

/// Values cannot pass for other filter sets in the cache of totals.
#[test]
fn crafted_values_do_not_poison_cached_totals() {
    let server = sample_server();
    let all = all_records("count-points");
    let (a, b) = (
        all[0]["road_name"].as_str().unwrap(),
        all[1]["road_name"].as_str().unwrap(),
    );
    let expected = all
        .iter()
        .filter(|r| r["road_name"] == a || r["road_name"] == b)
        .count();
    assert_eq!(
        get(
            server,
            &format!("/api/count-points?filter%5Broad_name%5D={a}%01{b}")
        )
        .json()["total"],
        0
    );
    let rt = all[0]["road_type"].as_str().unwrap();
    get(
        server,
        &format!("/api/count-points?filter%5Broad_name%5D={a}%26road_type%3D{rt}"),
    );
    let body = get(
        server,
        &format!("/api/count-points?filter%5Broad_name%5D={a},{b}"),
    )
    .json();
    assert_eq!(body["total"], expected);
    assert_eq!(body["data"].as_array().unwrap().len(), expected);
}

#[test]
fn an_id_sort_key_decides_and_ends_the_order() {
    let server = sample_server();
    let all = ids(&all_records("average-annual-daily-flow"));
    let body = get(
        server,
        "/api/average-annual-daily-flow?sort=-id,year&page%5Bsize%5D=3",
    )
    .json();
    let mut expected = all.clone();
    expected.reverse();
    assert_eq!(ids(body["data"].as_array().unwrap()), expected[..3]);
}

#[test]
fn rate_limit_headers_on_every_response() {
    let server = serve(sample_db(), &["--rate-limit", "2"]);
    let first = get(&server, "/api/nope");
    assert_eq!(first.status, 404);
    assert_eq!(first.header("x-ratelimit-remaining"), Some("1"));
    assert_eq!(
        get(&server, "/api/raw-counts?page%5Bsize%5D=0").header("x-ratelimit-remaining"),
        Some("0")
    );
    let limited = get(&server, "/api/regions");
    assert_eq!(limited.status, 429);
    assert_eq!(limited.header("x-ratelimit-limit"), Some("2"));
    assert_eq!(limited.header("x-ratelimit-remaining"), Some("0"));
}

/// An unfiltered page of raw counts is read from their own values alone (an id range of that
/// table), which the loader writes for every row: in a file missing one, the page that should
/// hold it answers 500, never a page short of a record, and the other pages are whole.
#[test]
fn a_page_missing_an_own_value_is_an_error_not_a_short_page() {
    let db = scratch_dir().join("holed.db");
    std::fs::copy(sample_db(), &db).unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    let holed = "DELETE FROM raw_counts_own_values WHERE id = 3";
    assert_eq!(conn.execute(holed, []).unwrap(), 1);
    drop(conn);
    let server = serve(&db, &["--response-cache-mb", "0"]);
    let page = |n: i64| {
        get(
            &server,
            &format!("/api/raw-counts?page%5Bsize%5D=5&page%5Bnumber%5D={n}"),
        )
    };
    assert_eq!(page(1).status, 500);
    let whole = page(2);
    assert_eq!(whole.status, 200);
    assert_eq!(whole.json()["data"].as_array().unwrap().len(), 5);
    assert_eq!(whole.json()["data"][0]["id"], 6);
}
