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

#[test]
fn the_fuzzer_finds_nothing_on_the_sample() {
    fuzz(sample_server(), "9", "");
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
        description_text(&real),
        description_text(sample),
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
