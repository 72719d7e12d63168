//! The Explore page (`/explore`): any summary of the API asked with a GET form, answered as a
//! table, a chart and links. Over HTTP: its table holds the numbers the API's summary gives for
//! the same question (the default one, and one grouped by two columns, filtered, within a box
//! of the map); each of its links answers the same rows (or the records they count); the form,
//! submitted as a browser without script submits it, asks the same question again; a question
//! the API refuses is a 400 page that says what the API says; a named release's page links only
//! into that release and shows that release's numbers. In headless Chromium: axe-core finds
//! nothing at 1280 and 360 px, nothing is wider than the phone, the chart holds the table's
//! numbers, and the form works from a click. Screenshots go to
//! `target/site-screenshots/explore-*`.

use std::time::Duration;

use serde_json::Value;

use crate::browser::{chromium, eval, screenshot, wait_for, watched_tab};
use crate::site::{assert_fits_the_screen, assert_no_errors_and_no_other_host, open, DESKTOP};
use crate::site_releases::{
    attribute_values, axe_source, axe_violations, page, server as releases_server, urls, PHONE,
};
use crate::support::*;

/// The default question: AADF, the sum of all motor vehicles by year.
const DEFAULT_API: &str =
    "/api/average-annual-daily-flow/summary?group_by=year&sum=all_motor_vehicles";

/// A question of raw counts by year and road category, of minor roads in a box over Wales and
/// the west of Scotland, with two measures: the page's query, and the API's of the same.
const CHOSEN: &str = "/explore?dataset=raw-counts&group_by=year&group_by=road_category\
                      &sum=all_motor_vehicles&avg=cars_and_taxis&max=lgvs\
                      &filter%5Bbbox%5D=-6%2C50%2C-2%2C56&filter%5Broad_type%5D=Minor";
const CHOSEN_API: &str = "/api/raw-counts/summary?group_by=year,road_category\
                          &sum=all_motor_vehicles&avg=cars_and_taxis&max=lgvs\
                          &filter[road_type]=Minor&filter[bbox]=-6,50,-2,56";

/// A URL as a client must send it: brackets encoded.
fn uri(url: &str) -> String {
    url.replace('[', "%5B").replace(']', "%5D")
}

/// The text of HTML with its entities read.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The rows of the page's answer: each cell's column (`data-column`) and value, a group key
/// as its `data-value`, a number as shown (its thousands separators removed).
fn table_rows(body: &str) -> Vec<Vec<(String, String)>> {
    let start = body
        .find("<table class=\"answer\"")
        .expect("an answer table");
    let table = &body[start..start + body[start..].find("</table>").unwrap()];
    let tbody = &table[table.find("<tbody>").unwrap()..];
    tbody
        .split("<tr>")
        .skip(1)
        .map(|row| {
            row.split(" data-column=\"")
                .skip(1)
                .map(|cell| {
                    let (column, rest) = cell.split_once('"').unwrap();
                    let value = match rest.strip_prefix(" data-value=\"") {
                        Some(v) => v[..v.find('"').unwrap()].to_string(),
                        None => {
                            let text =
                                &rest[rest.find('>').unwrap() + 1..rest.find("</td>").unwrap()];
                            text.replace(',', "")
                        }
                    };
                    (column.to_string(), unescape(&value))
                })
                .collect()
        })
        .collect()
}

/// Whether a shown value is the API's: keys as text, whole numbers exactly, decimals to the
/// page's three places.
fn same(shown: &str, api: &Value) -> bool {
    match api {
        Value::Null => shown.is_empty(),
        Value::String(s) => shown == s,
        Value::Number(n) if n.is_i64() => shown == n.to_string(),
        Value::Number(n) => shown
            .parse::<f64>()
            .is_ok_and(|s| (s - n.as_f64().unwrap()).abs() < 0.0006),
        other => panic!("{other}"),
    }
}

/// The page's table is the API's answer, row for row and column for column.
fn assert_table_is(body: &str, api: &Value, what: &str) {
    let rows = table_rows(body);
    let api = api.as_array().unwrap_or_else(|| panic!("{what}: {api}"));
    assert_eq!(rows.len(), api.len(), "{what}: rows");
    assert!(!rows.is_empty(), "{what}: an empty answer proves little");
    for (shown, object) in rows.iter().zip(api) {
        let object = object.as_object().unwrap();
        let columns: Vec<&String> = shown.iter().map(|(c, _)| c).collect();
        assert_eq!(
            columns,
            object.keys().collect::<Vec<_>>(),
            "{what}: columns"
        );
        for (column, value) in shown {
            assert!(
                same(value, &object[column]),
                "{what}: {column} shows {value}, the API {}",
                object[column]
            );
        }
    }
}

