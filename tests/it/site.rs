//! The website: every kind of page over HTTP (HTML, its own CSP, no inline script, 404s), the
//! map's data, escaping of hostile names loaded by the real loader, and every kind of page in
//! headless Chromium on the bundled sample and on real published files: no console error, no
//! request leaving the server, the map drawn and clickable, the charts holding the numbers of
//! their tables, nothing wider than a phone. Screenshots go to `target/site-screenshots/`.

use std::path::Path;
use std::time::Duration;

use headless_chrome::protocol::cdp::Input;
use headless_chrome::Tab;

use crate::browser::{chromium, eval, poll, screenshot, wait_for, watched_tab, Watched};
use crate::support::*;

/// One page of each kind on the sample: (name, path, status).
pub const SAMPLE_PAGES: &[(&str, &str, u16)] = &[
    ("home", "/", 200),
    ("search", "/?q=newport", 200),
    ("regions", "/regions", 200),
    ("region", "/regions/3", 200),
    ("local-authorities", "/local-authorities", 200),
    ("local-authority", "/local-authorities/6", 200),
    ("count-point", "/manualcountpoints/501", 200),
    ("about", "/about", 200),
    ("not-found", "/manualcountpoints/999999", 404),
];

pub const DESKTOP: (u32, u32) = (1280, 900);
pub const PHONE: (u32, u32) = (390, 844);

#[test]
fn site_pages_are_html_with_their_own_csp_and_no_inline_script() {
    let server = sample_server();
    for (_, path, status) in SAMPLE_PAGES {
        let r = get(server, path);
        assert_eq!(r.status, *status, "{path}");
        assert_eq!(
            r.header("content-type"),
            Some("text/html; charset=utf-8"),
            "{path}"
        );
        let csp = r.header("content-security-policy").unwrap();
        assert!(csp.contains("default-src 'none'"), "{csp}");
        assert!(!csp.contains("unsafe") && !csp.contains("http"), "{csp}");
        // Error pages have no map, so no script at all.
        let scripted = *status == 200;
        assert_eq!(csp.contains("script-src 'self'"), scripted, "{path}: {csp}");
        assert_eq!(r.text().contains("<script"), scripted, "{path}");
        let body = r.text();
        assert!(body.starts_with("<!DOCTYPE html>"), "{path}");
        assert_eq!(
            body.matches("<script").count(),
            body.matches("<script src=\"/assets/site.").count(),
            "{path}: a script that is not the site's file"
        );
        for inline in [
            " style=",
            " onclick=",
            " onerror=",
            " onload=",
            "javascript:",
        ] {
            assert!(!body.contains(inline), "{path}: {inline}");
        }
        for part in [
            "<h1>",
            "id=\"main\"",
            "Open Government Licence",
            "href=\"/docs\"",
        ] {
            assert!(body.contains(part), "{path}: no {part}");
        }
    }
    let head = request(server, "HEAD", "/manualcountpoints/501", &[]);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    let post = request(server, "POST", "/regions", &[]);
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), Some("GET, HEAD"));
}

