//! The website of kept releases: every page names the release it shows and links to the same
//! page in each other kept release (the header's picker, no script needed); a page of a named
//! release links only into that release (pages, API, downloads, the map's requests); a count
//! point's page marks the AADF figures its release revised, each with the value it replaced in
//! the kept release before it; a page kept in the response cache follows the list of kept
//! releases. In headless Chromium: the map and its API requests stay in the release, nothing is
//! wider than 360 px, the focus order runs through the picker, and axe-core finds nothing.
//! Screenshots go to `target/site-screenshots/releases-*`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use roadtraffic_releases::folder;

use crate::browser::{chromium, eval, screenshot, wait_for, watched_tab, Watched};
use crate::site::{
    assert_fits_the_screen, assert_no_errors_and_no_other_host, open, wait_for_maps, DESKTOP,
    SAMPLE_PAGES,
};
use crate::support::*;

/// The width of the smallest phone the site is drawn for.
pub const PHONE: (u32, u32) = (360, 800);

/// The kept releases, oldest first.
const RELEASES: [&str; 3] = ["2023", "2024", "2025"];

/// One page of each kind, by its path in any release: the site's pages that answer on the
/// sample, and the pages a release's picker is on besides: (name, path, status).
fn pages() -> Vec<&'static (&'static str, &'static str, u16)> {
    const BESIDES: &[(&str, &str, u16)] = &[
        ("downloads", "/downloads", 200),
        ("docs", "/docs", 200),
        ("count-point-not-found", "/manualcountpoints/999998", 404),
        ("not-found", "/nothing-here", 404),
    ];
    let sample = SAMPLE_PAGES.iter().filter(|(_, _, status)| *status == 200);
    sample.chain(BESIDES).collect()
}

/// Three kept releases of the sample beside one `--db` file, as the loader keeps them
/// (`FILE.releases/releases.json` and a file per older release), and the count point the last
/// one retired.
struct Kept {
    db: PathBuf,
    retired: i64,
}

/// Edits one CSV file of a folder, line by line.
fn edit(dir: &Path, name: &str, change: impl FnOnce(&mut Vec<String>)) {
    let text = std::fs::read_to_string(dir.join(name)).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    change(&mut lines);
    std::fs::write(dir.join(name), lines.join("\n") + "\n").unwrap();
}

/// The files of a folder (not its folders) copied into another.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }
}

/// 2023: the sample. 2024: its 2020 AADF of count point 501 revised (all motor vehicles
/// 41,967 to 42,067). 2025: 2024's files with the 2019 AADF of 501 revised (cars and taxis
/// 38,049 to 48,049, all motor vehicles 52,290 to 62,290), a year added (2025), the last count
/// point retired and a new one (999999).
fn kept_releases() -> &'static Kept {
    static KEPT: OnceLock<Kept> = OnceLock::new();
    KEPT.get_or_init(|| {
        let root = scratch_dir();
        let aadf = "dft_traffic_counts_aadf.csv";
        let sources: Vec<PathBuf> = RELEASES.iter().map(|r| root.join(r)).collect();
        copy_dir(&repo_path("data/sample"), &sources[0]);
        copy_dir(&sources[0], &sources[1]);
        edit(&sources[1], aadf, |lines| {
            let row = lines
                .iter_mut()
                .find(|l| l.starts_with("501,2020,"))
                .unwrap();
            assert!(row.ends_with(",41967"), "{row}");
            *row = row.replace(",41967", ",42067");
        });
        copy_dir(&sources[1], &sources[2]);
        edit(&sources[2], aadf, |lines| {
            assert!(lines[1].starts_with("501,2019,") && lines[1].ends_with(",52290"));
            assert!(lines[1].contains(",38049,"), "{}", lines[1]);
            lines[1] = lines[1]
                .replace(",52290", ",62290")
                .replace(",38049,", ",48049,");
            let added = lines[1].replacen("501,2019,", "501,2025,", 1);
            lines.push(added);
        });
        let mut retired = 0;
        edit(&sources[2], "count_points.csv", |lines| {
            let last = lines.pop().unwrap();
            let (id, rest) = last.split_once(',').unwrap();
            retired = id.parse().unwrap();
            lines.push(format!("999999,{rest}"));
        });
        for name in [
            aadf,
            "dft_traffic_counts_aadf_by_direction.csv",
            "dft_traffic_counts_raw_counts.csv",
        ] {
            edit(&sources[2], name, |lines| {
                lines.retain(|l| !l.starts_with(&format!("{retired},")));
            });
        }
        // The three loaded in turn, each kept by the loader.
        let db = root.join("served").join("traffic.db");
        std::fs::create_dir_all(db.parent().unwrap()).unwrap();
        for (name, source) in RELEASES.iter().zip(&sources) {
            load_ok(&db, &["--quiet", "--release", name], &[source]);
        }
        Kept { db, retired }
    })
}

