use super::*;
use roadtraffic_catalog::{COUNT_POINTS, RAW_COUNTS};

fn sql(d: &'static Dataset, text: &str) -> Result<(String, Vec<SqlValue>), String> {
    let f = Filter::parse(d, text, Lang::Text, Crs::Crs84).map_err(|e| e.to_string())?;
    let mut args = Vec::new();
    let sql = f.term(&|c| format!("t.{}", c.name), &mut args);
    Ok((sql, args))
}

/// The deepest filters taken parse in a thread of 2 MiB (a worker's), with room to spare.
#[test]
fn the_deepest_filters_taken_parse_in_a_small_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let parens = |n| format!("{}year = 1{}", "(".repeat(n), ")".repeat(n));
            let nots = format!("{}year = 1", "NOT ".repeat(MAX_DEPTH));
            let minus = format!("year = {}1", "- ".repeat(4000));
            let taken = [parens(MAX_DEPTH), nots, minus];
            let parsed = taken.map(|t| Filter::parse(&RAW_COUNTS, &t, Lang::Text, Crs::Crs84));
            let too_deep = Filter::parse(&RAW_COUNTS, &parens(2000), Lang::Text, Crs::Crs84);
            (
                parsed.map(|p| p.is_ok()),
                too_deep.map_err(|e| e.to_string()).err(),
            )
        })
        .unwrap();
    let (parsed, too_deep) = handle.join().unwrap();
    assert_eq!(parsed, [true; 3]);
    assert!(too_deep.unwrap().contains("nested too deep"));
}

/// The worst filters parsed on a thread's own stack (short, shallow) parse in a thread of
/// [`SHALLOW_STACK`], in a debug build: long chains of operators, every level taken.
#[test]
fn short_shallow_filters_parse_in_the_stack_left_to_them() {
    let nested = |n: usize, inner: &str| format!("{}{inner}{}", "(".repeat(n), ")".repeat(n));
    let chain = |op: &str, n: usize| vec!["year = 1"; n].join(op);
    let json_and = |n: usize| {
        let args = vec![r#"{"op":"=","args":[{"property":"year"},1]}"#; n].join(",");
        format!(r#"{{"op":"and","args":[{{"op":"or","args":[{args}]}},{args}]}}"#)
    };
    let worst = [
        (Lang::Text, nested(SHALLOW_LEVELS, &chain(" AND ", 18))),
        (Lang::Text, chain(" OR ", 20)),
        (
            Lang::Text,
            format!("{}year = 1", "NOT ".repeat(SHALLOW_LEVELS)),
        ),
        (
            Lang::Text,
            format!("year = {}1", "- ".repeat(SHALLOW_LEVELS)),
        ),
        (Lang::Text, format!("year = {}", ["1"; 9].join("+"))),
        (
            Lang::Text,
            format!("{}road_name LIKE 'A%'{}", "(".repeat(8), ")".repeat(8)),
        ),
        (Lang::Text, format!("year IN ({})", ["1"; 100].join(","))),
        (Lang::Json, json_and(2)),
    ];
    for (lang, text) in &worst {
        assert!(text.len() <= SHALLOW_BYTES, "{}", text.len());
        assert!(
            within_limits(text, *lang).unwrap() <= SHALLOW_LEVELS,
            "{text}"
        );
    }
    let handle = std::thread::Builder::new()
        .stack_size(SHALLOW_STACK)
        .spawn(move || {
            (worst.iter())
                .map(|(lang, t)| Filter::read(&RAW_COUNTS, t, *lang, Crs::Crs84).is_ok())
                .collect::<Vec<bool>>()
        })
        .unwrap();
    assert_eq!(handle.join().unwrap(), [true; 8]);
}

/// What the parser gives up on, soon: each parenthesis it backtracks into doubles its work;
/// and the longest and most intricate texts taken, which it reads within its steps.
#[test]
fn the_parser_gives_up_on_backtracking_but_not_on_long_filters() {
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let read = |t: &str| Filter::parse(&RAW_COUNTS, t, Lang::Text, Crs::Crs84);
            let started = std::time::Instant::now();
            let backtracking = read(&format!("{}year", "(".repeat(40)));
            let given_up = started.elapsed();
            let ors = format!("year = 1{}", " OR year = 2".repeat(1360));
            let sums = format!("year = 1{}", " + (year * 2)".repeat(1250));
            let list: Vec<String> = (0..2000).map(|i| i.to_string()).collect();
            let list = format!("year IN ({})", list.join(","));
            let deep = format!("year = {}1{}", "(1 + ".repeat(60), ")".repeat(60));
            let taken =
                [ors, sums, list, deep].map(|t| read(&t).map(|_| ()).map_err(|e| e.to_string()));
            (
                backtracking.map(|_| ()).map_err(|e| e.to_string()),
                given_up,
                taken,
            )
        })
        .unwrap();
    let (backtracking, given_up, taken) = handle.join().unwrap();
    assert!(backtracking.unwrap_err().contains("too intricate"));
    assert!(given_up < std::time::Duration::from_secs(5), "{given_up:?}");
    for t in taken {
        t.unwrap();
    }
}

/// Values are bound, never written into the SQL; text compares exactly, beside the case-blind
/// terms that let the columns' NOCASE indexes seek.
#[test]
fn a_few_filters_as_sql() {
    let unknown = sql(&COUNT_POINTS, "year >= 2015");
    assert!(unknown.unwrap_err().contains("`year`"));
    let (s, args) = sql(
        &RAW_COUNTS,
        "road_name LIKE 'A3%' OR CASEI(road_name) IN (CASEI('m4'))",
    )
    .unwrap();
    assert_eq!(
        s,
        "((t.road_name >= ? AND t.road_name < ? AND cql2_like(t.road_name, ?)) OR \
         (cql2_casei(t.road_name) COLLATE BINARY IN (cql2_casei(?))))"
    );
    let texts = ["a3", "a4", "A3%", "m4"].map(|t| SqlValue::Text(t.to_string()));
    assert_eq!(args, texts);
}

/// GeoJSON cannot hold an empty point, so such a filter is keyed by its text; it is no error.
#[test]
fn filters_with_empty_geometries_are_read() {
    let is_null = sql(&RAW_COUNTS, "POINT EMPTY IS NULL").map(|(s, _)| s);
    assert_eq!(is_null, Ok("0".to_string()));
    let is_not_null = sql(&RAW_COUNTS, "POINT EMPTY IS NOT NULL").map(|(s, _)| s);
    assert_eq!(is_not_null, Ok("NOT (0)".to_string()));
    let (s, args) = sql(&RAW_COUNTS, "S_INTERSECTS(geometry, LINESTRING EMPTY)").unwrap();
    assert!(s.starts_with("cql2_spatial("), "{s}");
    assert_eq!(args.len(), 1, "{args:?}");
}
