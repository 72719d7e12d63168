//! Every facet and every summary equals the reference's GROUP BY of the served file: every
//! paginated dataset, every facet column alone and in pairs, every measure, on the sample and
//! on the real files; then random questions on the sample, answered alike with and without its
//! tables of totals.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestRunner};
use rusqlite::Connection;

use roadtraffic_catalog::Dataset;

use super::*;
use crate::support::*;

/// A column's most common value that is not NULL, as text (none when it holds none).
fn most_common(conn: &Connection, d: &Dataset, column: &str) -> Option<String> {
    let sql = format!(
        "SELECT CAST({column} AS TEXT) FROM {} WHERE {column} IS NOT NULL \
         GROUP BY {column} ORDER BY count(*) DESC, {column} LIMIT 1",
        d.table
    );
    conn.query_row(&sql, [], |r| r.get(0)).ok()
}

/// Sorts tried in turn on the summaries grouped by one column.
fn sort_of(d: &Dataset, turn: usize) -> (Vec<String>, Option<usize>) {
    let first = measure_names(d).first().map(|m| m.to_string());
    let last = measure_names(d).last().map(|m| m.to_string());
    let key = |prefix: &str, m: &Option<String>| m.as_ref().map(|m| format!("{prefix}{m}"));
    let sort = match turn % 6 {
        0 => None,
        1 => Some("-count".to_string()),
        2 => key("-sum_", &last),
        3 => key("avg_", &first),
        4 => key("-avg_", &last),
        _ => key("min_", &first).map(|k| format!("{k},-count")),
    };
    let limit = (turn % 4 == 3).then_some(3);
    (sort.into_iter().collect(), limit)
}

/// Checks the summary, or, when it has more groups than a summary gives, its refusal and its
/// first rows under `limit`.
fn check_or_capped(
    server: &TestServer,
    conn: &Connection,
    d: &Dataset,
    filters: &[Filter],
    ask: &Ask,
) {
    let expected = expected_summary(conn, d, filters, ask);
    if ask.limit.is_some() || expected.rows.len() <= 10_000 {
        check_summary(server, conn, d, filters, ask);
        return;
    }
    let target = summary_target(d, "", filters, ask);
    assert_refused(&get(server, &target), &target, &["10000", "limit"]);
    let mut limited = ask.clone();
    limited.limit = Some(10_000);
    check_summary(server, conn, d, filters, &limited);
}

/// Every facet of every paginated dataset, alone and all at once, at sizes around the number
/// of values; every summary grouped by one column and by each pair, with every measure; and
/// both again under a filter on each column's most common value.
fn every_facet_and_summary(server: &TestServer, db: &Path) {
    let conn = open(db);
    let styles = [ListStyle::Repeated, ListStyle::Commas, ListStyle::Brackets];
    for d in paginated() {
        let facets = facet_names(d);
        let measures = measure_names(d);
        for style in styles {
            check_facets(server, &conn, d, &[], &facets, None, style);
        }
        for (i, c) in facets.iter().enumerate() {
            let n = distinct(&conn, d, &[], c);
            let mut sizes = [1, n.saturating_sub(1), n, n + 1]
                .map(|s| s.clamp(1, 1000))
                .to_vec();
            sizes.dedup();
            for size in sizes {
                check_facets(server, &conn, d, &[], &[c], Some(size), styles[i % 3]);
            }
        }
        check_summary(server, &conn, d, &[], &Ask::default().with_all(d));
        check_summary(server, &conn, d, &[], &Ask::default());
        for (i, c) in facets.iter().enumerate() {
            let (sort, limit) = sort_of(d, i);
            let ask = Ask {
                sort,
                limit,
                ..Ask::by(&[c]).with_all(d)
            };
            check_or_capped(server, &conn, d, &[], &ask);
        }
        for (i, a) in facets.iter().enumerate() {
            for b in &facets[i + 1..] {
                let mut ask = Ask::by(&[a, b]);
                if let (Some(first), Some(last)) = (measures.first(), measures.last()) {
                    ask = (ask.with(Stat::Sum, &measures))
                        .with(Stat::Avg, &[last, first])
                        .with(Stat::Min, &[first])
                        .with(Stat::Max, &[last]);
                }
                check_or_capped(server, &conn, d, &[], &ask);
            }
        }
        for (i, c) in facets.iter().enumerate() {
            let Some(value) = most_common(&conn, d, c) else {
                continue;
            };
            let filters = [Filter::is(c, &[&value])];
            check_facets(server, &conn, d, &filters, &facets, None, styles[i % 3]);
            check_summary(server, &conn, d, &filters, &Ask::default().with_all(d));
            let other = facets[(i + 1) % facets.len()];
            check_or_capped(server, &conn, d, &filters, &Ask::by(&[other]).with_all(d));
        }
    }
}