/// The API links of a page, by their text.
fn links(body: &str) -> Vec<(String, String)> {
    let start = body
        .find("<ul class=\"api-links\">")
        .expect("the API links");
    let list = &body[start..start + body[start..].find("</ul>").unwrap()];
    list.split("<li><a href=\"")
        .skip(1)
        .map(|item| {
            let (href, rest) = item.split_once("\">").unwrap();
            let text = &rest[..rest.find("</a>").unwrap()];
            (text.to_string(), unescape(href))
        })
        .collect()
}

/// The records a summary counts in all.
fn records(api: &Value) -> i64 {
    api.as_array()
        .unwrap()
        .iter()
        .map(|r| r["count"].as_i64().unwrap())
        .sum()
}

#[test]
fn the_default_question_is_the_apis_answer() {
    let server = sample_server();
    let reply = get(server, "/explore");
    assert_eq!(reply.status, 200);
    let body = reply.text();
    let api = get(server, DEFAULT_API).json();
    assert_table_is(&body, &api, "/explore");
    // People's numbers: thousands separated (113494 is 113,494).
    assert!(body.contains(">113,494</td>"), "{body}");
    // A chart of the years (a line), with its text alternative.
    assert!(body.contains("data-chart=\"explore-chart\""));
    assert!(body
        .contains("<title id=\"explore-chart-title\">Sum of all motor vehicles by year</title>"));
    // Filter fields suggest the values there are, areas by name.
    assert!(body.contains("list=\"filter-year-values\""));
    assert!(body.contains("<option value=\"2019\"></option>"));
    assert!(body.contains("<option value=\"4\" label=\"Wales\">Wales</option>"));
    // In the navigation, the current section.
    assert!(body.contains("<a href=\"/explore\" aria-current=\"page\">Explore</a>"));
    // The same question asked by its own URL, and its links.
    let named = get(server, "/explore?dataset=average-annual-daily-flow").text();
    assert_table_is(&named, &api, "?dataset=average-annual-daily-flow");
    let hrefs = links(&body);
    assert_eq!(hrefs[0].1, DEFAULT_API);
    assert_eq!(
        hrefs[1].1,
        DEFAULT_API.replace("/summary?", "/summary.csv?")
    );
    assert_eq!(hrefs[2].1, "/api/average-annual-daily-flow.parquet");
    assert_eq!(hrefs[3].1, "/api/average-annual-daily-flow");
}