/// Each download link of a count point's page answers its records, as CSV.
#[test]
fn a_count_points_download_links_answer_its_records() {
    let server = sample_server();
    let page = get(server, "/manualcountpoints/501").text();
    let section = &page[page.find("id=\"download\"").expect("a downloads section")..];
    let links: Vec<String> = section[..section.find("</section>").unwrap()]
        .split("href=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].replace("&amp;", "&"))
        .filter(|href| !href.starts_with("/docs"))
        .collect();
    assert!(links.len() >= 4, "{links:?}");
    assert!(
        links.iter().any(|l| l.starts_with("/downloads/")),
        "{links:?}"
    );
    for link in links {
        let reply = get(server, &link);
        assert_eq!(reply.status, 200, "{link}");
        let text = reply.text();
        let csv = link.contains(".csv");
        assert!(text.contains("501"), "{link}: {text:.300}");
        assert!(!csv || text.lines().count() >= 2, "{link}: {text:.300}");
    }
}

#[test]
fn unknown_ids_get_an_html_404_and_the_api_keeps_its_json_404() {
    let server = sample_server();
    for path in [
        "/regions/999",
        "/local-authorities/999999",
        "/manualcountpoints/999999",
        "/manualcountpoints/abc",
        "/regions/1/2",
        "/assets/site.css",
        "/assets/points-0.bin",
    ] {
        let r = get(server, path);
        assert_eq!(r.status, 404, "{path}");
        assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
        assert!(r.text().contains("Page not found") && r.text().contains("href=\"/regions\""));
    }
    let api = get(server, "/api/nothing-here");
    assert_eq!(
        (api.status, api.header("content-type")),
        (404, Some("application/json"))
    );
    let elsewhere = get(server, "/nothing-here");
    assert_eq!(elsewhere.header("content-type"), Some("application/json"));
    let browser = request(server, "GET", "/nothing-here", &[("accept", "text/html")]);
    assert_eq!(browser.status, 404);
    assert_eq!(
        browser.header("content-type"),
        Some("text/html; charset=utf-8")
    );
}

/// The URL of the page's asset whose name starts with `prefix`.
fn asset_url(body: &str, prefix: &str) -> String {
    let at = body
        .find(&format!("/assets/{prefix}"))
        .unwrap_or_else(|| panic!("no asset {prefix}"));
    body[at..].split('"').next().unwrap().to_string()
}

#[test]
fn assets_have_hashed_names_and_are_cached_for_a_year() {
    let server = sample_server();
    let home = get(server, "/").text();
    for prefix in ["site.", "gb-outline.", "icon.", "points-"] {
        let url = asset_url(&home, prefix);
        let r = get(server, &url);
        assert_eq!(r.status, 200, "{url}");
        assert_eq!(
            r.header("cache-control"),
            Some("public, max-age=31536000, immutable"),
            "{url}"
        );
    }
    // The map's point data: gzipped for a client that takes it, whole for one that doesn't.
    let points = asset_url(&home, "points-");
    let plain = request(server, "GET", &points, &[("accept-encoding", "identity")]);
    assert_eq!(&plain.body[..4], b"RTP1");
    let count = u32::from_le_bytes(plain.body[4..8].try_into().unwrap());
    assert_eq!(i64::from(count), sample_rows("count_points"));
    let mut raw = std::net::TcpStream::connect(server.addr).unwrap();
    use std::io::{Read, Write};
    write!(
        raw,
        "GET {points} HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = Vec::new();
    raw.read_to_end(&mut answer).unwrap();
    let head = String::from_utf8_lossy(&answer[..answer.len().min(600)]).to_lowercase();
    assert!(head.contains("content-encoding: gzip"), "{head}");
}

/// A count point, its local authority and its region, named to break out of wherever they
/// land: HTML text, an attribute, the map's JSON.
const HOSTILE_ROAD: &str = "<script>alert(1)</script>";
const HOSTILE_AUTHORITY: &str = "\"><img src=x onerror=alert(1)>";
const HOSTILE_REGION: &str = "</title><script>alert(2)</script>'";

/// The sample's count points and AADF with the first count point's names made hostile,
/// loaded by the real loader.
fn hostile_db() -> (std::path::PathBuf, i64, i64, i64) {
    let dir = scratch_dir();
    let mut first = None;
    for file in ["count_points.csv", "dft_traffic_counts_aadf.csv"] {
        let mut reader = csv::Reader::from_path(repo_path("data/sample").join(file)).unwrap();
        let headers = reader.headers().unwrap().clone();
        let at = |name: &str| headers.iter().position(|h| h == name).unwrap();
        let mut writer = csv::Writer::from_path(dir.join(file)).unwrap();
        writer.write_record(&headers).unwrap();
        for row in reader.records() {
            let mut row: Vec<String> = row.unwrap().iter().map(String::from).collect();
            let id: i64 = row[at("count_point_id")].parse().unwrap();
            let la: i64 = row[at("local_authority_id")].parse().unwrap();
            let region: i64 = row[at("region_id")].parse().unwrap();
            let (cp, ..) = *first.get_or_insert((id, la, region));
            if id == cp {
                row[at("road_name")] = HOSTILE_ROAD.into();
                row[at("local_authority_name")] = HOSTILE_AUTHORITY.into();
                row[at("region_name")] = HOSTILE_REGION.into();
            }
            writer.write_record(&row).unwrap();
        }
        writer.flush().unwrap();
    }
    let db = dir.join("hostile.db");
    load_ok(
        &db,
        &["--quiet"],
        &[
            &dir.join("count_points.csv"),
            &dir.join("dft_traffic_counts_aadf.csv"),
        ],
    );
    let (cp, la, region) = first.unwrap();
    (db, cp, la, region)
}

#[test]
fn hostile_names_show_as_text_and_run_nothing() {
    let (db, cp, la, region) = hostile_db();
    let server = serve(&db, &[]);
    let pages = [
        format!("/manualcountpoints/{cp}"),
        format!("/local-authorities/{la}"),
        format!("/regions/{region}"),
        "/regions".to_string(),
        "/local-authorities".to_string(),
        "/?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E".to_string(),
        "/?q=%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E".to_string(),
    ];
    for path in &pages {
        let body = get(&server, path).text();
        for hostile in [HOSTILE_ROAD, HOSTILE_AUTHORITY, HOSTILE_REGION] {
            assert!(!body.contains(hostile), "{path}: {hostile} unescaped");
        }
        assert!(!body.contains("<img"), "{path}");
    }
    let body = get(&server, &format!("/manualcountpoints/{cp}")).text();
    assert!(
        body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{body}"
    );
    let Some(browser) = chromium(DESKTOP.0, DESKTOP.1) else {
        return;
    };
    let w = watched_tab(&browser, DESKTOP.0, DESKTOP.1);
    let dialogs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let opened = dialogs.clone();
    w.tab
        .add_event_listener(std::sync::Arc::new(
            move |e: &headless_chrome::protocol::cdp::types::Event| {
                if let headless_chrome::protocol::cdp::types::Event::PageJavascriptDialogOpening(
                    _,
                ) = e
                {
                    opened.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            },
        ))
        .unwrap();
    w.tab
        .call_method(headless_chrome::protocol::cdp::Page::Enable {
            enable_file_chooser_opened_event: None,
        })
        .unwrap();
    for path in &pages {
        open(&w, &server.url(path));
        wait_for_maps(&w);
        let text = eval(&w.tab, "document.body.innerText")
            .as_str()
            .unwrap()
            .to_string();
        if path.starts_with("/manualcountpoints") {
            assert!(
                text.contains(HOSTILE_ROAD) && text.contains(HOSTILE_AUTHORITY),
                "{text}"
            );
        }
        let injected = eval(
            &w.tab,
            "document.querySelectorAll('img, script:not([src^=\"/assets/site.\"])').length",
        );
        assert_eq!(injected, 0, "{path}: injected elements");
    }
    // The map's tooltip shows the hostile road name as text too.
    open(&w, &server.url(&format!("/manualcountpoints/{cp}")));
    wait_for_maps(&w);
    let [x, y] = screen_position(&w.tab, cp);
    mouse(
        &w.tab,
        Input::DispatchMouseEventTypeOption::MouseMoved,
        x,
        y,
    );
    let tip = wait_for(
        &w.tab,
        "document.querySelector('.map-tip.shown')?.textContent",
        Duration::from_secs(5),
    );
    assert!(tip.as_str().unwrap().contains(HOSTILE_ROAD), "{tip}");
    assert_eq!(
        dialogs.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "a dialog opened"
    );
    assert_no_errors_and_no_other_host(&w, &server.url(""), &[]);
}

/// Navigates and waits for the page to load.
pub fn open(w: &Watched, url: &str) {
    w.tab.navigate_to(url).unwrap();
    w.tab.wait_until_navigated().unwrap();
    wait_for(
        &w.tab,
        "document.readyState === 'complete'",
        Duration::from_secs(20),
    );
}

/// Waits until every map of the page is drawn; the number of points drawn on each.
pub fn wait_for_maps(w: &Watched) -> Vec<u64> {
    let script = "(() => { const maps = [...document.querySelectorAll('.map')]; \
                  return maps.every(m => m.dataset.drawn) && maps.map(m => Number(m.dataset.drawn)); })()";
    let drawn = poll(&w.tab, script, Duration::from_secs(20)).unwrap_or_else(|| {
        let seen = w.seen.lock().unwrap();
        panic!(
            "{}: the map was not drawn; errors {:#?}, requests {:#?}",
            w.tab.get_url(),
            seen.errors,
            seen.requests
        )
    });
    drawn
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

fn screen_position(tab: &Tab, id: i64) -> [f64; 2] {
    let at = eval(
        tab,
        &format!("document.querySelector('.map').roadtrafficMap.screenPosition({id})"),
    );
    let at = at
        .as_array()
        .unwrap_or_else(|| panic!("count point {id} not on the map"));
    [at[0].as_f64().unwrap(), at[1].as_f64().unwrap()]
}

fn mouse(tab: &Tab, kind: Input::DispatchMouseEventTypeOption, x: f64, y: f64) {
    tab.call_method(Input::DispatchMouseEvent {
        Type: kind,
        x,
        y,
        modifiers: None,
        timestamp: None,
        button: Some(Input::MouseButton::Left),
        buttons: None,
        click_count: Some(1),
        force: None,
        tangential_pressure: None,
        tilt_x: None,
        tilt_y: None,
        twist: None,
        delta_x: None,
        delta_y: None,
        pointer_Type: None,
    })
    .unwrap();
}

/// No console error or exception, and every request went to the server itself. `expected`:
/// URLs whose failure is the point of the page (a 404 page's own).
pub fn assert_no_errors_and_no_other_host(w: &Watched, origin: &str, expected: &[String]) {
    let mut seen = w.seen.lock().unwrap();
    let errors: Vec<&String> = seen
        .errors
        .iter()
        .filter(|e| !expected.iter().any(|url| e.contains(url.as_str())))
        .collect();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    let elsewhere: Vec<&String> = seen
        .requests
        .iter()
        .filter(|u| !u.starts_with(origin))
        .collect();
    assert!(
        elsewhere.is_empty(),
        "requests leaving the server: {elsewhere:#?}"
    );
    assert!(!seen.requests.is_empty());
    seen.errors.clear();
    seen.requests.clear();
}

/// Checks every chart of the page against its table; the number of points checked.
fn charts_hold_the_numbers_of_their_tables(tab: &Tab) -> u64 {
    let script = r#"(() => {
        const bad = []; let checked = 0;
        for (const svg of document.querySelectorAll('svg[data-chart]')) {
            const table = document.querySelector(`table[data-for-chart="${svg.dataset.chart}"]`);
            if (!table) { bad.push('no table for ' + svg.dataset.chart); continue; }
            const cells = table.querySelectorAll('td[data-series]').length;
            let points = 0;
            for (const g of svg.querySelectorAll('g[data-series]')) {
                for (const c of g.querySelectorAll('circle')) {
                    points++;
                    const td = table.querySelector(`td[data-series="${g.dataset.series}"][data-x="${c.dataset.x}"]`);
                    const shown = td && Number(td.textContent.replace(/,/g, ''));
                    if (shown !== Math.round(Number(c.dataset.value))) {
                        bad.push(`${svg.dataset.chart} ${g.dataset.series} ${c.dataset.x}: chart ${c.dataset.value}, table ${td && td.textContent}`);
                    }
                    checked++;
                }
            }
            const blanks = [...table.querySelectorAll('td[data-series]')].filter(td => td.textContent === '').length;
            if (points + blanks !== cells) { bad.push(`${svg.dataset.chart}: ${points} points, ${cells} cells`); }
        }
        return { bad, checked };
    })()"#;
    let result = eval(tab, script);
    assert_eq!(
        result["bad"],
        serde_json::json!([]),
        "charts differ from tables"
    );
    result["checked"].as_u64().unwrap()
}

/// Pixels of the map's canvas in a road category's colour.
fn coloured_pixels(tab: &Tab) -> u64 {
    let script = r#"(() => {
        const c = document.querySelector('.map canvas');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const colours = [[0x15,0x59,0xb8],[0x17,0x80,0x3d],[0xc0,0x36,0x2c],[0x9a,0x5b,0x00],[0x66,0x70,0x85],[0x1b,0x1f,0x23]];
        let n = 0;
        for (let i = 0; i < d.length; i += 4) {
            if (colours.some(k => Math.abs(k[0]-d[i]) + Math.abs(k[1]-d[i+1]) + Math.abs(k[2]-d[i+2]) < 12)) n++;
        }
        return n;
    })()"#;
    eval(tab, script).as_u64().unwrap()
}

