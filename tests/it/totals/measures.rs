//! Summaries over every numeric column and vehicle-km (issue 35): each new measure of each
//! paginated dataset (years, hours, ids of places, eastings, link lengths and coordinates
//! published as text, vehicle-km and -miles) equals Python's own computation over the served
//! file with exact decimals (`decimal.Decimal`, `calendar.isleap`), grouped and not, on the
//! sample and on the real files; a leap year counts 366 days; records without a link length
//! count in `count` and nowhere else; the same question has the same answer whichever source
//! answers it; and what a dataset does not measure is a 400 that lists what it does.

use std::path::Path;
use std::process::Command;

use roadtraffic_catalog::{Column, Dataset, ValueType, AADF, AADF_BY_DIRECTION, COUNT_POINTS};
use roadtraffic_catalog::{RAW_COUNTS, REGION_TRAFFIC_BY_ROAD_TYPE};
use serde_json::Value;

use super::*;
use crate::support::*;

/// The reference: for a table, an optional column to group by and measures as
/// `[stat, name, kind, count, length]` (kind `int`, `text` for decimal text, or
/// `derived`: the record's `count` x `length` x the days of its year), the rows a summary
/// gives, as `{"key", "count", "<stat>_<name>": text}` in key order. Exact decimals: sums and
/// averages of decimal text to 6 places, vehicle-km to 3, averages of integers to 3, each
/// rounded half away from zero; minima and maxima of decimal text as the float they read as.
const REFERENCE: &str = r#"
import calendar, json, sqlite3, sys
from decimal import Decimal, ROUND_HALF_UP, getcontext
getcontext().prec = 80
db, table, group, measures = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
con = sqlite3.connect('file:%s?mode=ro' % db, uri=True)
con.row_factory = sqlite3.Row
rows = con.execute('SELECT * FROM %s' % table).fetchall()
def value(row, kind, name, count, length):
    if kind == 'derived':
        c, l = row[count], row[length]
        if c is None or l is None or l == '':
            return None
        days = 366 if calendar.isleap(row['year']) else 365
        return Decimal(c) * Decimal(l) * days
    v = row[name]
    if v is None or v == '':
        return None
    return Decimal(v) if kind == 'text' else v
def places(kind):
    return '0.000001' if kind == 'text' else '0.001'
def fixed(d, q):
    return str(Decimal(d).quantize(Decimal(q), rounding=ROUND_HALF_UP))
# Without groups, one row even over no records.
groups = {} if group else {None: []}
for row in rows:
    groups.setdefault(row[group] if group else None, []).append(row)
out = []
for key in sorted(groups, key=lambda k: (k is not None, k)):
    members = groups[key]
    answer = {'key': key, 'count': len(members)}
    for stat, name, kind, count, length in measures:
        values = [v for v in (value(r, kind, name, count, length) for r in members) if v is not None]
        text = None
        if values and stat == 'sum':
            s = sum(values)
            text = str(s) if kind == 'int' else fixed(s, places(kind))
        elif values and stat == 'avg':
            text = fixed(Decimal(sum(values)) / len(values), places(kind))
        elif values:
            m = min(values) if stat == 'min' else max(values)
            text = repr(float(m)) if kind == 'text' else (str(m) if kind == 'int' else fixed(m, '0.001'))
        answer['%s_%s' % (stat, name)] = text
    out.append(answer)
print(json.dumps(out))
"#;

/// A measure as the reference takes it: `[stat, name, kind, count, length]`.
fn reference_measure(d: &Dataset, stat: Stat, name: &str) -> Value {
    let derived = |count: &str, length: &str| {
        serde_json::json!([stat.name(), name, "derived", count, length])
    };
    match name {
        "vehicle_km" => return derived("all_motor_vehicles", "link_length_km"),
        "vehicle_miles" => return derived("all_motor_vehicles", "link_length_miles"),
        _ => {}
    }
    let c: &Column = d.column(name).unwrap();
    // Numbers stored as floating point were measures before: `agreement` checks them.
    let kind = match c.ty {
        ValueType::Integer => "int",
        _ if c.is_decimal_text() => "text",
        _ => panic!("{name}: not a new measure"),
    };
    serde_json::json!([stat.name(), name, kind, "", ""])
}