#[test]
fn every_facet_and_summary_of_the_sample_equals_its_group_by() {
    every_facet_and_summary(sample_server(), sample_db());
}

#[test]
fn every_facet_and_summary_of_the_real_files_equals_their_group_by() {
    let Some(db) = real_db() else { return };
    every_facet_and_summary(&serve(db, &[]), db);
}

/// The sample with its tables of totals emptied (as the loader leaves one whose sums would
/// overflow): every question is answered from the runs or the table.
pub fn sample_without_totals() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let db = scratch_dir().join("no-totals.db");
        std::fs::copy(sample_db(), &db).unwrap();
        let conn = Connection::open(&db).unwrap();
        for d in paginated() {
            for (table, _) in d.rollup_tables() {
                conn.execute_batch(&format!("DELETE FROM {table}")).unwrap();
            }
        }
        db
    })
}

/// What a random question draws from: each dataset's facet columns with their values, and
/// the places of its rows.
struct Values {
    dataset: &'static Dataset,
    columns: Vec<(&'static str, Vec<String>)>,
    places: Vec<(f64, f64)>,
}

fn values_of(conn: &Connection, d: &'static Dataset) -> Values {
    let strings = |sql: &str| -> Vec<String> {
        let mut stmt = conn.prepare(sql).unwrap();
        let rows = stmt.query_map([], |r| r.get::<_, String>(0));
        rows.unwrap().map(Result::unwrap).collect()
    };
    let columns = (facet_names(d).into_iter())
        .map(|c| {
            let sql = format!(
                "SELECT DISTINCT CAST({c} AS TEXT) FROM {} WHERE {c} IS NOT NULL ORDER BY 1",
                d.table
            );
            (c, strings(&sql))
        })
        .collect();
    let places = match d.column("longitude").is_some_and(|c| c.stored) {
        true => {
            let sql = format!(
                "SELECT DISTINCT CAST(longitude AS REAL), CAST(latitude AS REAL) FROM {} \
                 WHERE longitude IS NOT NULL AND latitude IS NOT NULL",
                d.table
            );
            let mut stmt = conn.prepare(&sql).unwrap();
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)));
            rows.unwrap().map(Result::unwrap).collect()
        }
        false => Vec::new(),
    };
    Values {
        dataset: d,
        columns,
        places,
    }
}

/// A random question's draw: indexes into what `Values` holds.
type Draw = (
    Index,
    Vec<(Index, Vec<Index>, bool, bool)>,
    Option<Vec<bool>>,
    Option<(Index, Index, bool)>,
    Vec<Index>,
    Vec<(usize, Index)>,
    Option<(u8, bool)>,
    Option<usize>,
);

