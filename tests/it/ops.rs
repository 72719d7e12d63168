//! The operator's endpoints: `/healthz`, `/readyz` and `/metrics` (checked by `promtool`), on
//! the real server over HTTP.

use std::io::Write as _;
use std::process::{Command, Stdio};

use crate::fixtures::fixture_db;
use crate::support::*;

/// The value of one series (`name{labels}`, exactly as written) in a scrape.
fn series(scrape: &str, name: &str) -> Option<f64> {
    scrape
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .map(|v| v.parse().unwrap())
}

fn scrape(server: &TestServer) -> String {
    let reply = get(server, "/metrics");
    assert_eq!(reply.status, 200);
    let kind = reply.header("content-type").unwrap();
    assert!(kind.starts_with("text/plain; version=0.0.4"), "{kind}");
    reply.text()
}

fn requests(scrape: &str, endpoint: &str, status: u16) -> f64 {
    let name =
        format!(r#"roadtraffic_http_requests_total{{endpoint="{endpoint}",status="{status}"}}"#);
    series(scrape, &name).unwrap_or(0.0)
}

/// `promtool check metrics` reads the scrape from stdin: it fails on anything that is not the
/// text format, and on its lint (names, units, help).
fn promtool_accepts(scrape: &str) {
    let Some(promtool) = required_tool("promtool", "prometheus") else {
        return;
    };
    let mut child = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(scrape.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "promtool check metrics:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn probes_say_the_process_answers_and_which_release_it_serves() {
    let server = sample_server();
    let health = get(server, "/healthz");
    assert_eq!(
        (health.status, health.json()["status"].clone()),
        (200, "ok".into())
    );
    let ready = get(server, "/readyz");
    assert_eq!(ready.status, 200, "{}", ready.text());
    assert_eq!(ready.header("cache-control"), Some("no-store"));
    let body = ready.json();
    assert_eq!(body["status"], "ready");
    assert_eq!(
        body["release"],
        serde_json::Value::Null,
        "loaded without --release"
    );
    let id = body["id"].as_str().unwrap();
    assert!(
        id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit()),
        "{id}"
    );
    for time in ["loaded_at", "serving_since"] {
        assert!(body[time].as_str().unwrap().ends_with('Z'), "{body}");
    }
    assert_eq!(body["rows"]["raw_counts"], sample_rows("raw_counts"));
    assert_eq!(body["rows"]["count_points"], sample_rows("count_points"));
    assert_eq!(request(server, "HEAD", "/readyz", &[]).status, 200);
    let post = request(server, "POST", "/healthz", &[]);
    assert_eq!(post.status, 405, "{}", post.text());
    // They are the operator's, outside the API: under the base path there is no such thing.
    assert_eq!(get(server, "/api/healthz").status, 404);
    assert_eq!(get(server, "/metrics/").status, 404);
}

/// Every copy of one load has the same id; another load has another.
#[test]
fn the_release_id_is_the_same_for_every_copy_of_one_load() {
    let dir = scratch_dir();
    let copy = dir.join("copy.db");
    std::fs::copy(sample_db(), &copy).unwrap();
    let other = dir.join("other.db");
    load_ok(
        &other,
        &["--quiet", "--release", "other"],
        &[&repo_path("data/sample")],
    );
    let id = |db| get(&serve(db, &[]), "/readyz").json()["id"].clone();
    let original = get(sample_server(), "/readyz").json()["id"].clone();
    assert_eq!(id(&copy), original);
    assert_ne!(id(&other), original);
}

#[test]
fn metrics_count_requests_by_endpoint_and_status() {
    let server = serve(sample_db(), &["--connections", "3"]);
    let mut api_bytes = 0;
    for target in [
        "/api/raw-counts?page%5Bsize%5D=2&page%5Bnumber%5D=1",
        "/api/raw-counts?page%5Bsize%5D=2&page%5Bnumber%5D=99",
        "/api/raw-counts/?filter%5Bhour%5D=8",
        "/api/raw-counts?page%5Bsize%5D=0",
    ] {
        api_bytes += get(&server, target).body.len();
    }
    assert_eq!(get(&server, "/api/traffic/local-authorities").status, 200);
    assert_eq!(get(&server, "/no/such/path?x=1").status, 404);
    assert_eq!(get(&server, "/api/no-such-table").status, 404);
    assert_eq!(get(&server, "/readyz").status, 200);
    assert_eq!(
        request(&server, "OPTIONS", "/anything/at/all", &[]).status,
        204
    );
    let text = scrape(&server);
    assert_eq!(requests(&text, "/api/raw-counts", 200), 3.0, "{text}");
    assert_eq!(requests(&text, "/api/raw-counts", 400), 1.0);
    // An alias is counted under its endpoint; unknown paths under one label, never their own.
    assert_eq!(requests(&text, "/api/local-authority-traffic", 200), 1.0);
    assert_eq!(requests(&text, "unmatched", 404), 2.0);
    assert_eq!(requests(&text, "/readyz", 200), 1.0);
    assert_eq!(requests(&text, "preflight", 204), 1.0);
    for line in text.lines().filter(|l| l.contains("endpoint=")) {
        assert!(
            !line.contains("no-such") && !line.contains("anything") && !line.contains('?'),
            "{line}"
        );
    }
    let bytes = series(
        &text,
        r#"roadtraffic_http_response_bytes_total{endpoint="/api/raw-counts"}"#,
    );
    assert_eq!(bytes, Some(api_bytes as f64));
    let durations =
        r#"roadtraffic_http_request_duration_seconds_count{endpoint="/api/raw-counts"}"#;
    assert_eq!(series(&text, durations), Some(4.0));
    // The scrape itself is in flight while it is written.
    assert_eq!(
        series(&text, "roadtraffic_http_requests_in_flight"),
        Some(1.0)
    );
    // The three answered pages and the alias each took a connection; the 400 never needed one.
    assert_eq!(
        series(&text, "roadtraffic_sqlite_pool_wait_seconds_count"),
        Some(4.0)
    );
    let idle = series(&text, r#"roadtraffic_sqlite_connections{state="idle"}"#).unwrap();
    let busy = series(&text, r#"roadtraffic_sqlite_connections{state="busy"}"#).unwrap();
    assert_eq!(idle + busy, 3.0);
    let rows = series(&text, r#"roadtraffic_table_rows{table="raw_counts"}"#);
    assert_eq!(rows, Some(sample_rows("raw_counts") as f64));
    let id = get(&server, "/readyz").json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let info = format!(r#"roadtraffic_release_info{{id="{id}",release=""}}"#);
    assert_eq!(series(&text, &info), Some(1.0), "{text}");
    assert!(series(&text, "roadtraffic_release_loaded_timestamp_seconds").unwrap() > 1.7e9);
    assert!(series(&text, "process_resident_memory_bytes").unwrap() > 0.0);
    promtool_accepts(&text);
}

/// Query timeouts and rate-limited answers are counted; probes are never rate limited.
#[test]
fn query_timeouts_and_rate_limits_are_counted_and_probes_never_limited() {
    // A limit of 0 (10,000 SQLite instructions, on any machine): the sorted listing is stopped,
    // the regions are answered.
    let server = serve(
        fixture_db(),
        &[
            "--query-timeout",
            "0",
            "--connections",
            "1",
            "--rate-limit",
            "2",
        ],
    );
    let slow = get(&server, "/api/raw-counts?sort=-hour&page%5Bsize%5D=100000");
    assert_eq!(slow.status, 503, "{}", slow.text());
    assert_eq!(get(&server, "/api/regions").status, 200);
    assert_eq!(get(&server, "/api/regions").status, 429);
    for probe in ["/healthz", "/readyz", "/metrics", "/healthz", "/readyz"] {
        assert_eq!(get(&server, probe).status, 200, "{probe}");
    }
    let text = scrape(&server);
    assert_eq!(
        series(&text, "roadtraffic_sqlite_query_timeouts_total"),
        Some(1.0)
    );
    assert_eq!(
        series(&text, "roadtraffic_sqlite_pool_timeouts_total"),
        Some(0.0)
    );
    assert_eq!(requests(&text, "/api/raw-counts", 503), 1.0);
    assert_eq!(requests(&text, "/api/regions", 429), 1.0);
    assert_eq!(requests(&text, "/healthz", 200), 2.0);
    promtool_accepts(&text);
}

/// A new release renamed in shows in `/readyz` and `/metrics`; a file that cannot be served is
/// counted as refused, and the release in service stays.
#[test]
fn readiness_and_metrics_follow_the_release_in_service() {
    let dir = scratch_dir();
    let db = dir.join("live.db");
    let sample = repo_path("data/sample");
    load_ok(&db, &["--quiet", "--release", "first"], &[&sample]);
    let server = serve(&db, &[]);
    let first = get(&server, "/readyz").json();
    assert_eq!(first["release"], "first");
    let next = dir.join("next.db");
    load_ok(&next, &["--quiet", "--release", "second"], &[&sample]);
    std::fs::rename(&next, &db).unwrap();
    wait_for("the new release is served", || {
        get(&server, "/readyz").json()["release"] == "second"
    });
    let second = get(&server, "/readyz").json();
    assert_ne!(second["id"], first["id"]);
    let junk = dir.join("junk.db");
    file_of_schema_version(&junk, 2);
    std::fs::rename(&junk, &db).unwrap();
    wait_for("the junk is refused", || {
        series(&scrape(&server), "roadtraffic_release_refusals_total") == Some(1.0)
    });
    assert_eq!(get(&server, "/readyz").json()["release"], "second");
    let text = scrape(&server);
    assert_eq!(
        series(&text, "roadtraffic_release_switches_total"),
        Some(1.0)
    );
    let infos: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("roadtraffic_release_info{"))
        .collect();
    assert_eq!(infos.len(), 1, "only the release in service: {infos:?}");
    assert!(infos[0].contains(r#"release="second""#), "{infos:?}");
    promtool_accepts(&text);
}
