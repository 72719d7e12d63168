//! Each kept release, served by name, answers as a mirror loaded with that release alone: every
//! listing of the API (plain, paged, filtered, sorted, sparse, CSV, NDJSON), the legacy envelope,
//! the downloads, byte for byte but for the base URL its links name; with a year's immutable
//! caching and a strong ETag that holds on another server of the same releases.

use serde_json::Value;

use super::fixtures::{
    fourth, inputs, load_alone, Revision, B_REVISIONS, C_REVISIONS, D_NAME, NAMES,
};
use crate::support::{get, load_ok, request, scratch_dir, serve, Reply, TestServer};

/// The request targets compared, made from a single-release mirror's description and rows.
fn targets(single: &TestServer) -> Vec<String> {
    let description = get(single, "/api/openapi.json").json();
    let mut out = Vec::new();
    for (path, item) in description["paths"].as_object().unwrap() {
        // Revisions span every kept release: the same under any release's name.
        let listing = is_listing(item)
            && !path.contains('.')
            && !path.contains("/releases/")
            && !path.ends_with("/revisions");
        let Some(path) = path.strip_prefix("/api").filter(|_| listing) else {
            continue;
        };
        out.extend(listing_targets(single, path));
    }
    out.extend(
        [
            "/downloads/dft_traffic_counts_aadf.csv",
            "/downloads/count_points.parquet",
            "/downloads/dft_traffic_counts_raw_counts.zip",
            "/downloads/",
        ]
        .map(String::from),
    );
    out
}

/// Whether a described path is a listing (its answers are data of the release).
fn is_listing(item: &Value) -> bool {
    let tags = &item["get"]["tags"];
    item["get"].is_object() && !tags.to_string().contains("mirror")
}

/// A listing's targets: plain, paged, filtered by values of its first record, sorted both ways
/// by its first columns, sparse, as CSV, NDJSON, GeoJSON and Parquet, in the legacy envelope,
/// and its facets and summaries (whole and filtered).
fn listing_targets(single: &TestServer, path: &str) -> Vec<String> {
    let first = get(single, &format!("/api{path}?page%5Bsize%5D=1")).json();
    let record = match &first {
        Value::Array(all) => all.first().cloned(),
        envelope => envelope["data"].get(0).cloned(),
    };
    let mut out = vec![
        format!("/api{path}"),
        format!("/api{path}?page%5Bsize%5D=3&page%5Bnumber%5D=2"),
        format!("/api{path}.csv"),
        format!("/api{path}.ndjson"),
        format!("/legacy/api{path}?page%5Bsize%5D=2&page%5Bnumber%5D=2"),
        format!("/api{path}.geojson"),
        format!("/api{path}.parquet"),
        format!("/api{path}/facets?facet=year&facet=road_category"),
        format!("/api{path}/summary?group_by=year&sum=all_motor_vehicles&avg=cars_and_taxis"),
        format!("/api{path}/summary.csv?group_by=road_category,year&sum=all_motor_vehicles"),
    ];
    let Some(Value::Object(record)) = record else {
        return out;
    };
    for (name, value) in record.iter().skip(1).take(3) {
        let value = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        out.push(format!("/api{path}?filter%5B{name}%5D={}", encode(&value)));
        out.push(format!(
            "/api{path}/summary?group_by=year&sum=all_motor_vehicles&filter%5B{name}%5D={}",
            encode(&value)
        ));
        out.push(format!("/api{path}?sort=-{name}&page%5Bsize%5D=5"));
        out.push(format!("/api{path}?fields=id,{name}&sort={name}"));
    }
    out
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A body with the base URL its links name replaced by `BASE`, as written raw and in JSON.
fn based(body: &[u8], base: &str) -> String {
    let text = String::from_utf8_lossy(body);
    text.replace(&base.replace('/', "\\/"), "BASE")
        .replace(base, "BASE")
}

/// Every target of the single-release mirror, asked of the named release on `kept`: the same
/// status, type and bytes.
pub fn assert_served_as_alone(kept: &TestServer, name: &str, single: &TestServer) {
    let prefix = format!("/releases/{name}");
    let targets = targets(single);
    assert!(targets.len() > 60, "{} targets", targets.len());
    for target in targets {
        let alone = get(single, &target);
        let named = get(kept, &format!("{prefix}{target}"));
        assert_eq!(
            named.status,
            alone.status,
            "{name} {target}: {}",
            named.text()
        );
        assert_eq!(
            named.header("content-type"),
            alone.header("content-type"),
            "{name} {target}"
        );
        if target.starts_with("/downloads/") && target.len() > "/downloads/".len() {
            assert!(named.body == alone.body, "{name} {target}: other bytes");
            assert_eq!(named.header("etag"), alone.header("etag"), "{target}");
            continue;
        }
        if target == "/downloads/" {
            continue; // the page lists the release's own links: checked by the site's tests
        }
        // A 404 names the path asked, which has the release's prefix.
        let asked = format!("{}\\/", prefix[1..].replace('/', "\\/"));
        let (a, b) = (
            based(&alone.body, &single.url("")),
            based(&named.body, &kept.url(&prefix)).replace(&asked, ""),
        );
        assert!(
            a == b,
            "{name} {target}:\nalone {}\nnamed {}",
            &a[..a.len().min(400)],
            &b[..b.len().min(400)]
        );
        // Area sets are the latest file's, replaced at will: what a release says of them is
        // revalidated, not kept for a year.
        let of_sets = target.contains("/areas");
        if named.status == 200 && !target.ends_with("/changes") && !of_sets {
            assert_immutable(kept, &format!("{prefix}{target}"), &named);
        }
    }
}

/// A named release's data: cached for a year, never revalidated, under a strong ETag that a
/// revalidation matches.
fn assert_immutable(server: &TestServer, target: &str, reply: &Reply) {
    assert_eq!(
        reply.header("cache-control"),
        Some("public, max-age=31536000, immutable"),
        "{target}"
    );
    let etag = reply
        .header("etag")
        .unwrap_or_else(|| panic!("{target}: no ETag"));
    assert!(!etag.starts_with("W/"), "{target}: {etag}");
    let again = request(server, "GET", target, &[("If-None-Match", etag)]);
    assert_eq!(again.status, 304, "{target}");
}

/// The kept releases on a server: names, oldest first, and which is the latest.
pub fn listed(server: &TestServer) -> Vec<(String, bool)> {
    let list = get(server, "/releases").json();
    (list.as_array().unwrap().iter())
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["latest"].as_bool().unwrap(),
            )
        })
        .collect()
}

