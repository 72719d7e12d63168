//! A parsed CQL2 expression checked against a dataset's queryables and written as SQL: each
//! operand typed (a number, text, a date, a boolean, a geometry), each operator given operands
//! of the types it compares, every value an argument. Where SQLite's own meaning differs from
//! CQL2's, the SQL says CQL2's: text compares minding letter case (`COLLATE BINARY`, beside the
//! case-blind term that lets a column's index seek), `LIKE` minds it too, `/` divides as reals.

use cql2::Expr;
use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::schema::ignores_case;
use roadtraffic_catalog::Dataset;

use super::queryables::{self, Kind, Queryable};
use super::spatial::{self, Shape};
use super::template::Template;
use super::{bad, Problem};
use crate::spatial::Crs;
use crate::sql_functions::like_prefix;

/// What a filter is translated for: the dataset whose queryables it names, and the CRS of its
/// geometries.
pub struct Translator {
    pub dataset: &'static Dataset,
    pub crs: Crs,
}

/// An operand, typed.
pub enum Operand {
    /// A property kept in a column.
    Column(Queryable),
    /// A value given in the filter, and what it is.
    Literal(SqlValue, Kind),
    Null,
    /// A value computed in SQL (arithmetic, `CASEI`).
    Computed(Template, Kind),
    /// The record's own point.
    Point,
    /// A geometry given in the filter.
    Shape(Shape),
}

impl Operand {
    fn kind(&self) -> Option<Kind> {
        match self {
            Operand::Column(q) => Some(q.kind),
            Operand::Literal(_, kind) | Operand::Computed(_, kind) => Some(*kind),
            Operand::Null => None,
            Operand::Point | Operand::Shape(_) => Some(Kind::Geometry),
        }
    }

    /// Its value in SQL (a number kept as text read as a number).
    fn template(&self) -> Template {
        match self {
            Operand::Column(q) => column_value(q),
            Operand::Literal(v, _) => Template::arg(v.clone()),
            Operand::Null => Template::sql("NULL"),
            Operand::Computed(t, _) => t.clone(),
            Operand::Point | Operand::Shape(_) => Template::sql("NULL"),
        }
    }
}

/// A column's value as CQL2 compares it.
pub fn column_value(q: &Queryable) -> Template {
    let Some(c) = q.column else {
        return Template::sql("NULL");
    };
    match q.is_decimal_text() {
        true => Template::sql("CAST(NULLIF(")
            .and(Template::column(c))
            .then(", '') AS REAL)"),
        false => Template::column(c),
    }
}

/// A number as SQLite compares it best: a whole number as an integer (so that it seeks an
/// integer column's index as `filter[...]` does), else a real.
fn number(v: f64) -> SqlValue {
    match v.fract() == 0.0 && v.abs() < 9.0e15 {
        true => SqlValue::Integer(v as i64),
        false => SqlValue::Real(v),
    }
}

/// Whether `text` is a calendar date written `YYYY-MM-DD`.
fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    let shaped = b.len() == 10
        && (b.iter().enumerate()).all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        });
    if !shaped {
        return false;
    }
    let (y, m, d): (u32, u32, u32) = (
        text[0..4].parse().unwrap_or(0),
        text[5..7].parse().unwrap_or(0),
        text[8..10].parse().unwrap_or(0),
    );
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => 0,
    };
    (1..=days).contains(&d)
}

const ARITHMETIC: [&str; 7] = ["+", "-", "*", "/", "%", "^", "div"];
const COMPARISONS: [&str; 6] = ["=", "<>", "<", ">", "<=", ">="];

impl Translator {
    /// The SQL of `e` as a predicate; `positive` when it sits under an even number of `NOT`s
    /// (where a null and false select alike, so a spatial test may narrow through the index).
    pub fn predicate(&self, e: &Expr, positive: bool) -> Result<Template, Problem> {
        let (op, args) = match e {
            Expr::Bool(b) => return Ok(Template::sql(if *b { "1" } else { "0" })),
            Expr::Operation { op, args } => (op.as_str(), args.as_slice()),
            other => return Err(not_a_predicate(other)),
        };
        match op {
            // With no operands its SQL would be `()`; CQL2 asks two or more.
            "and" | "or" if args.len() < 2 => {
                Err(bad(format!("`{op}` takes two or more operands")))
            }
            "and" | "or" => {
                let parts = args.iter().map(|a| self.predicate(a, positive));
                let between = if op == "and" { " AND " } else { " OR " };
                Ok(Template::join(parts.collect::<Result<Vec<_>, _>>()?, between).wrapped())
            }
            "not" => {
                let [arg] = args else {
                    return Err(bad("NOT takes one operand"));
                };
                Ok(Template::sql("NOT ").and(self.predicate(arg, !positive)?.wrapped()))
            }
            _ if COMPARISONS.contains(&op) => self.comparison(op, args),
            "like" => self.like(args),
            "between" => self.between(args),
            "in" => self.in_list(args),
            "isNull" => self.is_null(args),
            _ if op.starts_with("s_") => {
                let operands = self.operands(args)?;
                spatial::predicate(self, op, operands, positive)
            }
            _ => Err(self.not_predicate_op(op)),
        }
    }

