//! The 2019-2020 envelope under the legacy base path, tried the way the clients of that era use
//! it: they change only their base URL to `http://host:port/legacy/api`, then either read
//! `meta.last_page` and ask for every page (the R package trafficr) or follow `links.next`
//! until it is null; and they select `sequence` and `ramp` by name.

use serde_json::{Map, Value};

use roadtraffic_catalog::legacy::{retired_fields, RETIRED_FIELDS};
use roadtraffic_catalog::DATASETS;

use crate::support::*;

const LEGACY: &str = "/legacy/api";

fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .map(String::as_str)
        .collect()
}

/// A link of the envelope as a request target on the test server.
fn target(server: &TestServer, url: &str) -> String {
    url.strip_prefix(&server.url(""))
        .unwrap_or_else(|| panic!("{url} is not on the server"))
        .to_string()
}

/// Every record of a listing through today's API, in one page.
fn every_record_today(server: &TestServer, path: &str, query: &str) -> Vec<Value> {
    let reply = get(server, &format!("/api/{path}?page%5Bsize%5D=100000{query}"));
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json()["data"].as_array().unwrap().clone()
}

/// A legacy record without the retired fields: it must then be today's record.
fn today(record: &Value, retired: &[&str]) -> Value {
    let mut object: Map<String, Value> = record.as_object().unwrap().clone();
    for name in retired {
        assert_eq!(object.shift_remove(*name), Some(Value::Null), "{name}");
    }
    Value::Object(object)
}

/// trafficr's way: page 1, then every page up to `meta.last_page`.
fn every_page_by_last_page(server: &TestServer, path: &str, size: usize) -> Vec<Value> {
    let first = get(server, &format!("{LEGACY}/{path}?page%5Bsize%5D={size}"));
    assert_eq!(first.status, 200, "{}", first.text());
    let first = first.json();
    let last_page = first["meta"]["last_page"].as_u64().unwrap();
    let mut records = first["data"].as_array().unwrap().clone();
    for page in 2..=last_page {
        let reply = get(
            server,
            &format!("{LEGACY}/{path}?page%5Bsize%5D={size}&page%5Bnumber%5D={page}"),
        );
        let body = reply.json();
        assert_eq!(body["meta"]["current_page"], page);
        records.extend(body["data"].as_array().unwrap().iter().cloned());
    }
    assert_eq!(
        records.len() as u64,
        first["meta"]["total"].as_u64().unwrap()
    );
    records
}

/// The other way: `links.next` until it is null, checking each page's envelope on the way.
fn every_page_by_next(server: &TestServer, path: &str, size: usize) -> Vec<Value> {
    let mut next = Some(format!("{LEGACY}/{path}?page%5Bsize%5D={size}"));
    let (mut records, mut pages) = (Vec::new(), 0u64);
    while let Some(at) = next {
        let reply = get(server, &at);
        assert_eq!(reply.status, 200, "{at}: {}", reply.text());
        let body = reply.json();
        assert_eq!(keys(&body), ["data", "links", "meta"], "{at}");
        assert_eq!(keys(&body["links"]), ["first", "last", "prev", "next"]);
        let meta = &body["meta"];
        assert_eq!(
            keys(meta),
            [
                "current_page",
                "from",
                "last_page",
                "path",
                "per_page",
                "to",
                "total"
            ]
        );
        pages += 1;
        assert_eq!(meta["current_page"], pages);
        assert_eq!(meta["per_page"], size);
        assert_eq!(meta["path"], server.url(&format!("{LEGACY}/{path}")));
        assert_eq!(body["links"]["prev"].is_null(), pages == 1, "{at}");
        let data = body["data"].as_array().unwrap();
        assert_eq!(meta["from"], (pages - 1) * size as u64 + 1);
        assert_eq!(meta["to"], (pages - 1) * size as u64 + data.len() as u64);
        records.extend(data.iter().cloned());
        next = body["links"]["next"].as_str().map(|u| target(server, u));
        if next.is_none() {
            assert_eq!(
                meta["last_page"], pages,
                "links.next is null on the last page"
            );
            assert_eq!(
                body["links"]["last"].as_str().map(|u| target(server, u)),
                Some(format!(
                    "{LEGACY}/{path}?page%5Bsize%5D={size}&page%5Bnumber%5D={pages}"
                ))
            );
        }
    }
    assert!(pages >= 3, "{path}: only {pages} pages");
    records
}

