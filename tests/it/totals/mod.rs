//! Totals and facets (issue 26): `<endpoint>/facets` and `<endpoint>/summary[.csv|.ndjson]`
//! of every paginated listing, spoken to over HTTP and compared with the same GROUP BY run by
//! rusqlite over the loaded rows of the served file (opened read-only here).
//!
//! The reference of this module never reads a table of totals or the runs: it groups the
//! dataset's own table under a WHERE written here from the filters, orders in Rust, and makes
//! each average from the exact SUM and COUNT with i128. Whatever source the server answers
//! from (a table of totals, the runs, the table), its answer must be this one.
//!
//! - `agreement`: every facet and summary of the sample and of the real files, and random
//!   questions (proptest) on the sample with and without its tables of totals;
//! - `exact`: sums beyond 2^53 written exactly in every form; sums beyond 64 bits refused;
//! - `measures`: every numeric column and vehicle-km (issue 35) against Python's decimals;
//! - `refusals`: what is asked wrong is a 400 that says what is allowed; never a 500;
//! - `time_limit`: a question that reads the table stops at the time limit, one answered
//!   from totals does not;
//! - `forms`: CSV and NDJSON carry JSON's rows, ETags, kept releases;
//! - `loader`: the tables of totals as the loader leaves them, in a file and in kept releases.

mod agreement;
mod exact;
mod forms;
mod loader;
mod measures;
mod refusals;
mod time_limit;

use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use roadtraffic_catalog::{Column, Dataset, ValueType, DATASETS};

use crate::support::{get, load_ok, scratch_dir, Reply, TestServer};

/// The served file, read-only: what the reference reads.
pub fn open(db: &Path) -> Connection {
    Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap()
}

/// The three releases of `releases::fixtures`, kept by the loader in one file (the latest
/// its own, the others beside it, what is unchanged stored once).
pub fn kept_releases() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let db = scratch_dir().join("kept-totals.db");
        for (name, input) in crate::releases::fixtures::inputs().all() {
            load_ok(&db, &["--quiet", "--release", name], &[input]);
        }
        db
    })
}

/// The paginated datasets: those with facets and summaries.
pub fn paginated() -> impl Iterator<Item = &'static Dataset> {
    DATASETS.iter().copied().filter(|d| d.paginated)
}

/// A dataset's listing path under `/api` (its first).
pub fn path(d: &Dataset) -> &'static str {
    d.paths[0]
}

pub fn facet_names(d: &Dataset) -> Vec<&'static str> {
    d.facet_columns().map(|c| c.name).collect()
}

pub fn measure_names(d: &Dataset) -> Vec<&'static str> {
    d.measure_columns().map(|c| c.name).collect()
}

fn column(d: &Dataset, name: &str) -> &'static Column {
    d.column(name)
        .unwrap_or_else(|| panic!("{}: no column {name}", d.table))
}

/// A query string's component, percent-encoded (commas kept: they separate list items).
pub fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b',' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A filter of a question, as the listing takes it.
#[derive(Debug, Clone)]
pub enum Filter {
    /// `filter[column]=a,b` (or, `bare`, `column=a,b`).
    In {
        column: &'static str,
        values: Vec<String>,
        bare: bool,
    },
    /// `filter[count_method]=counted,estimated`.
    CountMethod(Vec<&'static str>),
    /// `filter[bbox]=minLon,minLat,maxLon,maxLat`.
    Bbox([f64; 4]),
    /// `filter[near]=lon,lat,metres`.
    Near(f64, f64, f64),
}

impl Filter {
    pub fn is(column: &'static str, values: &[&str]) -> Filter {
        Filter::In {
            column,
            values: values.iter().map(|v| v.to_string()).collect(),
            bare: false,
        }
    }

    fn query(&self) -> String {
        match self {
            Filter::In {
                column,
                values,
                bare,
            } => {
                let list: Vec<String> = values.iter().map(|v| encode(v)).collect();
                match bare {
                    true => format!("{column}={}", list.join(",")),
                    false => format!("filter%5B{column}%5D={}", list.join(",")),
                }
            }
            Filter::CountMethod(methods) => {
                format!("filter%5Bcount_method%5D={}", methods.join(","))
            }
            Filter::Bbox(b) => format!("filter%5Bbbox%5D={},{},{},{}", b[0], b[1], b[2], b[3]),
            Filter::Near(lon, lat, r) => format!("filter%5Bnear%5D={lon},{lat},{r}"),
        }
    }

