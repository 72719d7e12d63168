//! What issue 34 completes of the features: a six-number `bbox` is the box of its four ground
//! numbers (Part 1, Requirement 23); the same question is the same bytes (so no `timeStamp`,
//! which would be the moment of the answer); the decimals the API's records carry as strings are numbers (GDAL types
//! them as reals), the API's own forms unchanged; and the features' page maps them, accessibly.

use std::process::Command;

use serde_json::Value;

use roadtraffic_catalog::Column;

use super::{collections, document, every_page, servers, BNG, BNG_ENCODED};
use crate::browser::{chromium, eval, watched_tab};
use crate::site::{assert_fits_the_screen, assert_no_errors_and_no_other_host, open, DESKTOP};
use crate::site_releases::{attribute_values, axe_source, axe_violations, PHONE};
use crate::support::*;

#[test]
fn six_numbers_are_the_box_of_their_four() {
    let boxes = [
        (
            "-3.2,51.4,-2.9,51.7",
            "-3.2,51.4,-1000,-2.9,51.7,8848.86",
            "",
        ),
        ("-6,50,2,56", "-6,50,0,2,56,0", ""),
        (
            "300000,150000,400000,250000",
            "300000,150000,-5.5,400000,250000,1e3",
            BNG_ENCODED,
        ),
    ];
    for (server, _) in servers() {
        for (id, _) in collections() {
            for (four, six, crs) in boxes {
                let target = |b: &str| {
                    let crs = match crs {
                        "" => String::new(),
                        crs => format!("&bbox-crs={crs}"),
                    };
                    format!("/ogcapi/collections/{id}/items?bbox={b}{crs}&limit=10000")
                };
                let (by_four, matched) = every_page(server, &target(four));
                let (by_six, matched_six) = every_page(server, &target(six));
                assert_eq!(by_six, by_four, "{id} {six}");
                assert_eq!(matched_six, matched, "{id} {six}");
            }
        }
    }
}

/// Asked again a second later, and with its parameters in another order and encoding: the same
/// bytes and tag. So no `timeStamp`: Part 1 makes it optional, and where given it is the time
/// the response was generated (Requirement 28), which would change with every answer.
#[test]
fn the_same_question_is_the_same_bytes_with_no_time_stamp() {
    let items = "/ogcapi/collections/raw-counts/items";
    let asked = [
        "limit=5&road_name=M4&bbox=-6,50,2,56",
        "bbox=-6%2C50%2C2%2C56&road_name=M4&limit=5",
        "bbox=-6,50,2,56&limit=5&road_name=M4&offset=",
    ]
    .map(|query| format!("{items}?{query}"));
    let server = sample_server();
    let first = get(server, &asked[0]);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    for target in &asked {
        let reply = get(server, target);
        assert_eq!(reply.body, first.body, "{target}");
        assert_eq!(reply.header("etag"), first.header("etag"), "{target}");
    }
    assert!(first.json().get("timeStamp").is_none(), "{}", first.text());
}

/// The columns the catalogue keeps as decimal text.
fn decimal_text(d: &roadtraffic_catalog::Dataset) -> Vec<&'static str> {
    let decimals = d.stored_columns().filter(|c| Column::is_decimal_text(c));
    decimals.map(|c| c.name).collect()
}

/// Each feature's properties are its API record, but each decimal kept as text a number (the
/// same number) or null where the record's is empty; the API's records and its GeoJSON keep
/// their strings.
#[test]
fn decimals_kept_as_text_are_numbers_in_features_only() {
    for (server, _) in servers() {
        for (id, places) in collections() {
            let d = places.dataset;
            let decimals = decimal_text(d);
            assert!(decimals.contains(&"latitude"), "{id}: {decimals:?}");
            let path = format!("/api{}?page%5Bsize%5D=100", d.paths[0]);
            let records = document(server, &path)["data"].clone();
            let geojson = request(server, "GET", &path, &[("Accept", "application/geo+json")]);
            let geojson = geojson.json();
            let features = document(server, &format!("/ogcapi/collections/{id}/items?limit=100"));
            let features = features["features"].as_array().unwrap();
            assert_eq!(features.len(), records.as_array().unwrap().len(), "{id}");
            let Some(first) = features.first() else {
                continue; // a file without the dataset (the real files may lack one)
            };
            for (i, feature) in features.iter().enumerate() {
                let (properties, record) = (&feature["properties"], &records[i]);
                assert_eq!(geojson["features"][i]["properties"], *record, "{id}");
                for (name, value) in record.as_object().unwrap() {
                    let property = &properties[name.as_str()];
                    if !decimals.contains(&name.as_str()) {
                        assert_eq!(property, value, "{id} {name}");
                        continue;
                    }
                    let text = value.as_str().unwrap_or_default();
                    match text.parse::<f64>() {
                        Ok(number) => assert_eq!(property.as_f64(), Some(number), "{id} {name}"),
                        Err(_) => assert!(property.is_null(), "{id} {name}: {property}"),
                    }
                }
            }
            let one = document(
                server,
                &format!("/ogcapi/collections/{id}/items/{}", first["id"]),
            );
            assert_eq!(one["properties"], first["properties"], "{id}");
        }
    }
}

