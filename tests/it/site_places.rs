//! The site's use of the spatial index: a count point's page lists the count points nearest it
//! (the same as a brute-force search over every count point's easting and northing), says so
//! when it has no coordinates, and links to the API's near filter; the map, zoomed in, asks
//! the API for the count points in view and merges them, and still works when that fails.

use std::path::{Path, PathBuf};
use std::time::Duration;

use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::Network;

use crate::browser::{chromium, eval, screenshot, wait_for, watched_tab, Watched};
use crate::site::{
    assert_no_errors_and_no_other_host, check_pages_in_chromium, open, wait_for_maps, DESKTOP,
};
use crate::support::*;

/// How far and how many, as the page says.
const RADIUS_M: i64 = 10_000;
const NEAREST: usize = 10;

/// The sample count point the fixture's count points are placed around (Newport, M4).
const CENTRE: i64 = 501;
/// A count point of the fixture with no easting, northing, latitude or longitude.
const NOWHERE: i64 = 700_012;

/// Count points placed from [`CENTRE`]: (id, metres east, metres north). Around it, three
/// tie at 500 m and ten are nearer than 10 km, so that one exactly 10 km away is left out
/// by the count; 300 km north, 700020 has one count point exactly 10 km away (in) and one
/// 10,001 m (out).
const AROUND: &[(i64, i64, i64)] = &[
    (700_002, -500, 0),
    (700_000, 0, -500),
    (700_001, 300, 400),
    (700_003, 850, 0),
    (700_004, 2_000, 2_000),
    (700_005, -3_200, 0),
    (700_006, 0, 6_000),
    (700_007, 7_000, -1_000),
    (700_008, 1_000, -1_000),
    (700_009, -2_000, 500),
    (700_010, 6_000, 8_000),
    (700_011, 0, -10_001),
    (700_020, 71_430, 313_000),
    (700_021, 81_430, 313_000),
    (700_022, 71_430, 323_001),
];

/// The sample's count points and AADF with [`AROUND`] and [`NOWHERE`] added (copies of
/// [`CENTRE`]'s row moved, their latitude and longitude moved alike), loaded by the loader.
fn places_db() -> &'static Path {
    static DB: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DB.get_or_init(|| {
        let dir = scratch_dir();
        let csv = dir.join("count_points.csv");
        let mut reader = csv::Reader::from_path(repo_path("data/sample/count_points.csv")).unwrap();
        let headers = reader.headers().unwrap().clone();
        let at = |name: &str| headers.iter().position(|h| h == name).unwrap();
        let mut writer = csv::Writer::from_path(&csv).unwrap();
        writer.write_record(&headers).unwrap();
        for row in reader.records() {
            let row: Vec<String> = row.unwrap().iter().map(String::from).collect();
            writer.write_record(&row).unwrap();
            if row[at("count_point_id")] != CENTRE.to_string() {
                continue;
            }
            let number = |name: &str| row[at(name)].parse::<f64>().unwrap();
            let (lat, lon) = (number("latitude"), number("longitude"));
            for (id, east, north) in AROUND {
                let mut moved = row.clone();
                moved[at("count_point_id")] = id.to_string();
                moved[at("easting")] = (number("easting") as i64 + east).to_string();
                moved[at("northing")] = (number("northing") as i64 + north).to_string();
                let metres_per_degree = 111_200.0;
                moved[at("latitude")] = format!("{:.8}", lat + *north as f64 / metres_per_degree);
                moved[at("longitude")] = format!(
                    "{:.8}",
                    lon + *east as f64 / (metres_per_degree * lat.to_radians().cos())
                );
                writer.write_record(&moved).unwrap();
            }
            let mut nowhere = row.clone();
            nowhere[at("count_point_id")] = NOWHERE.to_string();
            for c in ["easting", "northing", "latitude", "longitude"] {
                nowhere[at(c)] = String::new();
            }
            writer.write_record(&nowhere).unwrap();
        }
        writer.flush().unwrap();
        let db = dir.join("places.db");
        let aadf = repo_path("data/sample/dft_traffic_counts_aadf.csv");
        load_ok(&db, &["--quiet"], &[&csv, &aadf]);
        db
    })
}

