//! The areas over HTTP (issue 35): `/api/areas` and its sets, areas and features, their 404s;
//! `filter[area]` on every listing with places, against GeoPandas' `sjoin` of the release's
//! count points with the same boundary file; tags that change when a set is replaced.

pub mod sets;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::support::*;
use sets::{boundaries, copy_with_sets};

/// The listings whose records have places, and their tables.
const WITH_PLACES: [(&str, &str); 4] = [
    ("average-annual-daily-flow", "aadf"),
    (
        "average-annual-daily-flow-by-direction",
        "aadf_by_direction",
    ),
    ("count-points", "count_points"),
    ("raw-counts", "raw_counts"),
];

/// Each area's count points as GeoPandas joins them (`lonlat` or `grid` coordinates).
fn sjoin(db: &Path, file: &Path, crs: &str) -> Option<BTreeMap<String, Vec<i64>>> {
    let python = python_with("geopandas, shapely", "pip install geopandas")?;
    let script = repo_path("tests/it/areas_api/sjoin.py");
    let out = Command::new(python)
        .arg(script)
        .args([db.as_os_str(), file.as_os_str()])
        .arg(crs)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// The ids of a table's rows whose count point is one of `count_points`, by plain SQL.
fn rows_of(db: &Path, table: &str, count_points: &BTreeSet<i64>) -> Vec<i64> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let sql = match table {
        "raw_counts" => "SELECT r.id, u.count_point_id FROM raw_counts r JOIN raw_counts_runs u \
                         ON r.id BETWEEN u.first_id AND u.last_id ORDER BY r.id"
            .to_string(),
        _ => format!("SELECT id, count_point_id FROM {table} ORDER BY id"),
    };
    let mut stmt = conn.prepare(&sql).unwrap();
    let rows = stmt.query_map([], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, Option<i64>>(1)?))
    });
    (rows.unwrap().map(Result::unwrap))
        .filter(|(_, cp)| cp.is_some_and(|cp| count_points.contains(&cp)))
        .map(|(id, _)| id)
        .collect()
}

/// The ids a listing's CSV gives.
fn csv_ids(server: &TestServer, path: &str, query: &str) -> Vec<i64> {
    let reply = get(server, &format!("/api/{path}.csv?fields=id&{query}"));
    assert_eq!(reply.status, 200, "{path}?{query}: {}", reply.text());
    let text = reply.text();
    text.lines().skip(1).map(|l| l.parse().unwrap()).collect()
}

/// The ids of every page of a paginated listing, page by page (size 40).
fn paged_ids(server: &TestServer, path: &str, query: &str) -> Vec<i64> {
    let mut ids = Vec::new();
    for number in 1.. {
        let url = format!("/api/{path}?fields=id&page%5Bsize%5D=40&page%5Bnumber%5D={number}");
        let reply = get(server, &format!("{url}&{query}"));
        assert_eq!(reply.status, 200, "{}", reply.text());
        let body = reply.json();
        let page: Vec<i64> = (body["data"].as_array().unwrap().iter())
            .map(|r| r["id"].as_i64().unwrap())
            .collect();
        if page.is_empty() {
            assert_eq!(body["total"].as_i64().unwrap(), ids.len() as i64);
            return ids;
        }
        ids.extend(page);
    }
    unreachable!()
}