#[test]
fn a_chosen_question_and_each_of_its_links_give_the_same_rows() {
    let server = sample_server();
    let reply = get(server, CHOSEN);
    assert_eq!(reply.status, 200, "{}", reply.text());
    let body = reply.text();
    let api = get(server, &uri(CHOSEN_API)).json();
    assert_table_is(&body, &api, CHOSEN);
    // The box keeps some records, not all.
    let all = get(
        server,
        "/api/raw-counts/summary?filter%5Broad_type%5D=Minor",
    )
    .json();
    let (kept, of) = (records(&api), all[0]["count"].as_i64().unwrap());
    assert!(kept > 0 && kept < of, "{kept} of {of}");
    let hrefs = links(&body);
    let texts: Vec<&str> = hrefs.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        texts,
        [
            "The summary as JSON (the API)",
            "The summary as CSV",
            "The records counted, as Parquet",
            "The records counted, as JSON (the listing, page by page)"
        ]
    );
    // The summary's JSON and CSV: the same rows.
    assert_eq!(hrefs[0].1, CHOSEN_API);
    let json = get(server, &uri(&hrefs[0].1));
    assert_eq!(json.status, 200);
    assert_eq!(json.json(), api);
    let csv = get(server, &uri(&hrefs[1].1));
    assert_eq!(csv.status, 200);
    let mut reader = csv::Reader::from_reader(csv.body.as_slice());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    let lines: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(lines.len(), api.as_array().unwrap().len());
    for (line, object) in lines.iter().zip(api.as_array().unwrap()) {
        for (name, text) in header.iter().zip(line) {
            assert!(
                same(text, &object[name]),
                "CSV {name}: {text} vs {}",
                object[name]
            );
        }
    }
    // The records counted: as many in the Parquet and the listing as the summary counts.
    let filters = "filter[road_type]=Minor&filter[bbox]=-6,50,-2,56";
    assert_eq!(hrefs[2].1, format!("/api/raw-counts.parquet?{filters}"));
    let parquet = get(server, &uri(&hrefs[2].1));
    assert_eq!(parquet.status, 200);
    let file =
        parquet::file::reader::SerializedFileReader::new(bytes::Bytes::from(parquet.body)).unwrap();
    use parquet::file::reader::FileReader;
    assert_eq!(file.metadata().file_metadata().num_rows(), kept);
    assert_eq!(hrefs[3].1, format!("/api/raw-counts?{filters}"));
    let listing = get(server, &uri(&hrefs[3].1));
    assert_eq!(listing.status, 200);
    assert_eq!(listing.json()["total"].as_i64(), Some(kept));
    // Road categories by name, areas linked to their pages: for people, with the API's values.
    assert!(body.contains("C or unclassified road (MCU)"), "{body}");
    let by_area = get(
        server,
        "/explore?dataset=raw-counts&group_by=local_authority_id&sum=lgvs&sort=-sum_lgvs&limit=3",
    );
    assert_eq!(by_area.status, 200);
    let api = get(
        server,
        "/api/raw-counts/summary?group_by=local_authority_id&sum=lgvs&sort=-sum_lgvs&limit=3",
    )
    .json();
    assert_table_is(&by_area.text(), &api, "by local authority");
    let first = api[0]["local_authority_id"].as_i64().unwrap();
    assert!(by_area
        .text()
        .contains(&format!("<a href=\"/local-authorities/{first}\">")));
    // Bars for areas (no years): one a row, each with the row's number.
    assert!(by_area.text().contains(&format!(
        "data-row=\"0\" data-value=\"{}\"",
        api[0]["sum_lgvs"]
    )));
}

/// What a browser without script sends for the page's question form: its fields' names and
/// values in order (text and number inputs, hidden ones, the chosen option of each select, the
/// ticked boxes), as `application/x-www-form-urlencoded`.
fn submitted(body: &str) -> String {
    let start = body
        .find("<form class=\"explore-question\"")
        .expect("the question form");
    let form = &body[start..start + body[start..].find("</form>").unwrap()];
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut rest = form;
    while let Some(at) = rest.find(['<']) {
        rest = &rest[at + 1..];
        let tag_end = rest.find('>').unwrap();
        let tag = &rest[..tag_end];
        let attr = |name: &str| {
            attribute_values(&format!(" {tag}"), name)
                .into_iter()
                .next()
        };
        if tag.starts_with("input ") {
            let kind = attr("type").unwrap_or_default();
            let ticked = kind != "checkbox" || tag.contains(" checked");
            if let (Some(name), true) = (attr("name"), ticked) {
                pairs.push((name, attr("value").unwrap_or_default()));
            }
        } else if tag.starts_with("select ") {
            let name = attr("name").unwrap();
            let options = &rest[..rest.find("</select>").unwrap()];
            let chosen = options
                .split("<option ")
                .skip(1)
                .find(|o| o.contains(" selected"))
                .or_else(|| options.split("<option ").nth(1))
                .unwrap();
            pairs.push((
                name,
                attribute_values(&format!(" {chosen}"), "value")[0].clone(),
            ));
        }
    }
    let encode = |s: &str| {
        s.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'*' => {
                    (b as char).to_string()
                }
                b' ' => "+".to_string(),
                _ => format!("%{b:02X}"),
            })
            .collect::<String>()
    };
    let query: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect();
    query.join("&")
}

