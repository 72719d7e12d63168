//! Filters no client should send: random CQL2 text and JSON (valid and garbage: random
//! tokens, deep nesting, huge numbers, odd strings, unknown functions, wrong types), and the
//! bad input issue 34 names. Each is answered 200, or 400 with a JSON message, never a 5xx,
//! and the server stays up.

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::support::*;
use crate::totals::encode;

/// Listings with places and without, paginated and not.
const PATHS: [&str; 4] = [
    "/raw-counts",
    "/count-points",
    "/local-authority-traffic",
    "/regions",
];

/// How a filter is asked: its text, its encoding, its CRS (if any).
struct Ask<'a> {
    path: &'a str,
    filter: &'a str,
    lang: &'a str,
    crs: Option<&'a str>,
}

/// The answer to a filter: its status and its JSON body (a 400's message checked present).
fn ask(server: &TestServer, a: &Ask) -> Result<(u16, Value), String> {
    let mut target = format!(
        "/api{}?page%5Bsize%5D=3&filter={}&filter-lang={}",
        a.path,
        encode(a.filter),
        a.lang
    );
    if let Some(crs) = a.crs {
        target.push_str(&format!("&filter-crs={}", encode(crs)));
    }
    let reply = get(server, &target);
    let shown: String = a.filter.chars().take(300).collect();
    let body: Value = serde_json::from_slice(&reply.body)
        .map_err(|e| format!("{} ({e}) for {shown}: {}", reply.status, reply.text()))?;
    match reply.status {
        200 => Ok((200, body)),
        400 if body["message"].as_str().is_some_and(|m| !m.is_empty()) => Ok((400, body)),
        status => Err(format!("{status} for {} {shown}: {body}", a.lang)),
    }
}

/// The message of a filter that must be refused.
fn refused(server: &TestServer, path: &str, filter: &str, lang: &str, crs: Option<&str>) -> String {
    let a = Ask {
        path,
        filter,
        lang,
        crs,
    };
    match ask(server, &a) {
        Ok((400, body)) => body["message"].as_str().unwrap_or_default().to_string(),
        other => panic!("{filter}: not refused: {other:?}"),
    }
}

const BNG: &str = "http://www.opengis.net/def/crs/EPSG/0/27700";

/// Issue 34's bad input: each a 400 that says what and where.
#[test]
fn bad_filters_are_refused_with_what_and_where() {
    let server = sample_server();
    let text = |filter: &str| refused(server, "/raw-counts", filter, "cql2-text", None);
    let syntax = text("year = = 2019");
    assert!(syntax.contains("at character 8"), "{syntax}");
    assert!(text("nope = 1").contains("`nope`"));
    assert!(text("year = 'x'").contains("`year`"));
    for unsupported in [
        "T_BEFORE(count_date, DATE('2019-01-01'))",
        "A_CONTAINS(road_name, ('A1'))",
        "ACCENTI(road_name) = ACCENTI('A1')",
        "FOO(year) = 1",
    ] {
        text(unsupported);
    }
    let range = text("S_INTERSECTS(geometry, POINT(200 50))");
    assert!(range.contains("out of range"), "{range}");
    let grid = "S_INTERSECTS(geometry, POINT(20000000 5))";
    refused(server, "/raw-counts", grid, "cql2-text", Some(BNG));
    let long = format!("year = 1{}", " OR year = 2".repeat(1500));
    assert!(text(&long).contains("bytes long"));
    // Blanks alone are no filter, but not beyond the characters the description allows.
    assert!(text(&"\u{c}".repeat(5000)).contains("5000 characters"));
    let deep = format!("{}year = 1{}", "(".repeat(2000), ")".repeat(2000));
    assert!(text(&deep).contains("nested too deep"));
    text(&format!("{}year = 1{}", "(".repeat(65), ")".repeat(65)));
    text(&format!("{}year = 1", "NOT ".repeat(2000)));
    // The parser backtracks into each parenthesis of a text that fails: it gives up soon.
    let started = std::time::Instant::now();
    assert!(text(&format!("{}year", "(".repeat(40))).contains("too intricate"));
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    // Deeper than taken (each `not` opens two levels), within the characters a filter may have.
    let mut nested = json!({"op": "=", "args": [{"property": "year"}, 1]});
    for _ in 0..70 {
        nested = json!({"op": "not", "args": [nested]});
    }
    let nested = nested.to_string();
    let message = refused(server, "/raw-counts", &nested, "cql2-json", None);
    assert!(message.contains("nested too deep"), "{message}");
    refused(
        server,
        "/regions",
        "id = 1",
        "cql2-text",
        Some("EPSG:4326x"),
    );
    refused(server, "/regions", "id = 1", "cql3-text", None);
    refused(
        server,
        "/regions",
        "S_INTERSECTS(geometry, POINT(0 0))",
        "cql2-text",
        None,
    );
    // The deepest nesting taken is answered.
    let a = Ask {
        path: "/raw-counts",
        filter: &format!("{}year = 2019{}", "(".repeat(64), ")".repeat(64)),
        lang: "cql2-text",
        crs: None,
    };
    assert_eq!(ask(server, &a).unwrap().0, 200);
    assert_eq!(get(server, "/api/regions").status, 200);
}

