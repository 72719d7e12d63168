//! Every kept release at once (issue 25): `<endpoint>/revisions` gives each matching record's
//! natural key with its record in every kept release and the fields that changed, exactly as
//! each release's listing writes the record; `/releases/{new}/changes?since={old}` compares any
//! two kept releases, as `roadtraffic-load diff` does; the description covers both.
//!
//! Three releases made from the sample, kept by hand as the loader keeps them (a manifest, the
//! older releases' files in the releases folder): 2023 is the sample; 2024 revises count point
//! 501's 2019 AADF, adds its 2025, retires the last count point and counts a new one (999999);
//! 2025 revises 501's 2019 AADF again and a local authority's 2019 traffic.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use roadtraffic_catalog::{Dataset, Source, AADF, COUNT_POINTS, RAW_COUNTS};

use crate::changes::{AADF as AADF_FILE, COUNT_POINTS as COUNT_POINTS_FILE, ROWS_OF_A_COUNT_POINT};
use crate::support::*;

const NAMES: [&str; 3] = ["2023", "2024", "2025"];

/// The three releases, kept beside `db` (the latest).
struct Releases {
    db: PathBuf,
    /// Each release loaded alone, by name, oldest first.
    alone: Vec<PathBuf>,
    /// The count point retired by 2024.
    retired: i64,
}

fn releases() -> &'static Releases {
    static RELEASES: OnceLock<Releases> = OnceLock::new();
    RELEASES.get_or_init(build)
}

fn server() -> &'static TestServer {
    static SERVER: OnceLock<TestServer> = OnceLock::new();
    SERVER.get_or_init(|| serve(&releases().db, &[]))
}

/// A copy of `from`'s CSV files in `to`, each edited by `edit(name, lines)`.
fn revise(from: &Path, to: &Path, edit: &mut dyn FnMut(&str, &mut Vec<String>)) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        edit(&name, &mut lines);
        std::fs::write(to.join(&name), lines.join("\n") + "\n").unwrap();
    }
}

/// Replaces `old` by `new` in the line starting with `start`, which must hold it.
fn replace_in(lines: &mut [String], start: &str, old: &str, new: &str) {
    let line = lines.iter_mut().find(|l| l.starts_with(start)).unwrap();
    assert!(line.contains(old), "{line}");
    *line = line.replacen(old, new, 1);
}

fn build() -> Releases {
    let dir = scratch_dir();
    let sample = repo_path("data/sample");
    let last = std::fs::read_to_string(sample.join(COUNT_POINTS_FILE)).unwrap();
    let retired: i64 = last
        .lines()
        .last()
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let (csv_2024, csv_2025) = (dir.join("csv-2024"), dir.join("csv-2025"));
    revise(&sample, &csv_2024, &mut |name, lines| {
        if name == COUNT_POINTS_FILE {
            let last = lines.pop().unwrap();
            let (_, rest) = last.split_once(',').unwrap();
            lines.push(format!("999999,{rest}"));
        }
        if ROWS_OF_A_COUNT_POINT.contains(&name) {
            lines.retain(|l| !l.starts_with(&format!("{retired},")));
        }
        if name == AADF_FILE {
            replace_in(lines, "501,2019,", ",52290", ",62290");
            let added = lines[1].replacen("501,2019,", "501,2025,", 1);
            lines.push(added);
        }
    });
    revise(&csv_2024, &csv_2025, &mut |name, lines| match name {
        AADF_FILE => replace_in(lines, "501,2019,", ",62290", ",72290"),
        "local_authority_traffic.csv" => replace_in(lines, "3,", ",2270600000", ",2280600000"),
        _ => {}
    });
    let mut alone = Vec::new();
    for (name, csv) in NAMES.iter().zip([&sample, &csv_2024, &csv_2025]) {
        let db = dir.join(format!("{name}.db"));
        load_ok(&db, &["--quiet", "--release", name], &[csv]);
        alone.push(db);
    }
    let db = dir.join("traffic.db");
    std::fs::copy(&alone[2], &db).unwrap();
    keep_beside(&db, &alone);
    Releases { db, alone, retired }
}