/// Serves `db` (with its kept releases) and a mirror of each release alone, and compares them.
pub fn assert_each_release_as_alone(db: &std::path::Path, alone: &[(&str, &std::path::Path)]) {
    let kept = serve(db, &["--lazy-downloads"]);
    let names: Vec<String> = listed(&kept).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        alone.iter().map(|(n, _)| n.to_string()).collect::<Vec<_>>()
    );
    for (name, file) in alone {
        let single = serve(file, &["--lazy-downloads"]);
        assert_served_as_alone(&kept, name, &single);
    }
}

/// Loads the first `n` releases, each kept, into `db`.
fn keep(db: &std::path::Path, n: usize, options: &[&str]) {
    for (name, input) in inputs().all().into_iter().take(n) {
        let args = [&["--quiet", "--release", name][..], options].concat();
        load_ok(db, &args, &[input]);
    }
}

#[test]
fn each_kept_release_answers_as_a_mirror_of_it_alone() {
    let db = scratch_dir().join("served.db");
    keep(&db, 3, &["--whole-rows"]);
    let alone: Vec<(&str, &std::path::Path)> = (0..3).map(|i| (NAMES[i], load_alone(i))).collect();
    assert_each_release_as_alone(&db, &alone);
}

/// Four releases loaded as by default (the last with `--share-rows`, which says the same), each revising both AADF tables (the last three in
/// place, their ids kept): each older release reads them through layers (its own rows that differ, over the newer
/// releases'), and answers as a mirror of it alone; again once the latest is dropped (the
/// release before it made whole again) and once an older one is dropped.
#[test]
fn releases_reading_aadf_through_layers_answer_as_alone() {
    let db = scratch_dir().join("layers.db");
    keep(&db, 3, &[]);
    let (d_input, d_alone) = fourth();
    let share = ["--quiet", "--release", D_NAME, "--share-rows"];
    load_ok(&db, &share, &[d_input]);
    let m = roadtraffic_releases::Manifest::current(&db)
        .unwrap()
        .unwrap();
    let (b, c) = (&m.releases[1], &m.releases[2]);
    let (b_file, c_file) = (b.file.clone(), c.file.clone());
    // B's AADF: its own rows that differ, over C's, over D's whole (the --db file).
    assert_eq!(
        b.layered.get("aadf"),
        Some(&vec![b_file.clone(), c_file.clone(), None])
    );
    let by_direction = vec![b_file.clone(), c_file.clone(), None];
    assert_eq!(b.layered.get("aadf_by_direction"), Some(&by_direction));
    assert_eq!(
        m.releases[0].layered.get("aadf_by_direction"),
        Some(&by_direction)
    );
    let folder = roadtraffic_releases::folder(&db);
    let holds = |file: &Option<String>, table: &str| {
        let path = folder.join(file.as_deref().unwrap());
        let conn = rusqlite::Connection::open(path).unwrap();
        let sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1";
        conn.query_row(sql, [table], |r| r.get::<_, i64>(0))
            .unwrap()
            > 0
    };
    for table in ["aadf", "aadf_by_direction"] {
        assert!(!holds(&c_file, table) && holds(&c_file, &format!("{table}__own")));
    }
    let mut alone: Vec<(&str, &std::path::Path)> =
        (0..3).map(|i| (NAMES[i], load_alone(i))).collect();
    alone.push((D_NAME, d_alone.as_path()));
    assert_each_release_as_alone(&db, &alone);

    load_ok(&db, &["--quiet", "--drop-release", D_NAME], &[]);
    alone.pop();
    assert_each_release_as_alone(&db, &alone);
    load_ok(&db, &["--quiet", "--drop-release", NAMES[1]], &[]);
    alone.remove(1);
    assert_each_release_as_alone(&db, &alone);
}