/// Properties that exist on some datasets, and names that exist on none.
const PROPERTIES: &[&str] = &[
    "year",
    "road_name",
    "count_date",
    "latitude",
    "geometry",
    "id",
    "name",
    "link_length_km",
    "nope",
    "\"year\"",
    "Year",
];
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1e308",
    "1e309",
    "-1e400",
    "1e-400",
    "NaN",
    "inf",
    "99999999999999999999999",
    "0.1",
    "2019.0",
    "-9223372036854775809",
    "1.",
    ".5",
    "0x10",
];
const TEXTS: &[&str] = &[
    "''",
    "'O''Brien'",
    "'\\'",
    "'%_\\%'",
    "'Ünïcödé'",
    "'2019-06-20'",
    "'2019-02-30'",
    "'unterminated",
    "'\u{0}'",
    "'a''''b'",
];
const GEOMETRIES: &[&str] = &[
    "POINT(-3 51)",
    "POINT(500 500)",
    "BBOX(-4, 50, -2, 52)",
    "BBOX(1, 2, 3)",
    "POLYGON((-4 50,-2 50,-2 52,-4 52,-4 50),(-3.5 50.5,-3 50.5,-3 51,-3.5 50.5))",
    "POLYGON((0 0,1 1))",
    "MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((5 5,6 5,6 6,5 5)))",
    "LINESTRING(-4 50,-2 52)",
    "MULTIPOINT((-3 51),(-2 52))",
    "GEOMETRYCOLLECTION(POINT(0 0),LINESTRING(0 0,1 1))",
    "POINT EMPTY",
    "POINT(1 2 3)",
    "DATE('2019-06-20')",
    "TIMESTAMP('2019-06-20T00:00:00Z')",
    "INTERVAL('2019-01-01', '2020-01-01')",
    "TRUE",
    "NULL",
];
/// Tokens out of place.
const TOKENS: &[&str] = &[
    "(", ")", ",", "'", "\"", "AND", "OR", "NOT", "IN", "LIKE", "BETWEEN", "IS", "=", "--", ";",
    "/*", "\\", "%", "^", "DIV", "[", "{",
];
const OPERATORS: &[&str] = &[
    "=", "<>", "<", ">", "<=", ">=", "AND", "OR", "+", "-", "*", "/", "%", "^", "DIV", "LIKE",
    "||", "==",
];
const FUNCTIONS: &[&str] = &[
    "S_INTERSECTS",
    "S_WITHIN",
    "S_DISJOINT",
    "S_CONTAINS",
    "S_TOUCHES",
    "S_CROSSES",
    "S_OVERLAPS",
    "S_EQUALS",
    "CASEI",
    "ACCENTI",
    "T_BEFORE",
    "T_INTERSECTS",
    "A_CONTAINS",
    "A_EQUALS",
    "DIV",
    "UPPER",
    "foo",
    "BBOX",
    "POINT",
];

fn pick(from: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::sample::select(from).prop_map(str::to_string)
}