#[test]
fn clients_of_2019_read_every_record_by_last_page_and_by_links_next() {
    let server = sample_server();
    for d in DATASETS.iter().filter(|d| d.paginated) {
        let path = d.paths[0].trim_start_matches('/');
        let expected = every_record_today(server, path, "");
        // At least three pages, the last one short where the count allows.
        let size = (expected.len() / 3).max(1);
        let retired = retired_fields(d).map_or(&[][..], |r| r.names);
        for records in [
            every_page_by_last_page(server, path, size),
            every_page_by_next(server, path, size),
        ] {
            let back: Vec<Value> = records.iter().map(|r| today(r, retired)).collect();
            assert!(back == expected, "{path}: the legacy records differ");
        }
    }
}

#[test]
fn retired_fields_are_null_where_2019_records_had_them() {
    let server = sample_server();
    for r in RETIRED_FIELDS {
        let path = r.dataset.paths[0].trim_start_matches('/');
        let body = get(server, &format!("{LEGACY}/{path}?page%5Bsize%5D=5")).json();
        for record in body["data"].as_array().unwrap() {
            let names = keys(record);
            let after = names.iter().position(|k| *k == r.after).unwrap();
            assert_eq!(&names[after + 1..after + 1 + r.names.len()], r.names);
        }
        // Asked for by `fields` without the field they follow: still there, last.
        let reply = get(server, &format!("{LEGACY}/{path}?fields=id,year"));
        let first = &reply.json()["data"][0];
        let mut expected = vec!["id", "year"];
        expected.extend(r.names);
        assert_eq!(keys(first), expected, "{path}");
        // Today's records do not have them.
        let today = get(server, &format!("/api/{path}?page%5Bsize%5D=1")).json();
        assert!(r.names.iter().all(|n| today["data"][0].get(n).is_none()));
    }
    let body = get(server, &format!("{LEGACY}/count-points?page%5Bsize%5D=1")).json();
    assert!(body["data"][0].get("sequence").is_none());
}

#[test]
fn filters_sorts_errors_and_unpaginated_lists_as_today() {
    let server = sample_server();
    let query = "&filter%5Byear%5D=2020&sort=-count_point_id";
    let expected = every_record_today(server, "average-annual-daily-flow", query);
    let reply = get(
        server,
        &format!("{LEGACY}/average-annual-daily-flow?page%5Bsize%5D=100000{query}"),
    );
    let body = reply.json();
    let got: Vec<Value> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| today(r, &["sequence", "ramp"]))
        .collect();
    assert!(!got.is_empty() && got == expected);
    assert_eq!(body["meta"]["total"], expected.len());
    // Filters stay in the page links, as today's envelope keeps them.
    let first = body["links"]["first"].as_str().unwrap();
    assert!(first.ends_with("filter%5Byear%5D=2020&sort=-count_point_id&page%5Bnumber%5D=1"));
    // Past the last page: no records, no next, a prev.
    let past = get(
        server,
        &format!("{LEGACY}/count-points?page%5Bnumber%5D=999"),
    )
    .json();
    assert_eq!(past["data"], Value::Array(vec![]));
    assert!(past["links"]["next"].is_null() && past["links"]["prev"].is_string());
    assert!(past["meta"]["from"].is_null() && past["meta"]["to"].is_null());
    // Errors, and the lists that were never paginated, as today.
    let bad = get(server, &format!("{LEGACY}/raw-counts?filter%5Bnope%5D=1"));
    assert_eq!(bad.status, 400);
    assert!(bad.json()["message"].is_string());
    assert_eq!(get(server, &format!("{LEGACY}/nowhere")).status, 404);
    for list in ["regions", "countries", "local-authorities"] {
        let old = get(server, &format!("{LEGACY}/{list}"));
        assert_eq!(old.status, 200);
        assert_eq!(
            old.body,
            get(server, &format!("/api/{list}")).body,
            "{list}"
        );
    }
}

#[test]
fn the_legacy_base_path_is_an_option() {
    let server = serve(sample_db(), &["--legacy-base-path", "/v2019/"]);
    let body = get(&server, "/v2019/count-points?page%5Bsize%5D=2").json();
    assert_eq!(keys(&body), ["data", "links", "meta"]);
    assert!(body["links"]["next"]
        .as_str()
        .unwrap()
        .starts_with(&server.url("/v2019/count-points?")));
    assert_eq!(get(&server, "/legacy/api/count-points").status, 404);
    let off = serve(sample_db(), &["--legacy-base-path", ""]);
    assert_eq!(get(&off, "/legacy/api/count-points").status, 404);
    assert_eq!(get(&off, "/api/count-points").status, 200);
}
