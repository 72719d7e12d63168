//! The area sets as OGC collections (issue 35, item 4): `areas-{set}` listed among the
//! collections and in the definition, its features MultiPolygons in lon/lat with `id`, `name`,
//! `count_points` and the latest year's `vehicle_km`, paged with `limit` and `offset`, kept by
//! `bbox` (in WGS 84 and on the grid), in JSON and as pages, under a named release too; read by
//! GDAL (`ogrinfo`, `ogr2ogr`), by pyogrio (GDAL 3.12) and by OWSLib. The figures are checked
//! against the sample's CSV multiplied out by hand (`site_areas`).

use serde_json::Value;

use super::clients::run;
use super::BNG_ENCODED;
use crate::site_areas::{vehicle_km_by_point, zones_server, MEMBERS};
use crate::support::*;

const ITEMS: &str = "/ogcapi/collections/areas-zones/items";

/// An area's expected properties: its id, count points, vehicle-km of the latest year.
type Expected = (&'static str, usize, Option<f64>);

/// The latest year, and each area's expected properties.
fn expected() -> (i64, Vec<Expected>) {
    let by_point = vehicle_km_by_point();
    let latest = *by_point.keys().map(|(_, y)| y).max().unwrap();
    let areas = MEMBERS
        .iter()
        .map(|(id, members)| {
            let km: Vec<i64> = (members.iter())
                .filter_map(|cp| by_point.get(&(*cp, latest)).copied())
                .collect();
            let km = (!km.is_empty()).then(|| km.iter().sum::<i64>() as f64 / 1000.0);
            (*id, members.len(), km)
        })
        .collect();
    (latest, areas)
}

fn ids(doc: &Value) -> Vec<String> {
    (doc["features"].as_array().unwrap().iter())
        .map(|f| f["id"].as_str().unwrap().to_string())
        .collect()
}

fn link<'a>(doc: &'a Value, rel: &str) -> Option<&'a str> {
    (doc["links"].as_array().unwrap().iter())
        .find(|l| l["rel"] == rel)
        .map(|l| l["href"].as_str().unwrap())
}

#[test]
fn an_area_set_is_a_collection_of_polygons_with_their_figures() {
    let server = zones_server();
    let collections = get(server, "/ogcapi/collections").json();
    let listed: Vec<&str> = (collections["collections"].as_array().unwrap().iter())
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(listed.contains(&"areas-zones"), "{listed:?}");
    let collection = get(server, "/ogcapi/collections/areas-zones").json();
    assert_eq!(
        collection["extent"]["spatial"]["bbox"][0],
        serde_json::json!([-4.3, 51.4, 0.0, 56.2])
    );
    let items = get(server, ITEMS);
    assert_eq!(items.header("content-type"), Some("application/geo+json"));
    let items = items.json();
    assert_eq!(items["numberMatched"], 4);
    let (latest, areas) = expected();
    for (f, (id, count, km)) in items["features"].as_array().unwrap().iter().zip(&areas) {
        assert_eq!(f["id"], *id);
        assert_eq!(f["geometry"]["type"], "MultiPolygon");
        let p = &f["properties"];
        assert_eq!(
            (p["id"].as_str(), p["count_points"].as_u64()),
            (Some(*id), Some(*count as u64))
        );
        assert_eq!(p["vehicle_km"].as_f64(), *km, "{id}");
        assert_eq!(p["year"], latest);
        // The count points are the API's.
        let api = get(
            server,
            &format!("/api/areas/zones/{}", id.replace(' ', "%20")),
        )
        .json();
        assert_eq!(api["properties"]["count_points"], *count);
    }
    // The vehicle-km are the API's summary by area of the latest year.
    let summary = get(
        server,
        &format!("/api/average-annual-daily-flow/summary?group_by=area:zones&sum=vehicle_km&filter%5Byear%5D={latest}"),
    )
    .json();
    for row in summary.as_array().unwrap() {
        let f = (items["features"].as_array().unwrap().iter())
            .find(|f| f["id"] == row["area"])
            .unwrap();
        let api = row["sum_vehicle_km"].to_string().parse::<f64>().ok();
        assert_eq!(f["properties"]["vehicle_km"].as_f64(), api, "{row}");
    }
    // The hole of the London area is kept.
    let london = get(server, &format!("{ITEMS}/L%202")).json();
    assert_eq!(
        london["geometry"]["coordinates"][0]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        link(&london, "collection").map(|l| l.ends_with("/areas-zones")),
        Some(true)
    );
    // A window, and the next and previous ones.
    let window = get(server, &format!("{ITEMS}?limit=2&offset=1")).json();
    assert_eq!(
        (ids(&window), window["numberReturned"].clone()),
        (vec!["L 2".to_string(), "S3".into()], Value::from(2))
    );
    assert!(link(&window, "next").unwrap().contains("offset=3"));
    assert!(link(&window, "prev").unwrap().contains("offset=0"));
    // Boxes: the areas whose extent meets them, in WGS 84 and on the grid.
    let london_box = get(server, &format!("{ITEMS}?bbox=-0.3,51.4,-0.1,51.5")).json();
    assert_eq!(ids(&london_box), ["L 2"]);
    let newport = get(
        server,
        &format!("{ITEMS}?bbox=328000,186000,329000,188000&bbox-crs={BNG_ENCODED}"),
    )
    .json();
    assert_eq!(ids(&newport), ["W1"]);
    assert_eq!(
        get(server, &format!("{ITEMS}?bbox=1,50,1.5,50.5")).json()["numberMatched"],
        0
    );
    // Errors.
    for (path, status) in [
        (format!("{ITEMS}/nope"), 404),
        ("/ogcapi/collections/areas-nope".to_string(), 404),
        ("/ogcapi/collections/areas-nope/items".to_string(), 404),
        (format!("{ITEMS}?road_name=M4"), 400),
        (format!("{ITEMS}?limit=0"), 400),
        (format!("{ITEMS}?crs={BNG_ENCODED}"), 400),
    ] {
        assert_eq!(get(server, &path).status, status, "{path}");
    }
}

