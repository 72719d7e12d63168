//! Sums are exact integers: beyond 2^53 (where a double rounds) in JSON, NDJSON and CSV alike,
//! from a table of totals and from the table; a sum beyond 64 bits is refused in words.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rusqlite::Connection;

use roadtraffic_catalog::totals::fill_rollup;
use roadtraffic_catalog::RAW_COUNTS;

use super::*;
use crate::support::*;

const RAW_HEADER: &str = "count_point_id,direction_of_travel,year,count_date,hour,region_id,region_name,region_ons_code,local_authority_id,local_authority_name,local_authority_code,road_name,road_category,road_type,start_junction_road_name,end_junction_road_name,easting,northing,latitude,longitude,link_length_km,link_length_miles,pedal_cycles,two_wheeled_motor_vehicles,cars_and_taxis,buses_and_coaches,LGVs,HGVs_2_rigid_axle,HGVs_3_rigid_axle,HGVs_4_or_more_rigid_axle,HGVs_3_or_4_articulated_axle,HGVs_5_articulated_axle,HGVs_6_articulated_axle,all_HGVs,all_motor_vehicles";
const LOCATION: &str = "5,North West,E12000002,85,Trafford,E08000009,A56,PA,Major,A1,A2,380000,390000,53.4,-2.3,1.0,0.6";

/// Count points, each counted 12 hours in one direction in 2019.
const POINTS: i64 = 100;

/// The all-motor-vehicles count of a row: just under the loader's cap of 1e13 (one more for
/// the first, so that the whole sum is odd: no double holds it).
fn huge(point: i64, hour: i64) -> i64 {
    9_999_999_990_000 + point * 12 + hour + i64::from((point, hour) == (1, 7))
}

/// 1,200 raw counts whose all-motor-vehicles add up past 2^53 (about 1.2e16).
fn huge_counts_db() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = scratch_dir();
        let mut csv = format!("{RAW_HEADER}\n");
        for point in 1..=POINTS {
            for hour in 7..19 {
                let all = huge(point, hour);
                writeln!(
                    csv,
                    "{point},N,2019,2019-05-0{},{hour},{LOCATION},0,1,{},0,0,0,0,0,0,0,0,0,{all}",
                    1 + point % 3,
                    all - 1
                )
                .unwrap();
            }
        }
        std::fs::write(dir.join("raw.csv"), csv).unwrap();
        let db = dir.join("huge.db");
        load_ok(&db, &["--quiet"], &[&dir.join("raw.csv")]);
        db
    })
}

/// The exact sum of the crafted counts of `points`.
fn exact_sum(points: impl Iterator<Item = i64> + Clone) -> i128 {
    (points.flat_map(|p| (7..19).map(move |h| huge(p, h) as i128))).sum()
}

/// The raw text of a summary's value in a body.
fn written(body: &str, key: &str) -> Vec<String> {
    raw_values(body, key)
}

#[test]
fn sums_beyond_2_pow_53_are_exact_in_every_form() {
    let db = huge_counts_db();
    let server = serve(db, &[]);
    let conn = open(db);
    let total = exact_sum(1..=POINTS);
    assert!(total > 1 << 53 && total < i64::MAX as i128);
    assert_ne!(
        total as i64 as f64 as i128, total,
        "a double would round it"
    );
    // Nationally (from a table of totals), for some count points (from the table), by hour.
    let some = [3i64, 57, 99];
    let ids: Vec<String> = some.iter().map(i64::to_string).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let cases: [(Vec<Filter>, i128); 2] = [
        (Vec::new(), total),
        (
            vec![Filter::is("count_point_id", &ids)],
            exact_sum(some.into_iter()),
        ),
    ];
    for (filters, sum) in &cases {
        let ask = Ask::default()
            .with(Stat::Sum, &["all_motor_vehicles"])
            .with(Stat::Avg, &["all_motor_vehicles"])
            .with(Stat::Max, &["all_motor_vehicles"]);
        let reply = check_summary(&server, &conn, &RAW_COUNTS, filters, &ask);
        let body = reply.text();
        assert_eq!(
            written(&body, "sum_all_motor_vehicles"),
            [sum.to_string()],
            "{body}"
        );
        // Read as an integer, not a double.
        let got = reply.json()[0]["sum_all_motor_vehicles"].as_i64().unwrap();
        assert_eq!(got as i128, *sum);
        let n = (reply.json()[0]["count"].as_i64().unwrap()) as i128;
        assert_eq!(
            written(&body, "avg_all_motor_vehicles"),
            [exact_average(*sum, n)]
        );
        for (suffix, ndjson) in [(".ndjson", true), (".csv", false)] {
            let target = summary_target(&RAW_COUNTS, suffix, filters, &ask);
            let reply = get(&server, &target);
            assert_eq!(reply.status, 200, "{target}: {}", reply.text());
            let text = reply.text();
            assert!(text.contains(&sum.to_string()), "{target}: {text}");
            let expected = expected_summary(&conn, &RAW_COUNTS, filters, &ask);
            match ndjson {
                true => assert_rows(&text, &expected, true, &target),
                false => assert_csv(&text, &expected, &target),
            }
        }
    }
    // Grouped, from each source: every group's sum exact.
    for ask in [
        Ask::by(&["hour"]),
        Ask::by(&["year", "road_type"]),
        Ask::by(&["count_date"]),
        Ask::by(&["count_point_id"]),
        Ask::by(&["direction_of_travel", "hour"]),
    ] {
        let ask = ask
            .with(Stat::Sum, &["all_motor_vehicles", "cars_and_taxis"])
            .with(Stat::Avg, &["all_motor_vehicles"]);
        let reply = check_summary(&server, &conn, &RAW_COUNTS, &[], &ask);
        let sums: i128 = (reply.json().as_array().unwrap().iter())
            .map(|r| r["sum_all_motor_vehicles"].as_i64().unwrap() as i128)
            .sum();
        assert_eq!(sums, total, "{}", ask.query());
    }
}

