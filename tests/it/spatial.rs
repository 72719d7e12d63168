//! Where: `filter[bbox]`, `filter[near]` and GeoJSON against a brute-force reading of the
//! loaded rows (every row's own coordinates, read from SQLite without the spatial index), on
//! the sample and the real files, over HTTP.

use std::collections::HashSet;
use std::path::Path;

use proptest::test_runner::{Config, TestRunner};
use roadtraffic_server::spatial::grid::to_grid;
use serde_json::Value;

use crate::support::*;

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

/// A row's id and its own coordinates, as loaded.
#[derive(Debug, Clone)]
struct Place {
    id: i64,
    lon: Option<f64>,
    lat: Option<f64>,
    easting: Option<i64>,
    northing: Option<i64>,
}

/// Every row of a table with its coordinates (raw counts keep theirs in the runs).
fn places(db: &Path, table: &str) -> Vec<Place> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let sql = match table {
        "raw_counts" => "SELECT r.id, u.longitude, u.latitude, u.easting, u.northing FROM raw_counts r \
                         JOIN raw_counts_runs u ON r.id BETWEEN u.first_id AND u.last_id ORDER BY r.id"
            .to_string(),
        _ => format!("SELECT id, longitude, latitude, easting, northing FROM {table} ORDER BY id"),
    };
    let mut stmt = conn.prepare(&sql).unwrap();
    let decimal = |t: Option<String>| t.and_then(|t| t.trim().parse::<f64>().ok());
    let rows = stmt.query_map([], |r| {
        Ok(Place {
            id: r.get(0)?,
            lon: decimal(r.get(1)?),
            lat: decimal(r.get(2)?),
            easting: r.get(3)?,
            northing: r.get(4)?,
        })
    });
    rows.unwrap().collect::<Result<_, _>>().unwrap()
}

fn in_box(p: &Place, b: [f64; 4]) -> bool {
    match (p.lon, p.lat) {
        (Some(x), Some(y)) => b[0] <= x && x <= b[2] && b[1] <= y && y <= b[3],
        _ => false,
    }
}

/// Squared distance on the grid from a point, as the server computes it.
fn distance_squared(p: &Place, centre: (f64, f64)) -> Option<f64> {
    let (e, n) = (p.easting? as f64, p.northing? as f64);
    Some((e - centre.0) * (e - centre.0) + (n - centre.1) * (n - centre.1))
}

/// The ids (and distances) a listing's CSV form gives, in its order.
fn csv_ids(server: &TestServer, path: &str, filter: &str) -> Vec<(i64, Option<f64>)> {
    let reply = get(server, &format!("/api/{path}.csv?fields=id&{filter}"));
    assert_eq!(reply.status, 200, "{path}?{filter}: {}", reply.text());
    let text = reply.text();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let with_distance = header == "id,distance_m";
    assert!(header == "id" || with_distance, "{header}");
    lines
        .map(|l| {
            let mut cells = l.split(',');
            let id = cells.next().unwrap().parse().unwrap();
            (id, cells.next().map(|d| d.parse().unwrap()))
        })
        .collect()
}

/// The total the paginated listing reports for a filter.
fn total(server: &TestServer, path: &str, filter: &str) -> i64 {
    let reply = get(server, &format!("/api/{path}?page%5Bsize%5D=1&{filter}"));
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json()["total"].as_i64().unwrap()
}

fn bbox_filter(b: [f64; 4]) -> String {
    format!("filter%5Bbbox%5D={},{},{},{}", b[0], b[1], b[2], b[3])
}

/// A box's listing equals the rows whose own coordinates are inside it.
fn check_box(server: &TestServer, path: &str, rows: &[Place], b: [f64; 4]) {
    let expected: Vec<i64> = rows.iter().filter(|p| in_box(p, b)).map(|p| p.id).collect();
    let filter = bbox_filter(b);
    let got: Vec<i64> = csv_ids(server, path, &filter)
        .into_iter()
        .map(|r| r.0)
        .collect();
    assert_eq!(got, expected, "{path} {b:?}");
    assert_eq!(
        total(server, path, &filter),
        expected.len() as i64,
        "{path} {b:?}"
    );
    // A page deep in the listing: it is found from the runs the box keeps (raw counts).
    let page: Vec<i64> = (page_ids(server, path, &filter, 3, 2).into_iter())
        .map(|r| r.0)
        .collect();
    let expected_page: Vec<i64> = expected.iter().skip(3).take(3).copied().collect();
    assert_eq!(page, expected_page, "{path} {b:?}: page 2 of 3");
}