/// The reference's rows of a summary of `measures` (every stat of each) grouped by `group`.
fn reference(db: &Path, d: &Dataset, group: Option<&str>, measures: &[&str]) -> Vec<Value> {
    let asked: Vec<Value> = (Stat::ALL.iter())
        .flat_map(|s| measures.iter().map(|m| reference_measure(d, *s, m)))
        .collect();
    let out = Command::new("python3")
        .args(["-c", REFERENCE])
        .arg(db)
        .arg(d.table)
        .arg(group.unwrap_or(""))
        .arg(Value::from(asked).to_string())
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The measures a summary takes beyond the tables of totals' (`measure_columns`): the
/// new ones.
fn new_measures(d: &Dataset) -> Vec<&'static str> {
    let old = measure_names(d);
    (d.summary_measures().map(|m| m.name()))
        .filter(|m| !old.contains(m))
        .collect()
}

/// Whether a written number is the reference's: the same text, or for a minimum or maximum
/// of decimal text, the same float.
fn same(written: &str, expected: &Value, float: bool) -> bool {
    match expected {
        Value::Null => written == "null",
        Value::String(text) if float => {
            let (w, e) = (written.parse::<f64>(), text.parse::<f64>());
            matches!((w, e), (Ok(w), Ok(e)) if (w - e).abs() <= e.abs() * 1e-15)
        }
        Value::String(text) => written == text,
        other => panic!("{other}"),
    }
}

/// Asks the summary of every stat of `measures` grouped by `group` and checks each cell
/// against the reference, as written.
fn check_against_reference(
    server: &TestServer,
    db: &Path,
    d: &Dataset,
    group: Option<&str>,
    measures: &[&str],
) {
    let list = measures.join(",");
    let mut target = format!(
        "/api{}/summary?sum={list}&avg={list}&min={list}&max={list}",
        path(d)
    );
    if let Some(g) = group {
        target.push_str(&format!("&group_by={g}"));
    }
    let reply = get(server, &target);
    assert_eq!(reply.status, 200, "{target}: {}", reply.text());
    let body = reply.text();
    let expected = reference(db, d, group, measures);
    let rows = reply.json();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), expected.len(), "{target}");
    for (i, (row, want)) in rows.iter().zip(&expected).enumerate() {
        assert_eq!(row["count"], want["count"], "{target}: row {i}");
        if let Some(g) = group {
            assert_eq!(row[g], want["key"], "{target}: row {i}");
        }
    }
    for stat in Stat::ALL {
        for m in measures {
            let name = format!("{}_{m}", stat.name());
            let written = raw_values(&body, &name);
            let float = matches!(stat, Stat::Min | Stat::Max)
                && d.column(m).is_some_and(Column::is_decimal_text);
            for (i, want) in expected.iter().enumerate() {
                assert!(
                    same(&written[i], &want[&name], float),
                    "{target}: row {i} ({}): {name} is {}, not {}",
                    want["key"],
                    written[i],
                    want[&name]
                );
            }
        }
    }
}

/// Every new measure of every paginated dataset, whole and by year and by a coded column.
fn every_new_measure(server: &TestServer, db: &Path) {
    for d in paginated() {
        let measures = new_measures(d);
        assert!(!measures.is_empty(), "{}", d.table);
        let groups = ["year", "road_category", "direction_of_travel"];
        let groups = groups.iter().filter(|g| facet_names(d).contains(g));
        check_against_reference(server, db, d, None, &measures);
        for g in groups {
            check_against_reference(server, db, d, Some(g), &measures);
        }
    }
}

#[test]
fn every_numeric_column_and_vehicle_km_of_the_sample_equal_python_decimals() {
    every_new_measure(sample_server(), sample_db());
}

#[test]
fn every_numeric_column_and_vehicle_km_of_the_real_files_equal_python_decimals() {
    let Some(db) = real_db() else { return };
    every_new_measure(&serve(db, &[]), db);
}