    fn not_predicate_op(&self, op: &str) -> Problem {
        match op {
            _ if ARITHMETIC.contains(&op) || op == "casei" => bad(format!(
                "`{op}` gives a value, not true or false: compare it with something"
            )),
            _ => unsupported(op),
        }
    }

    pub fn operands(&self, args: &[Box<Expr>]) -> Result<Vec<Operand>, Problem> {
        args.iter().map(|a| self.operand(a)).collect()
    }

    /// A value, typed.
    pub fn operand(&self, e: &Expr) -> Result<Operand, Problem> {
        Ok(match e {
            Expr::Property { property } => self.property(property)?,
            Expr::Float(v) => Operand::Literal(number(*v), Kind::Number),
            Expr::Literal(s) => Operand::Literal(SqlValue::Text(s.clone()), Kind::Text),
            Expr::Bool(b) => Operand::Literal(SqlValue::Integer(*b as i64), Kind::Bool),
            Expr::Null => Operand::Null,
            Expr::Date { date } => match date.as_ref() {
                Expr::Literal(s) if is_date(s) => {
                    Operand::Literal(SqlValue::Text(s.clone()), Kind::Date)
                }
                other => {
                    return Err(bad(format!(
                        "DATE({}) is not a date (YYYY-MM-DD)",
                        show(other)
                    )))
                }
            },
            Expr::Timestamp { .. } | Expr::Interval { .. } => {
                return Err(bad(
                    "no property of these records is an instant or an interval: compare a date \
                     such as `count_date` with DATE('YYYY-MM-DD'), or a year with a number",
                ))
            }
            Expr::Geometry(_) | Expr::BBox { .. } => Operand::Shape(Shape::of(e, self.crs)?),
            Expr::Array(_) => return Err(bad("a list is only an operand of IN")),
            Expr::Operation { op, args } => self.computed(op, args)?,
        })
    }

    fn property(&self, name: &str) -> Result<Operand, Problem> {
        match queryables::find(self.dataset, name) {
            Some(q) if q.kind == Kind::Geometry => Ok(Operand::Point),
            Some(q) => Ok(Operand::Column(q)),
            None => {
                let names: Vec<&str> = (queryables::of(self.dataset).iter())
                    .map(|q| q.name)
                    .collect();
                Err(bad(format!(
                    "unknown property `{name}`; the queryables are `{}`",
                    names.join("`, `")
                )))
            }
        }
    }

    /// Arithmetic and `CASEI`, as values.
    fn computed(&self, op: &str, args: &[Box<Expr>]) -> Result<Operand, Problem> {
        let operands = self.operands(args)?;
        if op == "casei" {
            let [one] = operands.as_slice() else {
                return Err(bad("CASEI takes one operand"));
            };
            expect(one, Kind::Text, "CASEI")?;
            let t = Template::sql("cql2_casei(").and(one.template()).then(")");
            return Ok(Operand::Computed(t, Kind::Text));
        }
        if !ARITHMETIC.contains(&op) {
            return Err(
                match COMPARISONS.contains(&op) || op == "and" || op == "or" {
                    true => bad(format!(
                        "`{op}` gives true or false, not a value to compare"
                    )),
                    false => unsupported(op),
                },
            );
        }
        if operands.len() < 2 {
            return Err(bad(format!("`{op}` takes two operands")));
        }
        for o in &operands {
            expect(o, Kind::Number, op)?;
        }
        let mut it = operands.iter().map(Operand::template);
        let first = it.next().unwrap_or_default();
        let t = it.fold(first, |a, b| arithmetic(op, a, b));
        Ok(Operand::Computed(t, Kind::Number))
    }

    fn comparison(&self, op: &str, args: &[Box<Expr>]) -> Result<Template, Problem> {
        let [a, b] = self.pair(op, args)?;
        let (a, b, op) = match (&a, &b) {
            (Operand::Literal(..) | Operand::Null, Operand::Column(_)) => (b, a, flipped(op)),
            _ => (a, b, op),
        };
        let kind = compatible(op, &a, &b)?;
        let b = as_kind(b, kind);
        let (left, right) = (a.template(), b.template());
        let compared = match kind {
            Some(Kind::Text | Kind::Date) => left.then(" COLLATE BINARY "),
            _ => left.then(" "),
        };
        let exact = compared.then(op).then(" ").and(right.clone()).wrapped();
        Ok(match (op, seekable(self.dataset, &a), &b) {
            ("=", Some(column), Operand::Literal(..)) => column
                .then(" = ")
                .and(right)
                .then(" AND ")
                .and(exact)
                .wrapped(),
            _ => exact,
        })
    }