/// Every page of `pages` in Chromium at desktop and phone widths, with the checks of the
/// issue; screenshots named `{prefix}-{name}`.
pub fn check_pages_in_chromium(server: &TestServer, pages: &[(&str, String, u16)], prefix: &str) {
    let Some(browser) = chromium(DESKTOP.0, DESKTOP.1) else {
        return;
    };
    let origin = server.url("");
    for (size, label) in [(DESKTOP, "desktop"), (PHONE, "phone")] {
        let w = watched_tab(&browser, size.0, size.1);
        for (name, path, status) in pages {
            let url = server.url(path);
            open(&w, &url);
            let drawn = wait_for_maps(&w);
            let has_map = [
                "/",
                "/?",
                "/regions/",
                "/local-authorities/",
                "/manualcountpoints/",
            ]
            .iter()
            .any(|p| path == p || (p.len() > 1 && path.starts_with(p)));
            if *status == 200 && has_map {
                assert_eq!(drawn.len(), 1, "{path}: no map");
            }
            for n in &drawn {
                assert!(*n > 0, "{path}: the map drew no point");
            }
            if !drawn.is_empty() {
                assert!(
                    coloured_pixels(&w.tab) > 0,
                    "{path}: no point's colour on the canvas"
                );
            }
            charts_hold_the_numbers_of_their_tables(&w.tab);
            assert_fits_the_screen(&w.tab, &format!("{path} at {label}"));
            let expected = if *status == 404 {
                vec![url.clone()]
            } else {
                vec![]
            };
            assert_no_errors_and_no_other_host(&w, &origin, &expected);
            screenshot(&w.tab, &format!("{prefix}-{name}-{label}"), size);
        }
    }
}

