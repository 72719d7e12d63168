//! The totals' words (issue 26): every example of a facet or summary that the docs page, the
//! OpenAPI description and the README give returns rows of the bundled sample, and the README
//! shows what they return.

use roadtraffic_catalog::DATASETS;

use crate::support::*;

/// Rows of a facets or summary answer (for facets, the fewest values of a column); its status
/// must be 200.
fn rows(server: &TestServer, target: &str) -> usize {
    let reply = get(server, target);
    assert_eq!(reply.status, 200, "{target}: {}", reply.text());
    let path = target.split('?').next().unwrap();
    if path.ends_with("/facets") {
        let body = reply.json();
        let facets = body["facets"].as_object().unwrap();
        let values = facets
            .values()
            .map(|f| f["values"].as_array().unwrap().len());
        values.min().unwrap_or(0)
    } else if path.ends_with(".csv") {
        reply.text().lines().count().saturating_sub(1)
    } else if path.ends_with(".ndjson") {
        reply.text().lines().count()
    } else {
        reply.json().as_array().unwrap().len()
    }
}

fn is_totals(url: &str) -> bool {
    let path = url.split('?').next().unwrap_or(url);
    path.ends_with("/facets") || path.contains("/summary")
}

/// The paginated listings' paths, aliases included: each has its facets and summary.
fn listings() -> usize {
    let paginated = DATASETS.iter().filter(|d| d.paginated);
    paginated.map(|d| d.paths.len()).sum()
}

#[test]
fn every_totals_example_of_the_docs_page_returns_rows() {
    let server = sample_server();
    let html = get(server, "/docs").text();
    assert!(html.contains("<h2>Totals: facets and summaries</h2>"));
    let links: Vec<String> = (html.split("href=\"").skip(1))
        .map(|s| s[..s.find('"').unwrap()].replace("&amp;", "&"))
        .filter(|url| is_totals(url))
        .collect();
    // The section's eight (four of counts, four of other numbers: road length, extent, first
    // and last year, vehicle-km), and each paginated dataset's facets and summary.
    let paginated = DATASETS.iter().filter(|d| d.paginated).count();
    assert_eq!(links.len(), 8 + 2 * paginated, "{links:?}");
    for wanted in [
        "sum=link_length_km",
        "min=longitude,latitude&max=longitude,latitude",
        "&min=year&max=year",
        "sum=vehicle_km",
    ] {
        assert!(
            links.iter().any(|l| l.contains(wanted)),
            "{wanted}: {links:?}"
        );
    }
    for url in links {
        assert!(rows(server, &url) > 0, "{url} returns no rows");
    }
}

/// Each facets and summary operation's parameter examples, as a query string.
fn example_query(operation: &serde_json::Value) -> String {
    let mut query = Vec::new();
    for p in operation["parameters"].as_array().unwrap() {
        let Some(example) = p.get("example") else {
            continue;
        };
        let name = p["name"].as_str().unwrap();
        let values: Vec<&str> = (example.as_array().unwrap().iter())
            .map(|v| v.as_str().unwrap())
            .collect();
        match p["explode"].as_bool() {
            Some(true) => query.extend(values.iter().map(|v| format!("{name}={v}"))),
            _ => query.push(format!("{name}={}", values.join(","))),
        }
    }
    query.join("&")
}

#[test]
fn every_totals_operation_of_the_description_has_examples_that_return_rows() {
    let server = sample_server();
    let doc = get(server, "/api/openapi.json").json();
    let paths = doc["paths"].as_object().unwrap();
    let mut asked = 0;
    for (path, item) in paths.iter().filter(|(path, _)| is_totals(path)) {
        let operation = &item["get"];
        let query = example_query(operation);
        let url = format!("{path}?{query}");
        assert!(rows(server, &url) > 0, "{url} returns no rows");
        // The examples ask something: a facet; a group, and a sum where there are measures.
        let measures = operation["parameters"].as_array().unwrap();
        let has_sum = measures.iter().any(|p| p["name"] == "sum");
        let wanted: &[&str] = match (path.ends_with("/facets"), has_sum) {
            (true, _) => &["facet="],
            (false, true) => &["group_by=", "sum="],
            (false, false) => &["group_by="],
        };
        for w in wanted {
            assert!(query.contains(w), "{path}: {query}");
        }
        asked += 1;
    }
    assert_eq!(asked, 4 * listings());
}

/// The README's curl examples of totals: each URL (on the README's host) and the output shown
/// after it (`# ` lines up to a blank one).
fn readme_examples() -> Vec<(String, Vec<String>)> {
    let readme = std::fs::read_to_string(repo_path("README.md")).unwrap();
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut shown: Option<usize> = None;
    for line in readme.lines() {
        let url = line
            .strip_prefix("curl ")
            .and_then(|rest| rest.split_once("'http://127.0.0.1:8080"))
            .and_then(|(_, url)| url.split_once('\''))
            .map(|(url, _)| url)
            .filter(|url| is_totals(url));
        match (url, line.strip_prefix("# ")) {
            (Some(url), _) => {
                out.push((url.to_string(), Vec::new()));
                shown = Some(out.len() - 1);
            }
            (None, Some(text)) if shown.is_some() => out[shown.unwrap()].1.push(text.to_string()),
            _ => shown = None,
        }
    }
    out
}

#[test]
fn every_totals_example_of_the_readme_returns_rows_and_what_it_shows() {
    let server = sample_server();
    let examples = readme_examples();
    assert!(examples.len() >= 4, "{examples:?}");
    for (url, shown) in examples {
        let target = url.replace('[', "%5B").replace(']', "%5D");
        assert!(rows(server, &target) > 0, "{url} returns no rows");
        let body = get(server, &target).text();
        // What the README shows is the answer, trimmed where it says `...`.
        let parts = shown.iter().flat_map(|line| line.split("..."));
        for part in parts.map(str::trim).filter(|p| !p.is_empty()) {
            assert!(
                body.contains(part),
                "{url}: the README shows `{part}`; it answers\n{body}"
            );
        }
    }
}

/// The README's query of a table of totals with sqlite3, and what it shows, on the sample.
#[test]
fn the_readme_query_of_a_table_of_totals_answers_what_it_shows() {
    let readme = std::fs::read_to_string(repo_path("README.md")).unwrap();
    let (_, rest) = readme
        .split_once("sqlite3 data/roadtraffic.db '")
        .expect("the README queries a table of totals");
    let (sql, after) = rest.split_once('\'').unwrap();
    let shown: Vec<&str> = (after.lines().skip(1))
        .map_while(|l| l.strip_prefix("# "))
        .filter(|l| *l != "...")
        .collect();
    let read_only = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
    let db = rusqlite::Connection::open_with_flags(sample_db(), read_only).unwrap();
    let mut stmt = db.prepare(sql).unwrap();
    let answer: Vec<String> = stmt
        .query_map([], |row| {
            let cells = (0..row.as_ref().column_count()).map(|i| {
                let v: rusqlite::types::Value = row.get(i)?;
                Ok(match v {
                    rusqlite::types::Value::Integer(n) => n.to_string(),
                    rusqlite::types::Value::Real(f) => f.to_string(),
                    rusqlite::types::Value::Text(t) => t,
                    _ => String::new(),
                })
            });
            Ok(cells.collect::<rusqlite::Result<Vec<_>>>()?.join("|"))
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert!(!shown.is_empty());
    assert_eq!(answer[..shown.len()], shown[..], "{sql}");
}