/// GDAL, which types a field by the values it reads, types the decimals as reals.
#[test]
fn gdal_types_the_decimals_as_reals() {
    let Some(ogrinfo) = required_tool("ogrinfo", "gdal-bin") else {
        return;
    };
    let server = sample_server();
    let service = format!("OAPIF:{}", server.url("/ogcapi"));
    for (id, places) in collections() {
        let out = Command::new(&ogrinfo)
            .args(["-ro", "-so", &service, id])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{id}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for name in decimal_text(places.dataset) {
            assert!(
                text.contains(&format!("{name}: Real")),
                "{id} {name}:\n{text}"
            );
        }
        assert!(text.contains("road_name: String"), "{id}:\n{text}");
    }
}

/// The features' page draws each feature with a point on its map, at its point (on the grid,
/// converted), says what the map shows in words, and draws no map of no points.
#[test]
fn the_features_page_maps_its_points() {
    let server = sample_server();
    for (crs, query) in [("", String::new()), (BNG, format!("&crs={BNG_ENCODED}"))] {
        let items = format!("/ogcapi/collections/count-points/items?limit=50{query}");
        let page = get(server, &format!("{items}&f=html")).text();
        let plain = document(server, "/ogcapi/collections/count-points/items?limit=50");
        let with_points: Vec<&Value> = (plain["features"].as_array().unwrap().iter())
            .filter(|f| !f["geometry"].is_null())
            .collect();
        let map = &page[page.find("<div class=\"feature-map\">").expect("a map")..];
        let map = &map[..map.find("</svg>").unwrap()];
        assert!(map.contains("role=\"img\""), "{map}");
        assert!(map.contains("aria-labelledby=\"feature-map-title feature-map-desc\""));
        let described = format!(
            "{} of the {} features",
            with_points.len(),
            plain["numberReturned"]
        );
        assert!(map.contains(&described), "{crs}: {described}");
        let ids = attribute_values(map, "data-id");
        let lons = attribute_values(map, "data-lon");
        let lats = attribute_values(map, "data-lat");
        assert_eq!(ids.len(), with_points.len(), "{crs}");
        for (i, f) in with_points.iter().enumerate() {
            assert_eq!(ids[i], f["id"].to_string());
            let at = &f["geometry"]["coordinates"];
            let lon: f64 = lons[i].parse().unwrap();
            let lat: f64 = lats[i].parse().unwrap();
            assert!(
                (lon - at[0].as_f64().unwrap()).abs() < 1e-4,
                "{crs} {lon} {at}"
            );
            assert!(
                (lat - at[1].as_f64().unwrap()).abs() < 1e-4,
                "{crs} {lat} {at}"
            );
        }
    }
    let none = get(
        server,
        "/ogcapi/collections/count-points/items?bbox=10,40,11,41&f=html",
    );
    assert!(!none.text().contains("<svg"), "no points, no map");
}

/// OGC's pages in a browser: features (with their map), a feature, the landing page.
const PAGES: [&str; 4] = [
    "/ogcapi/collections/count-points/items?limit=20&f=html",
    "/ogcapi/collections/raw-counts/items?limit=5&road_name=M4&f=html",
    "/ogcapi/collections/count-points/items/501?f=html",
    "/ogcapi?f=html",
];

/// In Chromium: the features' page (with its map), a feature's and the landing page fit a
/// phone, ask nothing of another host, and axe-core finds nothing on them.
#[test]
fn the_features_pages_are_accessible_in_chromium() {
    let Some(browser) = chromium(DESKTOP.0, DESKTOP.1) else {
        return;
    };
    let (server, axe) = (sample_server(), axe_source());
    for (size, label) in [(DESKTOP, "desktop"), (PHONE, "phone")] {
        let w = watched_tab(&browser, size.0, size.1);
        for path in PAGES {
            open(&w, &server.url(path));
            if path.contains("/items?") {
                let drawn = eval(
                    &w.tab,
                    "document.querySelectorAll('.feature-map circle').length",
                );
                assert!(drawn.as_u64().unwrap() > 0, "{path}: no points drawn");
            }
            assert_fits_the_screen(&w.tab, &format!("{path} at {label}"));
            let found = (axe.as_deref()).map_or_else(Vec::new, |axe| axe_violations(&w, axe));
            assert_eq!(found, Vec::<String>::new(), "{path} at {label}: axe-core");
            assert_no_errors_and_no_other_host(&w, &server.url(""), &[]);
        }
    }
}