pub fn server() -> &'static TestServer {
    static SERVER: OnceLock<TestServer> = OnceLock::new();
    SERVER.get_or_init(|| serve(&kept_releases().db, &[]))
}

/// A page as a browser asks for it (a path nobody answers is then an HTML 404).
pub fn page(server: &TestServer, path: &str) -> Reply {
    request(server, "GET", path, &[("accept", "text/html")])
}

/// `path` in release `name`: at its own path for the latest.
fn in_release(name: Option<&str>, path: &str) -> String {
    match name {
        None => path.to_string(),
        Some(name) => format!("/releases/{name}{path}"),
    }
}

/// The picker of a page: each entry's text, and its link (`None`: the release shown, as text
/// marked `aria-current="page"`).
fn picker(body: &str) -> Vec<(String, Option<String>)> {
    let (start, end) = picker_span(body).unwrap_or_else(|| panic!("no picker in {body}"));
    let nav = &body[start..end];
    let list = &nav[nav.find("<ul>").unwrap()..nav.find("</ul>").unwrap()];
    list.split("<li>")
        .skip(1)
        .map(|item| {
            let item = item.trim_end_matches("</li>");
            if let Some(shown) = item.strip_prefix("<span class=\"shown\" aria-current=\"page\">") {
                (shown.trim_end_matches("</span>").to_string(), None)
            } else {
                let href = attribute_values(item, "href").remove(0);
                let text = &item[item.find('>').unwrap() + 1..item.rfind("</a>").unwrap()];
                (text.to_string(), Some(href))
            }
        })
        .collect()
}

/// Where the picker is in a page: from `<nav class="releases"` to its `</nav>`.
fn picker_span(body: &str) -> Option<(usize, usize)> {
    let start = body.find("<nav class=\"releases\"")?;
    let end = start + body[start..].find("</nav>")? + "</nav>".len();
    Some((start, end))
}

/// Every value of the attribute `name` in `html`, its entities read (`&amp;`).
pub fn attribute_values(html: &str, name: &str) -> Vec<String> {
    let marker = format!(" {name}=\"");
    html.split(&marker)
        .skip(1)
        .map(|rest| rest[..rest.find('"').unwrap()].replace("&amp;", "&"))
        .collect()
}

/// Every URL of a page outside its picker: links, forms, the map's data.
pub fn urls(body: &str) -> Vec<String> {
    let body = match picker_span(body) {
        Some((start, end)) => format!("{}{}", &body[..start], &body[end..]),
        None => body.to_string(),
    };
    [
        "href",
        "src",
        "action",
        "data-api",
        "data-points",
        "data-outline",
        "data-area",
    ]
    .iter()
    .flat_map(|a| attribute_values(&body, a))
    .collect()
}

/// The picker of `path` in the release `shown`, as it must be: newest first, the latest at its
/// own path, the others under `/releases/{name}`.
fn expected_picker(shown: &str, path: &str) -> Vec<(String, Option<String>)> {
    RELEASES
        .iter()
        .rev()
        .map(|name| {
            let latest = *name == RELEASES[2];
            let text = if latest {
                format!("{name} (latest)")
            } else {
                name.to_string()
            };
            let href = in_release((!latest).then_some(*name), path);
            (text, (*name != shown).then_some(href))
        })
        .collect()
}