fn sha256_of(file: &Path) -> String {
    let digest = Sha256::digest(std::fs::read(file).unwrap());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn the_sets_their_areas_and_features_are_served_with_404s_for_what_is_not_there() {
    let (Some(regions), Some(grid)) = (
        boundaries("regions.geojson"),
        boundaries("constituencies_2024_bng.geojson"),
    ) else {
        return;
    };
    let db = copy_with_sets(sample_db(), &[("regions", &regions), ("seats_grid", &grid)]);
    let Some(members) = sjoin(&db, &regions, "lonlat") else {
        return;
    };
    let server = serve(&db, &[]);

    let listed = get(&server, "/api/areas");
    assert_eq!(listed.status, 200);
    assert_eq!(listed.header("content-type"), Some("application/json"));
    let listed = listed.json();
    let regions_listed = (listed.as_array().unwrap().iter())
        .find(|s| s["set"] == "regions")
        .unwrap();
    let keys: Vec<&String> = regions_listed.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["set", "areas", "source", "sha256"]);
    assert_eq!(regions_listed["areas"], 11);
    assert_eq!(regions_listed["source"], "regions.geojson");
    assert_eq!(regions_listed["sha256"], sha256_of(&regions).as_str());

    // The areas in the envelope, in the file's order, each with its count points.
    let page = get(
        &server,
        "/api/areas/regions?page%5Bsize%5D=5&page%5Bnumber%5D=3",
    );
    assert_eq!(page.status, 200, "{}", page.text());
    let page = page.json();
    assert_eq!(
        (&page["current_page"], &page["total"], &page["per_page"]),
        (&Value::from(3), &Value::from(11), &Value::from(5))
    );
    assert_eq!(page["data"].as_array().unwrap().len(), 1);
    let all = get(&server, "/api/areas/regions").json();
    let records = all["data"].as_array().unwrap();
    assert_eq!(records.len(), 11);
    assert_eq!(page["data"][0], records[10]);
    for record in records {
        let keys: Vec<&String> = record.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["id", "name", "count_points", "bbox"]);
        let id = record["id"].as_str().unwrap();
        assert_eq!(record["count_points"], members[id].len(), "{id}");
        let bbox: Vec<f64> = serde_json::from_value(record["bbox"].clone()).unwrap();
        assert!(bbox[0] < bbox[2] && bbox[1] < bbox[3] && bbox[0] > -9.0 && bbox[3] < 61.0);
    }
    assert!(
        members.values().any(|m| !m.is_empty()),
        "some region holds the sample's count points"
    );

    // GeoJSON: every area a feature, its record its properties.
    let collection = get(&server, "/api/areas/regions.geojson");
    assert_eq!(collection.status, 200);
    assert_eq!(
        collection.header("content-type"),
        Some("application/geo+json")
    );
    let collection = collection.json();
    assert_eq!(collection["type"], "FeatureCollection");
    let features = collection["features"].as_array().unwrap();
    assert_eq!(features.len(), 11);
    for (feature, record) in features.iter().zip(records) {
        assert_eq!(&feature["properties"], record);
        assert_eq!(feature["id"], record["id"]);
        let kind = feature["geometry"]["type"].as_str().unwrap();
        assert!(kind == "Polygon" || kind == "MultiPolygon", "{kind}");
    }
    let id = records[0]["id"].as_str().unwrap();
    let one = get(&server, &format!("/api/areas/regions/{id}"));
    assert_eq!(one.status, 200);
    assert_eq!(one.json(), features[0]);

    // A grid set is written in lon/lat: its boundary and bbox near the lon/lat file's.
    let seat = get(&server, "/api/areas/seats_grid/E14001063").json();
    let bbox: Vec<f64> = serde_json::from_value(seat["properties"]["bbox"].clone()).unwrap();
    assert!(
        (-3.0..2.0).contains(&bbox[0]) && (50.0..56.0).contains(&bbox[1]),
        "{bbox:?}"
    );
    let ring = &seat["geometry"]["coordinates"];
    let first = if seat["geometry"]["type"] == "Polygon" {
        &ring[0][0]
    } else {
        &ring[0][0][0]
    };
    let lon = first[0].as_f64().unwrap();
    assert!(bbox[0] <= lon && lon <= bbox[2], "{first} in {bbox:?}");

    // 404s: the API's JSON, for an unknown set or area.
    for path in [
        "/api/areas/nowhere",
        "/api/areas/nowhere.geojson",
        "/api/areas/regions/E99999999",
        "/api/areas/nowhere/E12000001",
    ] {
        let reply = get(&server, path);
        assert_eq!(reply.status, 404, "{path}");
        let message = reply.json()["message"].as_str().unwrap().to_string();
        assert!(message.contains("could not be found"), "{path}: {message}");
    }
}