/// The filters and the question a draw makes.
fn question(all: &[Values], draw: &Draw) -> (&'static Dataset, Vec<Filter>, Ask) {
    let (dataset, filters, count_method, bbox, group_by, measures, sort, limit) = draw;
    let v = &all[dataset.index(all.len())];
    let d = v.dataset;
    let mut out = Vec::new();
    for (column, picks, bare, upper) in filters {
        let (name, values) = &v.columns[column.index(v.columns.len())];
        if values.is_empty()
            || out
                .iter()
                .any(|f| matches!(f, Filter::In { column, .. } if column == name))
        {
            continue;
        }
        let mut chosen: Vec<String> = picks
            .iter()
            .map(|p| values[p.index(values.len())].clone())
            .collect();
        if *upper {
            // Text filters match whatever the letter case.
            chosen = chosen.iter().map(|t| t.to_uppercase()).collect();
        }
        out.push(Filter::In {
            column: name,
            values: chosen,
            bare: *bare,
        });
    }
    if let (Some(methods), true) = (count_method, d.filters.contains(&"count_method")) {
        let names: Vec<&str> = methods
            .iter()
            .map(|c| if *c { "counted" } else { "estimated" })
            .collect();
        out.push(Filter::CountMethod(names));
    }
    if let (Some((a, b, wide)), false) = (bbox, v.places.is_empty()) {
        let (p, q) = (
            v.places[a.index(v.places.len())],
            v.places[b.index(v.places.len())],
        );
        let margin = if *wide { 0.25 } else { 0.0 };
        out.push(Filter::Bbox([
            p.0.min(q.0) - margin,
            p.1.min(q.1) - margin,
            p.0.max(q.0) + margin,
            p.1.max(q.1) + margin,
        ]));
    }
    let mut ask = Ask::default();
    for g in group_by {
        let name = v.columns[g.index(v.columns.len())].0;
        if !ask.group_by.contains(&name) {
            ask.group_by.push(name);
        }
    }
    let names = measure_names(d);
    if !names.is_empty() {
        for (stat, m) in measures {
            ask = ask.with(Stat::ALL[*stat], &[names[m.index(names.len())]]);
        }
    }
    let outputs: Vec<String> = ask
        .outputs()
        .iter()
        .map(|(s, c)| format!("{}_{c}", s.name()))
        .collect();
    ask.sort = match sort {
        Some((0, desc)) => vec![format!("{}count", if *desc { "-" } else { "" })],
        Some((1, desc)) if !outputs.is_empty() => {
            vec![format!("{}{}", if *desc { "-" } else { "" }, outputs[0])]
        }
        Some((_, desc)) if !ask.group_by.is_empty() => {
            vec![format!(
                "{}{}",
                if *desc { "-" } else { "" },
                ask.group_by[0]
            )]
        }
        _ => Vec::new(),
    };
    ask.limit = *limit;
    (d, out, ask)
}