/// A copy of the sample where two raw counts hold counts no published file could (past the
/// loader's cap: only a file written by other means holds them), with its tables of totals
/// filled again as the loader fills them: `same_group`, the two rows fall in one group of
/// every table of totals, whose sum then overflows (the loader leaves such a table empty);
/// otherwise in different groups, each of whose sums fits.
fn overflowing_db(same_group: bool) -> (PathBuf, String) {
    let db = scratch_dir().join("overflow.db");
    std::fs::copy(sample_db(), &db).unwrap();
    let conn = Connection::open(&db).unwrap();
    let big = 5_000_000_000_000_000_000i64;
    // Two counts of one count point in one year (on one road): whichever of these groups a
    // summary below asks, it adds the two up.
    let other = match same_group {
        // The same hour the other way: made the same way, in every table of totals' group.
        true => "r2.hour = r.hour AND r2.direction_of_travel <> r.direction_of_travel",
        false => "r2.hour <> r.hour AND r2.direction_of_travel <> r.direction_of_travel",
    };
    let (first, second): (i64, i64) = conn
        .query_row(
            &format!(
                "SELECT r.id, r2.id FROM raw_counts r JOIN raw_counts r2 ON r2.id > r.id \
                 AND r2.count_point_id = r.count_point_id AND r2.count_date = r.count_date AND {other} \
                 ORDER BY r.id, r2.id LIMIT 1"
            ),
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    if same_group {
        conn.execute(
            "UPDATE raw_counts SET direction_of_travel = \
             (SELECT direction_of_travel FROM raw_counts WHERE id = ?1) WHERE id = ?2",
            (first, second),
        )
        .unwrap();
    }
    conn.execute(
        "UPDATE raw_counts SET all_motor_vehicles = ?1 WHERE id IN (?2, ?3)",
        (big, first, second),
    )
    .unwrap();
    for (table, rollup) in RAW_COUNTS.rollup_tables() {
        conn.execute_batch(&format!("DELETE FROM {table}")).unwrap();
        // As the loader does: a table of totals whose sums overflow is left empty.
        if let Err(e) = conn.execute_batch(&fill_rollup(&RAW_COUNTS, &table, rollup)) {
            assert!(e.to_string().contains("integer overflow"), "{e}");
            conn.execute_batch(&format!("DELETE FROM {table}")).unwrap();
        }
    }
    let other_year: String = conn
        .query_row(
            "SELECT CAST(min(year) AS TEXT) FROM raw_counts WHERE year <> (SELECT year FROM raw_counts WHERE id = ?1)",
            [first],
            |r| r.get(0),
        )
        .unwrap();
    (db, other_year)
}

#[test]
fn sums_beyond_64_bits_are_refused_in_words() {
    for same_group in [true, false] {
        let (db, other_year) = overflowing_db(same_group);
        let server = serve(&db, &[]);
        let conn = open(&db);
        // The sum of every raw count (from the table, or from a table of totals whose groups
        // each fit), in every form.
        for suffix in ["", ".csv", ".ndjson"] {
            for query in [
                "sum=all_motor_vehicles",
                "group_by=year&sum=all_motor_vehicles",
                "sum=cars_and_taxis,all_motor_vehicles&group_by=road_type",
            ] {
                let target = format!("/api/raw-counts/summary{suffix}?{query}");
                assert_refused(
                    &get(&server, &target),
                    &target,
                    &["64-bit", "narrow the filters"],
                );
            }
        }
        // What does not add the two up is answered, exactly.
        let other_year = [Filter::is("year", &[&other_year])];
        let fine = [
            (
                &[][..],
                Ask::by(&["hour"]).with(Stat::Sum, &["cars_and_taxis"]),
            ),
            (
                &[][..],
                Ask::by(&["hour"])
                    .with(Stat::Min, &["all_motor_vehicles"])
                    .with(Stat::Max, &["all_motor_vehicles"]),
            ),
            (
                &other_year[..],
                Ask::by(&["hour", "direction_of_travel"]).with_all(&RAW_COUNTS),
            ),
            (
                &other_year[..],
                Ask::by(&["count_point_id"]).with(Stat::Sum, &["all_motor_vehicles"]),
            ),
        ];
        for (filters, ask) in &fine {
            check_summary(&server, &conn, &RAW_COUNTS, filters, ask);
        }
        check_facets(
            &server,
            &conn,
            &RAW_COUNTS,
            &[],
            &["hour", "year"],
            None,
            ListStyle::Commas,
        );
        // Whatever the refusal advises is answered: asked by more groups (each fits), or its
        // average, if it says so.
        let target = "/api/raw-counts/summary?sum=all_motor_vehicles";
        let message = get(&server, target).json()["message"]
            .as_str()
            .unwrap()
            .to_string();
        if !same_group {
            // By hour, the two are in groups of their own, each of which fits.
            let by_hour = Ask::by(&["hour"]).with(Stat::Sum, &["all_motor_vehicles"]);
            check_summary(&server, &conn, &RAW_COUNTS, &[], &by_hour);
        }
        if message.contains("avg") {
            let target = "/api/raw-counts/summary?avg=all_motor_vehicles";
            let reply = get(&server, target);
            assert_eq!(
                reply.status,
                200,
                "{target} after `{message}` (same group: {same_group}): {}",
                reply.text()
            );
        }
    }
}

/// Averages of decimals (link lengths) are rounded half away from zero too: a length of
/// 0.0625 km (a sixteenth: a double holds it exactly) averages to 0.063, not to the even 0.062.
#[test]
fn averages_of_decimals_round_half_away_from_zero() {
    let dir = scratch_dir();
    let header = r#""local_authority_id","local_authority_name","local_authority_code","year","link_length_km","link_length_miles","cars_and_taxis","all_motor_vehicles""#;
    let rows = [
        r#"3,"Glasgow City","S12000049",2019,0.0625,1.0,10,20"#,
        r#"4,"North Lanarkshire","S12000050",2019,0.0625,2.0,10,21"#,
        r#"3,"Glasgow City","S12000049",2020,2.3125,1.5,10,20"#,
        r#"3,"Glasgow City","S12000049",2021,1.0625,0.1875,10,20"#,
    ];
    std::fs::write(
        dir.join("la.csv"),
        format!("{header}\n{}\n", rows.join("\n")),
    )
    .unwrap();
    let db = dir.join("la.db");
    load_ok(&db, &["--quiet"], &[&dir.join("la.csv")]);
    let server = serve(&db, &[]);
    let target = "/api/local-authority-traffic/summary?group_by=year&sum=link_length_km&avg=link_length_km,link_length_miles,all_motor_vehicles";
    let reply = get(&server, target);
    assert_eq!(reply.status, 200, "{}", reply.text());
    let body = reply.text();
    assert_eq!(
        raw_values(&body, "sum_link_length_km"),
        ["0.125", "2.3125", "1.0625"]
    );
    assert_eq!(
        raw_values(&body, "avg_link_length_km"),
        ["0.063", "2.313", "1.063"],
        "{body}"
    );
    assert_eq!(
        raw_values(&body, "avg_link_length_miles"),
        ["1.500", "1.500", "0.188"],
        "{body}"
    );
    assert_eq!(
        raw_values(&body, "avg_all_motor_vehicles"),
        ["20.500", "20.000", "20.000"],
        "{body}"
    );
    let csv = get(&server, &target.replace("summary?", "summary.csv?")).text();
    assert_eq!(
        csv,
        "year,count,sum_link_length_km,avg_link_length_km,avg_link_length_miles,avg_all_motor_vehicles\n\
         2019,2,0.125,0.063,1.500,20.500\n\
         2020,1,2.3125,2.313,1.500,20.000\n\
         2021,1,1.0625,1.063,0.188,20.000\n"
    );
}