fn atom() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => pick(PROPERTIES),
        1 => pick(NUMBERS),
        1 => any::<i64>().prop_map(|n| n.to_string()),
        1 => any::<f64>().prop_map(|f| f.to_string()),
        1 => pick(TEXTS),
        1 => "[ -~]{0,12}".prop_map(|s| format!("'{}'", s.replace('\'', "''"))),
        1 => "\\PC{0,8}",
        1 => pick(GEOMETRIES),
        1 => pick(TOKENS),
    ]
}

/// CQL2 text, sometimes valid: atoms joined by operators, functions, predicates.
fn text_expression() -> impl Strategy<Value = String> {
    atom().prop_recursive(6, 64, 4, |inner| {
        let list = prop::collection::vec(inner.clone(), 0..4).prop_map(|l| l.join(", "));
        prop_oneof![
            (inner.clone(), pick(OPERATORS), inner.clone())
                .prop_map(|(a, op, b)| format!("{a} {op} {b}")),
            inner.clone().prop_map(|a| format!("({a})")),
            inner.clone().prop_map(|a| format!("NOT {a}")),
            (pick(FUNCTIONS), list.clone()).prop_map(|(f, args)| format!("{f}({args})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| format!("{a} BETWEEN {b} AND {c}")),
            (inner.clone(), list).prop_map(|(a, l)| format!("{a} IN ({l})")),
            inner.clone().prop_map(|a| format!("{a} IS NOT NULL")),
            (1usize..200, inner).prop_map(|(n, a)| format!(
                "{}{a}{}",
                "(".repeat(n),
                ")".repeat(n)
            )),
        ]
    })
}

const OPS: &[&str] = &[
    "=",
    "<>",
    "<",
    "and",
    "or",
    "not",
    "like",
    "between",
    "in",
    "isNull",
    "casei",
    "accenti",
    "+",
    "/",
    "%",
    "^",
    "div",
    "s_intersects",
    "s_within",
    "t_before",
    "a_contains",
    "foo",
    "",
];

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        "\\PC{0,8}".prop_map(Value::from),
        pick(PROPERTIES).prop_map(|p| json!({ "property": p })),
        "[0-9-]{0,12}".prop_map(|d| json!({ "date": d })),
        prop::collection::vec(-1e3f64..1e3, 0..7).prop_map(|b| json!({ "bbox": b })),
        (-200f64..200.0, -100f64..100.0)
            .prop_map(|(x, y)| json!({"type": "Point", "coordinates": [x, y]})),
        Just(json!({"type": "Polygon", "coordinates": [[[0, 0], [1, 1]]]})),
        Just(json!({"interval": ["..", "2019-01-01"]})),
    ]
}

/// cql2-json, sometimes valid: operations of any name over any arguments.
fn json_expression() -> impl Strategy<Value = String> {
    let tree = json_leaf().prop_recursive(6, 64, 4, |inner| {
        prop_oneof![
            (pick(OPS), prop::collection::vec(inner.clone(), 0..4))
                .prop_map(|(op, args)| json!({ "op": op, "args": args })),
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            (pick(OPS), inner).prop_map(|(op, arg)| json!({ "op": op, "args": arg })),
        ]
    });
    prop_oneof![
        6 => tree.prop_map(|v| v.to_string()),
        1 => "[ -~]{0,40}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Random cql2-text: 200 or 400 with a message.
    #[test]
    fn any_cql2_text_is_answered(
        filter in text_expression(),
        path in prop::sample::select(PATHS.to_vec()),
        crs in prop::option::of(prop::sample::select(vec![BNG, "nope"])),
    ) {
        // Past 64 KB of request head actix answers a bare 400 (hostile_requests.rs).
        prop_assume!(encode(&filter).len() < 60_000);
        let a = Ask { path, filter: &filter, lang: "cql2-text", crs };
        let answer = ask(sample_server(), &a);
        prop_assert!(answer.is_ok(), "{:?}", answer);
    }

    /// Random cql2-json: 200 or 400 with a message.
    #[test]
    fn any_cql2_json_is_answered(
        filter in json_expression(),
        path in prop::sample::select(PATHS.to_vec()),
    ) {
        prop_assume!(encode(&filter).len() < 60_000);
        let a = Ask { path, filter: &filter, lang: "cql2-json", crs: None };
        let answer = ask(sample_server(), &a);
        prop_assert!(answer.is_ok(), "{:?}", answer);
    }
}