#[test]
fn random_questions_on_the_sample_agree_with_group_by_from_every_source() {
    let conn = open(sample_db());
    let all: Vec<Values> = paginated().map(|d| values_of(&conn, d)).collect();
    let with_totals = sample_server();
    let without_totals = serve(sample_without_totals(), &[]);
    let filter = (
        any::<Index>(),
        prop::collection::vec(any::<Index>(), 1..=3),
        any::<bool>(),
        any::<bool>(),
    );
    let strategy = (
        any::<Index>(),
        prop::collection::vec(filter, 0..=3),
        prop::option::of(prop::collection::vec(any::<bool>(), 1..=2)),
        prop::option::weighted(0.3, (any::<Index>(), any::<Index>(), any::<bool>())),
        prop::collection::vec(any::<Index>(), 0..=3),
        prop::collection::vec((0usize..4, any::<Index>()), 0..=4),
        prop::option::of((0u8..3, any::<bool>())),
        prop::option::weighted(0.2, 1usize..6),
    );
    let mut runner = TestRunner::new(Config {
        cases: 96,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&strategy, |draw| {
            let (d, filters, ask) = question(&all, &draw);
            let expected = expected_summary(&conn, d, &filters, &ask);
            let target = summary_target(d, "", &filters, &ask);
            let mut bodies = Vec::new();
            for server in [with_totals, &without_totals] {
                let reply = get(server, &target);
                prop_assert_eq!(reply.status, 200, "{}: {}", target, reply.text());
                let differs = compare_rows(&reply.text(), &expected, false, &target);
                prop_assert!(differs.is_ok(), "{}", differs.unwrap_err());
                bodies.push(reply.text());
            }
            prop_assert_eq!(&bodies[0], &bodies[1], "{}", target);
            // The facets of the columns grouped by (or of the first), under the same filters.
            let columns = match ask.group_by.is_empty() {
                true => vec![facet_names(d)[0]],
                false => ask.group_by.clone(),
            };
            let size = ask.limit.map(|l| l * 2);
            for server in [with_totals, &without_totals] {
                let differs = compare_facets(
                    server,
                    &conn,
                    d,
                    &filters,
                    &columns,
                    size,
                    ListStyle::Commas,
                );
                prop_assert!(differs.is_ok(), "{}", differs.unwrap_err());
            }
            Ok(())
        })
        .unwrap();
}

/// `filter[near]`, which no table of totals answers: the summary and facets of the rows
/// within a radius of a count point of the sample.
#[test]
fn summaries_and_facets_near_a_place() {
    let conn = open(sample_db());
    for d in paginated().filter(|d| d.column("longitude").is_some_and(|c| c.stored)) {
        let point: Option<(f64, f64)> = conn
            .query_row(
                &format!("SELECT CAST(longitude AS REAL), CAST(latitude AS REAL) FROM {} WHERE longitude IS NOT NULL ORDER BY id LIMIT 1", d.table),
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .ok();
        let Some((lon, lat)) = point else { continue };
        for metres in [10.0, 20_000.0, 100_000.0] {
            let filters = [Filter::Near(lon, lat, metres)];
            let facets = facet_names(d);
            check_facets(
                sample_server(),
                &conn,
                d,
                &filters,
                &facets,
                None,
                ListStyle::Repeated,
            );
            let by = Ask::by(&facets[..2]).with_all(d);
            check_summary(sample_server(), &conn, d, &filters, &by);
            let whole = check_summary(
                sample_server(),
                &conn,
                d,
                &filters,
                &Ask::default().with_all(d),
            );
            assert!(
                whole.json()[0]["count"].as_i64().unwrap() > 0,
                "{} near {lon},{lat}",
                d.table
            );
        }
    }
}

/// A code the file spells in two letter cases (`Minor` and `MINOR`: the loader takes codes
/// whatever their case) is one group, as filters match it; and it is written the same
/// whichever source answers, with its tables of totals or without, whichever spelling comes
/// first in the file.
#[test]
fn a_code_in_two_letter_cases_is_one_group_written_alike_from_every_source() {
    for upper_in_2020 in [true, false] {
        let dir = scratch_dir();
        let sample = repo_path("data/sample/dft_traffic_counts_raw_counts.csv");
        let text = std::fs::read_to_string(sample).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        for line in lines.iter_mut().skip(1) {
            if line.contains(",2020,2020-") == upper_in_2020 {
                *line = line.replace(",Minor,", ",MINOR,");
            }
        }
        std::fs::write(dir.join("raw.csv"), lines.join("\n") + "\n").unwrap();
        let db = dir.join("cases.db");
        load_ok(&db, &["--quiet"], &[&dir.join("raw.csv")]);
        let without = dir.join("cases-without-totals.db");
        std::fs::copy(&db, &without).unwrap();
        let conn = Connection::open(&without).unwrap();
        for (table, _) in roadtraffic_catalog::RAW_COUNTS.rollup_tables() {
            conn.execute_batch(&format!("DELETE FROM {table}")).unwrap();
        }
        let spellings: Vec<String> = {
            let mut stmt = conn
                .prepare("SELECT DISTINCT road_type COLLATE BINARY FROM raw_counts ORDER BY 1")
                .unwrap();
            let rows = stmt.query_map([], |r| r.get(0));
            rows.unwrap().map(Result::unwrap).collect()
        };
        assert_eq!(spellings, ["MINOR", "Major", "Minor"]);
        let servers = [serve(&db, &[]), serve(&without, &[])];
        for target in [
            "/api/raw-counts/facets?facet=road_type",
            "/api/raw-counts/summary?group_by=road_type&sum=all_motor_vehicles",
            "/api/raw-counts/summary?group_by=road_type,direction_of_travel",
            "/api/raw-counts/summary.csv?group_by=road_type&filter%5Broad_type%5D=minor",
        ] {
            let [with, without] = [&servers[0], &servers[1]].map(|s| get(s, target));
            assert_eq!(with.status, 200, "{target}: {}", with.text());
            assert_eq!(
                with.text(),
                without.text(),
                "{target} (MINOR in 2020: {upper_in_2020}): with its tables of totals, then without"
            );
        }
        let facet = get(&servers[0], "/api/raw-counts/facets?facet=road_type").json();
        let counts: Vec<i64> = (facet["facets"]["road_type"]["values"].as_array().unwrap())
            .iter()
            .map(|v| v["count"].as_i64().unwrap())
            .collect();
        assert_eq!(counts, [420, 120]);
    }
}