/// Keeps `files` (one release each, oldest first, the last `db`'s own) beside `db`, as the
/// loader keeps releases: the older ones' files in the releases folder, and the manifest.
fn keep_beside(db: &Path, files: &[PathBuf]) {
    let mut folder = db.as_os_str().to_owned();
    folder.push(".releases");
    let folder = PathBuf::from(folder);
    std::fs::create_dir_all(&folder).unwrap();
    let mut releases = Vec::new();
    for (i, path) in files.iter().enumerate() {
        let conn = rusqlite::Connection::open(path).unwrap();
        let meta = |key: &str| -> String {
            conn.query_row("SELECT value FROM metadata WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .unwrap()
        };
        let entries: Vec<(String, String)> = conn
            .prepare("SELECT key, value FROM metadata ORDER BY key")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let mut id = Sha256::new();
        for (key, value) in &entries {
            id.update(format!("{key}\t{value}\n"));
        }
        let id = format!("{:x}", id.finalize());
        let name = meta("release");
        let file = (i + 1 < files.len()).then(|| format!("{name}.{}.sqlite", &id[..16]));
        if let Some(file) = &file {
            std::fs::copy(path, folder.join(file)).unwrap();
        }
        releases.push(json!({
            "name": name,
            "id": id,
            "loaded_at": meta("loaded_at"),
            "file": file,
            "shared": {},
            "hashes": {},
            "row_counts": serde_json::from_str::<Value>(&meta("row_counts")).unwrap(),
            "sources": serde_json::from_str::<Value>(&meta("sources")).unwrap(),
        }));
    }
    let manifest = json!({ "releases": releases });
    std::fs::write(folder.join("releases.json"), manifest.to_string()).unwrap();
}

/// The record a release's listing writes for `query` (which must match one record at most),
/// as its very bytes; `None` when it matches none.
fn record_in(release: &str, path: &str, query: &str) -> Option<String> {
    let target = format!("/releases/{release}/api{path}?{query}");
    let reply = get(server(), &target);
    assert_eq!(reply.status, 200, "{target}: {}", reply.text());
    let text = reply.text();
    let start = text.find("\"data\":[").unwrap() + "\"data\":[".len();
    let end = text.find("],\"first_page_url\"").unwrap();
    let data = &text[start..end];
    assert!(
        !data.contains("},{"),
        "{target} matches more than one record"
    );
    (!data.is_empty()).then(|| data.to_string())
}

/// Every field of a dataset's records but the id: what a record that comes or goes changes.
fn every_field(d: &Dataset) -> Vec<&'static str> {
    (d.stored_columns())
        .filter(|c| c.source != Source::Id)
        .map(|c| c.name)
        .collect()
}

/// One key's revisions as they must be written: its record in each release (from that
/// release's listing, with `query`), and the fields changed since the release before.
fn expected(key: &str, path: &str, query: &str, changed: [Vec<&str>; 3]) -> String {
    let releases: Vec<String> = (NAMES.iter().zip(changed))
        .map(|(name, changed)| {
            let record = record_in(name, path, query).unwrap_or_else(|| "null".into());
            let changed = serde_json::to_string(&changed).unwrap();
            format!("{{\"release\":\"{name}\",\"record\":{record},\"changed\":{changed}}}")
        })
        .collect();
    format!("{{\"key\":{key},\"releases\":[{}]}}", releases.join(","))
}

fn revisions(target: &str) -> Reply {
    let reply = get(server(), target);
    assert_eq!(reply.status, 200, "{target}: {}", reply.text());
    assert_eq!(reply.header("content-type"), Some("application/json"));
    reply
}