/// A radius's listing equals the rows within it, nearest first (ties by id), each with its
/// distance to the decimetre.
fn check_near(server: &TestServer, path: &str, rows: &[Place], lon: f64, lat: f64, r: f64) {
    let centre = to_grid(lon, lat);
    let centre = (centre.easting, centre.northing);
    let mut expected: Vec<(f64, i64)> = rows
        .iter()
        .filter_map(|p| Some((distance_squared(p, centre)?, p.id)))
        .filter(|(d, _)| *d <= r * r)
        .collect();
    expected.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let filter = format!("filter%5Bnear%5D={lon},{lat},{r}");
    let got = csv_ids(server, path, &filter);
    let ids: Vec<i64> = got.iter().map(|g| g.0).collect();
    let expected_ids: Vec<i64> = expected.iter().map(|e| e.1).collect();
    assert_eq!(ids, expected_ids, "{path} near {lon},{lat},{r}");
    for ((_, distance), (squared, id)) in got.iter().zip(&expected) {
        let metres = (squared.sqrt() * 10.0).round() / 10.0;
        assert_eq!(*distance, Some(metres), "{path} id {id}");
    }
    assert_eq!(total(server, path, &filter), expected.len() as i64);
    // A page deep in the listing: count points are found and paged otherwise than its CSV.
    let page = page_ids(server, path, &filter, 3, 2);
    let expected_page: Vec<(i64, Option<f64>)> = (got.iter().skip(3).take(3).copied()).collect();
    assert_eq!(
        page, expected_page,
        "{path} near {lon},{lat},{r}: page 2 of 3"
    );
}

/// The ids and distances of a page of a listing.
fn page_ids(
    server: &TestServer,
    path: &str,
    filter: &str,
    size: u32,
    number: u32,
) -> Vec<(i64, Option<f64>)> {
    let url = format!("/api/{path}?fields=id&page%5Bsize%5D={size}&page%5Bnumber%5D={number}");
    let reply = get(server, &format!("{url}&{filter}"));
    assert_eq!(reply.status, 200, "{}", reply.text());
    let records = reply.json()["data"].as_array().cloned().unwrap_or_default();
    (records.iter())
        .map(|r| (r["id"].as_i64().unwrap(), r["distance_m"].as_f64()))
        .collect()
}

/// Boxes and points that test the edges: around real points, touching them exactly, empty,
/// whole-country; radii from a metre to the cap.
fn check_random_areas(server: &TestServer, db: &Path, cases: u32) {
    for (path, table) in WITH_PLACES {
        let rows = places(db, table);
        let located: Vec<&Place> = rows.iter().filter(|p| p.lon.is_some()).collect();
        if located.is_empty() {
            // The real files have no AADF by direction.
            assert!(rows.is_empty(), "{table} has rows but no coordinates");
            continue;
        }
        let whole = [-9.01, 49.75, 2.01, 61.01];
        check_box(server, path, &rows, whole);
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        let n = located.len();
        let strategy = (
            0..n,
            0..n,
            0.0..0.4f64,
            0.0..0.4f64,
            0u8..4,
            1.0..100_000.0f64,
        );
        runner
            .run(&strategy, |(a, b, dx, dy, shape, radius)| {
                let (pa, pb) = (located[a], located[b]);
                let (xa, ya) = (pa.lon.unwrap(), pa.lat.unwrap());
                let (xb, yb) = (pb.lon.unwrap(), pb.lat.unwrap());
                let b = match shape {
                    // Spanned by two real points: both sit on its edges.
                    0 => [xa.min(xb), ya.min(yb), xa.max(xb), ya.max(yb)],
                    // One point, exactly: a box of no area.
                    1 => [xa, ya, xa, ya],
                    // Around a point.
                    2 => [xa - dx, ya - dy, xa + dx, ya + dy],
                    // Just beside a point: it is outside by the least amount there is.
                    _ => [xa.next_up(), ya, xa.next_up() + dx, ya + dy],
                };
                check_box(server, path, &rows, b);
                if (-9.01..=2.01).contains(&xa) && (49.75..=61.01).contains(&ya) {
                    check_near(server, path, &rows, xa, ya, radius.min(20_000.0));
                }
                Ok(())
            })
            .unwrap();
        check_near(server, path, &rows, -1.5, 53.0, 100_000.0);
    }
}

#[test]
fn boxes_and_radii_equal_a_brute_force_reading_of_the_sample() {
    check_random_areas(sample_server(), sample_db(), 24);
}

