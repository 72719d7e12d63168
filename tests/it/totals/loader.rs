//! The tables of totals as the loader leaves them: each holds its dataset's GROUP BY, row for
//! row; and a release kept beside others reads its own, through its storage, whichever file
//! its dataset's group is stored in.

use std::path::Path;

use rusqlite::Connection;

use roadtraffic_catalog::totals::{stat_column, RECORDS};
use roadtraffic_releases::{Manifest, Storage};

use super::*;
use crate::releases::fixtures::{load_alone, NAMES};
use crate::support::*;

/// Every row of a statement, as text, in order.
fn texts(conn: &Connection, sql: &str) -> Vec<String> {
    all_rows(conn, sql, &[])
        .into_iter()
        .map(|r| format!("{r:?}"))
        .collect()
}

/// Each table of totals of `conn` equals the GROUP BY of its dataset's table, computed here
/// (not with the loader's statement); gives how many tables it checked.
fn assert_totals_are_group_by(conn: &Connection, what: &str) -> usize {
    let mut checked = 0;
    for d in paginated() {
        let rows: i64 = conn
            .query_row(&format!("SELECT count(*) FROM {}", d.table), [], |r| {
                r.get(0)
            })
            .unwrap();
        for (table, rollup) in d.rollup_tables() {
            let by = rollup.by.join(", ");
            let mut kept = vec![RECORDS.to_string()];
            let mut made = vec!["count(*)".to_string()];
            for m in measure_names(d) {
                for (stat, of) in [
                    ("sum", "sum"),
                    ("count", "count"),
                    ("min", "min"),
                    ("max", "max"),
                ] {
                    kept.push(stat_column(stat, m));
                    made.push(format!("{of}({m})"));
                }
            }
            let in_table = texts(
                conn,
                &format!(
                    "SELECT {by}, {} FROM {table} ORDER BY {by}",
                    kept.join(", ")
                ),
            );
            let grouped = texts(
                conn,
                &format!(
                    "SELECT {by}, {} FROM {} GROUP BY {by} ORDER BY {by}",
                    made.join(", "),
                    d.table
                ),
            );
            assert_eq!(in_table.len(), grouped.len(), "{what}: {table}");
            assert!(
                in_table == grouped,
                "{what}: {table} is not the GROUP BY of {}",
                d.table
            );
            let records: i64 = conn
                .query_row(
                    &format!("SELECT coalesce(sum({RECORDS}), 0) FROM {table}"),
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(records, rows, "{what}: {table}");
            assert!(
                rows == 0 || !in_table.is_empty(),
                "{what}: {table} left empty"
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn tables_of_totals_hold_the_group_by_of_their_dataset() {
    let sample = open(sample_db());
    let expected: usize = paginated().map(|d| d.rollups.len()).sum();
    assert!(expected >= 5);
    assert_eq!(assert_totals_are_group_by(&sample, "sample"), expected);
    // Small: thousands of rows at most where the table has millions.
    for d in paginated() {
        for (table, _) in d.rollup_tables() {
            let rows: i64 = sample
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
                .unwrap();
            assert!(rows > 0 && rows <= sample_rows(d.table), "{table}: {rows}");
        }
    }
    if let Some(db) = real_db() {
        assert_eq!(
            assert_totals_are_group_by(&open(db), "real files"),
            expected
        );
    }
}

fn manifest(db: &Path) -> Manifest {
    Manifest::current(db).unwrap().expect("releases kept")
}

#[test]
fn kept_releases_read_their_own_totals_through_their_storage() {
    let db = kept_releases();
    let m = manifest(db);
    // Some release reads a dataset's group from a file other than its own.
    assert!(
        m.releases.iter().any(|r| !r.shared.is_empty()),
        "{:?}",
        m.releases
    );
    for (which, name) in NAMES.iter().enumerate() {
        let release = m.find(name).unwrap();
        let kept = Storage::of(db, release).open().unwrap();
        let alone = Connection::open(load_alone(which)).unwrap();
        assert!(assert_totals_are_group_by(&kept, name) > 0);
        for d in paginated() {
            for (table, _) in d.rollup_tables() {
                let sql = format!("SELECT * FROM {table} ORDER BY rowid");
                assert!(texts(&kept, &sql) == texts(&alone, &sql), "{name}: {table}");
            }
        }
    }
    // Served by name, each answers its summaries from them.
    let server = serve(db, &[]);
    for (which, name) in NAMES.iter().enumerate() {
        let conn = open(load_alone(which));
        for d in paginated().filter(|d| !d.rollups.is_empty()) {
            let ask = Ask::by(&[d.rollups[0].by[0]]).with_all(d);
            let target = format!("/releases/{name}{}", summary_target(d, "", &[], &ask));
            let reply = get(&server, &target);
            assert_eq!(reply.status, 200, "{target}: {}", reply.text());
            assert_rows(
                &reply.text(),
                &expected_summary(&conn, d, &[], &ask),
                false,
                &target,
            );
        }
    }
}