/// A 2019-era client, given a named release's legacy base URL, follows `links.next` to the end
/// and never leaves the release; a client of today's envelope likewise through `links`.
#[test]
fn clients_given_a_release_base_url_stay_in_it() {
    let db = scratch_dir().join("clients.db");
    keep(&db, 2, &[]);
    let server = serve(&db, &["--lazy-downloads"]);
    let base = server.url("/releases/2024");
    let mut next = Some(format!(
        "{base}/legacy/api/average-annual-daily-flow?page%5Bsize%5D=7"
    ));
    let mut records = 0;
    while let Some(url) = next {
        let target = url.strip_prefix(&server.url("")).unwrap().to_string();
        assert!(target.starts_with("/releases/2024/legacy/api/"), "{url}");
        let body = get(&server, &target).json();
        assert!(body["meta"]["path"].as_str().unwrap().starts_with(&base));
        records += body["data"].as_array().unwrap().len();
        next = body["links"]["next"].as_str().map(str::to_string);
    }
    let alone = serve(load_alone(0), &["--lazy-downloads"]);
    let total = get(&alone, "/api/average-annual-daily-flow").json()["total"].clone();
    assert_eq!(Value::from(records), total);
    let page = get(
        &server,
        "/releases/2024/api/count-points?page%5Bsize%5D=2&page%5Bnumber%5D=2",
    );
    let body = page.json();
    for link in body["links"].as_array().unwrap() {
        if let Some(url) = link["url"].as_str() {
            assert!(
                url.starts_with(&format!("{base}/api/count-points")),
                "{url}"
            );
        }
    }
    for key in [
        "first_page_url",
        "last_page_url",
        "next_page_url",
        "prev_page_url",
        "path",
    ] {
        assert!(body[key].as_str().unwrap().starts_with(&base), "{key}");
    }
}

