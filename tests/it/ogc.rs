//! OGC API - Features under `/ogcapi` (issue 23): the documents' shapes, the definition valid
//! and true, paging to the end with the JSON API's totals, `bbox` in both CRSs, `crs`,
//! `datetime`, and the errors, each checked against SQLite's own answer over the loaded rows
//! (on the bundled sample, and on the real files when they are there). The real clients
//! (GDAL, OWSLib, QGIS) are in `ogc/clients.rs`; what issue 34 completes (six-number boxes,
//! numbers, one answer a question, the map) in `ogc/features.rs`, and every kept release's
//! service in `ogc/releases.rs`; Part 3 (queryables, CQL2 filters, sortby, properties) in
//! `ogc/filters.rs`.

mod areas;
mod clients;
mod features;
mod filters;
mod releases;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

use roadtraffic_catalog::places::Places;
use roadtraffic_catalog::DATASETS;

use crate::support::*;

const CRS84: &str = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";
const BNG: &str = "http://www.opengis.net/def/crs/EPSG/0/27700";
const BNG_ENCODED: &str = "http%3A%2F%2Fwww.opengis.net%2Fdef%2Fcrs%2FEPSG%2F0%2F27700";

/// The collections: each dataset with places, by its first API path.
fn collections() -> Vec<(&'static str, Places)> {
    DATASETS
        .iter()
        .filter_map(|d| Places::of(d))
        .map(|p| (p.dataset.paths[0].trim_start_matches('/'), p))
        .collect()
}

/// The servers the checks run on: the sample, and the real files when they are there.
fn servers() -> Vec<(&'static TestServer, &'static Path)> {
    static REAL: OnceLock<Option<TestServer>> = OnceLock::new();
    let mut out = vec![(sample_server(), sample_db())];
    let real = REAL.get_or_init(|| real_db().map(|db| serve(db, &[])));
    if let (Some(server), Some(db)) = (real.as_ref(), real_db()) {
        out.push((server, db));
    }
    out
}

/// A 200 JSON document at `target` (a path, or one of the server's own absolute URLs).
fn document(server: &TestServer, target: &str) -> Value {
    let target = target.strip_prefix(&server.url("")).unwrap_or(target);
    let reply = get(server, target);
    assert_eq!(reply.status, 200, "{target}: {}", reply.text());
    reply.json()
}

fn ids(features: &Value) -> Vec<i64> {
    let features = features["features"].as_array().expect("features");
    features.iter().map(|f| f["id"].as_i64().unwrap()).collect()
}

/// Two lists of ids alike, or a short message on how they differ (not both lists whole).
#[track_caller]
fn assert_ids(got: &[i64], expected: &[i64], context: &str) {
    if got == expected {
        return;
    }
    let (got_set, expected_set): (BTreeSet<_>, BTreeSet<_>) =
        (got.iter().collect(), expected.iter().collect());
    let extra: Vec<_> = got_set.difference(&expected_set).take(10).collect();
    let lacking: Vec<_> = expected_set.difference(&got_set).take(10).collect();
    panic!(
        "{context}: {} ids, {} expected; extra {extra:?}, lacking {lacking:?}",
        got.len(),
        expected.len()
    );
}

fn link<'v>(doc: &'v Value, rel: &str) -> Option<&'v Value> {
    doc["links"].as_array()?.iter().find(|l| l["rel"] == rel)
}

/// Ids by a query over the loaded file, in id order.
fn sql_ids(db: &Path, sql: &str) -> Vec<i64> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    let rows = stmt.query_map([], |r| r.get(0)).unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

/// Where a dataset's rows keep their coordinates, as a FROM clause whose rows are `r` and
/// whose coordinate columns are `p.`: the runs, for raw counts.
fn located(places: &Places) -> String {
    let table = places.dataset.table;
    match places.in_runs {
        true => format!(
            "{table} r JOIN {} p ON r.id BETWEEN p.first_id AND p.last_id",
            places.dataset.runs_table().unwrap()
        ),
        false => format!("{table} r JOIN {table} p ON p.id = r.id"),
    }
}