#[test]
fn its_pages_definition_queryables_and_a_named_releases_links() {
    let server = zones_server();
    let page = get(server, &format!("{ITEMS}?f=html")).text();
    for name in [
        "South Wales",
        "Lambeth &amp; Haringey",
        "Central Scotland",
        "Nowhere",
    ] {
        assert!(page.contains(name), "{name}");
    }
    assert!(page.contains("/areas-zones/items/L%202?f=html"));
    let one = get(server, &format!("{ITEMS}/L%202?f=html"));
    assert_eq!(one.status, 200);
    assert!(one.text().contains("Lambeth &amp; Haringey"));
    let definition = get(server, "/ogcapi/api").json();
    for path in ["", "/items", "/items/{featureId}", "/queryables", "/schema"] {
        let path = format!("/collections/areas-zones{path}");
        assert!(definition["paths"].get(&path).is_some(), "{path}");
    }
    let queryables = get(server, "/ogcapi/collections/areas-zones/queryables").json();
    let names: Vec<&String> = queryables["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        names,
        [
            "id",
            "name",
            "count_points",
            "vehicle_km",
            "year",
            "geometry"
        ]
    );
    let schema = get(server, "/ogcapi/collections/areas-zones/schema").json();
    assert_eq!(
        schema["properties"]["properties"]["properties"]["vehicle_km"]["type"],
        "number"
    );
    // Under a named release, every link stays in it.
    let named = get(server, &format!("/releases/2024{ITEMS}?limit=1")).json();
    assert_eq!(named["numberReturned"], 1);
    for l in named["links"].as_array().unwrap() {
        let href = l["href"].as_str().unwrap();
        assert!(
            href.starts_with(&server.url("/releases/2024/ogcapi/")),
            "{href}"
        );
    }
}

#[test]
fn gdal_pyogrio_and_owslib_read_the_area_collection() {
    let server = zones_server();
    let url = format!("OAPIF:{}", server.url("/ogcapi"));
    let (latest, areas) = expected();
    if let Some(ogrinfo) = required_tool("ogrinfo", "gdal-bin") {
        let summary = run(&ogrinfo, &["-ro", "-so", &url, "areas-zones"]);
        for line in [
            "Geometry: Multi Polygon",
            "Feature Count: 4",
            "count_points: Integer",
            "vehicle_km: Real",
            "year: Integer",
        ] {
            assert!(summary.contains(line), "{line}: {summary}");
        }
        let out = scratch_dir().join("zones.csv");
        let ogr2ogr = required_tool("ogr2ogr", "gdal-bin").unwrap();
        let csv = out.display().to_string();
        run(
            &ogr2ogr,
            &[
                "-f",
                "CSV",
                &csv,
                &url,
                "areas-zones",
                "-spat",
                "-4.5",
                "51",
                "-2.5",
                "52",
            ],
        );
        let mut rows = csv::Reader::from_path(&out).unwrap();
        let rows: Vec<Vec<String>> = (rows.records())
            .map(|r| r.unwrap().iter().map(str::to_string).collect())
            .collect();
        let (_, count, km) = areas[0];
        let wales = [
            "W1".to_string(),
            "South Wales".into(),
            count.to_string(),
            km.unwrap().to_string(),
            latest.to_string(),
        ];
        assert_eq!(rows, [wales], "the areas in the box");
    }
    let script = r#"
import json, sys, pyogrio
df = pyogrio.read_dataframe("OAPIF:" + sys.argv[1], layer="areas-zones")
print(json.dumps({"ids": list(df["id"]), "types": sorted(set(df.geometry.geom_type)),
                  "km": [None if v != v else v for v in df["vehicle_km"]],
                  "years": sorted(set(int(y) for y in df["year"]))}))
"#;
    if let Some(python) = python_with("pyogrio, geopandas", "pip install pyogrio geopandas") {
        let got: Value =
            serde_json::from_str(&run(&python, &["-c", script, &server.url("/ogcapi")])).unwrap();
        let ids: Vec<&str> = areas.iter().map(|a| a.0).collect();
        assert_eq!(got["ids"], serde_json::json!(ids));
        assert_eq!(got["types"], serde_json::json!(["MultiPolygon"]));
        let km: Vec<Option<f64>> = areas.iter().map(|a| a.2).collect();
        assert_eq!(got["km"], serde_json::json!(km));
        assert_eq!(got["years"], serde_json::json!([latest]));
    }
    let owslib = r#"
import json, sys
from owslib.ogcapi.features import Features
api = Features(sys.argv[1])
items = api.collection_items("areas-zones", limit=3, offset=1)
print(json.dumps({"collections": api.feature_collections(),
                  "ids": [f["id"] for f in items["features"]]}))
"#;
    if let Some(python) = python_with("owslib", "pip install owslib") {
        let got: Value =
            serde_json::from_str(&run(&python, &["-c", owslib, &server.url("/ogcapi/")])).unwrap();
        assert!(got["collections"]
            .as_array()
            .unwrap()
            .contains(&Value::from("areas-zones")));
        assert_eq!(got["ids"], serde_json::json!(["L 2", "S3", "N4"]));
    }
}