#[test]
fn every_kind_of_page_works_in_chromium_on_the_sample() {
    let server = sample_server();
    let pages: Vec<(&str, String, u16)> = SAMPLE_PAGES
        .iter()
        .map(|(n, p, s)| (*n, p.to_string(), *s))
        .collect();
    check_pages_in_chromium(server, &pages, "sample");
    let Some(browser) = chromium(DESKTOP.0, DESKTOP.1) else {
        return;
    };
    let w = watched_tab(&browser, DESKTOP.0, DESKTOP.1);
    // The count point page's charts: AADF by year, by direction, and each count day.
    open(&w, &server.url("/manualcountpoints/501"));
    assert!(charts_hold_the_numbers_of_their_tables(&w.tab) >= 6 * 7 + 2 * 6);
    // Hover shows the road and id; a click opens the count point's page.
    open(&w, &server.url("/"));
    assert_eq!(wait_for_maps(&w), vec![sample_rows("count_points") as u64]);
    let [x, y] = screen_position(&w.tab, 501);
    mouse(
        &w.tab,
        Input::DispatchMouseEventTypeOption::MouseMoved,
        x,
        y,
    );
    let tip = wait_for(
        &w.tab,
        "document.querySelector('.map-tip.shown')?.textContent",
        Duration::from_secs(5),
    );
    assert!(tip.as_str().unwrap().contains("count point 501"), "{tip}");
    mouse(
        &w.tab,
        Input::DispatchMouseEventTypeOption::MousePressed,
        x,
        y,
    );
    mouse(
        &w.tab,
        Input::DispatchMouseEventTypeOption::MouseReleased,
        x,
        y,
    );
    wait_for(
        &w.tab,
        "location.pathname === '/manualcountpoints/501'",
        Duration::from_secs(10),
    );
    // Zoom from the keyboard.
    open(&w, &server.url("/"));
    wait_for_maps(&w);
    let before = eval(
        &w.tab,
        "document.querySelector('.map').roadtrafficMap.scale",
    );
    eval(&w.tab, "document.querySelector('.map canvas').focus()");
    w.tab.press_key("+").unwrap();
    let after = wait_for(
        &w.tab,
        &format!("document.querySelector('.map').roadtrafficMap.scale > {before} && document.querySelector('.map').roadtrafficMap.scale"),
        Duration::from_secs(5),
    );
    assert!(after.as_f64().unwrap() > before.as_f64().unwrap());
    assert_no_errors_and_no_other_host(&w, &server.url(""), &[]);
}