#[test]
fn filter_area_keeps_the_rows_of_the_count_points_geopandas_puts_in_the_areas() {
    let (Some(regions), Some(grid)) = (
        boundaries("regions.geojson"),
        boundaries("constituencies_2024_bng.geojson"),
    ) else {
        return;
    };
    let db = copy_with_sets(sample_db(), &[("regions", &regions), ("seats_grid", &grid)]);
    let (Some(by_region), Some(by_seat)) =
        (sjoin(&db, &regions, "lonlat"), sjoin(&db, &grid, "grid"))
    else {
        return;
    };
    let server = serve(&db, &[]);
    let mut checked = 0;
    for (set, members) in [("regions", &by_region), ("seats_grid", &by_seat)] {
        let held: Vec<(&String, &Vec<i64>)> =
            members.iter().filter(|(_, m)| !m.is_empty()).collect();
        // Each area that holds count points alone, two together, and one that holds none.
        let mut asks: Vec<Vec<&String>> = held.iter().map(|(id, _)| vec![*id]).collect();
        if held.len() > 1 {
            asks.push(vec![held[0].0, held[1].0]);
        }
        asks.extend(
            members
                .iter()
                .find(|(_, m)| m.is_empty())
                .map(|(id, _)| vec![id]),
        );
        for ids in asks {
            let count_points: BTreeSet<i64> = ids
                .iter()
                .flat_map(|id| members[*id].iter().copied())
                .collect();
            let names: Vec<&str> = ids.iter().map(|s| s.as_str()).collect();
            let query = format!("filter%5Barea%5D={set}:{}", names.join(","));
            for (path, table) in WITH_PLACES {
                let expected = rows_of(&db, table, &count_points);
                assert_eq!(csv_ids(&server, path, &query), expected, "{path}?{query}");
                assert_eq!(paged_ids(&server, path, &query), expected, "{path}?{query}");
                checked += expected.len();
            }
        }
    }
    assert!(checked > 0, "some rows are in some area");
}

#[test]
fn filter_area_combines_with_other_filters_and_forms_and_names_what_is_unknown() {
    let Some(regions) = boundaries("regions.geojson") else {
        return;
    };
    let db = copy_with_sets(sample_db(), &[("regions", &regions)]);
    let Some(members) = sjoin(&db, &regions, "lonlat") else {
        return;
    };
    let server = serve(&db, &[]);
    let (id, held) = members.iter().max_by_key(|(_, m)| m.len()).unwrap();
    let count_points: BTreeSet<i64> = held.iter().copied().collect();
    let area = format!("filter%5Barea%5D=regions:{id}");
    let all = rows_of(&db, "aadf", &count_points);
    assert!(!all.is_empty());
    let path = "average-annual-daily-flow";

    // With a column filter, a CQL2 filter and a box: the rows both keep.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let year: i64 = conn
        .query_row(
            &format!("SELECT year FROM aadf WHERE id = {}", all[0]),
            [],
            |r| r.get(0),
        )
        .unwrap();
    let of_year: BTreeSet<i64> = (conn
        .prepare(&format!("SELECT id FROM aadf WHERE year = {year}")))
    .unwrap()
    .query_map([], |r| r.get(0))
    .unwrap()
    .map(Result::unwrap)
    .collect();
    let both: Vec<i64> = all
        .iter()
        .copied()
        .filter(|i| of_year.contains(i))
        .collect();
    assert_eq!(
        csv_ids(&server, path, &format!("{area}&filter%5Byear%5D={year}")),
        both
    );
    let cql2 = format!("filter=year%3D{year}&filter-lang=cql2-text");
    let with_cql2 = get(&server, &format!("/api/{path}.csv?fields=id&{cql2}&{area}"));
    assert_eq!(
        with_cql2.status, 400,
        "filter= and filter[...] are not mixed"
    );
    let world = "filter%5Bbbox%5D=-180,-90,180,90";
    assert_eq!(csv_ids(&server, path, &format!("{area}&{world}")), all);

    // Every form: NDJSON, GeoJSON, the envelope and its features, the legacy envelope.
    let ndjson = get(&server, &format!("/api/{path}.ndjson?{area}")).text();
    assert_eq!(ndjson.lines().count(), all.len());
    let geojson = get(&server, &format!("/api/{path}.geojson?{area}")).json();
    assert_eq!(geojson["features"].as_array().unwrap().len(), all.len());
    let page = get(&server, &format!("/api/{path}?{area}")).json();
    assert_eq!(page["total"], all.len());
    let features = request(
        &server,
        "GET",
        &format!("/api/{path}?{area}"),
        &[("accept", "application/geo+json")],
    );
    assert_eq!(
        features.json()["features"].as_array().unwrap().len(),
        all.len()
    );

    // Facets and summaries under it.
    let facets = get(&server, &format!("/api/{path}/facets?facet=year&{area}")).json();
    let counted: i64 = (facets["facets"]["year"]["values"]
        .as_array()
        .unwrap()
        .iter())
    .map(|v| v["count"].as_i64().unwrap())
    .sum();
    assert_eq!(counted, all.len() as i64, "{facets}");
    let summary = get(&server, &format!("/api/{path}/summary?{area}")).json();
    assert_eq!(summary[0]["count"], all.len(), "{summary}");

    // Unknown sets and ids: a 400 that names them; a malformed value, one that shows the form.
    for (query, names) in [
        ("filter%5Barea%5D=nowhere:E1", "`nowhere`"),
        ("filter%5Barea%5D=regions:E99,E98", "`E99, E98`"),
        ("filter%5Barea%5D=regions", "a colon"),
    ] {
        let reply = get(&server, &format!("/api/{path}?{query}"));
        assert_eq!(reply.status, 400, "{query}");
        let message = reply.json()["message"].as_str().unwrap().to_string();
        assert!(message.contains(names), "{query}: {message}");
    }
    // Not on a listing without places.
    let regions_listing = get(&server, "/api/regions?filter%5Barea%5D=regions:E12000001");
    assert_eq!(regions_listing.status, 400);
}

