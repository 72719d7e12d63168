//! The three real responses of the public service, reproduced byte for byte.
//!
//! The fixtures' records are written into CSV files behind enough other rows that the mirror's
//! file-order ids land on the fixtures' ids, so even the ids match.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::support::*;

const LOCATION: &str = "5,North West,E12000002,85,Trafford,E08000009,M56,TM,Major,4,LA Boundary,383600,388821,53.39597741,-2.24809417,1.0,0.6";
const AADF_HEADER: &str = "count_point_id,year,region_id,region_name,region_ons_code,local_authority_id,local_authority_name,local_authority_code,road_name,road_category,road_type,start_junction_road_name,end_junction_road_name,easting,northing,latitude,longitude,link_length_km,link_length_miles,estimation_method,estimation_method_detailed,pedal_cycles,two_wheeled_motor_vehicles,cars_and_taxis,buses_and_coaches,LGVs,HGVs_2_rigid_axle,HGVs_3_rigid_axle,HGVs_4_or_more_rigid_axle,HGVs_3_or_4_articulated_axle,HGVs_5_articulated_axle,HGVs_6_articulated_axle,all_HGVs,all_motor_vehicles";
const RAW_HEADER: &str = "count_point_id,direction_of_travel,year,count_date,hour,region_id,region_name,region_ons_code,local_authority_id,local_authority_name,local_authority_code,road_name,road_category,road_type,start_junction_road_name,end_junction_road_name,easting,northing,latitude,longitude,link_length_km,link_length_miles,pedal_cycles,two_wheeled_motor_vehicles,cars_and_taxis,buses_and_coaches,LGVs,HGVs_2_rigid_axle,HGVs_3_rigid_axle,HGVs_4_or_more_rigid_axle,HGVs_3_or_4_articulated_axle,HGVs_5_articulated_axle,HGVs_6_articulated_axle,all_HGVs,all_motor_vehicles";
const FILLER_LOCATION: &str = "5,North West,E12000002,85,Trafford,E08000009,A56,PA,Major,A1,A2,380000,390000,53.4,-2.3,1.0,0.6";

pub fn fixture_db() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = scratch_dir();
        let mut aadf = format!("{AADF_HEADER}\n");
        for i in 1..9219 {
            writeln!(aadf, "{},2000,{FILLER_LOCATION},Counted,Manual count,0,1,2,3,4,1,1,1,1,1,1,6,16", 2_000_000 + i).unwrap();
        }
        writeln!(aadf, "6046,2000,{LOCATION},Counted,Manual count,0,216,64635,584,7878,2169,316,371,679,1373,589,5497,78810").unwrap();
        writeln!(aadf, "6046,2025,{LOCATION},Estimated,Estimated using previous year's AADF on this link,0,200,60000,500,7000,2000,300,300,600,1300,500,5000,72700").unwrap();
        let mut raw = format!("{RAW_HEADER}\n");
        for i in 1..43177 {
            writeln!(raw, "{},E,2000,2000-04-11,{},{FILLER_LOCATION},0,1,2,3,4,1,1,1,1,1,1,6,16", 3_000_000 + i / 12, 7 + i % 12).unwrap();
        }
        writeln!(raw, "6046,W,2000,2000-04-11 00:00:00,12,{LOCATION},0,4,1363,6,279,86,15,17,20,69,28,235,1887").unwrap();
        std::fs::write(dir.join("aadf.csv"), aadf).unwrap();
        std::fs::write(dir.join("raw.csv"), raw).unwrap();
        let db = dir.join("fixtures.db");
        load_ok(&db, &["--quiet"], &[&dir.join("aadf.csv"), &dir.join("raw.csv")]);
        db
    })
}

fn server() -> &'static TestServer {
    static SERVER: OnceLock<TestServer> = OnceLock::new();
    SERVER.get_or_init(|| {
        serve(
            fixture_db(),
            &["--public-url", "https://roadtraffic.dft.gov.uk"],
        )
    })
}

fn check(path: &str, id: i64, name: &str) {
    let Some(file) = shared(
        &format!("fixtures/api/{name}"),
        &format!("the check of /api/{path} against the public service's {name}"),
    ) else {
        return;
    };
    let expected = std::fs::read_to_string(&file).unwrap();
    for target in [
        format!("/api/{path}?page[size]=1&page[number]=1&filter[id]={id}"),
        format!("/api/{path}?page%5Bsize%5D=1&page%5Bnumber%5D=1&filter%5Bid%5D={id}"),
    ] {
        let reply = raw_get(server(), target.as_bytes());
        assert_eq!(reply.status, 200, "{}", reply.text());
        assert_eq!(reply.text(), expected, "{target}");
    }
}

#[test]
fn count_point_6046() {
    check("count-points", 6046, "count-point-6046.json");
}

#[test]
fn aadf_9219() {
    check("average-annual-daily-flow", 9219, "aadf-9219.json");
}

#[test]
fn raw_count_43177() {
    check("raw-counts", 43177, "raw-count-43177.json");
}

/// A 30,000-row page (~20 MB) is streamed in chunks, whole and well-formed.
#[test]
fn big_pages_are_streamed_whole() {
    let reply = raw_get(server(), b"/api/raw-counts?page[size]=30000&page[number]=2");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("transfer-encoding"), Some("chunked"));
    let body = reply.json();
    assert_eq!(body["data"].as_array().unwrap().len(), 43177 - 30000);
    assert_eq!(body["from"], 30001);
    assert_eq!(body["data"][0]["id"], 30001);
}

/// A query over its time limit is stopped inside SQLite and answered 503 with retry-after;
/// the connection goes back to the pool and the next request is answered.
#[test]
fn queries_over_the_time_limit_get_503() {
    let server = serve(
        fixture_db(),
        &["--query-timeout", "0", "--connections", "1"],
    );
    // A limit of 0: the request's queries stop at their 10,000th SQLite instruction, on any
    // machine. 43k rows sorted take some 1.6 million; the regions, 13.
    let slow = get(&server, "/api/raw-counts?sort=-hour&page%5Bsize%5D=100000");
    assert_eq!(slow.status, 503, "{}", slow.text());
    assert!(slow.header("retry-after").is_some());
    assert!(slow.json()["message"]
        .as_str()
        .unwrap()
        .contains("try again"));
    for _ in 0..3 {
        assert_eq!(get(&server, "/api/regions").status, 200);
    }
}