#[test]
fn a_revised_figure_shows_its_value_in_every_release_and_what_changed() {
    let (path, query) = (
        AADF.paths[0],
        "filter%5Bcount_point_id%5D=501&filter%5Byear%5D=2019",
    );
    let reply = revisions(&format!("/api{path}/revisions?{query}"));
    let key = r#"{"count_point_id":501,"year":2019}"#;
    let amv = vec!["all_motor_vehicles"];
    let want = expected(key, path, query, [vec![], amv.clone(), amv]);
    assert_eq!(reply.text(), format!("[{want}]"));
    let values: Vec<Value> = (reply.json()[0]["releases"].as_array().unwrap().iter())
        .map(|r| r["record"]["all_motor_vehicles"].clone())
        .collect();
    assert_eq!(values, [json!(52290), json!(62290), json!(72290)]);
    assert_eq!(reply.header("link"), None);
    // Some fields only: the records as the listing writes them with `fields`, compared on those.
    let fields = "fields=year,pedal_cycles,all_motor_vehicles";
    let reply = revisions(&format!("/api{path}/revisions?{query}&{fields}"));
    let want = expected(
        key,
        path,
        &format!("{query}&{fields}"),
        [
            vec![],
            vec!["all_motor_vehicles"],
            vec!["all_motor_vehicles"],
        ],
    );
    assert_eq!(reply.text(), format!("[{want}]"));
    let fields = "fields=year,pedal_cycles";
    let reply = revisions(&format!("/api{path}/revisions?{query}&{fields}"));
    let want = expected(
        key,
        path,
        &format!("{query}&{fields}"),
        [vec![], vec![], vec![]],
    );
    assert_eq!(reply.text(), format!("[{want}]"));
    // A traffic table, at its alias too.
    let query = "filter%5Blocal_authority_id%5D=3&filter%5Byear%5D=2019";
    let own = revisions(&format!("/api/local-authority-traffic/revisions?{query}"));
    let key = r#"{"local_authority_id":3,"year":2019}"#;
    let want = expected(
        key,
        "/local-authority-traffic",
        query,
        [vec![], vec![], vec!["all_motor_vehicles"]],
    );
    assert_eq!(own.text(), format!("[{want}]"));
    let alias = revisions(&format!("/api/traffic/local-authorities/revisions?{query}"));
    assert_eq!(alias.body, own.body);
}

#[test]
fn records_that_come_and_go_are_null_where_absent_and_change_every_field() {
    let r = releases();
    let all = every_field(&COUNT_POINTS);
    // A count point retired by 2024, and one new in it.
    let query = format!("filter%5Bcount_point_id%5D={}", r.retired);
    let reply = revisions(&format!("/api/count-points/revisions?{query}"));
    let key = format!("{{\"count_point_id\":{}}}", r.retired);
    let want = expected(&key, "/count-points", &query, [vec![], all.clone(), vec![]]);
    assert_eq!(reply.text(), format!("[{want}]"));
    assert!(reply.json()[0]["releases"][1]["record"].is_null());
    let query = "filter%5Bcount_point_id%5D=999999";
    let reply = revisions(&format!("/api/count-points/revisions?{query}"));
    let want = expected(
        r#"{"count_point_id":999999}"#,
        "/count-points",
        query,
        [vec![], all, vec![]],
    );
    assert_eq!(reply.text(), format!("[{want}]"));
    // Count point 501's latest AADF year moved to 2025 with it.
    let reply = revisions("/api/count-points/revisions?filter%5Bcount_point_id%5D=501");
    let changed: Vec<Value> = (reply.json()[0]["releases"].as_array().unwrap().iter())
        .map(|r| r["changed"].clone())
        .collect();
    assert_eq!(changed, [json!([]), json!(["aadf_year"]), json!([])]);
    // An AADF year added, and a retired count point's raw counts, by their four-column key.
    let query = "filter%5Bcount_point_id%5D=501&filter%5Byear%5D=2025";
    let reply = revisions(&format!("/api/average-annual-daily-flow/revisions?{query}"));
    let key = r#"{"count_point_id":501,"year":2025}"#;
    let want = expected(
        key,
        AADF.paths[0],
        query,
        [vec![], every_field(&AADF), vec![]],
    );
    assert_eq!(reply.text(), format!("[{want}]"));
    let query = format!("filter%5Bcount_point_id%5D={}&page%5Bsize%5D=3", r.retired);
    let raw = revisions(&format!("/api/raw-counts/revisions?{query}")).json();
    let raw = raw.as_array().unwrap();
    assert_eq!(raw.len(), 3);
    for k in raw {
        let key: Vec<&str> = k["key"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(key, RAW_COUNTS.natural_key);
        let rs = k["releases"].as_array().unwrap();
        assert!(
            rs[0]["record"]["id"].is_i64()
                && rs[1]["record"].is_null()
                && rs[2]["record"].is_null()
        );
        assert_eq!(rs[1]["changed"], json!(every_field(&RAW_COUNTS)));
    }
}

/// Every key of a walk through the pages of `target` (`page[size]` given), by following `Link`.
fn walk(target: &str) -> Vec<Value> {
    let mut keys = Vec::new();
    let mut next = Some(server().url(target));
    let mut pages = 0;
    while let Some(url) = next {
        let path = url.trim_start_matches(&server().url(""));
        let reply = revisions(path);
        let link = reply.header("link").unwrap_or("").to_string();
        assert_eq!(link.contains("rel=\"prev\""), pages > 0, "{link}");
        next = link
            .split(", ")
            .find(|l| l.ends_with("rel=\"next\""))
            .map(|l| l[1..l.find('>').unwrap()].to_string());
        keys.extend(
            reply
                .json()
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k["key"].clone()),
        );
        pages += 1;
    }
    keys
}