#[test]
fn every_kind_of_page_has_the_picker_in_every_release() {
    let server = server();
    for shown in [None, Some("2025"), Some("2024"), Some("2023")] {
        for (_, path, status) in pages() {
            let at = in_release(shown, path);
            let reply = page(server, &at);
            assert_eq!(reply.status, *status, "{at}");
            let body = reply.text();
            let name = shown.unwrap_or(RELEASES[2]);
            assert_eq!(picker(&body), expected_picker(name, path), "{at}");
            assert!(body.contains("<nav class=\"releases\" aria-label=\"Release\">"));
            assert!(body.contains("<a class=\"all-releases\" href=\"/releases\">"));
        }
    }
    // A count point the latest retired: its 404 leads to it in the releases that have it.
    let retired = format!("/manualcountpoints/{}", kept_releases().retired);
    let gone = page(server, &retired);
    assert_eq!(gone.status, 404);
    let elsewhere = picker(&gone.text());
    assert_eq!(
        elsewhere[1].1.as_deref(),
        Some(&*format!("/releases/2024{retired}"))
    );
    assert_eq!(get(server, elsewhere[1].1.as_ref().unwrap()).status, 200);
    // The picker keeps a page's query; a path is never another host's.
    let search = page(server, "/releases/2024/?q=M4").text();
    assert_eq!(picker(&search)[0].1.as_deref(), Some("/?q=M4"));
    let odd = page(server, "/releases/2024//elsewhere.example").text();
    assert_eq!(picker(&odd)[0].1.as_deref(), Some("/elsewhere.example"));
    // A release not kept: the 404 of a name nobody knows, without a picker.
    let unknown = page(server, "/releases/2022/regions");
    assert_eq!(unknown.status, 404);
    assert!(picker_span(&unknown.text()).is_none());
}

#[test]
fn one_release_is_named_and_a_file_without_a_name_shows_none() {
    let db = scratch_dir().join("one.db");
    load_ok(
        &db,
        &["--quiet", "--release", "2025"],
        &[&repo_path("data/sample")],
    );
    let one = serve(&db, &[]);
    for (_, path, status) in pages() {
        let reply = page(&one, path);
        assert_eq!(reply.status, *status, "{path}");
        let body = reply.text();
        assert!(
            body.contains("<p class=\"release-shown\">Release 2025</p>"),
            "{path}"
        );
        assert!(picker_span(&body).is_none(), "{path}");
    }
    for (_, path, _) in pages() {
        let body = page(sample_server(), path).text();
        assert!(!body.contains("release-shown") && picker_span(&body).is_none());
    }
}

/// The links of a page of release 2024 (outside its picker): into that release (OGC API -
/// Features too), or to what no release serves by name (the assets, the list of releases the
/// docs describe).
fn stays_in_2024(url: &str) -> bool {
    url.starts_with('#')
        || url == "/releases"
        || url.starts_with("/releases/2024/")
        || url.starts_with("/assets/")
}

#[test]
fn every_link_of_a_named_release_stays_in_it_and_answers() {
    let server = server();
    let mut checked = BTreeSet::new();
    for (name, path, _) in pages() {
        let at = in_release(Some("2024"), path);
        let body = page(server, &at).text();
        let urls = urls(&body);
        assert!(urls.len() >= 8, "{at}: {urls:?}");
        let outside: Vec<&String> = urls.iter().filter(|u| !stays_in_2024(u)).collect();
        assert!(
            outside.is_empty(),
            "{at} links out of release 2024: {outside:?}"
        );
        // Each answers (the downloads page's hundreds of split files: a few of them).
        let urls = urls.iter().filter(|u| u.starts_with("/releases/"));
        let take = if *name == "downloads" { 12 } else { usize::MAX };
        for url in urls.take(take) {
            let url = url.split('#').next().unwrap().to_string();
            if checked.insert(url.clone()) {
                let target = url.replace('[', "%5B").replace(']', "%5D");
                assert_eq!(get(server, &target).status, 200, "{url}, linked from {at}");
            }
        }
    }
    assert!(checked.len() > 100, "{}", checked.len());
    // The map's script: its API and its count points' pages in the release.
    let map = page(server, "/releases/2024/regions/3").text();
    assert_eq!(
        attribute_values(&map, "data-api"),
        ["/releases/2024/api/count-points"]
    );
    assert_eq!(attribute_values(&map, "data-prefix"), ["/releases/2024"]);
    // The latest at its own paths links to no named release but in its picker.
    for (_, path, _) in pages() {
        let body = page(server, path).text();
        let named: Vec<String> = (urls(&body).into_iter())
            .filter(|u| u.starts_with("/releases/"))
            .collect();
        assert!(named.is_empty(), "{path}: {named:?}");
        assert!(!body.contains("data-prefix"), "{path}");
    }
}

