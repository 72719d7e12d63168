//! The API's description (issue 9): a valid OpenAPI 3.1 document, true to what the server does
//! (an OpenAPI-driven fuzzer finds nothing on the sample and on the real files), and a docs page
//! whose examples return rows.

use std::process::Command;

use crate::support::*;

fn description(server: &TestServer) -> serde_json::Value {
    let reply = get(server, "/api/openapi.json");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    reply.json()
}

#[test]
fn the_description_names_every_endpoint_alias_and_form() {
    let server = sample_server();
    let doc = description(server);
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["servers"][0]["url"], format!("http://{}", server.addr));
    let paths = doc["paths"].as_object().unwrap();
    for d in roadtraffic_catalog::DATASETS {
        for path in d.paths {
            for suffix in ["", ".csv", ".ndjson"] {
                let key = format!("/api{path}{suffix}");
                assert!(paths.contains_key(&key), "{key}");
            }
            let params = paths[&format!("/api{path}")]["get"]["parameters"]
                .as_array()
                .unwrap();
            let names: Vec<&str> = params.iter().map(|p| p["name"].as_str().unwrap()).collect();
            for f in d.filters {
                assert!(
                    names.contains(&format!("filter[{f}]").as_str()),
                    "{} {f}",
                    d.table
                );
            }
            assert_eq!(names.contains(&"page[size]"), d.paginated, "{}", d.table);
        }
    }
    // The public URL, when there is one, and the rate limit's headers when it is on.
    let behind = serve(
        sample_db(),
        &[
            "--public-url",
            "https://traffic.example.org",
            "--rate-limit",
            "100",
        ],
    );
    let doc = description(&behind);
    assert_eq!(doc["servers"][0]["url"], "https://traffic.example.org");
    let ok = &doc["paths"]["/api/raw-counts"]["get"]["responses"]["200"]["headers"];
    assert!(
        ok["x-ratelimit-limit"].is_object() && ok["ETag"].is_object(),
        "{ok}"
    );
}

#[test]
fn the_description_is_valid_openapi() {
    let Some(validator) = tool("openapi-spec-validator") else {
        return;
    };
    let path = scratch_dir().join("openapi.json");
    std::fs::write(&path, get(sample_server(), "/api/openapi.json").body).unwrap();
    let out = Command::new(validator).arg(&path).output().unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Schemathesis with all its checks, but the rules the description cannot hold
/// ([`UNDESCRIBABLE_RULES`]), and with `more_config` (a `schemathesis.toml`'s text).
fn fuzz(server: &TestServer, seed: &str, more_config: &str) {
    fuzz_description(
        &server.url("/api/openapi.json"),
        seed,
        &format!("{UNDESCRIBABLE_RULES}{more_config}"),
        &[],
    );
}

/// On the sample, the coverage phase (the bounds and the wrong types of every parameter) runs
/// on every operation but the listings' other forms and aliases: those take their JSON
/// listing's parameters, read by the same code, and answer its tried values as it does
/// ([`every_other_form_and_alias_answers_tried_values_as_its_json_listing`]). That phase's
/// requests fell from 32,600 to 12,200 (212 s to 80 s of the fuzzer's CPU); its other phases
/// still run on every operation.
#[test]
fn the_fuzzer_finds_nothing_on_the_sample() {
    let server = sample_server();
    let paths: Vec<String> = (other_forms_and_aliases(&description(server)).into_iter())
        .map(|(path, _)| format!("{path:?}"))
        .collect();
    let coverage_off = format!(
        "\n[[operations]]\ninclude-path = [{}]\nphases.coverage.enabled = false\n",
        paths.join(", ")
    );
    fuzz(server, "9", &coverage_off);
}

/// The endings of a listing's operations at its path, each with the ending of the operation
/// in JSON that reads the same parameters.
const ENDINGS: [(&str, &str); 10] = [
    ("", ""),
    (".csv", ""),
    (".ndjson", ""),
    (".geojson", ""),
    (".parquet", ""),
    ("/summary", "/summary"),
    ("/summary.csv", "/summary"),
    ("/summary.ndjson", "/summary"),
    ("/facets", "/facets"),
    ("/revisions", "/revisions"),
];

/// Each operation of the description that is a listing's other form or alias, with the
/// operation in JSON at the dataset's own path that reads its parameters.
fn other_forms_and_aliases(doc: &serde_json::Value) -> Vec<(String, String)> {
    let paths = doc["paths"].as_object().unwrap().keys();
    paths
        .filter_map(|path| Some((path.clone(), json_listing_of(path)?)))
        .filter(|(path, listing)| path != listing)
        .collect()
}

/// The operation in JSON at its dataset's own path that reads the parameters of the listing
/// operation at `path` (itself, when it is that operation); `None` when `path` is no listing's.
fn json_listing_of(path: &str) -> Option<String> {
    let rest = path.strip_prefix("/api")?;
    let at_paths = roadtraffic_catalog::DATASETS
        .iter()
        .flat_map(|d| d.paths.iter().map(move |p| (d.paths[0], *p)));
    at_paths.into_iter().find_map(|(own, at)| {
        let ending = rest.strip_prefix(at)?;
        let (_, json) = ENDINGS.iter().find(|(e, _)| *e == ending)?;
        Some(format!("/api{own}{json}"))
    })
}

fn parameter_names<'a>(doc: &'a serde_json::Value, path: &str) -> Vec<&'a str> {
    let parameters = doc["paths"][path]["get"]["parameters"].as_array().unwrap();
    parameters
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect()
}