#[test]
fn keys_are_paged_in_key_order_over_every_release() {
    // Every count point of any release, once each, in order: the union of the listings'.
    let mut ids: Vec<i64> = Vec::new();
    for name in NAMES {
        let page = get(
            server(),
            &format!("/releases/{name}/api/count-points?page%5Bsize%5D=1000"),
        )
        .json();
        ids.extend(
            page["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["count_point_id"].as_i64().unwrap()),
        );
    }
    ids.sort_unstable();
    ids.dedup();
    let keys = walk("/api/count-points/revisions?page%5Bsize%5D=4");
    let walked: Vec<i64> = keys
        .iter()
        .map(|k| k["count_point_id"].as_i64().unwrap())
        .collect();
    assert_eq!(walked, ids);
    // The filters apply in each release: 501's AADF years, 2025 (of 2024 and 2025) among them.
    let keys = walk(
        "/api/average-annual-daily-flow/revisions?filter%5Bcount_point_id%5D=501&page%5Bsize%5D=2",
    );
    let years: Vec<i64> = keys.iter().map(|k| k["year"].as_i64().unwrap()).collect();
    let listed = get(
        server(),
        "/releases/2023/api/average-annual-daily-flow?filter%5Bcount_point_id%5D=501",
    )
    .json();
    let mut want: Vec<i64> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["year"].as_i64().unwrap())
        .collect();
    want.push(2025);
    assert_eq!(years, want);
    // Raw counts by their four-column key (read run by run, each count day sorted by hour and
    // direction): every hour of every release once, in key order.
    let mut want: Vec<Value> = Vec::new();
    for name in NAMES {
        let page = get(
            server(),
            &format!("/releases/{name}/api/raw-counts?page%5Bsize%5D=5000"),
        )
        .json();
        want.extend(page["data"].as_array().unwrap().iter().map(|r| {
            json!([
                r["count_point_id"],
                r["count_date"],
                r["hour"],
                r["direction_of_travel"]
            ])
        }));
    }
    let text = |v: &Value| v.to_string();
    want.sort_by(|a, b| {
        let (a, b) = (a.as_array().unwrap(), b.as_array().unwrap());
        (a[0].as_i64().cmp(&b[0].as_i64()))
            .then(text(&a[1]).cmp(&text(&b[1])))
            .then(a[2].as_i64().cmp(&b[2].as_i64()))
            .then(text(&a[3]).cmp(&text(&b[3])))
    });
    want.dedup();
    let walked: Vec<Value> = walk("/api/raw-counts/revisions?page%5Bsize%5D=50&fields=id")
        .iter()
        .map(|k| {
            json!([
                k["count_point_id"],
                k["count_date"],
                k["hour"],
                k["direction_of_travel"]
            ])
        })
        .collect();
    assert_eq!(walked.len(), want.len());
    assert_eq!(walked, want);
    // Past the last page: nothing, and the way back.
    let past = revisions("/api/count-points/revisions?page%5Bsize%5D=4&page%5Bnumber%5D=99");
    assert_eq!(past.json(), json!([]));
    assert!(past
        .header("link")
        .unwrap()
        .ends_with("page%5Bnumber%5D=98>; rel=\"prev\""));
}