    /// The WHERE term of the reference, and its arguments.
    fn term(&self, d: &Dataset, args: &mut Vec<Sql>) -> Option<String> {
        match self {
            Filter::In {
                column: name,
                values,
                ..
            } => {
                let c = column(d, name);
                let marks = vec!["?"; values.len()].join(",");
                args.extend(values.iter().map(|v| typed(c, v)));
                Some(format!("{name} IN ({marks})"))
            }
            Filter::CountMethod(methods) => match d.table {
                // AADF says how each figure was made; every raw count was counted.
                "aadf" | "aadf_by_direction" => {
                    let marks = vec!["?"; methods.len()].join(",");
                    args.extend(methods.iter().map(|m| Sql::Text(m.to_string())));
                    Some(format!("estimation_method IN ({marks})"))
                }
                "raw_counts" if methods.contains(&"counted") => None,
                "raw_counts" => Some("0".into()),
                other => panic!("{other} has no count method"),
            },
            // Numbers written in the SQL, as `{:?}` writes them back exactly.
            Filter::Bbox([w, s, e, n]) => Some(format!(
                "CAST(NULLIF(longitude, '') AS REAL) BETWEEN {w:?} AND {e:?} \
                 AND CAST(NULLIF(latitude, '') AS REAL) BETWEEN {s:?} AND {n:?}"
            )),
            Filter::Near(lon, lat, r) => {
                let centre = roadtraffic_server::spatial::grid::to_grid(*lon, *lat);
                let (e, n) = (centre.easting, centre.northing);
                Some(format!(
                    "((easting - {e:?}) * (easting - {e:?}) + (northing - {n:?}) * (northing - {n:?})) <= {:?}",
                    r * r
                ))
            }
        }
    }
}

/// A filter's value as the column holds it.
fn typed(c: &Column, raw: &str) -> Sql {
    match c.ty {
        ValueType::Integer => Sql::Integer(raw.parse().unwrap()),
        ValueType::Number => Sql::Real(raw.parse().unwrap()),
        ValueType::Text | ValueType::Date => Sql::Text(raw.to_string()),
    }
}

/// ` WHERE ...` of the reference, with its arguments.
fn where_clause(d: &Dataset, filters: &[Filter]) -> (String, Vec<Sql>) {
    let mut args = Vec::new();
    let terms: Vec<String> = filters
        .iter()
        .filter_map(|f| f.term(d, &mut args))
        .collect();
    match terms.is_empty() {
        true => (String::new(), args),
        false => (format!(" WHERE {}", terms.join(" AND ")), args),
    }
}

/// The query string of filters.
pub fn filter_query(filters: &[Filter]) -> String {
    let parts: Vec<String> = filters.iter().map(Filter::query).collect();
    parts.join("&")
}

fn json_of(v: &Sql) -> Value {
    match v {
        Sql::Null => Value::Null,
        Sql::Integer(n) => Value::from(*n),
        Sql::Real(x) => Value::from(*x),
        Sql::Text(t) => Value::from(t.as_str()),
        Sql::Blob(b) => Value::from(String::from_utf8_lossy(b).into_owned()),
    }
}

/// SQLite's order of values (NULL, numbers, text, blobs), text compared as `COLLATE NOCASE`
/// (ASCII letters folded): the order of every facet column.
pub fn sqlite_cmp(a: &Sql, b: &Sql) -> Ordering {
    fn rank(v: &Sql) -> u8 {
        match v {
            Sql::Null => 0,
            Sql::Integer(_) | Sql::Real(_) => 1,
            Sql::Text(_) => 2,
            Sql::Blob(_) => 3,
        }
    }
    let number = |v: &Sql| match v {
        Sql::Integer(n) => *n as f64,
        Sql::Real(x) => *x,
        _ => 0.0,
    };
    match (a, b) {
        (Sql::Integer(x), Sql::Integer(y)) => x.cmp(y),
        (Sql::Text(x), Sql::Text(y)) => {
            let fold = |s: &str| {
                s.bytes()
                    .map(|c| c.to_ascii_lowercase())
                    .collect::<Vec<_>>()
            };
            fold(x).cmp(&fold(y))
        }
        (Sql::Blob(x), Sql::Blob(y)) => x.cmp(y),
        _ if rank(a) == rank(b) => number(a).partial_cmp(&number(b)).unwrap(),
        _ => rank(a).cmp(&rank(b)),
    }
}

fn all_rows(conn: &Connection, sql: &str, args: &[Sql]) -> Vec<Vec<Sql>> {
    let mut stmt = conn.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let width = stmt.column_count();
    let rows = stmt.query_map(rusqlite::params_from_iter(args), |r| {
        (0..width).map(|i| r.get::<_, Sql>(i)).collect()
    });
    rows.unwrap().collect::<Result<_, _>>().unwrap()
}

// ---------------------------------------------------------------------------------------------
// Facets

/// One facet as it must be answered: `{"values":[{"value":..,"count":..}],"truncated":..}`,
/// largest count first, ties by value (the column's order).
pub fn expected_facet(
    conn: &Connection,
    d: &Dataset,
    filters: &[Filter],
    column: &str,
    size: usize,
) -> Value {
    let (where_sql, args) = where_clause(d, filters);
    let sql = format!(
        "SELECT {column}, count(*) FROM {}{where_sql} GROUP BY {column}",
        d.table
    );
    let mut rows = all_rows(conn, &sql, &args);
    let count = |r: &Vec<Sql>| match r[1] {
        Sql::Integer(n) => n,
        _ => unreachable!(),
    };
    rows.sort_by(|a, b| count(b).cmp(&count(a)).then(sqlite_cmp(&a[0], &b[0])));
    let truncated = rows.len() > size;
    let values: Vec<Value> = (rows.iter().take(size))
        .map(|r| serde_json::json!({"value": json_of(&r[0]), "count": count(r)}))
        .collect();
    serde_json::json!({"values": values, "truncated": truncated})
}

/// How many distinct values a column holds under the filters.
pub fn distinct(conn: &Connection, d: &Dataset, filters: &[Filter], column: &str) -> usize {
    let (where_sql, args) = where_clause(d, filters);
    let sql = format!(
        "SELECT count(*) FROM (SELECT 1 FROM {}{where_sql} GROUP BY {column})",
        d.table
    );
    match all_rows(conn, &sql, &args)[0][0] {
        Sql::Integer(n) => n as usize,
        _ => unreachable!(),
    }
}

/// How `facet=` lists its columns.
#[derive(Debug, Clone, Copy)]
pub enum ListStyle {
    /// `facet=a&facet=b`
    Repeated,
    /// `facet=a,b`
    Commas,
    /// `facet[]=a&facet[]=b`
    Brackets,
}

pub fn list_param(name: &str, items: &[&str], style: ListStyle) -> String {
    match style {
        ListStyle::Repeated => (items.iter())
            .map(|i| format!("{name}={i}"))
            .collect::<Vec<_>>()
            .join("&"),
        ListStyle::Commas => format!("{name}={}", items.join(",")),
        ListStyle::Brackets => (items.iter())
            .map(|i| format!("{name}%5B%5D={i}"))
            .collect::<Vec<_>>()
            .join("&"),
    }
}

fn joined(parts: &[String]) -> String {
    let parts: Vec<&str> = (parts.iter())
        .map(String::as_str)
        .filter(|p| !p.is_empty())
        .collect();
    parts.join("&")
}

/// Asks the facets of `columns` under `filters` (with `facet_size` when given) and checks the
/// answer against the reference, as a whole (columns in the order asked).
pub fn check_facets(
    server: &TestServer,
    conn: &Connection,
    d: &Dataset,
    filters: &[Filter],
    columns: &[&str],
    size: Option<usize>,
    style: ListStyle,
) {
    if let Err(e) = compare_facets(server, conn, d, filters, columns, size, style) {
        panic!("{e}");
    }
}

/// How the facets of `columns` under `filters` differ from the reference.
pub fn compare_facets(
    server: &TestServer,
    conn: &Connection,
    d: &Dataset,
    filters: &[Filter],
    columns: &[&str],
    size: Option<usize>,
    style: ListStyle,
) -> Result<(), String> {
    let mut query = vec![list_param("facet", columns, style), filter_query(filters)];
    if let Some(size) = size {
        query.push(format!("facet_size={size}"));
    }
    let target = format!("/api{}/facets?{}", path(d), joined(&query));
    let reply = get(server, &target);
    if reply.status != 200 {
        return Err(format!("{target}: {} {}", reply.status, reply.text()));
    }
    let mut expected = serde_json::Map::new();
    for c in columns {
        let facet = expected_facet(conn, d, filters, c, size.unwrap_or(30));
        expected.insert(c.to_string(), facet);
    }
    let got = reply.json();
    // The columns in the order asked, each value typed as the column.
    let order: Vec<&String> = got["facets"]
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    if order != expected.keys().collect::<Vec<_>>() || got.as_object().map(|m| m.len()) != Some(1) {
        return Err(format!("{target}: {got}"));
    }
    for (c, facet) in &expected {
        if &got["facets"][c] != facet {
            return Err(format!(
                "{target}: {c} is\n{}\nnot\n{facet}",
                got["facets"][c]
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Summaries

/// What a summary adds up of a measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stat {
    Sum,
    Avg,
    Min,
    Max,
}

impl Stat {
    pub const ALL: [Stat; 4] = [Stat::Sum, Stat::Avg, Stat::Min, Stat::Max];

    pub fn name(self) -> &'static str {
        match self {
            Stat::Sum => "sum",
            Stat::Avg => "avg",
            Stat::Min => "min",
            Stat::Max => "max",
        }
    }
}

/// A summary question (but its filters).
#[derive(Debug, Clone, Default)]
pub struct Ask {
    pub group_by: Vec<&'static str>,
    /// Per stat, its measures in the order listed (the answer gives sums, then averages,
    /// minima, maxima).
    pub measures: Vec<(Stat, Vec<&'static str>)>,
    /// `sort=`: output names, `-` for descending.
    pub sort: Vec<String>,
    pub limit: Option<usize>,
    /// `offset=`: the rows before it left out.
    pub offset: Option<usize>,
}

impl Ask {
    pub fn by(group_by: &[&'static str]) -> Ask {
        Ask {
            group_by: group_by.to_vec(),
            ..Ask::default()
        }
    }

    pub fn with(mut self, stat: Stat, measures: &[&'static str]) -> Ask {
        self.measures.push((stat, measures.to_vec()));
        self
    }

    /// Every measure of `d`, each stat.
    pub fn with_all(mut self, d: &Dataset) -> Ask {
        let all = measure_names(d);
        if !all.is_empty() {
            for stat in Stat::ALL {
                self = self.with(stat, &all);
            }
        }
        self
    }

    pub fn query(&self) -> String {
        let mut parts = Vec::new();
        if !self.group_by.is_empty() {
            parts.push(format!("group_by={}", self.group_by.join(",")));
        }
        for (stat, columns) in &self.measures {
            parts.push(format!("{}={}", stat.name(), columns.join(",")));
        }
        if !self.sort.is_empty() {
            parts.push(format!("sort={}", self.sort.join(",")));
        }
        if let Some(limit) = self.limit {
            parts.push(format!("limit={limit}"));
        }
        if let Some(offset) = self.offset {
            parts.push(format!("offset={offset}"));
        }
        parts.join("&")
    }

    /// The output's measures, in order: (stat, column), without repeats.
    fn outputs(&self) -> Vec<(Stat, &'static str)> {
        let mut out: Vec<(Stat, &'static str)> = Vec::new();
        for stat in Stat::ALL {
            for (s, columns) in self.measures.iter().filter(|(s, _)| *s == stat) {
                for c in columns {
                    if !out.contains(&(*s, *c)) {
                        out.push((*s, c));
                    }
                }
            }
        }
        out
    }
}

/// A summary's cell as it must be written.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Value(Sql),
    /// An average: its decimal text, exactly (a sum of integers over their count, rounded
    /// half away from zero to 3 places).
    Exact(String),
    /// An average of decimals: to 3 places, within rounding of this.
    Near(f64),
}

impl Cell {
    /// As CSV writes it (but decimals, compared by value).
    pub fn csv(&self) -> String {
        match self {
            Cell::Value(Sql::Null) => String::new(),
            Cell::Value(Sql::Integer(n)) => n.to_string(),
            Cell::Value(Sql::Real(x)) => x.to_string(),
            Cell::Value(Sql::Text(t)) => t.clone(),
            Cell::Value(Sql::Blob(_)) => unreachable!(),
            Cell::Exact(t) => t.clone(),
            Cell::Near(x) => format!("{x:.3}"),
        }
    }
}

/// The rows a summary must give, with its output names: or `None` when it has more groups
/// than a summary gives (and no limit).
pub struct Expected {
    pub names: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

/// `sum / n` to 3 places, rounded half away from zero, computed exactly.
pub fn exact_average(sum: i128, n: i128) -> String {
    assert!(n > 0);
    let thousandths = sum.abs() * 1000;
    let (whole, rest) = (thousandths / n, thousandths % n);
    let rounded = whole + i128::from(2 * rest >= n);
    let sign = if sum < 0 && rounded > 0 { "-" } else { "" };
    format!("{sign}{}.{:03}", rounded / 1000, rounded % 1000)
}

/// An average's key for sorting: exact for integers.
#[derive(Debug, Clone, Copy)]
enum AvgKey {
    None,
    Exact(i128, i128),
    Float(f64),
}

fn avg_cmp(a: AvgKey, b: AvgKey) -> Ordering {
    match (a, b) {
        (AvgKey::None, AvgKey::None) => Ordering::Equal,
        (AvgKey::None, _) => Ordering::Less,
        (_, AvgKey::None) => Ordering::Greater,
        (AvgKey::Exact(s, n), AvgKey::Exact(t, m)) => (s * m).cmp(&(t * n)),
        (AvgKey::Float(x), AvgKey::Float(y)) => x.partial_cmp(&y).unwrap(),
        _ => unreachable!("one measure, one type"),
    }
}

/// The summary of `ask` under `filters`, from the dataset's own table.
pub fn expected_summary(conn: &Connection, d: &Dataset, filters: &[Filter], ask: &Ask) -> Expected {
    let outputs = ask.outputs();
    // Each output's aggregates, only those (a sum not asked may overflow).
    let mut select: Vec<String> = ask.group_by.iter().map(|g| g.to_string()).collect();
    select.push("count(*)".into());
    let mut at = Vec::new();
    for (stat, c) in &outputs {
        at.push(select.len());
        match stat {
            Stat::Sum | Stat::Avg => select.extend([format!("sum({c})"), format!("count({c})")]),
            Stat::Min => select.push(format!("min({c})")),
            Stat::Max => select.push(format!("max({c})")),
        }
    }
    let (where_sql, args) = where_clause(d, filters);
    let group = match ask.group_by.is_empty() {
        true => String::new(),
        false => format!(" GROUP BY {}", ask.group_by.join(", ")),
    };
    let sql = format!(
        "SELECT {} FROM {}{where_sql}{group}",
        select.join(", "),
        d.table
    );
    let raw = all_rows(conn, &sql, &args);
    let keys = ask.group_by.len();
    // Per row: its cells, and each output's sort key.
    let mut rows: Vec<(Vec<Cell>, Vec<AvgKey>)> = Vec::new();
    for r in raw {
        let mut cells: Vec<Cell> = r[..=keys].iter().cloned().map(Cell::Value).collect();
        let mut avg_keys = Vec::new();
        for ((stat, _), at) in outputs.iter().zip(&at) {
            let (cell, key) = match stat {
                Stat::Sum | Stat::Min | Stat::Max => (Cell::Value(r[*at].clone()), AvgKey::None),
                Stat::Avg => {
                    let n = match r[at + 1] {
                        Sql::Integer(n) => n as i128,
                        _ => unreachable!(),
                    };
                    match &r[*at] {
                        _ if n == 0 => (Cell::Value(Sql::Null), AvgKey::None),
                        Sql::Integer(s) => (
                            Cell::Exact(exact_average(*s as i128, n)),
                            AvgKey::Exact(*s as i128, n),
                        ),
                        Sql::Real(s) => (Cell::Near(s / n as f64), AvgKey::Float(s / n as f64)),
                        other => panic!("a sum of {other:?}"),
                    }
                }
            };
            cells.push(cell);
            avg_keys.push(key);
        }
        rows.push((cells, avg_keys));
    }
    let mut names: Vec<String> = ask.group_by.iter().map(|g| g.to_string()).collect();
    names.push("count".into());
    names.extend(outputs.iter().map(|(s, c)| format!("{}_{c}", s.name())));
    // The sort's keys, then the group keys ascending.
    let mut order: Vec<(usize, bool)> = Vec::new();
    for key in ask.sort.iter().flat_map(|s| s.split(',')) {
        let (name, desc) = match key.strip_prefix('-') {
            Some(n) => (n, true),
            None => (key.strip_prefix('+').unwrap_or(key), false),
        };
        order.push((names.iter().position(|n| n == name).unwrap(), desc));
    }
    order.extend((0..keys).map(|i| (i, false)));
    let value = |cell: &Cell| match cell {
        Cell::Value(v) => v.clone(),
        _ => Sql::Null,
    };
    rows.sort_by(|(a, ak), (b, bk)| {
        for (at, desc) in &order {
            let ordering = match outputs.get(at.wrapping_sub(keys + 1)) {
                Some((Stat::Avg, _)) => avg_cmp(ak[at - keys - 1], bk[at - keys - 1]),
                _ => sqlite_cmp(&value(&a[*at]), &value(&b[*at])),
            };
            let ordering = if *desc { ordering.reverse() } else { ordering };
            if ordering != Ordering::Equal {
                return ordering;
            }
        }
        Ordering::Equal
    });
    let rows = rows.into_iter().skip(ask.offset.unwrap_or(0));
    let mut rows: Vec<Vec<Cell>> = rows.map(|(cells, _)| cells).collect();
    if let Some(limit) = ask.limit {
        rows.truncate(limit);
    }
    Expected { names, rows }
}

/// The raw text of each value of `key` in a JSON or NDJSON body, in order (numbers and
/// `null`: what averages are written as).
pub fn raw_values(body: &str, key: &str) -> Vec<String> {
    let needle = format!("\"{key}\":");
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(at) = rest.find(&needle) {
        rest = &rest[at + needle.len()..];
        let end = rest.find([',', '}']).unwrap();
        out.push(rest[..end].to_string());
    }
    out
}

/// Whether a written average is `expected` to the documented rounding: exact text for sums of
/// integers; for decimals, 3 places within half a thousandth (and a float's error).
fn average_matches(written: &str, expected: &Cell) -> bool {
    match expected {
        Cell::Exact(text) => written == text,
        Cell::Near(x) => {
            let three_places = written.split_once('.').is_some_and(|(_, f)| f.len() == 3);
            let value: f64 = written.parse().unwrap_or(f64::NAN);
            three_places && (value - x).abs() <= 0.0005 + x.abs() * 1e-12
        }
        Cell::Value(Sql::Null) => written == "null",
        Cell::Value(_) => unreachable!(),
    }
}

fn same_number(got: &Value, expected: &Sql) -> bool {
    match expected {
        // Sums of decimals: as SQLite adds them, whatever order it read the rows in.
        Sql::Real(x) => got
            .as_f64()
            .is_some_and(|g| (g - x).abs() <= x.abs() * 1e-12),
        other => *got == json_of(other),
    }
}

/// Checks a JSON (`ndjson`: one object a line) summary body against the rows expected.
pub fn assert_rows(body: &str, expected: &Expected, ndjson: bool, what: &str) {
    if let Err(e) = compare_rows(body, expected, ndjson, what) {
        panic!("{e}");
    }
}

/// How a JSON (`ndjson`: one object a line) summary body differs from the rows expected.
pub fn compare_rows(
    body: &str,
    expected: &Expected,
    ndjson: bool,
    what: &str,
) -> Result<(), String> {
    let objects: Vec<Value> = match ndjson {
        true => (body.lines())
            .map(|l| serde_json::from_str(l).map_err(|e| format!("{what}: {e}: {l}")))
            .collect::<Result<_, _>>()?,
        false => {
            let all: Value =
                serde_json::from_str(body).map_err(|e| format!("{what}: {e}: {body}"))?;
            let Some(all) = all.as_array() else {
                return Err(format!("{what}: not an array: {body}"));
            };
            all.clone()
        }
    };
    if objects.len() != expected.rows.len() {
        return Err(format!(
            "{what}: {} rows, not {}\n{}",
            objects.len(),
            expected.rows.len(),
            &body[..body.len().min(2000)]
        ));
    }
    let averages: Vec<Option<Vec<String>>> = (expected.names.iter())
        .map(|n| n.starts_with("avg_").then(|| raw_values(body, n)))
        .collect();
    for (i, (object, row)) in objects.iter().zip(&expected.rows).enumerate() {
        let object = object
            .as_object()
            .ok_or_else(|| format!("{what}: row {i} is no object"))?;
        let keys: Vec<&String> = object.keys().collect();
        if keys != expected.names.iter().collect::<Vec<_>>() {
            return Err(format!(
                "{what}: row {i} has keys {keys:?}, not {:?}",
                expected.names
            ));
        }
        for (k, (name, cell)) in expected.names.iter().zip(row).enumerate() {
            let ok = match (cell, &averages[k]) {
                (cell, Some(written)) => average_matches(&written[i], cell),
                (Cell::Value(v), None) => same_number(&object[name], v),
                _ => unreachable!(),
            };
            if !ok {
                let keys = expected.names.iter().position(|n| n == "count").unwrap();
                let got = averages[k]
                    .as_ref()
                    .map_or(object[name].to_string(), |w| w[i].clone());
                return Err(format!(
                    "{what}: row {i} ({:?}): {name} is {got}, not {cell:?}",
                    &row[..=keys]
                ));
            }
        }
    }
    Ok(())
}

/// Checks a CSV summary body: the output names as its header, each row's cells as text.
pub fn assert_csv(body: &str, expected: &Expected, what: &str) {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(body.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(header, expected.names, "{what}");
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), expected.rows.len(), "{what}");
    for (i, (record, row)) in records.iter().zip(&expected.rows).enumerate() {
        for (k, cell) in row.iter().enumerate() {
            let got = &record[k];
            let ok = match cell {
                Cell::Value(Sql::Real(x)) => got
                    .parse::<f64>()
                    .is_ok_and(|g| (g - x).abs() <= x.abs() * 1e-12),
                Cell::Near(_) => average_matches(got, cell),
                other => got == other.csv(),
            };
            assert!(
                ok,
                "{what}: row {i}, {}: `{got}`, not {cell:?}",
                expected.names[k]
            );
        }
    }
}

/// The target of a summary: `/api<path>/summary<suffix>?...`.
pub fn summary_target(d: &Dataset, suffix: &str, filters: &[Filter], ask: &Ask) -> String {
    let query = joined(&[ask.query(), filter_query(filters)]);
    format!("/api{}/summary{suffix}?{query}", path(d))
}

/// Asks the summary in JSON and checks it against the reference; gives the reply.
pub fn check_summary(
    server: &TestServer,
    conn: &Connection,
    d: &Dataset,
    filters: &[Filter],
    ask: &Ask,
) -> Reply {
    let target = summary_target(d, "", filters, ask);
    let reply = get(server, &target);
    assert_eq!(reply.status, 200, "{target}: {}", reply.text());
    let expected = expected_summary(conn, d, filters, ask);
    assert_rows(&reply.text(), &expected, false, &target);
    reply
}

/// A 400 whose message holds every one of `words`.
pub fn assert_refused(reply: &Reply, target: &str, words: &[&str]) {
    assert_eq!(reply.status, 400, "{target}: {}", reply.text());
    let message = reply.json()["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{target}: no message: {}", reply.text()))
        .to_string();
    for w in words {
        assert!(message.contains(w), "{target}: `{w}` not in: {message}");
    }
}

#[test]
fn the_reference_rounds_half_away_from_zero() {
    assert_eq!(exact_average(10, 4), "2.500");
    assert_eq!(exact_average(2, 3), "0.667");
    assert_eq!(exact_average(-2, 3), "-0.667");
    assert_eq!(exact_average(1, 2000), "0.001");
    assert_eq!(exact_average(-1, 2000), "-0.001");
    assert_eq!(exact_average(-1, 2001), "0.000");
    assert_eq!(exact_average(319_119, 1000), "319.119");
    assert_eq!(exact_average(1 << 62, 3), "1537228672809129301.333");
}