#[test]
fn the_form_asks_the_same_question_again_without_script() {
    let server = sample_server();
    for question in [
        CHOSEN,
        "/explore",
        "/explore?dataset=count-points&group_by=road_category&sort=-count",
    ] {
        let body = get(server, question).text();
        // A GET form to the page itself: no script, the URL is the question.
        assert!(
            body.contains("<form class=\"explore-question\" action=\"/explore\" method=\"get\">")
        );
        let again = format!("/explore?{}", submitted(&body));
        let reply = get(server, &again);
        assert_eq!(reply.status, 200, "{again}: {}", reply.text());
        let body_again = reply.text();
        assert_eq!(
            table_rows(&body_again),
            table_rows(&body),
            "{question} then {again}"
        );
        assert_eq!(links(&body_again), links(&body), "{question} then {again}");
        // And so on: the form of the answer to the form is the same form.
        assert_eq!(submitted(&body_again), submitted(&body));
    }
    // The chosen question's form: its fields filled as asked.
    let body = get(server, CHOSEN).text();
    let form = submitted(&body);
    for field in [
        "dataset=raw-counts",
        "group_by=year&group_by=road_category&group_by=&",
        "sum=all_motor_vehicles",
        "avg=cars_and_taxis",
        "max=lgvs",
        "filter%5Bbbox%5D=-6%2C50%2C-2%2C56",
        "filter%5Broad_type%5D=Minor",
    ] {
        assert!(form.contains(field), "{field} not in {form}");
    }
    // The dataset chooser: its own form, one field.
    assert!(body.contains("<form class=\"explore-dataset\" action=\"/explore\" method=\"get\">"));
    let points = get(server, "/explore?dataset=count-points");
    assert_eq!(points.status, 200);
    let api = get(server, "/api/count-points/summary?group_by=aadf_year").json();
    assert_table_is(&points.text(), &api, "count points by default");
}

#[test]
fn a_question_the_api_refuses_is_a_400_page_that_says_why() {
    let server = sample_server();
    for (question, api, names) in [
        (
            "/explore?dataset=raw-counts&group_by=nope",
            Some("/api/raw-counts/summary?group_by=nope"),
            "nope",
        ),
        (
            "/explore?dataset=raw-counts&filter%5Byear%5D=soon",
            Some("/api/raw-counts/summary?filter%5Byear%5D=soon"),
            "year",
        ),
        (
            "/explore?dataset=average-annual-daily-flow&sum=road_name",
            Some("/api/average-annual-daily-flow/summary?sum=road_name"),
            "road_name",
        ),
        (
            "/explore?group_by=year&sort=-sum_lgvs",
            Some("/api/average-annual-daily-flow/summary?group_by=year&sort=-sum_lgvs"),
            "sum_lgvs",
        ),
        ("/explore?dataset=regions", None, "dataset"),
    ] {
        let reply = get(server, question);
        assert_eq!(reply.status, 400, "{question}");
        assert_eq!(
            reply.header("content-type"),
            Some("text/html; charset=utf-8")
        );
        let body = reply.text();
        let summary_at = body
            .find("<div class=\"error-summary\" role=\"alert\"")
            .expect("an error summary");
        let summary = &body[summary_at..summary_at + body[summary_at..].find("</div>").unwrap()];
        assert!(summary.contains(names), "{question}: {summary}");
        if let Some(api) = api {
            let said = get(server, api);
            assert_eq!(said.status, 400);
            let message = said.json()["message"].as_str().unwrap().to_string();
            assert!(
                unescape(summary).contains(&message),
                "{question}: {summary} vs {message}"
            );
        }
        // The page is still the form, as it was filled, and no answer.
        assert!(body.contains("<title>Error: Explore the statistics"));
        assert!(body.contains("<form class=\"explore-question\""));
        assert!(!body.contains("<table class=\"answer\""));
        // Its link leads to a field of the form.
        let target = &summary[summary.find("<a href=\"#").unwrap() + 10..];
        let id = &target[..target.find('"').unwrap()];
        assert!(
            body.contains(&format!(" id=\"{id}\"")),
            "{question}: no field #{id}"
        );
    }
    let body = get(server, "/explore?dataset=raw-counts&group_by=nope").text();
    assert!(body.contains("<option value=\"nope\" selected>nope</option>"));
}