/// The revised figures of a count point's AADF table: (column, year, value, value replaced).
fn revised_cells(body: &str) -> BTreeSet<(String, i64, String, String)> {
    body.split("<td class=\"num revised\" data-series=\"")
        .skip(1)
        .map(|cell| {
            let (key, rest) = cell.split_once("\" data-x=\"").unwrap();
            let (year, rest) = rest.split_once("\">").unwrap();
            let (now, rest) = rest
                .split_once("<span class=\"was\">revised from <del>")
                .unwrap();
            let before = &rest[..rest.find("</del>").unwrap()];
            (key.into(), year.parse().unwrap(), now.into(), before.into())
        })
        .collect()
}

/// The years a count point's AADF table marks new in the release shown.
fn new_years(body: &str) -> Vec<i64> {
    let marked = "<span class=\"was\">new in this release</span></th>";
    body.split(marked)
        .take(body.matches(marked).count())
        .map(|before| before.rsplit('>').next().unwrap().parse().unwrap())
        .collect()
}

/// The legend of the marks, as text.
fn legend(body: &str) -> Option<String> {
    let start = body.find("<p class=\"revisions\">")?;
    let end = start + body[start..].find("</p>")?;
    let text = body[start..end]
        .replace("<strong>", "")
        .replace("</strong>", "");
    Some(
        text.trim_start_matches("<p class=\"revisions\">")
            .to_string(),
    )
}

#[test]
fn a_count_points_figures_revised_by_its_release_are_marked_with_what_they_replaced() {
    let server = server();
    let cell = |key: &str, year, now: &str, before: &str| {
        (key.to_string(), year, now.to_string(), before.to_string())
    };
    // The oldest kept: nothing to compare with, nothing marked.
    let oldest = page(server, "/releases/2023/manualcountpoints/501").text();
    assert!(revised_cells(&oldest).is_empty() && new_years(&oldest).is_empty());
    assert_eq!(legend(&oldest), None);
    assert!(!oldest.contains("release-note"));
    // 2024 revised one figure of 2023's.
    let middle = page(server, "/releases/2024/manualcountpoints/501").text();
    assert_eq!(
        revised_cells(&middle),
        BTreeSet::from([cell("all_motor_vehicles", 2020, "42,067", "41,967")])
    );
    assert!(new_years(&middle).is_empty());
    assert_eq!(
        legend(&middle).as_deref(),
        Some("Marked: figures revised by release 2024 (from release 2023), each with the value it replaced.")
    );
    // 2025 revised two of 2024's and added a year: the same at its own path and by name.
    for path in [
        "/manualcountpoints/501",
        "/releases/2025/manualcountpoints/501",
    ] {
        let latest = page(server, path).text();
        assert_eq!(
            revised_cells(&latest),
            BTreeSet::from([
                cell("all_motor_vehicles", 2019, "62,290", "52,290"),
                cell("cars_and_taxis", 2019, "48,049", "38,049"),
            ]),
            "{path}"
        );
        assert_eq!(new_years(&latest), [2025], "{path}");
        assert_eq!(
            legend(&latest).as_deref(),
            Some("Marked: figures revised by release 2025 (from release 2024), each with the value it replaced, and the years new in release 2025."),
            "{path}"
        );
        // The marks are words, not colour alone: the value replaced is read out.
        assert!(latest.contains("62,290<span class=\"was\">revised from <del>52,290</del></span>"));
    }
    // A count point 2025 did not revise, and one new in it.
    let unrevised = page(server, "/manualcountpoints/53549").text();
    assert!(revised_cells(&unrevised).is_empty());
    assert_eq!(
        legend(&unrevised).as_deref(),
        Some("No figure here was revised by release 2025 (from release 2024).")
    );
    let new = page(server, "/manualcountpoints/999999").text();
    assert!(
        new.contains("<p class=\"release-note\"><strong>New in this release:</strong> count point 999999 is not in release 2024.</p>"),
        "{new}"
    );
    assert_eq!(
        legend(&new).as_deref(),
        Some("Nothing to mark: count point 999999 is new in release 2025 (release 2024 does not have it).")
    );
    // Without an earlier release kept, nothing is compared.
    let alone = page(sample_server(), "/manualcountpoints/501").text();
    assert!(legend(&alone).is_none() && revised_cells(&alone).is_empty());
}