/// The first value of a query on a loaded file.
fn first(db: &Path, sql: &str) -> i64 {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

#[test]
fn every_kind_of_page_works_in_chromium_on_real_files() {
    let Some(real) = real_data() else { return };
    let db = scratch_dir().join("real-site.db");
    let files = [
        "aadf",
        "count_points",
        "raw_counts",
        "local_authority_traffic/local_authority_traffic__HBudnitz_2023release.csv",
        "region_traffic/region_traffic_by_road_type__as_region_traffic_csv__neze-papreja.csv",
        "region_traffic/region_traffic_by_vehicle_type__dariatcch_2023release.csv",
    ]
    .map(|f| real.join(f));
    let inputs: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    load_ok(&db, &["--quiet", "--release", "real files"], &inputs);
    // The real files are splits: the count points with AADF are not those with raw counts.
    let with_aadf = first(&db, "SELECT count_point_id FROM aadf ORDER BY id LIMIT 1");
    let counted = first(&db, "SELECT count_point_id FROM raw_counts_runs LIMIT 1");
    let la = first(
        &db,
        &format!("SELECT local_authority_id FROM aadf WHERE count_point_id = {with_aadf}"),
    );
    let region = first(
        &db,
        &format!("SELECT region_id FROM local_authorities WHERE id = {la}"),
    );
    let server = serve(&db, &[]);
    let pages = vec![
        ("home", "/".to_string(), 200),
        ("region", format!("/regions/{region}"), 200),
        ("local-authority", format!("/local-authorities/{la}"), 200),
        (
            "count-point",
            format!("/manualcountpoints/{with_aadf}"),
            200,
        ),
        (
            "count-point-raw-counts",
            format!("/manualcountpoints/{counted}"),
            200,
        ),
        ("about", "/about".to_string(), 200),
    ];
    for (_, path, status) in &pages {
        assert_eq!(get(&server, path).status, *status, "{path}");
    }
    let about = get(&server, "/about").text();
    assert!(about.contains("real files") && about.contains("raw_counts"));
    check_pages_in_chromium(&server, &pages, "real");
}

#[test]
fn behind_a_reverse_proxy_pages_name_their_public_address() {
    let server = serve(
        sample_db(),
        &["--public-url", "https://traffic.example.org/"],
    );
    let page = get(&server, "/manualcountpoints/501?x=1");
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("link"),
        Some("<https://traffic.example.org/manualcountpoints/501?x=1>; rel=\"canonical\"")
    );
    // Every link and asset is relative to the host's root, so the proxy's host is the page's.
    let body = page.text();
    assert!(
        !body.contains("127.0.0.1") && !body.contains("http://"),
        "{body}"
    );
    assert_eq!(
        get(&server, "/manualcountpoints/999999").header("link"),
        None
    );
    assert_eq!(
        get(sample_server(), "/manualcountpoints/501").header("link"),
        None
    );
}

/// The page open in `tab` is no wider than its window: nothing to scroll sideways.
pub fn assert_fits_the_screen(tab: &Tab, what: &str) {
    let overflow = eval(
        tab,
        "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    );
    assert!(
        overflow.as_i64().unwrap() <= 0,
        "{what}: wider than the screen by {overflow}px"
    );
}