    fn pair(&self, op: &str, args: &[Box<Expr>]) -> Result<[Operand; 2], Problem> {
        let operands = self.operands(args)?;
        operands
            .try_into()
            .map_err(|_| bad(format!("`{op}` takes two operands")))
    }

    fn like(&self, args: &[Box<Expr>]) -> Result<Template, Problem> {
        let [value, pattern] = self.pair("LIKE", args)?;
        expect(&value, Kind::Text, "LIKE")?;
        expect(&pattern, Kind::Text, "LIKE")?;
        let exact = Template::sql("cql2_like(")
            .and(value.template())
            .then(", ")
            .and(pattern.template())
            .then(")");
        let (Some(column), Operand::Literal(SqlValue::Text(p), _)) =
            (seekable(self.dataset, &value), &pattern)
        else {
            return Ok(exact);
        };
        // The index (which ignores case) seeks the rows that start with the pattern's own
        // letters in any case, from the prefix to the next one up; `cql2_like` then decides.
        let prefix = like_prefix(p).to_ascii_lowercase();
        let Some(last) = prefix.chars().last().filter(char::is_ascii_alphanumeric) else {
            return Ok(exact);
        };
        let next = format!(
            "{}{}",
            &prefix[..prefix.len() - 1],
            (last as u8 + 1) as char
        );
        Ok(column
            .clone()
            .then(" >= ")
            .and(Template::arg(SqlValue::Text(prefix)))
            .then(" AND ")
            .and(column)
            .then(" < ")
            .and(Template::arg(SqlValue::Text(next)))
            .then(" AND ")
            .and(exact)
            .wrapped())
    }

    fn between(&self, args: &[Box<Expr>]) -> Result<Template, Problem> {
        let operands = self.operands(args)?;
        let [value, low, high]: [Operand; 3] = operands
            .try_into()
            .map_err(|_| bad("BETWEEN takes a value and two bounds"))?;
        let kind = compatible("BETWEEN", &value, &low)?.or(compatible("BETWEEN", &value, &high)?);
        let (low, high) = (as_kind(low, kind), as_kind(high, kind));
        let collate = match kind {
            Some(Kind::Text | Kind::Date) => " COLLATE BINARY",
            _ => "",
        };
        Ok(value
            .template()
            .then(collate)
            .then(" BETWEEN ")
            .and(low.template())
            .then(" AND ")
            .and(high.template())
            .wrapped())
    }

    fn in_list(&self, args: &[Box<Expr>]) -> Result<Template, Problem> {
        let [value, list] = args else {
            return Err(bad("IN takes a value and a list"));
        };
        let value = self.operand(value)?;
        let Expr::Array(items) = list.as_ref() else {
            return Err(bad("IN takes a list of values: `x IN (1, 2)`"));
        };
        let mut marks = Vec::new();
        let mut kind = None;
        for item in items {
            let item = self.operand(item)?;
            kind = kind.or(compatible("IN", &value, &item)?);
            marks.push(item);
        }
        if marks.is_empty() {
            return Ok(Template::sql("0"));
        }
        let marks: Vec<Template> = marks
            .into_iter()
            .map(|m| as_kind(m, kind).template())
            .collect();
        let list = Template::join(marks, ", ").wrapped();
        let collate = match kind {
            Some(Kind::Text | Kind::Date) => " COLLATE BINARY",
            _ => "",
        };
        let exact = value
            .template()
            .then(collate)
            .then(" IN ")
            .and(list.clone());
        Ok(match seekable(self.dataset, &value) {
            Some(column) => column
                .then(" IN ")
                .and(list)
                .then(" AND ")
                .and(exact)
                .wrapped(),
            None => exact.wrapped(),
        })
    }

    fn is_null(&self, args: &[Box<Expr>]) -> Result<Template, Problem> {
        let [arg] = args else {
            return Err(bad("IS NULL takes one operand"));
        };
        Ok(match self.operand(arg)? {
            Operand::Point => {
                let [x, y] = spatial::coordinates(self.dataset, self.crs)?;
                x.then(" IS NULL OR ").and(y).then(" IS NULL").wrapped()
            }
            Operand::Shape(_) => Template::sql("0"),
            other => other.template().wrapped().then(" IS NULL"),
        })
    }
}