/// The nearest count points of `id` by brute force: every count point's easting and northing
/// read from the file, nearest first, ties by id. (id, metres).
fn brute_force(db: &Path, id: i64) -> Vec<(i64, f64)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let all: Vec<(i64, Option<i64>, Option<i64>)> = conn
        .prepare("SELECT count_point_id, easting, northing FROM count_points")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let Some(&(_, Some(e), Some(n))) = all.iter().find(|p| p.0 == id) else {
        return Vec::new();
    };
    let mut near: Vec<(i64, i64)> = all
        .iter()
        .filter(|p| p.0 != id)
        .filter_map(|&(other, pe, pn)| Some((other, (pe? - e).pow(2) + (pn? - n).pow(2))))
        .filter(|&(_, d2)| d2 <= RADIUS_M * RADIUS_M)
        .collect();
    near.sort_by_key(|&(other, d2)| (d2, other));
    near.truncate(NEAREST);
    near.into_iter()
        .map(|(other, d2)| (other, (d2 as f64).sqrt()))
        .collect()
}

/// A row of the page's nearby table: the count point, its distance in metres (the cell's
/// `data-metres`) and as shown.
#[derive(Debug)]
struct Row {
    id: i64,
    metres: f64,
    shown: String,
}

/// The page's nearby section: its text, its rows, and its link to the API.
fn nearby_section(server: &TestServer, id: i64) -> (String, Vec<Row>, Option<String>) {
    let page = get(server, &format!("/manualcountpoints/{id}"));
    assert_eq!(page.status, 200);
    let body = page.text();
    let start = body
        .find("<section aria-labelledby=\"nearby\">")
        .expect("a nearby section");
    let section = &body[start..];
    let section = section[..section.find("</section>").unwrap()].to_string();
    let rows = section
        .split("<tr><th scope=\"row\"><a href=\"/manualcountpoints/")
        .skip(1)
        .map(|row| {
            let id = row[..row.find('"').unwrap()].parse().unwrap();
            let cell = &row[row.find("data-metres=\"").unwrap() + 13..];
            let (metres, rest) = cell.split_once("\">").unwrap();
            Row {
                id,
                metres: metres.parse().unwrap(),
                shown: rest[..rest.find("</td>").unwrap()].to_string(),
            }
        })
        .collect();
    let api = section
        .split("href=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].replace("&amp;", "&"))
        .find(|href| href.starts_with("/api/"));
    (section, rows, api)
}

/// The page's list is the brute force's, distance for distance.
fn assert_nearest_as_brute_force(server: &TestServer, db: &Path, id: i64) -> Vec<Row> {
    let (_, rows, _) = nearby_section(server, id);
    let expected = brute_force(db, id);
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let expected_ids: Vec<i64> = expected.iter().map(|e| e.0).collect();
    assert_eq!(ids, expected_ids, "count point {id}");
    for (row, (_, metres)) in rows.iter().zip(&expected) {
        assert!((row.metres - metres).abs() < 1e-6, "{id}: {row:?} {metres}");
    }
    rows
}

#[test]
fn a_count_points_nearest_are_those_a_brute_force_search_finds() {
    let db = places_db();
    let server = serve(db, &[]);
    let rows = assert_nearest_as_brute_force(&server, db, CENTRE);
    let listed: Vec<(i64, &str)> = rows.iter().map(|r| (r.id, r.shown.as_str())).collect();
    assert_eq!(
        listed,
        [
            (700_000, "500 m"),
            (700_001, "500 m"),
            (700_002, "500 m"),
            (700_003, "850 m"),
            (700_008, "1.4 km"),
            (700_009, "2.1 km"),
            (700_004, "2.8 km"),
            (700_005, "3.2 km"),
            (700_006, "6.0 km"),
            (700_007, "7.1 km"),
        ],
        "nearest first, ties by id, ten at most"
    );
    let (section, ..) = nearby_section(&server, CENTRE);
    for part in [
        "<caption>The 10 count points nearest this one within 10 km, nearest first</caption>",
        "<th scope=\"col\">Count point</th>",
        "<th scope=\"col\">Distance</th>",
        "<td>M4</td><td>Trunk motorway</td>",
    ] {
        assert!(section.contains(part), "no {part} in {section}");
    }
    let (section, rows, _) = nearby_section(&server, 700_020);
    assert_eq!(
        rows.iter()
            .map(|r| (r.id, r.shown.as_str()))
            .collect::<Vec<_>>(),
        [(700_021, "10.0 km")],
        "10 km in, 10,001 m out"
    );
    assert!(
        section.contains("<caption>The one other count point within 10 km</caption>"),
        "{section}"
    );
    // Every other count point of the file, the crowded ones (more than ten within 10 km)
    // and the lonely ones (none).
    let conn = rusqlite::Connection::open(db).unwrap();
    let ids: Vec<i64> = conn
        .prepare("SELECT count_point_id FROM count_points WHERE easting IS NOT NULL")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut lengths = Vec::new();
    for id in ids {
        lengths.push(assert_nearest_as_brute_force(&server, db, id).len());
    }
    assert!(
        lengths.contains(&NEAREST) && lengths.contains(&0),
        "{lengths:?}"
    );
    let (lonely, ..) = nearby_section(&server, 700_022);
    assert!(
        lonely.contains("No other count point within 10 km."),
        "{lonely}"
    );
}

#[test]
fn a_count_point_without_coordinates_says_it_has_none() {
    let server = serve(places_db(), &[]);
    let (section, rows, api) = nearby_section(&server, NOWHERE);
    assert!(rows.is_empty(), "{rows:?}");
    assert!(
        section.contains("has no easting and northing in the loaded file"),
        "{section}"
    );
    assert!(!section.contains("<table"), "{section}");
    assert_eq!(api, None, "no latitude and longitude to ask the API from");
}

/// The page's link to the API answers the same count points, measured from the count point's
/// latitude and longitude (a metre or two from its easting and northing): itself among them
/// (first, but for another count point at the same place), and then those of the page, in
/// turn but where two distances nearly tie.
fn assert_the_api_link_lists_the_same(server: &TestServer, id: i64) {
    let (_, rows, api) = nearby_section(server, id);
    let api = api.expect("a link to the API");
    assert!(
        api.starts_with("/api/count-points?filter%5Bnear%5D="),
        "{api}"
    );
    let data = get(server, &api).json()["data"].as_array().unwrap().clone();
    let mut found: Vec<(i64, f64)> = data
        .iter()
        .map(|r| {
            let id = r["count_point_id"].as_i64().unwrap();
            (id, r["distance_m"].as_f64().unwrap())
        })
        .collect();
    let itself = found.iter().position(|f| f.0 == id);
    let itself = itself.unwrap_or_else(|| panic!("{id} not in {found:?}"));
    assert!(found[itself].1 < 3.0, "{found:?}");
    found.remove(itself);
    let last = rows.last().map_or(0.0, |r| r.metres);
    let near_edge = |metres: f64| last - metres < 4.0 || RADIUS_M as f64 - metres < 4.0;
    for (i, row) in rows.iter().enumerate() {
        let Some(&(_, metres)) = found.iter().find(|f| f.0 == row.id) else {
            assert!(near_edge(row.metres), "{id}: {row:?} not in {found:?}");
            continue;
        };
        assert!(
            (metres - row.metres).abs() < 4.0,
            "{id}: {row:?}, API {metres}"
        );
        let in_turn = found.get(i).is_some_and(|&(other, other_metres)| {
            other == row.id || (other_metres - metres).abs() < 4.0
        });
        assert!(
            in_turn || near_edge(row.metres),
            "{id}: row {i}: {row:?}, API {found:?}"
        );
    }
}

#[test]
fn the_nearest_on_real_files_are_those_a_brute_force_search_finds_and_the_apis() {
    let db = places_db();
    let server = serve(db, &[]);
    assert_the_api_link_lists_the_same(&server, CENTRE);
    let Some(real) = real_db() else { return };
    let server = serve(real, &[]);
    let conn = rusqlite::Connection::open(real).unwrap();
    // Every 40th count point of London's split (dense: each has ten within 10 km).
    let ids: Vec<i64> = conn
        .prepare("SELECT count_point_id FROM count_points WHERE region_id = 6 ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(ids.len() > 1000, "{}", ids.len());
    for id in ids.iter().step_by(40) {
        let rows = assert_nearest_as_brute_force(&server, real, *id);
        assert_eq!(rows.len(), NEAREST, "{id}");
        assert_the_api_link_lists_the_same(&server, *id);
    }
}

/// The map's element and its state, in the page.
const MAP: &str = "document.querySelector('.map')";

/// Zooms the map in from the keyboard, `times` presses of + in a row.
fn zoom_in(w: &Watched, times: usize) {
    eval(&w.tab, "document.querySelector('.map canvas').focus()");
    for _ in 0..times {
        w.tab.press_key("+").unwrap();
    }
}

/// The map's requests to the API's count points with a box, first pages only.
fn box_requests(w: &Watched) -> Vec<String> {
    let seen = w.seen.lock().unwrap();
    seen.requests
        .iter()
        .filter(|u| u.contains("/api/count-points?filter[bbox]="))
        .cloned()
        .collect()
}

#[test]
fn the_map_zoomed_in_draws_the_apis_count_points_in_view() {
    let db = places_db();
    // A small largest page, so that a view's count points take several pages.
    let server = serve(db, &["--max-page-size", "3"]);
    let Some(browser) = chromium(DESKTOP.0, DESKTOP.1) else {
        return;
    };
    let w = watched_tab(&browser, DESKTOP.0, DESKTOP.1);
    // Zoomed out (all of Great Britain), the point file alone.
    open(&w, &server.url("/"));
    wait_for_maps(&w);
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(eval(&w.tab, &format!("{MAP}.dataset.apiState")), "off");
    assert!(box_requests(&w).is_empty());
    // A count point's page (a view ~67 km across), zoomed in three times 100 ms apart (+ on
    // the map, as the keyboard sends it): one request once the view rests, its pages followed.
    open(&w, &server.url(&format!("/manualcountpoints/{CENTRE}")));
    wait_for_maps(&w);
    std::thread::sleep(Duration::from_millis(600));
    assert!(box_requests(&w).is_empty(), "{:?}", box_requests(&w));
    eval(
        &w.tab,
        "new Promise(done => { const c = document.querySelector('.map canvas'); let k = 0; \
         (function press() { c.dispatchEvent(new KeyboardEvent('keydown', { key: '+' })); \
         if (++k < 3) { setTimeout(press, 100); } else { done(true); } })(); })",
    );
    let records = wait_for(
        &w.tab,
        &format!("{MAP}.dataset.apiState === 'answered' && Number({MAP}.dataset.apiRecords)"),
        Duration::from_secs(10),
    );
    let asked = box_requests(&w);
    assert_eq!(asked.len(), 1, "one request for the view: {asked:?}");
    assert!(asked[0].contains("&page[size]=3"), "{asked:?}");
    // The box asked holds the view, and its count points all came, page after page.
    let url = &asked[0][asked[0].find("/api/").unwrap()..];
    let total = get(&server, url).json()["total"].clone();
    assert_eq!(records, total, "{url}");
    assert!(records.as_u64().unwrap() > 3, "several pages: {records}");
    let pages = w
        .seen
        .lock()
        .unwrap()
        .requests
        .iter()
        .filter(|u| u.contains("bbox"))
        .count();
    assert_eq!(pages as u64, records.as_u64().unwrap().div_ceil(3));
    // The count points in view are drawn where the API places them, exactly.
    let placed = eval(
        &w.tab,
        &format!(
            "(async () => {{ const m = {MAP}.roadtrafficMap; \
             const cp = (await (await fetch('/api/count-points?filter[count_point_id]=700003')).json()).data[0]; \
             const i = m.indexOf(700003); \
             return [m.p.x[i] / Math.cos(54.5 * Math.PI / 180) - Number(cp.longitude), m.p.y[i] - Number(cp.latitude)]; }})()"
        ),
    );
    for d in placed.as_array().unwrap() {
        assert!(d.as_f64().unwrap().abs() < 1e-5, "{placed}");
    }
    // A count point the point file lacks is added, in id order, and drawn.
    let added = eval(
        &w.tab,
        &format!(
            "(() => {{ const m = {MAP}.roadtrafficMap, n = m.p.n, drawn = Number({MAP}.dataset.drawn); \
             m.merge([{{ count_point_id: {CENTRE}, latitude: '51.57731861', longitude: '-3.03218424' }}, \
                      {{ count_point_id: 650000, latitude: '51.58', longitude: '-3.04', road_name: 'A48', road_category: 'PA', local_authority_id: 6, region_id: 4 }}]); \
             m.draw(); \
             const i = m.indexOf(650000); \
             return [m.p.n - n, Number({MAP}.dataset.drawn) - drawn, m.describe(i), [...m.p.id].every((id, k, a) => k === 0 || a[k - 1] < id)]; }})()"
        ),
    );
    assert_eq!(
        added,
        serde_json::json!([1, 1, "A48 · count point 650000 · Newport", true])
    );
    let path = screenshot(&w.tab, "places-count-point-map-zoomed", DESKTOP);
    eprintln!("screenshot: {}", path.display());
    assert_no_errors_and_no_other_host(&w, &server.url(""), &[]);
}

#[test]
fn the_map_still_draws_the_point_file_when_the_api_fails() {
    let server = serve(places_db(), &[]);
    let Some(browser) = chromium(DESKTOP.0, DESKTOP.1) else {
        return;
    };
    let w = watched_tab(&browser, DESKTOP.0, DESKTOP.1);
    open(&w, &server.url(&format!("/manualcountpoints/{CENTRE}")));
    let before = wait_for_maps(&w);
    let missing = "/api/no-such-listing";
    eval(&w.tab, &format!("{MAP}.roadtrafficMap.api = '{missing}'"));
    zoom_in(&w, 1);
    wait_for(
        &w.tab,
        &format!("{MAP}.dataset.apiState === 'failed'"),
        Duration::from_secs(10),
    );
    // Still drawn from the point file, zoomed in: the count point and its neighbours.
    let after = wait_for_maps(&w);
    assert!(
        after[0] > 1 && after[0] <= before[0],
        "{before:?} {after:?}"
    );
    assert_eq!(
        eval(
            &w.tab,
            &format!("{MAP}.roadtrafficMap.screenPosition({CENTRE}) !== null")
        ),
        true
    );
    assert_no_errors_and_no_other_host(&w, &server.url(""), &[server.url(missing)]);
}

#[test]
fn count_point_pages_with_their_nearest_pass_the_browser_checks() {
    let server = serve(places_db(), &[]);
    let pages = vec![
        ("nearest", format!("/manualcountpoints/{CENTRE}"), 200),
        (
            "no-coordinates",
            format!("/manualcountpoints/{NOWHERE}"),
            200,
        ),
    ];
    check_pages_in_chromium(&server, &pages, "places");
}

#[test]
fn the_map_cancels_the_request_of_a_view_it_has_left() {
    let server = serve(places_db(), &[]);
    let Some(browser) = chromium(DESKTOP.0, DESKTOP.1) else {
        return;
    };
    let w = watched_tab(&browser, DESKTOP.0, DESKTOP.1);
    let cancelled = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = cancelled.clone();
    w.tab
        .add_event_listener(std::sync::Arc::new(move |e: &Event| {
            if let Event::NetworkLoadingFailed(failed) = e {
                if failed.params.canceled == Some(true) {
                    count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            }
        }))
        .unwrap();
    open(&w, &server.url(&format!("/manualcountpoints/{CENTRE}")));
    wait_for_maps(&w);
    // A slow network: each answer takes seconds, time enough to move on.
    w.tab
        .call_method(Network::EmulateNetworkConditions {
            offline: false,
            latency: 4000.0,
            download_throughput: -1.0,
            upload_throughput: -1.0,
            connection_Type: None,
            packet_loss: None,
            packet_queue_length: None,
            packet_reordering: None,
        })
        .unwrap();
    let state = |s: &str| format!("{MAP}.dataset.apiState === '{s}'");
    zoom_in(&w, 1);
    wait_for(&w.tab, &state("asking"), Duration::from_secs(5));
    // Zoomed out past the threshold: the request is cancelled.
    w.tab.press_key("-").unwrap();
    w.tab.press_key("-").unwrap();
    wait_for(&w.tab, &state("off"), Duration::from_secs(5));
    // Zoomed in again, then panned away before the answer: each view's request is cancelled
    // by the next (the pan may rest long enough on its way to ask too), the last answered.
    zoom_in(&w, 2);
    wait_for(&w.tab, &state("asking"), Duration::from_secs(5));
    for _ in 0..12 {
        w.tab.press_key("ArrowRight").unwrap();
    }
    wait_for(&w.tab, &state("answered"), Duration::from_secs(15));
    let asked = box_requests(&w);
    assert!(asked.len() >= 3, "{asked:?}");
    assert_ne!(asked[1], asked[asked.len() - 1], "the last view is another");
    let cancelled = cancelled.load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(cancelled, asked.len() - 1, "{asked:?}");
    assert_no_errors_and_no_other_host(&w, &server.url(""), &[]);
}