#[test]
fn a_kept_page_follows_the_list_of_kept_releases() {
    // A copy of the kept releases of its own: its manifest changes here.
    let kept = kept_releases();
    let dir = scratch_dir().join("served");
    copy_dir(kept.db.parent().unwrap(), &dir);
    let db = dir.join("traffic.db");
    copy_dir(&folder(&kept.db), &folder(&db));
    let server = serve(&db, &[]);
    let names = |path: &str| -> Vec<String> {
        let reply = page(&server, path);
        assert_eq!(reply.status, 200, "{path}");
        picker(&reply.text()).into_iter().map(|(n, _)| n).collect()
    };
    let paths = [
        "/regions",
        "/releases/2024/regions",
        "/releases/2024/manualcountpoints/501",
    ];
    for path in paths {
        // Twice: the second from the response cache.
        for _ in 0..2 {
            assert_eq!(names(path), ["2025 (latest)", "2024", "2023"], "{path}");
        }
    }
    let before = page(&server, "/releases/2024/manualcountpoints/501").text();
    assert!(legend(&before).unwrap().contains("(from release 2023)"));
    // 2023 dropped: release 2024 stays open, its pages now list two releases and compare
    // with none.
    load_ok(&db, &["--quiet", "--drop-release", "2023"], &[]);
    // The server looks at the manifest every --watch-interval (100 ms here).
    let started = std::time::Instant::now();
    while names("/regions").len() != 2 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "2023 still listed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    for path in paths {
        assert_eq!(names(path), ["2025 (latest)", "2024"], "{path}");
    }
    let after = page(&server, "/releases/2024/manualcountpoints/501").text();
    assert_eq!(legend(&after), None);
    assert_eq!(page(&server, "/releases/2023/regions").status, 404);
}