#[test]
fn summaries_take_every_number_but_the_record_id() {
    let names =
        |d: &Dataset| -> Vec<&'static str> { d.summary_measures().map(|m| m.name()).collect() };
    let aadf = names(&AADF);
    let numbers = [
        "year",
        "count_point_id",
        "northing",
        "longitude",
        "link_length_miles",
    ];
    for m in numbers
        .iter()
        .chain(&["all_motor_vehicles", "vehicle_km", "vehicle_miles"])
    {
        assert!(aadf.contains(m), "{m}: {aadf:?}");
    }
    for m in ["id", "road_name", "estimation_method", "region_name"] {
        assert!(!aadf.contains(&m), "{m}");
    }
    assert!(names(&RAW_COUNTS).contains(&"hour"));
    assert!(!names(&RAW_COUNTS).contains(&"vehicle_km"));
    // A count point's id is its record's id.
    assert!(!names(&COUNT_POINTS).contains(&"count_point_id"));
    assert!(names(&COUNT_POINTS).contains(&"aadf_year"));
    assert!(names(&AADF_BY_DIRECTION).contains(&"vehicle_miles"));
    assert!(names(&REGION_TRAFFIC_BY_ROAD_TYPE).contains(&"total_link_length_km"));
}

/// An AADF record's fields, from the listing.
fn aadf_record(server: &TestServer, filters: &str) -> Value {
    let target = format!("/api/average-annual-daily-flow?{filters}&page[size]=1");
    let reply = get(server, &target);
    assert_eq!(reply.status, 200, "{target}");
    reply.json()["data"][0].clone()
}

/// One cell of a summary, as written.
fn cell(server: &TestServer, target: &str, name: &str) -> String {
    let reply = get(server, target);
    assert_eq!(reply.status, 200, "{target}: {}", reply.text());
    raw_values(&reply.text(), name).remove(0)
}

#[test]
fn a_leap_year_has_366_days_and_a_record_without_a_length_none() {
    let server = sample_server();
    for (year, days) in [("2020", 366), ("2024", 366), ("2019", 365), ("2023", 365)] {
        let record = aadf_record(
            server,
            &format!("filter%5Byear%5D={year}&filter%5Broad_type%5D=Major"),
        );
        let id = record["id"].as_i64().unwrap();
        let amv = record["all_motor_vehicles"].as_i64().unwrap();
        // The published link length, to the hundredth: vehicle-km to the thousandth, exactly.
        let km = record["link_length_km"].as_str().unwrap();
        let hundredths: i64 = km.replace('.', "").parse().unwrap();
        assert_eq!(km.split('.').nth(1).map(str::len), Some(2), "{km}");
        let expected = amv * hundredths * days;
        let target =
            format!("/api/average-annual-daily-flow/summary?filter%5Bid%5D={id}&sum=vehicle_km");
        let written = cell(server, &target, "sum_vehicle_km");
        let exact = format!("{}.{:02}0", expected / 100, expected % 100);
        assert_eq!(written, exact, "{year}");
        // The same digits in every form.
        let ndjson = target.replace("/summary?", "/summary.ndjson?");
        assert_eq!(cell(server, &ndjson, "sum_vehicle_km"), exact);
        let csv = get(server, &target.replace("/summary?", "/summary.csv?")).text();
        assert_eq!(csv, format!("count,sum_vehicle_km\n1,{exact}\n"), "{year}");
    }
    // Minor roads have no link length: counted, but no vehicle-km, no length.
    let target = "/api/average-annual-daily-flow/summary?filter%5Broad_type%5D=Minor\
                  &sum=vehicle_km,link_length_km&avg=vehicle_miles&max=vehicle_km";
    let reply = get(server, target);
    let row = &reply.json()[0];
    assert!(row["count"].as_i64().unwrap() > 0, "{row}");
    for name in [
        "sum_vehicle_km",
        "sum_link_length_km",
        "avg_vehicle_miles",
        "max_vehicle_km",
    ] {
        assert!(row[name].is_null(), "{name}: {row}");
    }
}