#[test]
fn a_replaced_set_changes_the_tags_of_its_answers() {
    let Some(regions) = boundaries("regions.geojson") else {
        return;
    };
    let served = copy_with_sets(sample_db(), &[("places", &regions)]);
    let server = serve(&served, &[]);
    let id = get(&server, "/api/areas/places").json()["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let paths = [
        "/api/areas".to_string(),
        "/api/areas/places".to_string(),
        "/api/areas/places.geojson".to_string(),
        format!("/api/areas/places/{id}"),
        format!("/api/average-annual-daily-flow?filter%5Barea%5D=places:{id}"),
    ];
    let tags = |server: &TestServer| -> Vec<String> {
        (paths.iter())
            .map(|p| {
                let reply = get(server, p);
                assert_eq!(reply.status, 200, "{p}: {}", reply.text());
                reply.header("etag").unwrap().to_string()
            })
            .collect()
    };
    let before = tags(&server);
    // The same tag while nothing changes; a 304 for it.
    assert_eq!(tags(&server), before);
    let held = request(&server, "GET", &paths[1], &[("if-none-match", &before[1])]);
    assert_eq!(held.status, 304);

    // The set replaced under the same name by another file (the regions less the last one:
    // the same ids asked, another SHA-256), renamed in as the loader does.
    let mut fewer: Value = serde_json::from_slice(&std::fs::read(&regions).unwrap()).unwrap();
    fewer["features"].as_array_mut().unwrap().pop();
    let fewer_file = scratch_dir().join("regions.geojson");
    std::fs::write(&fewer_file, serde_json::to_vec(&fewer).unwrap()).unwrap();
    let replaced = copy_with_sets(sample_db(), &[("places", &fewer_file)]);
    std::fs::rename(&replaced, &served).unwrap();
    wait_for("the replaced file served", || {
        let sets = get(&server, "/api/areas").json();
        let places = sets
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["set"] == "places");
        places.unwrap()["sha256"] != sha256_of(&regions).as_str()
    });
    let after = tags(&server);
    for ((path, a), b) in paths.iter().zip(&after).zip(&before) {
        assert_ne!(a, b, "{path}");
    }
}