/// axe-core's script (npm's `axe-core`: `npm install -g axe-core`; `AXE_CORE_JS` names another
/// copy), if installed.
pub fn axe_source() -> Option<String> {
    let global = std::process::Command::new("npm")
        .args(["root", "-g"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let candidates = (std::env::var("AXE_CORE_JS").ok().into_iter())
        .chain(global.map(|g| format!("{g}/axe-core/axe.min.js")));
    for path in candidates {
        if let Ok(source) = std::fs::read_to_string(&path) {
            return Some(source);
        }
    }
    missing(
        "axe-core (npm install -g axe-core; .ci/run installs it)",
        "the axe-core checks: axe-core is not installed (npm install -g axe-core)",
    )
}

/// What axe-core finds on the page open in `w` (WCAG 2.2 A and AA, and best practice), as
/// `rule: elements`.
pub fn axe_violations(w: &Watched, axe: &str) -> Vec<String> {
    w.tab.evaluate(axe, false).expect("axe-core loads");
    let found = eval(
        &w.tab,
        "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', \
         'wcag21aa', 'wcag22aa', 'best-practice'] } }).then(r => ({ passes: r.passes.length, \
         violations: r.violations.map(v => \
         v.id + ': ' + v.nodes.map(n => n.target.join(' ')).slice(0, 5).join(', ')) }))",
    );
    // Rules that passed: axe-core ran over the page.
    assert!(found["passes"].as_u64().unwrap() > 10, "{found}");
    serde_json::from_value(found["violations"].clone()).unwrap()
}

/// The text (or name) of each element the Tab key reaches, from the top of the page.
fn focus_order(w: &Watched, presses: usize) -> Vec<String> {
    eval(
        &w.tab,
        "document.activeElement && document.activeElement.blur()",
    );
    (0..presses)
        .map(|_| {
            w.tab.press_key("Tab").unwrap();
            let name = eval(
                &w.tab,
                "(e => e.getAttribute('aria-label') || e.textContent.trim())(document.activeElement)",
            );
            name.as_str().unwrap_or_default().to_string()
        })
        .collect()
}

/// The smallest width and height of the picker's links and of the release shown, in CSS px.
fn smallest_picker_target(w: &Watched) -> f64 {
    let size = eval(
        &w.tab,
        "Math.min(...[...document.querySelectorAll('.releases a, .releases .shown')]\
         .flatMap(e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; }))",
    );
    size.as_f64().unwrap()
}

#[test]
fn a_named_release_in_chromium_stays_in_it_and_is_accessible() {
    let server = server();
    let axe = axe_source();
    let Some(browser) = chromium(DESKTOP.0, DESKTOP.1) else {
        return;
    };
    let origin = server.url("");
    let pages = [
        ("home", "/releases/2024/", true),
        ("count-point", "/releases/2024/manualcountpoints/501", true),
        ("region", "/releases/2024/regions/3", false),
        ("revised", "/manualcountpoints/501", true),
        ("new-count-point", "/manualcountpoints/999999", false),
        ("downloads", "/releases/2024/downloads", false),
        ("docs", "/releases/2024/docs", false),
        (
            "not-found",
            "/releases/2024/manualcountpoints/999998",
            false,
        ),
    ];
    for (size, label) in [(DESKTOP, "desktop"), (PHONE, "phone")] {
        let w = watched_tab(&browser, size.0, size.1);
        for (name, path, audited) in pages {
            let url = server.url(path);
            open(&w, &url);
            let maps = wait_for_maps(&w);
            if path.contains("manualcountpoints/501") {
                assert_eq!(maps.len(), 1, "{path}: no map");
                // Zoomed in, the map asks the API for the count points in view: in the release.
                eval(
                    &w.tab,
                    "new Promise(done => { const c = document.querySelector('.map canvas'); \
                     let k = 0; (function press() { \
                     c.dispatchEvent(new KeyboardEvent('keydown', { key: '+' })); \
                     if (++k < 3) { setTimeout(press, 100); } else { done(true); } })(); })",
                );
                let state = "document.querySelector('.map').dataset.apiState";
                wait_for(
                    &w.tab,
                    &format!("{state} === 'answered'"),
                    Duration::from_secs(20),
                );
                let to_page = eval(
                    &w.tab,
                    "(m => m.pageOf(m.indexOf(501)))(document.querySelector('.map').roadtrafficMap)",
                );
                let prefix = path.trim_end_matches("/manualcountpoints/501");
                assert_eq!(to_page, format!("{prefix}/manualcountpoints/501"), "{path}");
            }
            let named = path.starts_with("/releases/2024");
            let requests = w.seen.lock().unwrap().requests.clone();
            for request in &requests {
                let local = request.strip_prefix(&origin).unwrap_or(request);
                let in_release =
                    local.starts_with("/releases/2024/") || local.starts_with("/assets/");
                assert!(!named || in_release, "{path} asked for {request}");
            }
            if named && !maps.is_empty() {
                assert!(
                    requests
                        .iter()
                        .any(|r| r.contains("/releases/2024/api/count-points?")
                            || r.contains("/assets/points-")),
                    "{requests:?}"
                );
            }
            assert_fits_the_screen(&w.tab, &format!("{path} at {label}"));
            assert!(
                smallest_picker_target(&w) >= 24.0,
                "{path} at {label}: a target under 24 px"
            );
            if let (Some(axe), true) = (&axe, audited) {
                let found = axe_violations(&w, axe);
                assert!(
                    found.is_empty(),
                    "{path} at {label}: axe-core finds {found:#?}"
                );
            }
            let expected = if path.ends_with("999998") {
                vec![url.clone()]
            } else {
                vec![]
            };
            assert_no_errors_and_no_other_host(&w, &origin, &expected);
            screenshot(&w.tab, &format!("releases-{name}-{label}"), size);
        }
        // From the top: the skip link, the site's name, the sections, then the picker (the
        // release shown is text, not a stop), then the page.
        open(&w, &server.url("/releases/2024/manualcountpoints/501"));
        assert_eq!(
            focus_order(&w, 12),
            [
                "Skip to main content",
                "Road traffic statistics",
                "Map",
                "Regions",
                "Explore",
                "About",
                "API docs",
                "Downloads",
                "2025 (latest)",
                "2023",
                "All releases (JSON)",
                "Regions",
            ],
            "at {label}"
        );
        // The picker works without the script: a link, followed.
        open(&w, &server.url("/releases/2024/regions/3"));
        eval(
            &w.tab,
            "document.querySelector('.releases a[href^=\"/releases/2023\"]').click()",
        );
        wait_for(
            &w.tab,
            "location.pathname === '/releases/2023/regions/3' && document.readyState === 'complete'",
            Duration::from_secs(10),
        );
        let shown = eval(
            &w.tab,
            "document.querySelector('.releases [aria-current=page]').textContent",
        );
        assert_eq!(shown, "2023");
    }
}