/// The operator with its operands swapped (`1 < year` is `year > 1`).
fn flipped(op: &str) -> &str {
    match op {
        "<" => ">",
        ">" => "<",
        "<=" => ">=",
        ">=" => "<=",
        same => same,
    }
}

/// The column of an operand that its table compares ignoring case, as the query names it:
/// the term beside the exact one that lets the column's index seek.
fn seekable(d: &Dataset, o: &Operand) -> Option<Template> {
    match o {
        Operand::Column(q) => q
            .column
            .filter(|c| ignores_case(d, c))
            .map(Template::column),
        _ => None,
    }
}

/// What two operands compare as, or why they cannot be compared; `None` when one is null.
fn compatible(op: &str, a: &Operand, b: &Operand) -> Result<Option<Kind>, Problem> {
    let (ka, kb) = (a.kind(), b.kind());
    let date_text = |o: &Operand| matches!(o, Operand::Literal(SqlValue::Text(t), _) if is_date(t));
    match (ka, kb) {
        (Some(Kind::Geometry), _) | (_, Some(Kind::Geometry)) => Err(bad(format!(
            "`{op}` compares values, not geometries: use a spatial function such as S_INTERSECTS"
        ))),
        (None, k) | (k, None) => Ok(k),
        (Some(x), Some(y)) if x == y => Ok(Some(x)),
        (Some(Kind::Date), Some(Kind::Text)) if date_text(b) => Ok(Some(Kind::Date)),
        (Some(Kind::Text), Some(Kind::Date)) if date_text(a) => Ok(Some(Kind::Date)),
        (Some(x), Some(y)) => Err(bad(format!(
            "`{op}` compares {} with {}: {} and {}",
            describe(a),
            describe(b),
            name(x),
            name(y)
        ))),
    }
}

/// A text literal that spells a date, read as the date (`count_date = '2019-06-20'`).
fn as_kind(o: Operand, kind: Option<Kind>) -> Operand {
    match (o, kind) {
        (Operand::Literal(v, Kind::Text), Some(Kind::Date)) => Operand::Literal(v, Kind::Date),
        (o, _) => o,
    }
}

fn expect(o: &Operand, kind: Kind, op: &str) -> Result<(), Problem> {
    match o.kind() {
        None => Ok(()),
        Some(k) if k == kind => Ok(()),
        Some(k) => Err(bad(format!(
            "`{op}` takes {}, and {} is {}",
            name(kind),
            describe(o),
            name(k)
        ))),
    }
}

fn arithmetic(op: &str, a: Template, b: Template) -> Template {
    let call = |f: &str| {
        Template::sql(format!("{f}("))
            .and(a.clone())
            .then(", ")
            .and(b.clone())
            .then(")")
    };
    match op {
        "/" => Template::sql("(CAST(")
            .and(a)
            .then(" AS REAL) / ")
            .and(b)
            .then(")"),
        "%" => call("cql2_mod"),
        "^" => call("cql2_pow"),
        "div" => call("cql2_div"),
        _ => a
            .wrapped()
            .then(&format!(" {op} "))
            .and(b.wrapped())
            .wrapped(),
    }
}

fn name(kind: Kind) -> &'static str {
    match kind {
        Kind::Number => "a number",
        Kind::Text => "text",
        Kind::Date => "a date",
        Kind::Bool => "a boolean",
        Kind::Geometry => "a geometry",
    }
}

fn describe(o: &Operand) -> String {
    match o {
        Operand::Column(q) => format!("`{}`", q.name),
        Operand::Literal(v, _) => match v {
            SqlValue::Text(t) => format!("'{t}'"),
            SqlValue::Integer(n) => n.to_string(),
            SqlValue::Real(r) => format!("{r:?}"),
            _ => "a value".to_string(),
        },
        Operand::Null => "NULL".to_string(),
        Operand::Computed(..) => "a computed value".to_string(),
        Operand::Point => format!("`{}`", queryables::GEOMETRY),
        Operand::Shape(_) => "a geometry".to_string(),
    }
}

/// An expression, shortly, for a message.
fn show(e: &Expr) -> String {
    e.to_text().unwrap_or_else(|_| "it".to_string())
}

fn not_a_predicate(e: &Expr) -> Problem {
    bad(format!(
        "`{}` is not true or false of a record: a filter is a predicate such as `year = 2019`",
        show(e)
    ))
}

fn unsupported(op: &str) -> Problem {
    let lower = op.to_ascii_lowercase();
    let why = if lower.starts_with("t_") {
        "temporal functions are not supported (compare `year` or `count_date` instead)"
    } else if lower.starts_with("a_") {
        "array functions are not supported: no property is an array"
    } else if lower == "accenti" {
        "ACCENTI is not supported"
    } else {
        "no such function"
    };
    bad(format!("`{op}`: {why}"))
}