#[test]
fn boxes_and_radii_equal_a_brute_force_reading_of_the_real_files() {
    let Some(db) = real_db() else { return };
    let server = serve(db, &[]);
    check_random_areas(&server, db, 32);
}

/// A count point asked for by its own published longitude and latitude is the first answer,
/// under a metre away: the centre goes on the grid by OSTN15, as DfT made the count points
/// file's coordinates (its easting and northing are whole metres, and its longitude and
/// latitude are OSTN15's of them: all 3,630 within 0.5 m, where the Helmert put them 1.5 to
/// 2 m off). The count points that come from the AADF files of Peterborough and Leeds are the
/// exception: their longitude and latitude were made by the Helmert (within 0.25 m of
/// EPSG:1314's, 1.5 to 2.4 m from OSTN15's), so theirs is first but up to 2.5 m away. A sample
/// across the table; a point sharing its easting and northing with another is left out, as
/// either could be first (ties go by id).
#[test]
fn a_count_point_asked_for_by_its_own_place_is_first_within_a_metre() {
    let Some(db) = real_db() else { return };
    let server = serve(db, &[]);
    let rows = places(db, "count_points");
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT id FROM count_points WHERE region_id = 6")
        .unwrap();
    let from_the_count_points_file: HashSet<i64> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let alone = |p: &&Place| {
        let same = |q: &Place| (q.easting, q.northing) == (p.easting, p.northing);
        p.lon.is_some() && p.easting.is_some() && rows.iter().filter(|q| same(q)).count() == 1
    };
    let located: Vec<&Place> = rows.iter().filter(alone).collect();
    let (mut asked, mut farthest) = (0, 0.0_f64);
    for p in located.iter().step_by(located.len() / 80) {
        let (lon, lat) = (p.lon.unwrap(), p.lat.unwrap());
        let filter = format!("filter%5Bnear%5D={lon},{lat},50");
        let got = csv_ids(&server, "count-points", &filter);
        let (first, distance) = got[0];
        let distance = distance.unwrap();
        assert_eq!(first, p.id, "count point {} at {lon},{lat}: {got:?}", p.id);
        let within = match from_the_count_points_file.contains(&p.id) {
            true => 1.0,
            false => 2.5,
        };
        assert!(
            distance < within,
            "count point {} is {distance} m away",
            p.id
        );
        if within == 1.0 {
            asked += 1;
            farthest = farthest.max(distance);
        }
    }
    assert!(
        asked >= 50,
        "only {asked} of the count points file's were asked"
    );
    eprintln!("{asked} count points asked by their own place: the farthest {farthest} m away");
}

/// Off OSTN15's shifts, in the grid's area of use (the Atlantic west of St Kilda), the centre
/// goes on the grid by the Helmert and is answered, not refused: the rows within the radius
/// (none of the sample's, the nearest being hundreds of kilometres east). Far from Britain a
/// centre is refused (`malformed_areas_are_a_400_that_says_which_part`).
#[test]
fn a_centre_off_ostn15s_shifts_is_put_on_the_grid_by_the_helmert() {
    let server = sample_server();
    let rows = places(sample_db(), "count_points");
    check_near(server, "count-points", &rows, -9.0, 57.0, 100_000.0);
}