#[test]
fn a_named_releases_page_links_only_into_it_and_shows_its_numbers() {
    let server = releases_server();
    let at = "/releases/2024/explore?dataset=average-annual-daily-flow&group_by=year,road_category&sum=all_motor_vehicles&filter%5Bbbox%5D=-4,51,-2,53";
    let reply = page(server, at);
    assert_eq!(reply.status, 200, "{}", reply.text());
    let body = reply.text();
    for url in urls(&body) {
        let inside = url.starts_with('#')
            || url == "/releases"
            || url.starts_with("/releases/2024/")
            || url.starts_with("/assets/");
        assert!(inside, "{at} links out of release 2024: {url}");
    }
    assert!(attribute_values(&body, "action")
        .iter()
        .all(|a| a == "/releases/2024/explore"));
    let hrefs = links(&body);
    assert_eq!(hrefs.len(), 4);
    let api = get(server, &uri(&hrefs[0].1)).json();
    assert_table_is(&body, &api, at);
    for (_, href) in &hrefs {
        assert!(href.starts_with("/releases/2024/api/"), "{href}");
        assert_eq!(get(server, &uri(href)).status, 200, "{href}");
    }
    // Release 2024 revised count point 501's 2020 AADF (41,967 to 42,067), the latest its 2019
    // one (52,290 to 62,290): each page shows its own release's sums.
    let sums = |path: &str| {
        let json = get(server, path).json();
        let year = |y: i64| {
            (json.as_array().unwrap().iter())
                .find(|r| r["year"] == y && r["road_category"] == "TM")
                .map(|r| r["sum_all_motor_vehicles"].as_i64().unwrap())
                .unwrap()
        };
        (year(2019), year(2020))
    };
    let question = "summary?group_by=year,road_category&sum=all_motor_vehicles";
    let (kept_2019, kept_2020) = sums(&format!(
        "/releases/2024/api/average-annual-daily-flow/{question}"
    ));
    let (latest_2019, latest_2020) = sums(&format!("/api/average-annual-daily-flow/{question}"));
    assert_eq!(
        (latest_2019 - kept_2019, kept_2020 - latest_2020),
        (10_000, 0)
    );
    let shown = |release: &str| {
        let body = page(
            server,
            &format!("{release}/explore?group_by=year,road_category&sum=all_motor_vehicles"),
        )
        .text();
        table_rows(&body)
    };
    let cell = |rows: &[Vec<(String, String)>], year: &str| {
        let row = rows
            .iter()
            .find(|r| r[0].1 == year && r[1].1 == "TM")
            .unwrap();
        row[3].1.clone()
    };
    assert_eq!(
        cell(&shown("/releases/2024"), "2019"),
        kept_2019.to_string()
    );
    assert_eq!(cell(&shown(""), "2019"), latest_2019.to_string());
}

#[test]
fn on_real_files_the_page_is_the_apis_answer() {
    let Some(db) = real_db() else { return };
    let server = serve(db, &[]);
    for (page_query, api) in [
        ("", DEFAULT_API.to_string()),
        (
            "dataset=local-authority-traffic&group_by=region_id&sum=all_motor_vehicles,link_length_km&filter%5Byear%5D=2019",
            "/api/local-authority-traffic/summary?group_by=region_id&sum=all_motor_vehicles,link_length_km&filter[year]=2019".to_string(),
        ),
        (
            "dataset=raw-counts&group_by=hour,direction_of_travel&avg=all_motor_vehicles&min=lgvs",
            "/api/raw-counts/summary?group_by=hour,direction_of_travel&avg=all_motor_vehicles&min=lgvs".to_string(),
        ),
        (
            "dataset=average-annual-daily-flow&group_by=year,road_category&max=all_hgvs&filter%5Bbbox%5D=-3.5,51,0,53&sort=-count&limit=20",
            "/api/average-annual-daily-flow/summary?group_by=year,road_category&max=all_hgvs&filter[bbox]=-3.5,51,0,53&sort=-count&limit=20".to_string(),
        ),
    ] {
        let at = format!("/explore?{page_query}");
        let reply = get(&server, &at);
        assert_eq!(reply.status, 200, "{at}: {}", reply.text());
        let body = reply.text();
        assert_table_is(&body, &get(&server, &uri(&api)).json(), &at);
        assert_eq!(links(&body)[0].1, api, "{at}");
    }
}

