//! The query time limit: a question that must read the table's rows stops there with a 503
//! (as a listing does), while a national question answered from a table of totals is answered
//! under the same limit. The limit is 0, which stops a request's queries at their 10,000th
//! SQLite instruction, whatever the machine's speed: counted on the fixture, the questions that
//! read rows run 97,593 to 978,740, those answered from totals 110 to 623.

use roadtraffic_catalog::RAW_COUNTS;

use super::*;
use crate::fixtures::fixture_db;
use crate::support::*;

#[test]
fn questions_that_read_the_table_stop_at_the_time_limit_and_totals_do_not() {
    // 43,177 raw counts; a limit of 10,000 instructions.
    let db = fixture_db();
    let server = serve(db, &["--query-timeout", "0", "--connections", "1"]);
    let conn = open(db);
    // A local authority's count dates, and a count point range's hours: no table of totals
    // keeps count dates or count points, so these read the rows, far past the limit.
    let points: Vec<String> = (3_000_001..3_000_400).map(|p| p.to_string()).collect();
    let points = points.join(",");
    for target in [
        "/api/raw-counts/summary?group_by=count_date&sum=all_motor_vehicles&filter%5Blocal_authority_id%5D=85".to_string(),
        format!("/api/raw-counts/summary.csv?group_by=hour&avg=cars_and_taxis&filter%5Bcount_point_id%5D={points}"),
        format!("/api/raw-counts/facets?facet=hour&facet=direction_of_travel&filter%5Bcount_point_id%5D={points}"),
        "/api/raw-counts/summary?group_by=count_point_id&max=lgvs&limit=5".to_string(),
    ] {
        let slow = get(&server, &target);
        assert_eq!(slow.status, 503, "{target}: {}", slow.text());
        assert!(slow.header("retry-after").is_some(), "{target}");
        assert!(slow.json()["message"].as_str().unwrap().contains("try again"));
    }
    // Nationally, by year, region, road, direction or hour: from the tables of totals, and
    // exactly the table's answer.
    for ask in [
        Ask::default().with_all(&RAW_COUNTS),
        Ask::by(&["hour"])
            .with(Stat::Sum, &["all_motor_vehicles"])
            .with(Stat::Avg, &["cars_and_taxis"]),
        Ask::by(&["region_id", "direction_of_travel"]).with(Stat::Max, &["lgvs"]),
        Ask::by(&["year", "road_type", "hour"]).with(Stat::Min, &["pedal_cycles"]),
    ] {
        check_summary(&server, &conn, &RAW_COUNTS, &[], &ask);
    }
    let filters = [
        Filter::is("region_id", &["5"]),
        Filter::is("hour", &["8", "9"]),
    ];
    check_summary(
        &server,
        &conn,
        &RAW_COUNTS,
        &filters,
        &Ask::by(&["direction_of_travel"]).with_all(&RAW_COUNTS),
    );
    check_facets(
        &server,
        &conn,
        &RAW_COUNTS,
        &[],
        &["year", "hour", "road_type"],
        None,
        ListStyle::Commas,
    );
    // The server goes on answering after its 503s.
    check_facets(
        &server,
        &conn,
        &RAW_COUNTS,
        &filters,
        &["direction_of_travel"],
        None,
        ListStyle::Commas,
    );
}

/// The fixture served, opened, and its raw counts' sum by count point and hour asked: more
/// than 10,000 groups.
fn by_count_point_and_hour() -> (TestServer, Connection, Ask) {
    let db = fixture_db();
    let ask = Ask::by(&["count_point_id", "hour"]).with(Stat::Sum, &["all_motor_vehicles"]);
    (serve(db, &[]), open(db), ask)
}

/// More groups than a summary gives: refused with what to do, or its first rows with `limit`.
#[test]
fn more_than_10000_groups_need_a_limit() {
    let (server, conn, ask) = by_count_point_and_hour();
    let target = summary_target(&RAW_COUNTS, "", &[], &ask);
    assert_refused(
        &get(&server, &target),
        &target,
        &["10000", "limit", "group by fewer"],
    );
    // 1,000 count points by 10 hours: 10,000 groups, all given; by 11 hours, refused.
    let points: Vec<String> = (3_001_000..3_002_000).map(|p| p.to_string()).collect();
    let points: Vec<&str> = points.iter().map(String::as_str).collect();
    let hours = [
        "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17",
    ];
    for (n, given) in [(10, true), (11, false)] {
        let filters = [
            Filter::is("count_point_id", &points),
            Filter::is("hour", &hours[..n]),
        ];
        let expected = expected_summary(&conn, &RAW_COUNTS, &filters, &ask);
        assert_eq!(expected.rows.len(), 1_000 * n);
        if given {
            check_summary(&server, &conn, &RAW_COUNTS, &filters, &ask);
        } else {
            let target = summary_target(&RAW_COUNTS, ".csv", &filters, &ask);
            assert_refused(&get(&server, &target), &target, &["10000", "limit"]);
        }
    }
    for (limit, sort) in [
        (10_000, vec![]),
        (7, vec!["-count".to_string()]),
        (1, vec!["-sum_all_motor_vehicles".to_string()]),
    ] {
        let ask = Ask {
            limit: Some(limit),
            sort,
            ..ask.clone()
        };
        check_summary(&server, &conn, &RAW_COUNTS, &[], &ask);
    }
}

/// Every group of a summary of more than 10,000: in one answer under a `limit` that large,
/// or a page at a time with `offset`, the pages together the whole summary in order.
#[test]
fn every_group_comes_with_a_larger_limit_or_page_by_page() {
    let (server, conn, ask) = by_count_point_and_hour();
    let whole = expected_summary(&conn, &RAW_COUNTS, &[], &ask);
    assert!(whole.rows.len() > 10_000, "{} groups", whole.rows.len());
    let all = Ask {
        limit: Some(200_000),
        ..ask.clone()
    };
    check_summary(&server, &conn, &RAW_COUNTS, &[], &all);
    let mut rows = 0;
    for offset in (0..).step_by(7_000) {
        let page = Ask {
            limit: Some(7_000),
            offset: Some(offset),
            sort: vec!["-sum_all_motor_vehicles".to_string()],
            ..ask.clone()
        };
        let reply = check_summary(&server, &conn, &RAW_COUNTS, &[], &page);
        let got = reply.json().as_array().unwrap().len();
        rows += got;
        if got < 7_000 {
            break;
        }
    }
    assert_eq!(rows, whole.rows.len());
    // Past the last group, an empty answer; a limit past the largest, refused with it.
    let past = format!(
        "{}&limit=10&offset=999999",
        summary_target(&RAW_COUNTS, "", &[], &ask)
    );
    assert_eq!(get(&server, &past).json(), serde_json::json!([]));
    let over = format!(
        "{}&limit=200001",
        summary_target(&RAW_COUNTS, "", &[], &ask)
    );
    assert_refused(&get(&server, &over), &over, &["limit", "200000"]);
}