#[test]
fn bad_parameters_are_the_listings_400s() {
    for query in [
        "filter%5Bnope%5D=1",
        "filter%5Byear%5D=abc",
        "fields=nope",
        "page%5Bsize%5D=0",
        "page%5Bnumber%5D=x",
        "filter=3",
    ] {
        let listing = get(server(), &format!("/api/average-annual-daily-flow?{query}"));
        let reply = get(
            server(),
            &format!("/api/average-annual-daily-flow/revisions?{query}"),
        );
        assert_eq!((reply.status, listing.status), (400, 400), "{query}");
        assert_eq!(reply.body, listing.body, "{query}");
    }
    // The listing takes the last of repeated page parameters and ignores an empty one, as PHP
    // does; revisions, whose description says an integer, refuse both.
    for query in [
        "page%5Bsize%5D=2&page%5Bsize%5D=",
        "page[size]=",
        "page%5Bnumber%5D=1&page[number]=2",
    ] {
        let reply = get(
            server(),
            &format!(
                "/api/count-points/revisions?{}",
                query.replace('[', "%5B").replace(']', "%5D")
            ),
        );
        assert_eq!(reply.status, 400, "{query}");
        assert!(reply.text().contains("must be given once"), "{query}");
    }
    for path in [
        "/api/regions/revisions",
        "/api/count-points.csv/revisions",
        "/api/count-points/revisions/1",
    ] {
        assert_eq!(get(server(), path).status, 404, "{path}");
    }
    assert_eq!(
        request(server(), "POST", "/api/count-points/revisions", &[]).status,
        405
    );
}