/// Every feature from `first` on, following `next` links to the end: the ids in order, and
/// each page's `numberMatched`.
fn every_page(server: &TestServer, first: &str) -> (Vec<i64>, Vec<i64>) {
    let (mut all, mut matched) = (Vec::new(), Vec::new());
    let mut target = Some(first.to_string());
    while let Some(url) = target {
        let page = document(server, &url);
        let page_ids = ids(&page);
        assert_eq!(page["numberReturned"], page_ids.len(), "{url}");
        assert_eq!(page["type"], "FeatureCollection");
        // None: one question is one answer, and a time stamp is the time of the answer.
        assert!(page.get("timeStamp").is_none(), "{url}");
        matched.push(page["numberMatched"].as_i64().unwrap());
        all.extend(page_ids);
        target = link(&page, "next").map(|l| l["href"].as_str().unwrap().to_string());
        assert!(all.len() < 100_000, "the next links go round");
    }
    (all, matched)
}

#[test]
fn the_landing_page_links_the_definition_the_conformance_and_the_collections() {
    let server = sample_server();
    for path in ["/ogcapi", "/ogcapi/"] {
        let landing = document(server, path);
        assert!(landing["title"].as_str().unwrap().contains("Road traffic"));
        for (rel, media, to) in [
            ("self", "application/json", "/ogcapi"),
            (
                "service-desc",
                "application/vnd.oai.openapi+json;version=3.0",
                "/ogcapi/api",
            ),
            ("service-doc", "text/html", "/docs#ogcapi"),
            ("conformance", "application/json", "/ogcapi/conformance"),
            ("data", "application/json", "/ogcapi/collections"),
        ] {
            let l = link(&landing, rel).unwrap_or_else(|| panic!("no {rel} link"));
            assert_eq!(l["type"], media, "{rel}");
            assert_eq!(l["href"], server.url(to), "{rel}");
            let reply = get(server, to.split('#').next().unwrap());
            assert_eq!(reply.status, 200, "{rel}");
            assert!(
                reply.header("content-type").unwrap().starts_with(media),
                "{rel}"
            );
        }
    }
    // The service-doc: the docs page's section, with GDAL's command and QGIS's steps.
    let docs = get(server, "/docs").text();
    let section = &docs[docs
        .find("<section id=\"ogcapi\">")
        .expect("an ogcapi section")..];
    // At the address the server was told to bind (port 0 here), or its --public-url.
    assert!(
        section.contains("ogrinfo OAPIF:http://127.0.0.1:0/ogcapi"),
        "{section}"
    );
    assert!(section.contains("Add WFS / OGC API - Features Layer"));
    let conformance = document(server, "/ogcapi/conformance");
    let classes: BTreeSet<&str> = conformance["conformsTo"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let part1 = "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf";
    let part3 = "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf";
    let cql2 = "http://www.opengis.net/spec/cql2/1.0/conf";
    let cql2_classes = [
        "cql2-text",
        "cql2-json",
        "basic-cql2",
        "advanced-comparison-operators",
        "case-insensitive-comparison",
        "basic-spatial-functions",
        "basic-spatial-functions-plus",
        "spatial-functions",
        "property-property",
        "arithmetic",
    ];
    let expected: BTreeSet<String> = ["core", "geojson", "html", "oas30"]
        .iter()
        .map(|c| format!("{part1}/{c}"))
        .chain(["http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs".into()])
        .chain(
            [
                "queryables",
                "queryables-query-parameters",
                "filter",
                "features-filter",
            ]
            .iter()
            .map(|c| format!("{part3}/{c}")),
        )
        .chain(cql2_classes.iter().map(|c| format!("{cql2}/{c}")))
        .collect();
    assert_eq!(
        classes,
        expected.iter().map(String::as_str).collect::<BTreeSet<_>>()
    );
}

/// Every resource as a page too (Part 1's HTML class): with `f=html`, or for a browser's
/// `Accept`; each page shows every link of the JSON form as an `<a>`, the features' page a
/// row per feature and a form that asks for them.
#[test]
fn every_resource_is_also_a_page_with_every_link() {
    let server = sample_server();
    let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    for path in [
        "/ogcapi",
        "/ogcapi/conformance",
        "/ogcapi/api",
        "/ogcapi/collections",
        "/ogcapi/collections/count-points",
        "/ogcapi/collections/count-points/items?limit=5&road_name=M4",
        "/ogcapi/collections/count-points/items/501",
    ] {
        let sep = if path.contains('?') { '&' } else { '?' };
        let asked = get(server, &format!("{path}{sep}f=html"));
        let by_accept = request(server, "GET", path, &[("accept", browser)]);
        for reply in [&asked, &by_accept] {
            assert_eq!(reply.status, 200, "{path}: {}", reply.text());
            assert_eq!(
                reply.header("content-type"),
                Some("text/html; charset=utf-8"),
                "{path}"
            );
        }
        // The JSON form's links, each an <a> in the page (its self and alternate swapped).
        let json = get(server, path);
        let page = asked.text();
        for l in json.json()["links"].as_array().into_iter().flatten() {
            let href = l["href"].as_str().unwrap().replace('&', "&amp;");
            let href = href.replace("?f=json", "").replace("&amp;f=json", "");
            assert!(
                page.contains(&format!("<a href=\"{href}")),
                "{path}: {href}"
            );
        }
    }
    let target = format!("/ogcapi/collections/raw-counts/items?limit=7&f=html&crs={BNG_ENCODED}");
    let reply = get(server, &target);
    assert_eq!(
        reply.header("content-crs"),
        Some(format!("<{BNG}>").as_str())
    );
    let page = reply.text();
    assert_eq!(
        page.matches("<tr>").count(),
        1 + 7,
        "a header and a row per feature"
    );
    assert!(page.contains("<form method=\"get\">") && page.contains("name=\"road_name\""));
    assert!(page.contains("rel=\"next\""));
}

#[test]
fn the_collections_are_the_datasets_with_places_and_their_extents_hold_every_row() {
    for (server, db) in servers() {
        let all = document(server, "/ogcapi/collections");
        let listed: Vec<&str> = all["collections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        let expected: Vec<&str> = collections().iter().map(|(id, _)| *id).collect();
        assert_eq!(listed, expected);
        assert!(link(&all, "self").is_some());
        let conn = rusqlite::Connection::open(db).unwrap();
        for (id, places) in collections() {
            let c = document(server, &format!("/ogcapi/collections/{id}"));
            assert_eq!(
                c,
                all["collections"][listed.iter().position(|l| *l == id).unwrap()]
            );
            assert_eq!(c["itemType"], "feature");
            assert_eq!(c["crs"], serde_json::json!([CRS84, BNG]));
            assert_eq!(c["storageCrs"], BNG);
            let items = link(&c, "items").unwrap();
            assert_eq!(items["type"], "application/geo+json");
            assert_eq!(
                items["href"],
                server.url(&format!("/ogcapi/collections/{id}/items"))
            );
            let sql = format!(
                "SELECT min(CAST(p.longitude AS REAL)), min(CAST(p.latitude AS REAL)), \
                 max(CAST(p.longitude AS REAL)), max(CAST(p.latitude AS REAL)) FROM {}",
                located(&places)
            );
            let rows: [Option<f64>; 4] = conn
                .query_row(&sql, [], |r| {
                    Ok([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?])
                })
                .unwrap();
            let Some(bbox) = c["extent"]["spatial"]["bbox"][0].as_array() else {
                assert!(rows[0].is_none(), "{id}: rows but no extent");
                continue;
            };
            assert_eq!(c["extent"]["spatial"]["crs"], CRS84);
            let bbox: Vec<f64> = bbox.iter().map(|v| v.as_f64().unwrap()).collect();
            let rows = rows.map(Option::unwrap);
            // It holds every row; wider only by the 32-bit rounding of the index, or where
            // another dataset puts one of its count points elsewhere.
            for i in 0..2 {
                let (low, high) = (rows[i] - bbox[i], bbox[i + 2] - rows[i + 2]);
                assert!((0.0..0.05).contains(&low), "{id}: {bbox:?} {rows:?}");
                assert!((0.0..0.05).contains(&high), "{id}: {bbox:?} {rows:?}");
            }
            let interval = &c["extent"]["temporal"]["interval"][0];
            let year_column = if id == "count-points" {
                "aadf_year"
            } else {
                "year"
            };
            let table = places.dataset.table;
            let source = match table {
                "raw_counts" => "raw_counts_runs".to_string(),
                _ => table.to_string(),
            };
            let (first, last): (i64, i64) = conn
                .query_row(
                    &format!("SELECT min({year_column}), max({year_column}) FROM {source}"),
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .unwrap();
            let (start, end) = (interval[0].as_str().unwrap(), interval[1].as_str().unwrap());
            assert!(
                start.starts_with(&first.to_string()),
                "{id}: {start} {first}"
            );
            assert!(end.starts_with(&last.to_string()), "{id}: {end} {last}");
        }
    }
}

#[test]
fn the_definition_is_valid_openapi_3_0_and_lists_each_collections_filters() {
    let server = sample_server();
    let reply = get(server, "/ogcapi/api");
    assert_eq!(
        reply.header("content-type"),
        Some("application/vnd.oai.openapi+json;version=3.0")
    );
    let doc = reply.json();
    assert_eq!(doc["openapi"], "3.0.3");
    assert_eq!(doc["servers"][0]["url"], server.url("/ogcapi"));
    for (id, places) in collections() {
        let items = &doc["paths"][format!("/collections/{id}/items")]["get"];
        let names: Vec<&str> = items["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["name"].as_str())
            .collect();
        for f in places.dataset.filters {
            assert!(names.contains(f), "{id}: {f}");
        }
        assert!(doc["paths"][format!("/collections/{id}/items/{{featureId}}")].is_object());
    }
    let Some(validator) = tool("openapi-spec-validator") else {
        return;
    };
    let path = scratch_dir().join("ogcapi.json");
    std::fs::write(&path, &reply.body).unwrap();
    let out = Command::new(validator).arg(&path).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Schemathesis on the definition: no 5xx, every status, media type, header and body as the
/// definition says. Two of its checks are left out, each for the standard's sake: a `limit`
/// above the maximum must be answered, not refused (Part 1, `/req/core/fc-limit-response-1`
/// C), which `negative_data_rejection` counts as a failure; and what makes a `bbox` or a
/// `datetime` valid (each axis within its CRS's range, a real calendar day) is more than an
/// OpenAPI 3.0 schema says, so `positive_data_acceptance` takes a refused 31st of February
/// for a failure. The real files' definition is the sample's (but its address), so the
/// coverage phase, drawn from the definition alone, runs on the sample's only.
#[test]
fn the_fuzzer_finds_nothing_untrue_in_the_definition() {
    let exclude = ["negative_data_rejection", "positive_data_acceptance"];
    let definition = description_text(sample_server(), "/ogcapi/api");
    for (server, _) in servers() {
        let coverage = if std::ptr::eq(server, sample_server()) {
            ""
        } else {
            let text = description_text(server, "/ogcapi/api");
            assert_eq!(text, definition, "coverage drawn from another text");
            NO_COVERAGE_PHASE
        };
        fuzz_description(&server.url("/ogcapi/api"), "9", coverage, &exclude);
    }
}

#[test]
fn next_links_reach_the_last_feature_with_the_json_apis_total() {
    for (server, db) in servers() {
        for (id, places) in collections() {
            let d = places.dataset;
            let all = sql_ids(db, &format!("SELECT id FROM {} ORDER BY id", d.table));
            let limit = (all.len() / 4).clamp(1, 1000);
            let (paged, matched) = every_page(
                server,
                &format!("/ogcapi/collections/{id}/items?limit={limit}"),
            );
            assert_ids(&paged, &all, id);
            let api = document(server, &format!("/api{}?page%5Bsize%5D=1", d.paths[0]));
            assert!(
                matched.iter().all(|m| *m == api["total"]),
                "{id}: {matched:?}"
            );
            // Any offset, on a page boundary or not, and past the end.
            let n = all.len() as i64;
            for (offset, size) in [(3, 7), ((n - 2).max(0), 5), (n + 5, 5)] {
                let page = document(
                    server,
                    &format!("/ogcapi/collections/{id}/items?offset={offset}&limit={size}"),
                );
                let from = (offset.max(0) as usize).min(all.len());
                let to = (from + size as usize).min(all.len());
                assert_ids(
                    &ids(&page),
                    &all[from..to],
                    &format!("{id} {offset} {size}"),
                );
                assert_eq!(link(&page, "prev").is_some(), offset > 0, "{id}");
            }
        }
    }
    // A filtered set, through its next links: the filter carried, the pager's checkpoints used.
    for (server, db) in servers() {
        let road: String = rusqlite::Connection::open(db)
            .unwrap()
            .query_row(
                "SELECT road_name FROM count_points GROUP BY road_name ORDER BY count(*) DESC",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let expected = sql_ids(
            db,
            &format!(
                "SELECT id FROM count_points WHERE road_name = '{road}' COLLATE NOCASE ORDER BY id"
            ),
        );
        let (paged, matched) = every_page(
            server,
            &format!("/ogcapi/collections/count-points/items?road_name={road}&limit=3"),
        );
        assert_ids(&paged, &expected, &road);
        assert_eq!(matched[0], expected.len() as i64);
    }
}

/// The features in a box: every row whose own coordinates are in it, as SQLite finds them
/// with a plain scan (no index), in WGS 84 and on the grid.
#[test]
fn bbox_in_either_crs_finds_the_rows_sqlite_finds() {
    for (server, db) in servers() {
        for (id, places) in collections() {
            let boxes = [
                (
                    CRS84,
                    "-3.2,51.4,-2.9,51.7",
                    ["CAST(p.longitude AS REAL)", "CAST(p.latitude AS REAL)"],
                ),
                (
                    CRS84,
                    "-6,50,2,56",
                    ["CAST(p.longitude AS REAL)", "CAST(p.latitude AS REAL)"],
                ),
                (
                    BNG,
                    "300000,150000,400000,250000",
                    ["p.easting", "p.northing"],
                ),
                (
                    BNG,
                    "500000,100000,560000,200000",
                    ["p.easting", "p.northing"],
                ),
            ];
            for (crs, bbox, [x, y]) in boxes {
                let n: Vec<f64> = bbox.split(',').map(|v| v.parse().unwrap()).collect();
                let expected = sql_ids(
                    db,
                    &format!(
                        "SELECT r.id FROM {} WHERE {x} BETWEEN {} AND {} AND {y} BETWEEN {} AND {} \
                         ORDER BY r.id",
                        located(&places),
                        n[0],
                        n[2],
                        n[1],
                        n[3]
                    ),
                );
                let target = format!(
                    "/ogcapi/collections/{id}/items?bbox={bbox}&bbox-crs={}&limit=10000",
                    crs.replace(':', "%3A").replace('/', "%2F")
                );
                let (got, matched) = every_page(server, &target);
                assert_ids(&got, &expected, &format!("{id} {crs} {bbox}"));
                assert_eq!(matched[0], expected.len() as i64, "{id} {bbox}");
            }
            // Outside Great Britain: nothing, not an error. Across the antimeridian, from
            // 170 east round to 10 east: all of it.
            let none = document(
                server,
                &format!("/ogcapi/collections/{id}/items?bbox=10,40,11,41"),
            );
            assert_eq!(none["numberMatched"], 0);
            let with_places = sql_ids(
                db,
                &format!(
                    "SELECT r.id FROM {} WHERE CAST(p.latitude AS REAL) BETWEEN 40 AND 70 \
                     AND p.longitude <> '' ORDER BY r.id",
                    located(&places)
                ),
            );
            let (wrapped, _) = every_page(
                server,
                &format!("/ogcapi/collections/{id}/items?bbox=170,40,10,70&limit=10000"),
            );
            assert_ids(&wrapped, &with_places, id);
        }
    }
}

#[test]
fn crs_27700_gives_the_rows_own_easting_and_northing() {
    for (server, db) in servers() {
        let conn = rusqlite::Connection::open(db).unwrap();
        for (id, places) in collections() {
            let page = document(
                server,
                &format!("/ogcapi/collections/{id}/items?crs={BNG_ENCODED}&limit=500&offset=1"),
            );
            let mut stmt = conn
                .prepare(&format!(
                    "SELECT p.easting, p.northing FROM {} WHERE r.id = ?1",
                    located(&places)
                ))
                .unwrap();
            for f in page["features"].as_array().unwrap() {
                let row: (Option<i64>, Option<i64>) = stmt
                    .query_row([f["id"].as_i64().unwrap()], |r| Ok((r.get(0)?, r.get(1)?)))
                    .unwrap();
                let coordinates = &f["geometry"]["coordinates"];
                match row {
                    (Some(e), Some(n)) => {
                        assert_eq!(coordinates[0].as_f64(), Some(e as f64), "{id}");
                        assert_eq!(coordinates[1].as_f64(), Some(n as f64), "{id}");
                    }
                    _ => assert!(f["geometry"].is_null(), "{id}"),
                }
            }
            let reply = get(
                server,
                &format!("/ogcapi/collections/{id}/items?crs={BNG_ENCODED}&limit=1"),
            );
            assert_eq!(
                reply.header("content-crs"),
                Some(format!("<{BNG}>").as_str())
            );
            let reply = get(server, &format!("/ogcapi/collections/{id}/items?limit=1"));
            assert_eq!(
                reply.header("content-crs"),
                Some(format!("<{CRS84}>").as_str())
            );
            // One feature, by its id, in either CRS, with the same coordinates as in the list.
            let first = &page["features"][0];
            if first.is_null() {
                continue;
            }
            let fid = first["id"].as_i64().unwrap();
            let one = get(
                server,
                &format!("/ogcapi/collections/{id}/items/{fid}?crs={BNG_ENCODED}"),
            );
            assert_eq!(one.status, 200);
            assert_eq!(one.header("content-type"), Some("application/geo+json"));
            assert_eq!(one.header("content-crs"), Some(format!("<{BNG}>").as_str()));
            let one = one.json();
            assert_eq!(one["id"], fid);
            assert_eq!(one["geometry"], first["geometry"]);
            assert_eq!(one["properties"], first["properties"]);
            for rel in ["self", "collection"] {
                assert!(link(&one, rel).is_some(), "{rel}");
            }
        }
    }
}

/// `datetime` against each record's time, computed here from the rows: a year shares an
/// instant with the span when it is between the years of its ends; a count hour
/// (`count_date` Thh:00 to the next hour) when it starts no later than the span's end and
/// ends after its start.
#[test]
fn datetime_instants_intervals_and_open_ends() {
    let spans = [
        "2023-10-23T10:30:00Z",
        "2023-10-23T11:30:00+01:00",
        "2023-10-23T10:00:00Z/2023-10-23T12:00:00Z",
        "2021-01-01T00:00:00Z/..",
        "../2020-12-31T23:59:59Z",
        "/2019-06-01T00:00:00Z",
        "2022-07-01T00:00:00Z/",
        "2019-05-01T00:00:00Z/2022-02-01T00:00:00Z",
        "2023-10-23",
    ];
    for (server, db) in servers() {
        for span in spans {
            let (start, end) = utc_bounds(span);
            for (id, places) in collections() {
                let d = places.dataset;
                let expected = match d.table {
                    "raw_counts" => sql_ids(
                        db,
                        &format!(
                            "SELECT r.id FROM {} WHERE p.count_date || 'T' || printf('%02d', r.hour) \
                             || ':00:00Z' <= '{end}' AND p.count_date || 'T' || printf('%02d', \
                             r.hour + 1) || ':00:00Z' > '{start}' ORDER BY r.id",
                            located(&places)
                        ),
                    ),
                    _ => {
                        let year = if d.table == "count_points" { "aadf_year" } else { "year" };
                        sql_ids(
                            db,
                            &format!(
                                "SELECT id FROM {} WHERE ({year} BETWEEN {} AND {}) OR {year} IS NULL \
                                 ORDER BY id",
                                d.table,
                                &start[..4],
                                &end[..4]
                            ),
                        )
                    }
                };
                let target = format!(
                    "/ogcapi/collections/{id}/items?datetime={}&limit=10000",
                    span.replace(':', "%3A")
                        .replace('+', "%2B")
                        .replace('/', "%2F")
                );
                let (got, _) = every_page(server, &target);
                assert_ids(&got, &expected, &format!("{id} {span}"));
            }
        }
    }
}

/// A span's ends as UTC text, comparable with `YYYY-MM-DDThh:mm:ssZ` (open ends far away).
fn utc_bounds(span: &str) -> (String, String) {
    let instant = |t: &str, end: bool| -> String {
        match t {
            "" | ".." if end => "9999-12-31T23:59:59Z".into(),
            "" | ".." => "0000-01-01T00:00:00Z".into(),
            t if t.len() == 10 && end => format!("{t}T23:59:59Z"),
            t if t.len() == 10 => format!("{t}T00:00:00Z"),
            "2023-10-23T11:30:00+01:00" => "2023-10-23T10:30:00Z".into(),
            t => t.into(),
        }
    };
    match span.split_once('/') {
        Some((a, b)) => (instant(a, false), instant(b, true)),
        None => (instant(span, false), instant(span, true)),
    }
}

fn assert_refused(server: &TestServer, target: &str, status: u16, needle: &str) {
    let reply = get(server, target);
    assert_eq!(reply.status, status, "{target}: {}", reply.text());
    assert_eq!(
        reply.header("content-type"),
        Some("application/json"),
        "{target}"
    );
    let message = reply.json()["message"].as_str().unwrap().to_string();
    assert!(message.contains(needle), "{target}: {message}");
}

#[test]
fn bad_parameters_are_400s_that_say_which_and_unknown_things_404s() {
    let server = sample_server();
    let items = "/ogcapi/collections/count-points/items";
    for (query, needle) in [
        ("bbox=-2,52,x,-1,53,100", "minZ `x`"),
        ("bbox=-2,52,-1", "4 comma-separated"),
        ("bbox=a,52,-1,53", "minX `a`"),
        ("bbox=-2,53,-1,52", "latitude"),
        ("bbox=-2,52,-1,95", "latitude"),
        (
            "bbox=-2,52,-1,53&bbox-crs=EPSG%3A27700",
            "bbox-crs `EPSG:27700`",
        ),
        (
            "crs=http%3A%2F%2Fwww.opengis.net%2Fdef%2Fcrs%2FEPSG%2F0%2F4326",
            "crs `",
        ),
        ("limit=0", "limit"),
        ("limit=ten", "limit"),
        ("offset=-1", "offset"),
        ("datetime=2019-13-01T00%3A00%3A00Z", "datetime"),
        ("datetime=..%2F..", "datetime"),
        (
            "datetime=2020-01-01T00%3A00%3A00Z%2F2019-01-01T00%3A00%3A00Z",
            "ends before",
        ),
        ("sortby=nope", "`nope`"),
        ("sortbyy=id", "`sortbyy`"),
        ("road_name=M4&year=2019", "`year`"),
        ("filter%5Broad_name%5D=M4", "brackets"),
        ("f=xml", "f=`xml`"),
        ("aadf_year=soon", "aadf_year"),
    ] {
        assert_refused(server, &format!("{items}?{query}"), 400, needle);
    }
    assert_refused(server, "/ogcapi?limit=1", 400, "`limit`");
    assert_refused(server, "/ogcapi/collections?bbox=1,2,3,4", 400, "`bbox`");
    assert_refused(server, &format!("{items}/501?limit=1"), 400, "`limit`");
    for target in [
        "/ogcapi/collections/regions",
        "/ogcapi/collections/regions/items",
        "/ogcapi/collections/regions/items/1",
    ] {
        assert_refused(server, target, 404, "No collection `regions`");
    }
    assert_refused(server, &format!("{items}/1"), 404, "No feature `1`");
    assert_refused(server, &format!("{items}/abc"), 404, "No feature `abc`");
    assert_refused(
        server,
        "/ogcapi/collections/count-points/nothing",
        404,
        "No such",
    );
    assert_refused(server, "/ogcapi/nothing", 404, "No such");
    let post = request(server, "POST", "/ogcapi/collections", &[]);
    assert_eq!(post.status, 405);
    // A limit above the maximum is taken as the maximum, not refused.
    let page = document(server, &format!("{items}?limit=50000"));
    assert_eq!(page["numberReturned"], page["numberMatched"]);
    // An empty value asks for the default.
    assert_eq!(
        ids(&document(
            server,
            &format!("{items}?limit=&bbox=&datetime=")
        ))
        .len(),
        10
    );
}

#[test]
fn metrics_name_the_templates_not_the_ids() {
    let server = serve(sample_db(), &[]);
    for target in [
        "/ogcapi",
        "/ogcapi/collections/count-points/items?limit=1",
        "/ogcapi/collections/count-points/items/501",
        "/ogcapi/collections/nowhere/items/7",
    ] {
        get(&server, target);
    }
    let scrape = get(&server, "/metrics").text();
    for endpoint in [
        r#"endpoint="/ogcapi",status="200""#,
        r#"endpoint="/ogcapi/collections/{collectionId}/items",status="200""#,
        r#"endpoint="/ogcapi/collections/{collectionId}/items/{featureId}",status="200""#,
        r#"endpoint="/ogcapi/collections/{collectionId}",status="404""#,
    ] {
        assert!(scrape.contains(endpoint), "{endpoint}");
    }
    assert!(!scrape.contains("/ogcapi/collections/count-points"));
    assert!(!scrape.contains("/items/501"));
}