/// Each bar and point of the page's chart against the table: bars in the table's order, a
/// line's points at their cell (`data-series`, `data-x`); the number of marks drawn.
fn chart_holds_the_tables_numbers(w: &crate::browser::Watched) -> u64 {
    let script = r#"(() => {
        const bad = []; let drawn = 0;
        const table = document.querySelector('table.answer');
        const number = td => Number(td.textContent.replace(/,/g, ''));
        for (const bar of document.querySelectorAll('svg.bars g.bar')) {
            const row = table.tBodies[0].rows[Number(bar.dataset.row)];
            const cells = [...row.querySelectorAll('td.num')];
            if (!cells.some(td => Math.abs(number(td) - Number(bar.dataset.value)) < 0.001)) {
                bad.push(`bar ${bar.dataset.row}: ${bar.dataset.value}`);
            }
            drawn++;
        }
        for (const g of document.querySelectorAll('svg[data-chart] g[data-series]')) {
            for (const c of g.querySelectorAll('circle')) {
                const td = table.querySelector(`td[data-series="${CSS.escape(g.dataset.series)}"][data-x="${c.dataset.x}"]`);
                if (!td || Math.abs(number(td) - Number(c.dataset.value)) > 0.001) {
                    bad.push(`${g.dataset.series} ${c.dataset.x}: ${c.dataset.value}`);
                }
                drawn++;
            }
        }
        return { bad, drawn };
    })()"#;
    let result = eval(&w.tab, script);
    assert_eq!(
        result["bad"],
        serde_json::json!([]),
        "the chart differs from the table"
    );
    result["drawn"].as_u64().unwrap()
}

#[test]
fn in_chromium_it_is_accessible_fits_a_phone_and_its_form_works() {
    let server = sample_server();
    let named = releases_server();
    let axe = axe_source();
    let Some(browser) = chromium(DESKTOP.0, DESKTOP.1) else {
        return;
    };
    let pages = [
        ("default", server.url("/explore"), 6),
        ("chosen", server.url(CHOSEN), 4),
        (
            "bars",
            server.url("/explore?dataset=average-annual-daily-flow&group_by=local_authority_id,road_category&sum=all_motor_vehicles&avg=cars_and_taxis&sort=-sum_all_motor_vehicles"),
            10,
        ),
        ("refused", server.url("/explore?dataset=raw-counts&group_by=nope"), 0),
        ("named-release", named.url("/releases/2024/explore?group_by=year,road_category&sum=all_motor_vehicles"), 10),
    ];
    for (size, label) in [(DESKTOP, "desktop"), (PHONE, "phone")] {
        let w = watched_tab(&browser, size.0, size.1);
        for (name, url, marks) in &pages {
            open(&w, url);
            assert!(
                chart_holds_the_tables_numbers(&w) >= *marks,
                "{name}: too few marks"
            );
            assert_fits_the_screen(&w.tab, &format!("{url} at {label}"));
            if let Some(axe) = &axe {
                let found = axe_violations(&w, axe);
                assert!(
                    found.is_empty(),
                    "{url} at {label}: axe-core finds {found:#?}"
                );
            }
            let expected = if *name == "refused" {
                vec![url.clone()]
            } else {
                vec![]
            };
            let origin = if *name == "named-release" {
                named.url("")
            } else {
                server.url("")
            };
            assert_no_errors_and_no_other_host(&w, &origin, &expected);
            screenshot(&w.tab, &format!("explore-{name}-{label}"), size);
        }
    }
    // The form from clicks: a group and a measure chosen, a filter typed, then "Show the answer".
    let w = watched_tab(&browser, DESKTOP.0, DESKTOP.1);
    open(&w, &server.url("/explore"));
    eval(
        &w.tab,
        "(() => { document.getElementById('group_by-2').value = 'road_category'; \
         document.getElementById('max-lgvs').click(); \
         document.getElementById('filter-year').value = '2019,2020'; \
         document.querySelector('.explore-question button[type=submit]').click(); return true; })()",
    );
    wait_for(
        &w.tab,
        "location.search.includes('max=lgvs') && document.readyState === 'complete'",
        Duration::from_secs(10),
    );
    let search = eval(&w.tab, "location.search");
    let search = search.as_str().unwrap();
    assert!(
        search.contains("group_by=year&group_by=road_category"),
        "{search}"
    );
    let body = get(server, &format!("/explore{search}")).text();
    let api = get(
        server,
        &uri("/api/average-annual-daily-flow/summary?group_by=year,road_category&sum=all_motor_vehicles&max=lgvs&filter[year]=2019,2020"),
    )
    .json();
    assert_table_is(&body, &api, search);
    assert_eq!(
        eval(
            &w.tab,
            "document.querySelectorAll('table.answer tbody tr').length"
        ),
        api.as_array().unwrap().len()
    );
    assert_no_errors_and_no_other_host(&w, &server.url(""), &[]);
}