#[test]
fn spatial_filters_combine_with_filters_sort_fields_and_the_envelope() {
    let server = sample_server();
    let rows = places(sample_db(), "raw_counts");
    let first = rows.iter().find(|p| p.lon.is_some()).unwrap();
    let (lon, lat) = (first.lon.unwrap(), first.lat.unwrap());
    let b = [lon - 3.0, lat - 3.0, lon + 3.0, lat + 3.0];
    let reply = get(
        server,
        &format!("/api/raw-counts?{}&filter%5Bhour%5D=8&sort=-id&fields=id,hour&page%5Bsize%5D=2&page%5Bnumber%5D=2", bbox_filter(b)),
    );
    assert_eq!(reply.status, 200, "{}", reply.text());
    let page = reply.json();
    let expected: Vec<i64> = {
        let conn = rusqlite::Connection::open(sample_db()).unwrap();
        let hours: Vec<(i64, i64)> = conn
            .prepare("SELECT id, hour FROM raw_counts")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let mut ids: Vec<i64> = rows
            .iter()
            .filter(|p| in_box(p, b))
            .filter(|p| hours.iter().any(|(id, h)| *id == p.id && *h == 8))
            .map(|p| p.id)
            .collect();
        ids.reverse();
        ids
    };
    assert_eq!(page["total"], expected.len() as i64);
    let data: Vec<i64> = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(
                r.as_object().unwrap().keys().collect::<Vec<_>>(),
                ["id", "hour"]
            );
            r["id"].as_i64().unwrap()
        })
        .collect();
    assert_eq!(data, expected[2..4.min(expected.len())]);
    assert!(expected.len() > 4, "the sample has too few rows in the box");
    let next = page["next_page_url"].as_str().unwrap();
    assert!(next.contains("filter%5Bbbox%5D="), "{next}");
    assert!(next.contains("page%5Bnumber%5D=3"), "{next}");

    // near with a sort: the sort's order, and still each record's distance, last.
    let near = format!("filter%5Bnear%5D={lon},{lat},50000&sort=-id&fields=id,road_name");
    let page = get(server, &format!("/api/count-points?{near}")).json();
    let records = page["data"].as_array().unwrap();
    assert!(!records.is_empty());
    let ids: Vec<i64> = records.iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] > w[1]), "{ids:?}");
    for r in records {
        let keys: Vec<&String> = r.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["id", "road_name", "distance_m"]);
    }
    let ndjson = get(server, &format!("/api/count-points.ndjson?{near}")).text();
    for (line, record) in ndjson.lines().zip(records) {
        assert_eq!(serde_json::from_str::<Value>(line).unwrap(), *record);
    }
}

#[test]
fn malformed_areas_are_a_400_that_says_which_part() {
    let server = sample_server();
    let cases = [
        ("filter%5Bbbox%5D=1,2,3", "4 comma-separated"),
        ("filter%5Bbbox%5D=-2,x,-1,53", "`x` is not a number"),
        ("filter%5Bbbox%5D=-2,NaN,-1,53", "`NaN` is not a number"),
        ("filter%5Bbbox%5D=-2,inf,-1,53", "`inf` is not a number"),
        ("filter%5Bbbox%5D=-1,52,-2,53", "above the maximum"),
        ("filter%5Bbbox%5D=-2,53,-1,52", "above the maximum"),
        (
            "filter%5Bbbox%5D=10,40,11,41",
            "outside the British National Grid",
        ),
        ("filter%5Bbbox%5D=-2,52,-1,95", "latitude must be from"),
        ("filter%5Bnear%5D=-1.5,52.5", "3 comma-separated"),
        ("filter%5Bnear%5D=-1.5,52.5,0", "radius"),
        ("filter%5Bnear%5D=-1.5,52.5,100001", "at most 100000"),
        (
            "filter%5Bnear%5D=20,52.5,10",
            "outside the British National Grid",
        ),
        ("filter%5Bnear%5D%5Bx%5D=1", "single value"),
    ];
    for path in [
        "count-points",
        "raw-counts.csv",
        "average-annual-daily-flow.geojson",
    ] {
        for (query, says) in cases {
            let reply = get(server, &format!("/api/{path}?{query}"));
            assert_eq!(reply.status, 400, "{path}?{query}: {}", reply.text());
            let message = reply.json()["message"].as_str().unwrap().to_string();
            assert!(message.contains(says), "{path}?{query}: {message}");
        }
    }
    // A dataset without places has no such filter: the public service's message, unchanged.
    let reply = get(server, "/api/regions?filter%5Bbbox%5D=-2,52,-1,53");
    assert_eq!(reply.status, 400);
    assert_eq!(
        reply.json()["message"],
        "Requested filter(s) `bbox` are not allowed. Allowed filter(s) are `id, name`."
    );
    assert_eq!(get(server, "/api/regions.geojson").status, 404);
}

/// Every feature of a GeoJSON answer: RFC 7946's shape, and its record as the JSON API's.
fn check_features(features: &[Value], records: &[Value]) {
    assert_eq!(features.len(), records.len());
    for (f, r) in features.iter().zip(records) {
        let keys: Vec<&String> = f.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["type", "id", "geometry", "properties"]);
        assert_eq!(f["type"], "Feature");
        assert_eq!(f["id"], r["id"]);
        assert_eq!(f["properties"], *r);
        let lon: Option<f64> = r["longitude"].as_str().and_then(|t| t.parse().ok());
        let lat: Option<f64> = r["latitude"].as_str().and_then(|t| t.parse().ok());
        match (lon, lat) {
            (Some(lon), Some(lat)) => {
                assert_eq!(f["geometry"]["type"], "Point");
                let c = f["geometry"]["coordinates"].as_array().unwrap();
                // Rounded to 7 decimals: half a unit of the 7th at most (and a rounding error).
                assert!(
                    (c[0].as_f64().unwrap() - lon).abs() <= 0.501e-7,
                    "{c:?} {lon}"
                );
                assert!(
                    (c[1].as_f64().unwrap() - lat).abs() <= 0.501e-7,
                    "{c:?} {lat}"
                );
            }
            _ => assert_eq!(f["geometry"], Value::Null, "{f}"),
        }
    }
}

