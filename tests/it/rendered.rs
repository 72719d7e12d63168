//! Rendered records (`roadtraffic-load --rendered-records`): a file that holds them answers
//! every request with the bytes of a file that does not, the records it holds are the ones
//! copied into pages, and records of another layout than the server's are never copied.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;

use crate::caching::{asked, target, uncached_server, UNCACHED};
use crate::support::*;

/// The bundled sample, loaded with its records rendered.
fn rendered_db() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let db = scratch_dir().join("sample-rendered.db");
        load_ok(
            &db,
            &["--quiet", "--rendered-records"],
            &[&repo_path("data/sample")],
        );
        db
    })
}

/// The rendered file served with the response cache off (every body built), under the same
/// public URL as `uncached_server`.
fn rendered_server() -> &'static TestServer {
    static SERVER: OnceLock<TestServer> = OnceLock::new();
    SERVER.get_or_init(|| serve(rendered_db(), &UNCACHED))
}

/// The same request of both files: the same status and bytes (the ETags differ: each names
/// its file).
fn same_answer(target: &str) -> Result<(), TestCaseError> {
    let plain = get(uncached_server(), target);
    let rendered = get(rendered_server(), target);
    prop_assert_eq!(rendered.status, plain.status, "{}", target);
    prop_assert!(rendered.body == plain.body, "bodies differ: {}", target);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn a_rendered_file_answers_the_bytes_of_a_plain_one(a in asked()) {
        let target = target(&a);
        same_answer(&target)?;
        same_answer(&target.replacen("/api/", "/legacy/api/", 1))?;
    }
}

#[test]
fn every_listing_whole_and_in_part_is_the_same_from_rendered_records() {
    for d in roadtraffic_catalog::DATASETS {
        let path = d.paths[0];
        let first_field = d.stored_columns().next().unwrap().name;
        for target in [
            format!("/api{path}"),
            format!("/api{path}?page%5Bsize%5D=100000"),
            format!("/api{path}?fields={first_field}"),
            format!("/api{path}.ndjson"),
            format!("/api{path}.csv"),
            format!("/legacy/api{path}?page%5Bsize%5D=7&page%5Bnumber%5D=2"),
        ] {
            same_answer(&target).unwrap();
        }
    }
}

/// A copy of the rendered file whose first raw-count record says its direction is `MARK`;
/// `tag` replaces the stored layout tag of the raw counts' records when given.
fn doctored_copy(name: &str, tag: Option<&str>) -> PathBuf {
    let db = scratch_dir().join(name);
    std::fs::copy(rendered_db(), &db).unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    let changed = conn
        .execute(
            r#"UPDATE raw_counts_records
               SET record = CAST(replace(CAST(record AS TEXT), '"N"', '"MARK"') AS BLOB)
               WHERE id = 1"#,
            [],
        )
        .unwrap();
    assert_eq!(changed, 1);
    if let Some(tag) = tag {
        conn.execute(
            "UPDATE metadata SET value = json_set(value, '$.raw_counts', ?1)
             WHERE key = 'rendered_records'",
            [tag],
        )
        .unwrap();
    }
    db
}

#[test]
fn pages_of_every_field_copy_the_stored_records() {
    let server = serve(&doctored_copy("rendered-marked.db", None), &[]);
    let marked = r#"{"id":1,"count_point_id":501,"direction_of_travel":"MARK","#;
    let page = get(&server, "/api/raw-counts?page%5Bsize%5D=2").text();
    assert!(page.contains(marked), "{page}");
    let ndjson = get(&server, "/api/raw-counts.ndjson").text();
    assert!(ndjson.starts_with(marked), "{ndjson}");
    // Fewer fields, or the 2019 records with their retired fields: written from the columns.
    let some = get(&server, "/api/raw-counts?fields=id,direction_of_travel").text();
    assert!(
        some.contains(r#""data":[{"id":1,"direction_of_travel":"N"}"#),
        "{some}"
    );
    let legacy = get(&server, "/legacy/api/raw-counts?page%5Bsize%5D=1").text();
    assert!(legacy.contains(r#""direction_of_travel":"N""#), "{legacy}");
    // OGC's features, whose decimals are numbers: written from the columns, never copied.
    let features = get(&server, "/ogcapi/collections/raw-counts/items?limit=1").json();
    let properties = &features["features"][0]["properties"];
    assert_eq!(properties["direction_of_travel"], "N", "{properties}");
    assert!(properties["latitude"].is_number(), "{properties}");
}

#[test]
fn records_of_another_layout_are_never_copied() {
    let server = serve(
        &doctored_copy("rendered-other-layout.db", Some("0123456789abcdef")),
        &[],
    );
    let page = get(&server, "/api/raw-counts?page%5Bsize%5D=1").text();
    assert!(page.contains(r#""direction_of_travel":"N""#), "{page}");
    // The other tables' records still serve.
    let plain = get(uncached_server(), "/api/count-points?page%5Bsize%5D=3");
    let copied = get(rendered_server(), "/api/count-points?page%5Bsize%5D=3");
    assert_eq!(copied.body, plain.body);
}

#[test]
fn the_loader_renders_records_only_when_asked() {
    let tables = |db: &Path| -> Vec<String> {
        let conn = rusqlite::Connection::open(db).unwrap();
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_master WHERE name LIKE '%\\_records' ESCAPE '\\'")
            .unwrap();
        let names = stmt.query_map([], |r| r.get(0)).unwrap();
        names.map(Result::unwrap).collect()
    };
    assert!(tables(sample_db()).is_empty());
    let rendered = tables(rendered_db());
    assert_eq!(
        rendered.len(),
        roadtraffic_catalog::DATASETS.len(),
        "{rendered:?}"
    );
    let conn = rusqlite::Connection::open(rendered_db()).unwrap();
    let counted: i64 = conn
        .query_row(
            "SELECT (SELECT count(*) FROM raw_counts_records) = (SELECT count(*) FROM raw_counts)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(counted, 1);
}