/// Values like those the coverage phase tries, most of them wrong for most parameters.
const TRIED_VALUES: [&str; 8] = [
    "",
    "x",
    "-1",
    "0",
    "1.5",
    "99999999999999999999",
    "%FF",
    "a,,b",
];

/// What the fuzzer's coverage phase leaves to this test on the sample: each other form and
/// alias of a listing takes only parameters of its JSON listing, and answers each with each
/// tried value as that listing does: the same status, and where it refuses, the same type
/// and words.
#[test]
fn every_other_form_and_alias_answers_tried_values_as_its_json_listing() {
    let server = sample_server();
    let doc = description(server);
    let pairs = other_forms_and_aliases(&doc);
    assert!(pairs.len() >= 50, "{pairs:?}");
    let mut listings = std::collections::HashMap::new();
    let mut refused = 0;
    for (path, listing) in &pairs {
        let listed = parameter_names(&doc, listing);
        for name in parameter_names(&doc, path) {
            assert!(listed.contains(&name), "{path}: {name} is not {listing}'s");
            let name = name.replace('[', "%5B").replace(']', "%5D");
            for value in TRIED_VALUES {
                let query = format!("?{name}={value}");
                let asked = get(server, &format!("{path}{query}"));
                let json = (listings.entry(format!("{listing}{query}")))
                    .or_insert_with_key(|target| get(server, target));
                assert_eq!(asked.status, json.status, "{path}{query}: {}", asked.text());
                if json.status != 200 {
                    refused += 1;
                    let content_type = |r: &Reply| r.header("content-type").map(str::to_owned);
                    assert_eq!(content_type(&asked), content_type(json), "{path}{query}");
                    assert_eq!(asked.text(), json.text(), "{path}{query}");
                }
            }
        }
    }
    assert!(refused > 1000, "{refused} refusals compared");
}

/// The real files' server is described exactly as the sample's (but its address), and the
/// coverage phase draws its 30,000 requests from the description alone: the same requests as
/// on the sample, 270 s of CI. Here the phases whose requests follow the data run: examples,
/// fuzzing (another seed) and stateful.
#[test]
fn the_fuzzer_finds_nothing_on_the_real_files() {
    let Some(db) = real_db() else { return };
    let (real, sample) = (serve(db, &[]), sample_server());
    assert_eq!(
        description_text(&real, "/api/openapi.json"),
        description_text(sample, "/api/openapi.json"),
        "coverage drawn from another text"
    );
    fuzz(&real, "10", NO_COVERAGE_PHASE);
}

#[test]
fn the_docs_page_describes_every_endpoint_with_examples_that_return_rows() {
    let server = sample_server();
    let page = get(server, "/docs");
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    assert!(!page
        .header("content-security-policy")
        .unwrap()
        .contains("script-src"));
    let html = page.text();
    for d in roadtraffic_catalog::DATASETS {
        assert!(
            html.contains(&format!("<code>/api{}</code>", d.paths[0])),
            "{}",
            d.table
        );
    }
    assert!(html.contains("vehicles on an average day") && html.contains("vehicle miles"));
    let examples: Vec<String> = html
        .split("Example (returns rows of this file): <a href=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].replace("&amp;", "&"))
        .collect();
    assert_eq!(examples.len(), roadtraffic_catalog::DATASETS.len());
    for example in examples {
        let body = get(server, &example).json();
        let rows = body.get("data").unwrap_or(&body).as_array().unwrap().len();
        assert!(rows > 0, "{example} returns no rows");
    }
    // The spatial examples too, one per dataset with places, each record with its distance.
    let near: Vec<String> = html
        .split("</code>, for example <a href=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].replace("&amp;", "&"))
        .collect();
    assert_eq!(near.len(), 4, "{near:?}");
    for example in near {
        let body = get(server, &example).json();
        let data = body["data"].as_array().unwrap();
        assert!(!data.is_empty(), "{example} returns no rows");
        assert!(
            data.iter().all(|r| r["distance_m"].is_number()),
            "{example}"
        );
    }
    // Where people look for it, and the API's own address in a browser.
    for (path, status) in [
        ("/api", 303),
        ("/api/", 303),
        ("/docs/index.html", 303),
        ("/api-documentation", 303),
    ] {
        let reply = raw_get(server, path.as_bytes());
        assert_eq!(reply.status, status, "{path}");
        assert_eq!(reply.header("location"), Some("/docs"), "{path}");
    }
}