#[test]
fn revisions_span_every_release_wherever_asked_and_are_revalidated() {
    let target =
        "/average-annual-daily-flow/revisions?filter%5Bcount_point_id%5D=501&page%5Bsize%5D=2";
    let latest = revisions(&format!("/api{target}"));
    let named = revisions(&format!("/releases/2023/api{target}"));
    assert_eq!(named.body, latest.body);
    assert!(named
        .header("link")
        .unwrap()
        .contains("/releases/2023/api/average-annual-daily-flow/revisions?"));
    // Not immutable: the next release kept adds to every answer.
    assert_ne!(
        named.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    let etag = latest.header("etag").unwrap();
    let again = request(
        server(),
        "GET",
        &format!("/api{target}"),
        &[("if-none-match", etag)],
    );
    assert_eq!(again.status, 304);
    assert_eq!(
        get(server(), &format!("/releases/1999/api{target}")).status,
        404
    );
    // A mirror that keeps no release by name answers with its one release, as `latest`.
    let one = get(
        sample_server(),
        "/api/count-points/revisions?filter%5Bcount_point_id%5D=501",
    )
    .json();
    assert_eq!(one[0]["releases"][0]["release"], "latest");
    assert_eq!(one[0]["releases"].as_array().unwrap().len(), 1);
}

#[test]
fn revisions_over_the_time_limit_get_503() {
    // A limit of 0: 10,000 SQLite instructions on each release's connection, on any machine. A
    // page of 5,000 keys runs some 31,000 to 33,000 on each; the regions, 25.
    let server = serve(
        &releases().db,
        &["--query-timeout", "0", "--connections", "1"],
    );
    let slow = get(&server, "/api/raw-counts/revisions?page%5Bsize%5D=5000");
    assert_eq!(slow.status, 503, "{}", slow.text());
    assert!(slow.header("retry-after").is_some());
    assert_eq!(get(&server, "/api/regions").status, 200);
}

/// `roadtraffic-load diff OLD NEW --report-json`'s report.
fn diff(old: &Path, new: &Path) -> Value {
    let out_json = scratch_dir().join("diff.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_roadtraffic-load"))
        .args(["diff", old.to_str().unwrap(), new.to_str().unwrap()])
        .args(["--report-json", out_json.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&std::fs::read(&out_json).unwrap()).unwrap()
}

#[test]
fn any_two_kept_releases_are_compared_as_the_loader_compares_them() {
    let r = releases();
    let immutable = Some("public, max-age=31536000, immutable");
    for (new, since, old) in [
        (2, "", 1),
        (2, "?since=2024", 1),
        (2, "?since=2023", 0),
        (1, "", 0),
    ] {
        let target = format!("/releases/{}/changes{since}", NAMES[new]);
        let reply = get(server(), &target);
        assert_eq!(reply.status, 200, "{target}: {}", reply.text());
        assert_eq!(reply.json(), diff(&r.alone[old], &r.alone[new]), "{target}");
        assert_eq!(reply.header("cache-control"), immutable, "{target}");
        // Made once: asked again (HEAD too), the same bytes at once.
        let head = request(server(), "HEAD", &target, &[]);
        assert_eq!(
            (head.status, head.header("etag")),
            (200, reply.header("etag"))
        );
        assert_eq!(get(server(), &target).body, reply.body);
    }
    // The latest at its own path: since the release before it, or any older one.
    let latest = get(server(), "/api/releases/latest/changes");
    assert_eq!(latest.json(), diff(&r.alone[1], &r.alone[2]));
    assert_ne!(latest.header("cache-control"), immutable);
    let since = get(server(), "/api/releases/latest/changes?since=2023");
    assert_eq!(since.json(), diff(&r.alone[0], &r.alone[2]));
    assert_ne!(since.header("etag"), latest.header("etag"));
    // The oldest has none before it; `since` must name an older kept release.
    let oldest = get(server(), "/releases/2023/changes");
    assert_eq!(oldest.status, 404);
    assert!(oldest.json()["message"]
        .as_str()
        .unwrap()
        .contains("no release is kept before"));
    for (target, allowed) in [
        ("/releases/2024/changes?since=2025", "those kept are: 2023"),
        ("/releases/2024/changes?since=2024", "those kept are: 2023"),
        (
            "/releases/2025/changes?since=1999",
            "those kept are: 2023, 2024",
        ),
        ("/releases/2023/changes?since=2024", "none is"),
        (
            "/api/releases/latest/changes?since%5Ba%5D=1",
            "name of a kept release",
        ),
    ] {
        let reply = get(server(), target);
        assert_eq!(reply.status, 400, "{target}");
        assert!(
            reply.json()["message"].as_str().unwrap().contains(allowed),
            "{target}: {}",
            reply.text()
        );
    }
}

#[test]
fn the_description_covers_releases_revisions_and_changes_since() {
    let doc = get(server(), "/api/openapi.json").json();
    let paths = doc["paths"].as_object().unwrap();
    for d in roadtraffic_catalog::DATASETS {
        for path in d.paths {
            let revisions = format!("/api{path}/revisions");
            assert_eq!(paths.contains_key(&revisions), d.paginated, "{revisions}");
        }
    }
    assert!(paths.contains_key("/releases"));
    let since = &paths["/api/releases/latest/changes"]["get"]["parameters"][0];
    assert_eq!(since["name"], "since");
    assert_eq!(since["schema"]["enum"], json!(["", "2023", "2024"]));
    let named = &doc["servers"][1];
    assert_eq!(named["url"], server().url("/releases/{release}"));
    assert_eq!(named["variables"]["release"]["default"], "latest");
    // Valid OpenAPI, and true to what the server does with three releases kept.
    if let Some(validator) = tool("openapi-spec-validator") {
        let path = scratch_dir().join("openapi.json");
        std::fs::write(&path, get(server(), "/api/openapi.json").body).unwrap();
        let out = std::process::Command::new(validator)
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    // Its text is the sample's but the kept releases offered as `since`, so the coverage phase
    // would repeat the sample's run (`description::the_fuzzer_finds_nothing_on_the_sample`);
    // the other phases draw from these releases and their data.
    let mut three: Value =
        serde_json::from_str(&description_text(server(), "/api/openapi.json")).unwrap();
    let one: Value =
        serde_json::from_str(&description_text(sample_server(), "/api/openapi.json")).unwrap();
    let since = "/paths/~1api~1releases~1latest~1changes/get/parameters/0/schema/enum";
    *three.pointer_mut(since).unwrap() = one.pointer(since).unwrap().clone();
    assert_eq!(three, one, "coverage drawn from another text");
    let url = server().url("/api/openapi.json");
    let config = format!("{UNDESCRIBABLE_RULES}{NO_COVERAGE_PHASE}");
    fuzz_description(&url, "25", &config, &[]);
}

#[test]
fn the_docs_page_shows_revisions_that_return_rows() {
    for server in [server(), sample_server()] {
        let html = get(server, "/docs").text();
        assert!(html.contains("/releases/{new}/changes?since={old}"));
        let examples: Vec<String> = html
            .split("in every kept release (returns rows of this file): <a href=\"")
            .skip(1)
            .map(|s| s[..s.find('"').unwrap()].replace("&amp;", "&"))
            .collect();
        let revised = roadtraffic_catalog::DATASETS.iter().filter(|d| d.paginated);
        assert_eq!(examples.len(), revised.count());
        for example in examples {
            let keys = revisions_of(server, &example);
            assert_eq!(keys.as_array().unwrap().len(), 1, "{example}: {keys}");
            assert!(keys[0]["releases"][0]["record"].is_object(), "{example}");
        }
    }
}

fn revisions_of(server: &TestServer, target: &str) -> Value {
    let reply = get(server, target);
    assert_eq!(reply.status, 200, "{target}: {}", reply.text());
    reply.json()
}
