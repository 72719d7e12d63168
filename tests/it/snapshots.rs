//! Every byte of the envelope and of error bodies, for representative requests, kept as
//! snapshots (`tests/it/snapshots/`): a change in any byte of any of them shows in review.
//! The server runs with a fixed `--public-url` so that the URLs in the bodies are the same on
//! every run. (`cargo insta review` after an intended change.)

use crate::support::*;

/// Status, content type and body, as one snapshot.
fn shown(reply: &Reply) -> String {
    format!(
        "{} {}\n{}",
        reply.status,
        reply.header("content-type").unwrap_or("-"),
        reply.text()
    )
}

fn server() -> &'static TestServer {
    static SERVER: std::sync::OnceLock<TestServer> = std::sync::OnceLock::new();
    SERVER.get_or_init(|| serve(sample_db(), &["--public-url", "http://localhost:8080"]))
}

const REQUESTS: &[(&str, &str)] = &[
    ("count_point", "/api/count-points?page%5Bsize%5D=1&page%5Bnumber%5D=1&filter%5Bid%5D=501"),
    ("aadf_page_2", "/api/average-annual-daily-flow?page%5Bsize%5D=3&page%5Bnumber%5D=2"),
    ("by_direction_counted", "/api/average-annual-daily-flow-by-direction?filter%5Bcount_method%5D=counted&page%5Bsize%5D=2"),
    ("raw_sorted_fields", "/api/raw-counts?filter%5Blocal_authority_id%5D=6&sort=-hour&fields=id,hour,cars_and_taxis&page%5Bsize%5D=5&page%5Bnumber%5D=2"),
    ("raw_many_pages", "/api/raw-counts?page%5Bsize%5D=10&page%5Bnumber%5D=27"),
    ("raw_past_last", "/api/raw-counts?page%5Bnumber%5D=999"),
    ("raw_bare_filters", "/api/raw-counts?year=2023&road_type=major&page%5Bsize%5D=2"),
    ("la_traffic_alias", "/api/traffic/local-authorities?filter%5Byear%5D=2020&page%5Bsize%5D=2"),
    ("region_road_type", "/api/region-traffic-by-road-type?filter%5Broad_category%5D=TM&page%5Bsize%5D=2"),
    ("region_vehicle_type", "/api/region-traffic-by-vehicle-type?page%5Bsize%5D=2&page%5Bnumber%5D=3"),
    ("countries", "/api/countries"),
    ("regions", "/api/regions"),
    ("local_authorities_by_name", "/api/local-authorities?filter%5Bname%5D=aberdeen%20city"),
    ("error_no_route", "/api/nope"),
    ("error_filter_not_allowed", "/api/raw-counts?filter%5Bnope%5D=1"),
    ("error_filter_value", "/api/raw-counts?filter%5Byear%5D=abc"),
    ("error_page_size", "/api/raw-counts?page%5Bsize%5D=0"),
    ("error_page_number", "/api/raw-counts?page%5Bnumber%5D=-1"),
    ("error_sort", "/api/raw-counts?sort=nope"),
    ("error_fields", "/api/raw-counts?fields=nope"),
    ("error_filter_shape", "/api/raw-counts?filter=2020"),
];

#[test]
fn bodies_of_representative_requests() {
    for (name, target) in REQUESTS {
        let reply = get(server(), target);
        insta::assert_snapshot!(*name, shown(&reply), target);
    }
    let post = request(server(), "POST", "/api/raw-counts", &[]);
    insta::assert_snapshot!("error_method", shown(&post), "POST /api/raw-counts");
}