/// A release loaded while the server runs is served by name at once, the others as they were;
/// one dropped is gone (404), and `/readyz` and the metrics name what is served.
#[test]
fn releases_loaded_and_dropped_while_serving() {
    let db = scratch_dir().join("live.db");
    keep(&db, 2, &[]);
    let server = serve(&db, &["--lazy-downloads"]);
    let target = "/releases/2024/api/average-annual-daily-flow?page%5Bsize%5D=5";
    let before = get(&server, target);
    assert_eq!(before.status, 200);
    let (name, input) = inputs().all()[2];
    load_ok(&db, &["--quiet", "--release", name], &[input]);
    let listed_now = || listed(&server);
    wait_until(|| listed_now().len() == 3);
    assert_eq!(
        listed_now(),
        [
            ("2024".into(), false),
            ("2025".into(), false),
            ("2026".into(), true)
        ]
    );
    let after = get(&server, target);
    assert!(after.body == before.body && after.header("etag") == before.header("etag"));
    let ready = get(&server, "/readyz").json();
    assert_eq!(
        ready["releases"],
        serde_json::json!(["2024", "2025", "2026"])
    );
    assert_eq!(ready["release"], "2026");
    let metrics = get(&server, "/metrics").text();
    assert!(
        metrics.contains(r#"latest="true",release="2026""#),
        "{metrics}"
    );
    load_ok(&db, &["--quiet", "--drop-release", "2024"], &[]);
    wait_until(|| listed_now().len() == 2);
    let gone = get(&server, target);
    assert_eq!(gone.status, 404);
    assert!(gone.text().contains("/releases lists"), "{}", gone.text());
    assert_eq!(get(&server, "/releases/2025/api/regions").status, 200);
    assert_eq!(
        get(&server, "/releases/latest/api/regions").body,
        get(&server, "/api/regions").body
    );
}

fn wait_until(done: impl Fn() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
        assert!(started.elapsed().as_secs() < 20, "not within 20 s");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The revisions of every value the fixtures revise, read from releases the loader kept (their
/// tables shared between files): each release's value, and the column among those changed.
#[test]
fn revisions_and_changes_read_the_kept_storage() {
    let db = scratch_dir().join("revisions.db");
    keep(&db, 3, &[]);
    let server = serve(&db, &["--lazy-downloads"]);
    let revised = [(1, B_REVISIONS), (2, C_REVISIONS)];
    for (release, revisions) in revised {
        for r in revisions {
            let entry = revisions_of(&server, r);
            let releases = entry["releases"].as_array().unwrap();
            assert_eq!(releases.len(), 3, "{r:?}");
            let value = |i: usize| releases[i]["record"][r.column].to_string();
            assert_eq!(value(release - 1), r.old, "{r:?}");
            assert_eq!(value(release), r.new, "{r:?}");
            let changed = &releases[release]["changed"];
            assert!(
                changed.as_array().unwrap().contains(&r.column.into()),
                "{r:?}: {changed}"
            );
        }
    }
    // What changed from the first to the last: what a comparison of the two files loaded
    // alone finds (their load times aside).
    let report = get(&server, "/releases/2026/changes?since=2024");
    assert_eq!(report.status, 200, "{}", report.text());
    let json_path = scratch_dir().join("a-c.json");
    let json = json_path.to_str().unwrap();
    let diff = std::process::Command::new(env!("CARGO_BIN_EXE_roadtraffic-load"))
        .args(["diff", "--quiet", "--report-json", json])
        .args([load_alone(0), load_alone(2)])
        .status()
        .unwrap();
    assert!(diff.success());
    let alone: Value = serde_json::from_slice(&std::fs::read(&json_path).unwrap()).unwrap();
    let served = report.json();
    for part in ["tables", "count_points", "years_before", "years_after"] {
        assert_eq!(served[part], alone[part], "{part}");
    }
}

/// The revisions entry of one revised value's natural key.
fn revisions_of(server: &TestServer, r: &Revision) -> Value {
    let dataset = (roadtraffic_catalog::DATASETS.iter())
        .find(|d| d.table == r.table)
        .unwrap();
    let filters: Vec<String> = (r.key.iter())
        .map(|(column, value)| format!("filter%5B{column}%5D={value}"))
        .collect();
    let target = format!("/api{}/revisions?{}", dataset.paths[0], filters.join("&"));
    let reply = get(server, &target);
    assert_eq!(reply.status, 200, "{target}: {}", reply.text());
    let all = reply.json();
    assert_eq!(all.as_array().unwrap().len(), 1, "{target}: {all}");
    all[0].clone()
}
