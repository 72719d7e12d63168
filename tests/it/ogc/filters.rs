//! OGC API - Features Part 3 (issue 34): each collection's queryables and features' schema,
//! CQL2 filters on the items in both encodings (each checked against SQLite's own answer over
//! the loaded rows, on the sample and the real files), `sortby` and `properties`, the errors
//! as OGC's exceptions, and the real clients that send filters (GDAL through pyogrio, OWSLib).

use serde_json::{json, Value};

use roadtraffic_catalog::places::Places;

use super::{collections, document, ids, link, servers, sql_ids, BNG};
use crate::support::*;

/// The items of `id` a filter keeps, every page of them, in id order.
fn filtered(server: &TestServer, id: &str, filter: &str, lang: &str, extra: &str) -> Vec<i64> {
    let mut target = format!(
        "/ogcapi/collections/{id}/items?limit=10000&filter-lang={lang}&filter={}{extra}",
        encode(filter)
    );
    let mut out = Vec::new();
    loop {
        let page = document(server, &target);
        out.extend(ids(&page));
        match link(&page, "next") {
            Some(next) => target = next["href"].as_str().unwrap().to_string(),
            None => break,
        }
    }
    out.sort();
    out
}

fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The columns the cases name, of every row: a FROM clause (the run columns of raw counts are
/// in its runs table).
fn rows_of(places: &Places) -> String {
    let d = places.dataset;
    let columns: Vec<String> = [
        "road_name",
        "road_type",
        "easting",
        "northing",
        "latitude",
        "longitude",
    ]
    .iter()
    .map(|c| match d.run_columns.contains(c) {
        true => format!("p.{c}"),
        false => format!("r.{c}"),
    })
    .collect();
    format!(
        "(SELECT r.id, {} FROM {})",
        columns.join(", "),
        super::located(places)
    )
}

/// A box of about 10 km around the middle of the located rows: (minLon, minLat, maxLon,
/// maxLat).
fn middle_box(db: &std::path::Path, places: &Places) -> Option<[f64; 4]> {
    let table = rows_of(places);
    let sql = format!(
        "SELECT CAST(longitude AS REAL), CAST(latitude AS REAL) FROM {table} \
         WHERE longitude <> '' ORDER BY CAST(longitude AS REAL) LIMIT 1 OFFSET \
         (SELECT count(*) / 2 FROM {table} WHERE longitude <> '')"
    );
    let conn = rusqlite::Connection::open(db).unwrap();
    let middle = conn.query_row(&sql, [], |r| Ok((r.get::<_, f64>(0)?, r.get::<_, f64>(1)?)));
    let (lon, lat) = middle.ok()?;
    Some([lon - 0.07, lat - 0.045, lon + 0.07, lat + 0.045])
}

/// Cases of (CQL2 text, the same in CQL2 JSON, what SQLite keeps), on every collection.
fn cases(b: [f64; 4]) -> Vec<(String, Value, String)> {
    let [x0, y0, x1, y1] = b;
    let polygon = format!("POLYGON(({x0} {y0},{x1} {y0},{x1} {y1},{x0} {y1},{x0} {y0}))");
    let ring = json!([[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]);
    let lon = "CAST(NULLIF(longitude, '') AS REAL)";
    let lat = "CAST(NULLIF(latitude, '') AS REAL)";
    let p = |name: &str| json!({"property": name});
    vec![
        (
            "road_name LIKE 'A%' AND easting > 400000".into(),
            json!({"op": "and", "args": [{"op": "like", "args": [p("road_name"), "A%"]}, {"op": ">", "args": [p("easting"), 400000]}]}),
            "road_name GLOB 'A*' AND easting > 400000".into(),
        ),
        (
            "CASEI(road_type) = CASEI('major') OR road_name IS NULL".into(),
            json!({"op": "or", "args": [{"op": "=", "args": [{"op": "casei", "args": [p("road_type")]}, {"op": "casei", "args": ["major"]}]}, {"op": "isNull", "args": [p("road_name")]}]}),
            "lower(road_type) = 'major' OR road_name IS NULL".into(),
        ),
        (
            "road_type = 'major'".into(),
            json!({"op": "=", "args": [p("road_type"), "major"]}),
            "road_type = 'major' COLLATE BINARY".into(),
        ),
        (
            "latitude > 51.5 AND NOT longitude BETWEEN -0.2 AND 0.1".into(),
            json!({"op": "and", "args": [{"op": ">", "args": [p("latitude"), 51.5]}, {"op": "not", "args": [{"op": "between", "args": [p("longitude"), -0.2, 0.1]}]}]}),
            format!("{lat} > 51.5 AND NOT {lon} BETWEEN -0.2 AND 0.1"),
        ),
        (
            "easting / 1000 + northing / 1000 >= 700 AND easting % 2 = 0".into(),
            json!({"op": "and", "args": [{"op": ">=", "args": [{"op": "+", "args": [{"op": "/", "args": [p("easting"), 1000]}, {"op": "/", "args": [p("northing"), 1000]}]}, 700]}, {"op": "=", "args": [{"op": "%", "args": [p("easting"), 2]}, 0]}]}),
            "easting / 1000.0 + northing / 1000.0 >= 700 AND easting % 2 = 0".into(),
        ),
        (
            format!("S_INTERSECTS(geometry, {polygon})"),
            json!({"op": "s_intersects", "args": [p("geometry"), {"type": "Polygon", "coordinates": [ring]}]}),
            format!("{lon} BETWEEN {x0} AND {x1} AND {lat} BETWEEN {y0} AND {y1}"),
        ),
        (
            format!("S_DISJOINT(geometry, BBOX({x0},{y0},{x1},{y1})) AND road_name IN ('A1', 'M25', 'A406')"),
            json!({"op": "and", "args": [{"op": "s_disjoint", "args": [p("geometry"), {"bbox": [x0, y0, x1, y1]}]}, {"op": "in", "args": [p("road_name"), ["A1", "M25", "A406"]]}]}),
            format!("NOT ({lon} BETWEEN {x0} AND {x1} AND {lat} BETWEEN {y0} AND {y1}) AND road_name COLLATE BINARY IN ('A1', 'M25', 'A406')"),
        ),
    ]
}

#[test]
fn cql2_filters_on_the_items_find_the_rows_sqlite_finds() {
    for (server, db) in servers() {
        let mut selective = 0;
        for (id, places) in collections() {
            let table = rows_of(&places);
            let Some(middle) = middle_box(db, &places) else {
                continue;
            };
            for (text, json, sql) in cases(middle) {
                let expected = sql_ids(
                    db,
                    &format!("SELECT id FROM {table} WHERE {sql} ORDER BY id"),
                );
                let by_text = filtered(server, id, &text, "cql2-text", "");
                assert_eq!(by_text, expected, "{id}: {text}");
                let by_json = filtered(server, id, &json.to_string(), "cql2-json", "");
                assert_eq!(by_json, expected, "{id}: {json}");
                let all = sql_ids(db, &format!("SELECT id FROM {table}"));
                selective += usize::from(!expected.is_empty() && expected.len() < all.len());
            }
        }
        assert!(
            selective >= 8,
            "too few cases keep some rows but not all: {selective}"
        );
    }
}

#[test]
fn filter_crs_27700_relates_the_rows_own_easting_and_northing() {
    for (server, db) in servers() {
        for (id, places) in collections() {
            let table = rows_of(&places);
            let sql = format!("SELECT avg(easting), avg(northing) FROM {table}");
            let conn = rusqlite::Connection::open(db).unwrap();
            let middle = conn.query_row(&sql, [], |r| Ok((r.get(0)?, r.get(1)?)));
            let Ok((Some(e), Some(n))) = middle else {
                continue;
            };
            let (e, n): (f64, f64) = (e, n);
            let (e, n) = (e.round(), n.round());
            let (e0, n0, e1, n1) = (e - 8000.0, n - 8000.0, e + 8000.0, n + 8000.0);
            let filter = format!(
                "S_WITHIN(geometry, POLYGON(({e0} {n0},{e1} {n0},{e1} {n1},{e0} {n1},{e0} {n0})))"
            );
            let extra = format!("&filter-crs={}", encode(BNG));
            let got = filtered(server, id, &filter, "cql2-text", &extra);
            let inside = format!(
                "SELECT id FROM {table} WHERE easting > {e0} AND easting < {e1} \
                 AND northing > {n0} AND northing < {n1} ORDER BY id"
            );
            assert_eq!(got, sql_ids(db, &inside), "{id}: {filter}");
        }
    }
}

#[test]
fn each_collection_has_queryables_and_a_schema_linked_and_listed() {
    let server = sample_server();
    let definition = document(server, "/ogcapi/api");
    for (id, places) in collections() {
        let collection = document(server, &format!("/ogcapi/collections/{id}"));
        let queryables = link(
            &collection,
            "http://www.opengis.net/def/rel/ogc/1.0/queryables",
        )
        .expect("a link to the queryables");
        assert_eq!(queryables["type"], "application/schema+json");
        let reply = get(server, &format!("/ogcapi/collections/{id}/queryables"));
        assert_eq!(reply.status, 200);
        assert_eq!(
            reply.header("content-type"),
            Some("application/schema+json")
        );
        let schema = reply.json();
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["properties"]["geometry"]["format"], "geometry-point");
        let d = places.dataset;
        for c in d.stored_columns() {
            let property = &schema["properties"][c.name];
            assert!(property["type"].is_string(), "{id}.{}: {property}", c.name);
            assert_eq!(property["title"], c.name);
            let items = &definition["paths"][format!("/collections/{id}/items")]["get"];
            let named = items["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["name"] == c.name);
            assert!(named, "{id}: {} is no parameter of the items", c.name);
        }
        assert_eq!(schema["properties"]["latitude"]["type"], "number");
        // Also in the items' Link header, where a client asking with HEAD looks.
        let head = request(
            server,
            "HEAD",
            &format!("/ogcapi/collections/{id}/items"),
            &[],
        );
        let header = head.header("link").unwrap_or_default().to_string();
        let to_queryables = format!(
            "<{}>; rel=\"http://www.opengis.net/def/rel/ogc/1.0/queryables\"",
            server.url(&format!("/ogcapi/collections/{id}/queryables"))
        );
        assert!(header.contains(&to_queryables), "{id}: {header}");
        assert!(header.contains("rel=\"self\""), "{id}: {header}");
        let described = link(&collection, "describedby").expect("describedby");
        let features = document(server, described["href"].as_str().unwrap());
        assert_eq!(
            features["properties"]["properties"]["properties"]["latitude"]["type"],
            "number"
        );
    }
    let conformance = document(server, "/ogcapi/conformance");
    for class in [
        "ogcapi-features-3/1.0/conf/filter",
        "cql2/1.0/conf/spatial-functions",
        "cql2/1.0/conf/arithmetic",
    ] {
        let listed = conformance["conformsTo"].as_array().unwrap();
        assert!(
            listed.iter().any(|c| c.as_str().unwrap().ends_with(class)),
            "{class}"
        );
    }
}

#[test]
fn sortby_and_properties_shape_the_features() {
    let server = sample_server();
    let page = document(
        server,
        "/ogcapi/collections/average-annual-daily-flow/items?sortby=-year,count_point_id&properties=year,all_hgvs&limit=500",
    );
    let features = page["features"].as_array().unwrap();
    assert!(!features.is_empty());
    let mut last = (i64::MAX, i64::MIN);
    for f in features {
        let keys: Vec<&String> = f["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["year", "all_hgvs"]);
        assert!(f["geometry"].is_object() || f["geometry"].is_null());
        let year = f["properties"]["year"].as_i64().unwrap();
        assert!(year <= last.0, "years descend");
        last = (year, 0);
    }
    let next = link(&page, "next").map(|l| l["href"].as_str().unwrap().to_string());
    if let Some(next) = next {
        assert!(next.contains("sortby=-year%2Ccount_point_id"), "{next}");
    }
}

#[test]
fn bad_filters_are_400_exceptions_that_say_what_and_where() {
    let server = sample_server();
    let items = "/ogcapi/collections/raw-counts/items";
    let long = format!("road_name = '{}'", "x".repeat(17 * 1024));
    let deep = format!("{}year = 1{}", "(".repeat(2000), ")".repeat(2000));
    for (filter, needle) in [
        ("year >= ", "at character"),
        ("yeer = 1", "`yeer`"),
        ("year = 'x'", "`year`"),
        ("T_BEFORE(count_date, DATE('2020-01-01'))", "temporal"),
        ("ACCENTI(road_name) = 'x'", "ACCENTI"),
        ("A_CONTAINS(road_name, ('x'))", "array"),
        ("S_INTERSECTS(geometry, POINT(500 52))", "out of range"),
        ("year", "not true or false"),
        (long.as_str(), "bytes"),
        (deep.as_str(), "nested too deep"),
    ] {
        let reply = get(server, &format!("{items}?filter={}", encode(filter)));
        assert_eq!(reply.status, 400, "{filter:.60}: {}", reply.text());
        let body = reply.json();
        assert_eq!(body["code"], "InvalidParameterValue");
        let description = body["description"].as_str().unwrap();
        assert!(description.contains(needle), "{filter:.60}: {description}");
    }
    for query in [
        "sortby=nope",
        "properties=nope",
        "filter-lang=sql",
        "filter-crs=EPSG:4326",
    ] {
        let reply = get(server, &format!("{items}?filter=year%3D1&{query}"));
        assert_eq!(reply.status, 400, "{query}");
    }
}

/// pyogrio (GDAL 3.12) reads each collection with a `where`, which it hands to the server as
/// CQL2: the same features SQLite finds, typed (integers as integers, decimals as reals).
const PYOGRIO_WHERE: &str = r#"
import json, sys, pyogrio
url, layer, where = sys.argv[1], sys.argv[2], sys.argv[3]
df = pyogrio.read_dataframe(f"OAPIF:{url}", layer=layer, where=where, fid_as_index=True)
types = {c: str(t) for c, t in df.dtypes.items() if c != "geometry"}
print(json.dumps({"ids": sorted(int(i) for i in df.index), "types": types}))
"#;

#[test]
fn pyogrio_hands_its_where_to_the_server_and_types_every_field() {
    let Some(python) = python_with("pyogrio", "pip install pyogrio") else {
        return;
    };
    for (server, db) in servers() {
        for (id, places) in collections() {
            let table = rows_of(&places);
            let where_ = "road_name LIKE 'A%' AND easting > 400000";
            let out = super::clients::run(
                &python,
                &["-c", PYOGRIO_WHERE, &server.url("/ogcapi"), id, where_],
            );
            let got: Value = serde_json::from_str(&out).unwrap();
            let expected = sql_ids(db, &format!("SELECT id FROM {table} WHERE road_name GLOB 'A*' AND easting > 400000 ORDER BY id"));
            let got_ids: Vec<i64> = got["ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect();
            assert_eq!(got_ids, expected, "{id}");
            if !expected.is_empty() {
                assert_eq!(
                    got["types"]["latitude"], "float64",
                    "{id}: {}",
                    got["types"]
                );
                assert_eq!(got["types"]["easting"], "int32", "{id}: {}", got["types"]);
            }
        }
    }
}

/// OWSLib reads the queryables and asks for the items with a filter.
const OWSLIB_FILTER: &str = r#"
import json, sys
from owslib.ogcapi.features import Features
url, collection, filter = sys.argv[1], sys.argv[2], sys.argv[3]
w = Features(url)
queryables = w.collection_queryables(collection)
items = w.collection_items(collection, filter=filter, **{"filter-lang": "cql2-text"}, limit=10000)
print(json.dumps({"queryables": sorted(queryables["properties"]), "matched": items["numberMatched"]}))
"#;

#[test]
fn owslib_reads_the_queryables_and_filters_the_items() {
    let Some(python) = python_with("owslib", "pip install owslib") else {
        return;
    };
    let (server, db) = servers()[0];
    for (id, places) in collections() {
        let out = super::clients::run(
            &python,
            &[
                "-c",
                OWSLIB_FILTER,
                &server.url("/ogcapi/"),
                id,
                "easting > 400000",
            ],
        );
        let got: Value = serde_json::from_str(&out).unwrap();
        let table = places.dataset.table;
        let expected = sql_ids(
            db,
            &format!("SELECT id FROM {table} WHERE easting > 400000"),
        );
        assert_eq!(got["matched"], expected.len(), "{id}");
        assert!(got["queryables"]
            .as_array()
            .unwrap()
            .contains(&json!("geometry")));
    }
}