#[test]
fn geojson_is_the_records_as_rfc_7946_features() {
    let server = sample_server();
    for (path, _) in WITH_PLACES {
        let reply = get(server, &format!("/api/{path}.geojson"));
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("content-type"), Some("application/geo+json"));
        let text = reply.text();
        let collection: Value = reply.json();
        assert_eq!(
            collection.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["type", "features"]
        );
        assert!(!text.contains("\"crs\""));
        // At most 7 decimals in any coordinate.
        for c in text.split("\"coordinates\":[").skip(1) {
            let pair = &c[..c.find(']').unwrap()];
            for n in pair.split(',') {
                let decimals = n.split('.').nth(1).map_or(0, str::len);
                assert!(decimals <= 7, "{pair}");
            }
        }
        let records: Vec<Value> = get(server, &format!("/api/{path}.ndjson"))
            .text()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        check_features(collection["features"].as_array().unwrap(), &records);
    }
}

#[test]
fn a_paginated_listing_asked_for_geojson_is_a_feature_collection_page() {
    let server = sample_server();
    let target = "/api/average-annual-daily-flow-by-direction?page%5Bsize%5D=5&page%5Bnumber%5D=2&filter%5Bbbox%5D=-9,49.75,2,61";
    let json = get(server, target);
    assert_eq!(json.header("vary"), Some("Accept"));
    let page = json.json();
    let geo = request(server, "GET", target, &[("Accept", "application/geo+json")]);
    assert_eq!(geo.status, 200);
    assert_eq!(geo.header("content-type"), Some("application/geo+json"));
    assert_ne!(geo.header("etag"), json.header("etag"));
    let collection = geo.json();
    check_features(
        collection["features"].as_array().unwrap(),
        page["data"].as_array().unwrap(),
    );
    assert_eq!(collection["numberMatched"], page["total"]);
    assert_eq!(collection["numberReturned"], 5);
    let rels: Vec<&str> = collection["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["rel"].as_str().unwrap())
        .collect();
    assert_eq!(rels, ["self", "first", "prev", "next", "last"]);
    assert_eq!(collection["links"][3]["href"], page["next_page_url"]);
    // A browser's Accept, and JSON preferred over GeoJSON, get the envelope.
    for accept in [
        "text/html,application/xhtml+xml,*/*;q=0.8",
        "application/json, application/geo+json;q=0.5",
    ] {
        let reply = request(server, "GET", target, &[("Accept", accept)]);
        assert_eq!(reply.json(), page, "{accept}");
    }
}

#[test]
fn a_record_without_coordinates_is_a_feature_without_geometry_and_in_no_area() {
    let dir = scratch_dir();
    let sample = std::fs::read_to_string(repo_path("data/sample/count_points.csv")).unwrap();
    let mut lines: Vec<String> = sample.lines().map(str::to_string).collect();
    // The first count point (501) loses its easting, northing, latitude and longitude.
    lines[1] = lines[1].replace(",328570,187000,51.57731861,-3.03218424,", ",,,,,");
    std::fs::write(dir.join("count_points.csv"), lines.join("\n") + "\n").unwrap();
    let db = dir.join("nowhere.db");
    load_ok(&db, &["--quiet"], &[&dir.join("count_points.csv")]);
    let server = serve(&db, &[]);
    let collection = get(&server, "/api/count-points.geojson").json();
    let first = &collection["features"][0];
    assert_eq!(first["id"], 501);
    assert_eq!(first["geometry"], Value::Null);
    let ids = csv_ids(
        &server,
        "count-points",
        &bbox_filter([-9.01, 49.75, 2.01, 61.01]),
    );
    assert!(!ids.iter().any(|(id, _)| *id == 501));
    assert_eq!(ids.len(), sample_rows("count_points") as usize - 1);
    let near = csv_ids(&server, "count-points", "filter%5Bnear%5D=-3.03,51.57,1000");
    assert!(near.is_empty(), "{near:?}");
}