/// A summary's rows as (area, area_name, year, count, sum) from its JSON.
fn summary_rows(server: &TestServer, query: &str) -> BTreeSet<(String, String, i64, i64, i64)> {
    let path = format!("/api/average-annual-daily-flow/summary?{query}");
    let reply = get(server, &path);
    assert_eq!(reply.status, 200, "{path}: {}", reply.text());
    let body = reply.json();
    let rows = body.as_array().unwrap_or_else(|| panic!("{body}"));
    (rows.iter())
        .map(|r| {
            (
                r["area"].as_str().unwrap().to_string(),
                r["area_name"].as_str().unwrap().to_string(),
                r["year"].as_i64().unwrap(),
                r["count"].as_i64().unwrap(),
                r["sum_all_motor_vehicles"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn summaries_and_facets_by_area_equal_a_group_by_over_geopandas_join() {
    let Some(regions) = boundaries("regions.geojson") else {
        return;
    };
    let db = copy_with_sets(sample_db(), &[("regions", &regions)]);
    let Some(members) = sjoin(&db, &regions, "lonlat") else {
        return;
    };
    let server = serve(&db, &[]);

    // Independently: the pairs GeoPandas found, joined to the rows by SQLite.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute(
        "CREATE TEMP TABLE pairs (area TEXT, count_point_id INTEGER)",
        [],
    )
    .unwrap();
    for (area, cps) in &members {
        for cp in cps {
            conn.execute(
                "INSERT INTO pairs VALUES (?1, ?2)",
                rusqlite::params![area, cp],
            )
            .unwrap();
        }
    }
    let names: BTreeMap<String, String> = (get(&server, "/api/areas/regions").json()["data"]
        .as_array()
        .unwrap()
        .iter())
    .map(|r| {
        (
            r["id"].as_str().unwrap().into(),
            r["name"].as_str().unwrap().into(),
        )
    })
    .collect();
    let mut stmt = conn
        .prepare(
            "SELECT p.area, r.year, count(*), sum(r.all_motor_vehicles) FROM aadf r \
             JOIN pairs p ON p.count_point_id = r.count_point_id GROUP BY p.area, r.year",
        )
        .unwrap();
    let expected: BTreeSet<(String, String, i64, i64, i64)> = stmt
        .query_map([], |r| {
            let area: String = r.get(0)?;
            Ok((
                area.clone(),
                names[&area].clone(),
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(!expected.is_empty());

    // The totals by area (the latest file's table), and the rows joined (a CQL2 filter that
    // keeps every row sends the question to the rows): the same answer.
    let by = "group_by=area:regions,year&sum=all_motor_vehicles";
    assert_eq!(summary_rows(&server, by), expected);
    let cql2 = "filter=count_point_id%20%3E%200&filter-lang=cql2-text";
    assert_eq!(summary_rows(&server, &format!("{by}&{cql2}")), expected);

    // Under filter[area] of the same set, and a year: the rows of those areas only.
    let (area, _) = members.iter().find(|(_, m)| !m.is_empty()).unwrap();
    let year = expected.iter().find(|r| &r.0 == area).unwrap().2;
    let of_area: BTreeSet<_> = (expected.iter())
        .filter(|r| &r.0 == area && r.2 == year)
        .cloned()
        .collect();
    let filtered = format!("{by}&filter%5Barea%5D=regions:{area}&filter%5Byear%5D={year}");
    assert_eq!(summary_rows(&server, &filtered), of_area);

    // The facet: records per area, the name beside the id.
    let facets = get(
        &server,
        "/api/average-annual-daily-flow/facets?facet=area:regions",
    )
    .json();
    let values = facets["facets"]["area"]["values"].as_array().unwrap();
    let mut per_area: BTreeMap<String, i64> = BTreeMap::new();
    for (area, _, _, count, _) in &expected {
        *per_area.entry(area.clone()).or_default() += count;
    }
    assert_eq!(values.len(), per_area.len(), "{facets}");
    for v in values {
        let id = v["value"].as_str().unwrap();
        assert_eq!(v["count"].as_i64().unwrap(), per_area[id], "{id}");
        assert_eq!(v["area_name"], names[id].as_str());
    }

    // One set per question; an unknown set is a 400 naming it.
    for (query, names) in [
        ("group_by=area:regions,area:other", "more than one area set"),
        ("group_by=area:nowhere", "`nowhere`"),
    ] {
        let reply = get(
            &server,
            &format!("/api/average-annual-daily-flow/summary?{query}"),
        );
        assert_eq!(reply.status, 400, "{query}");
        assert!(reply.text().contains(names), "{query}: {}", reply.text());
    }
}