#[test]
fn the_same_question_has_the_same_answer_whichever_source_answers() {
    let server = sample_server();
    let aadf = "/api/average-annual-daily-flow/summary";
    // Counts and sums of counts: from a table of totals alone, from the table with vehicle-km.
    let totals = get(
        server,
        &format!("{aadf}?group_by=year,road_category&sum=all_motor_vehicles"),
    );
    let table = get(
        server,
        &format!("{aadf}?group_by=year,road_category&sum=all_motor_vehicles,vehicle_km&min=year"),
    );
    let (totals, table) = (totals.json(), table.json());
    let (totals, table) = (totals.as_array().unwrap(), table.as_array().unwrap());
    assert_eq!(totals.len(), table.len());
    assert!(!totals.is_empty());
    for (a, b) in totals.iter().zip(table) {
        for key in ["year", "road_category", "count", "sum_all_motor_vehicles"] {
            assert_eq!(a[key], b[key], "{key}: {a} {b}");
        }
        assert_eq!(b["min_year"], b["year"]);
    }
    // Counts alone by year: from a table of totals; with the years' extremes, from the table.
    let runs = get(server, &format!("{aadf}?group_by=year")).json();
    let rows = get(server, &format!("{aadf}?group_by=year&min=year&max=year")).json();
    for (a, b) in runs
        .as_array()
        .unwrap()
        .iter()
        .zip(rows.as_array().unwrap())
    {
        assert_eq!(a["count"], b["count"]);
        assert_eq!(b["min_year"], a["year"]);
        assert_eq!(b["max_year"], a["year"]);
    }
    // The same with no table of totals: counts by year from the runs, all else from the table.
    let bare = serve(super::agreement::sample_without_totals(), &[]);
    for query in [
        "group_by=year",
        "group_by=year,road_category&sum=all_motor_vehicles",
        "group_by=year&sum=vehicle_km,link_length_km&max=longitude&avg=vehicle_miles",
    ] {
        let target = format!("{aadf}?{query}");
        let (with, without) = (get(server, &target), get(&bare, &target));
        assert_eq!(with.status, 200, "{target}");
        assert_eq!(with.text(), without.text(), "{target}");
    }
    // Vehicle-km of one local authority through its index, and of every one in a scan.
    let all = get(
        server,
        &format!("{aadf}?group_by=local_authority_id&sum=vehicle_km,link_length_km&avg=latitude"),
    )
    .json();
    for row in all.as_array().unwrap() {
        let la = &row["local_authority_id"];
        let target = format!(
            "{aadf}?filter%5Blocal_authority_id%5D={la}&sum=vehicle_km,link_length_km&avg=latitude"
        );
        let one = get(server, &target).json();
        for key in [
            "count",
            "sum_vehicle_km",
            "sum_link_length_km",
            "avg_latitude",
        ] {
            assert_eq!(one[0][key], row[key], "{target}: {key}");
        }
    }
    // Sorted by vehicle-km, largest first.
    let sorted = get(
        server,
        &format!("{aadf}?group_by=year&sum=vehicle_km&sort=-sum_vehicle_km"),
    )
    .json();
    let sums: Vec<f64> = (sorted.as_array().unwrap().iter())
        .filter_map(|r| r["sum_vehicle_km"].as_f64())
        .collect();
    assert!(
        sums.len() > 2 && sums.windows(2).all(|w| w[0] >= w[1]),
        "{sums:?}"
    );
}

#[test]
fn vehicle_km_elsewhere_is_a_400_that_says_where_it_is_measured() {
    let server = sample_server();
    for (d, query) in [
        (&RAW_COUNTS, "sum=vehicle_km"),
        (&COUNT_POINTS, "avg=vehicle_miles"),
        (
            &REGION_TRAFFIC_BY_ROAD_TYPE,
            "max=vehicle_km,all_motor_vehicles",
        ),
    ] {
        let target = format!("/api{}/summary?{query}", path(d));
        let allowed: Vec<&str> = d.summary_measures().map(|m| m.name()).collect();
        assert_refused(
            &get(server, &target),
            &target,
            &[
                &allowed.join(", "),
                "/average-annual-daily-flow/summary",
                "/average-annual-daily-flow-by-direction/summary",
                "vehicle_",
            ],
        );
    }
    for query in ["sum=id", "min=road_name", "max=count_date", "avg=nope"] {
        let target = format!("/api/raw-counts/summary?{query}");
        let allowed: Vec<&str> = RAW_COUNTS.summary_measures().map(|m| m.name()).collect();
        assert_refused(&get(server, &target), &target, &[&allowed.join(", ")]);
    }
    let target = "/api/count-points/summary?sum=count_point_id";
    assert_refused(
        &get(server, target),
        target,
        &["count_point_id", "link_length_km"],
    );
}
