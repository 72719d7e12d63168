//! CQL2 filters (OGC's Common Query Language; OGC API - Features Part 3), asked the same way
//! of OGC's items, the API's listings and their totals: `filter=` in cql2-text or cql2-json,
//! its geometries in `filter-crs`.
//!
//! The `cql2` crate parses and normalises both encodings; here the expression is checked
//! against the dataset's queryables (`queryables`) and written as SQL (`translate`, with the
//! spatial functions in `spatial`) that the rows' plan places in its WHERE clause beside any
//! other filter, so that the indexes a `filter[...]` would use serve it too. What SQLite lacks
//! is in `crate::sql_functions`.
//!
//! Bad input is a 400 that says what and where, decided before the parser sees anything that
//! could exhaust its stack (an expression over [`MAX_BYTES`], or nested over [`MAX_DEPTH`]).

pub mod queryables;
mod spatial;
mod template;
mod translate;

use cql2::Expr;
use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::{Column, Dataset};

use crate::error::ApiError;
use crate::spatial::Crs;
use template::Template;
use translate::Translator;

/// The longest filter taken, in bytes.
pub const MAX_BYTES: usize = 16 * 1024;
/// The characters a filter may have, as the descriptions say (`maxLength`): any of them,
/// URL-encoded, may take 12 bytes of the request line, which the HTTP layer caps at 64 KB
/// (beyond it, a bare 400 or 431 before the server reads the query). More is a 400, even
/// blanks (which alone would be no filter), so that the answer keeps the description's word.
pub const MAX_CHARACTERS_IN_A_URL: usize = 4096;
/// The deepest nesting taken (parentheses in cql2-text, operations in cql2-json).
pub const MAX_DEPTH: usize = 64;

/// The stack the parser runs on: many times what [`MAX_DEPTH`] levels take.
const PARSER_STACK: usize = 64 << 20;

/// A filter this short and this shallow parses on the thread's own stack when this much of
/// it is left (a unit test parses the worst of them in a thread of this size, in a debug
/// build): most filters, spared the mapping and unmapping of a stack of their own, which cost
/// them a tenth of their parse and, unmapped, interrupt every other core.
const SHALLOW_BYTES: usize = 256;
const SHALLOW_LEVELS: usize = 8;
const SHALLOW_STACK: usize = 1 << 20;

/// The most steps (rule calls of pest, the parser's parser) one cql2-text parse may take. The
/// grammar backtracks: a text that fails inside parentheses takes twice as long with each one
/// (`((((((((((((((((((((year`, 25 bytes, held a worker for minutes), while the longest and
/// deepest texts taken need at most some 32 steps a byte: 128 a byte of the longest.
const PARSER_CALLS: usize = 128 * MAX_BYTES;

/// Why a filter cannot be answered: always a 400.
type Problem = ApiError;

fn bad(message: impl Into<String>) -> Problem {
    ApiError::BadRequest(format!("Invalid filter: {}.", message.into()))
}

/// A filter's encoding (`filter-lang`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Text,
    Json,
}

impl Lang {
    /// The names `filter-lang` takes: `cql2-text` (the default), `cql2-json`, and the 2020
    /// draft's `cql-text`, which GDAL looks for before it sends a compound filter.
    pub const NAMES: [&'static str; 3] = ["cql2-text", "cql2-json", "cql-text"];

    pub fn named(name: Option<&str>) -> Result<Lang, ApiError> {
        match name.map(str::trim) {
            None | Some("") | Some("cql2-text") | Some("cql-text") => Ok(Lang::Text),
            Some("cql2-json") => Ok(Lang::Json),
            Some(other) => Err(ApiError::BadRequest(format!(
                "filter-lang `{other}` is not one of `{}`.",
                Lang::NAMES.join("`, `")
            ))),
        }
    }
}

/// A filter, checked against its dataset and written as SQL.
#[derive(Debug, Clone)]
pub struct Filter {
    sql: Template,
    key: String,
}

impl Filter {
    /// Reads `text` in `lang`, its geometries in `crs`, as a filter of `d`'s records.
    pub fn parse(
        d: &'static Dataset,
        text: &str,
        lang: Lang,
        crs: Crs,
    ) -> Result<Filter, ApiError> {
        let levels = within_limits(text, lang)?;
        // The parser recurses per level of nesting, with frames large enough that the limits
        // above would not keep it within a worker thread's stack: it runs on one of its own
        // (mapped as needed), unless the filter is short and shallow and the thread's stack
        // has room.
        let read = || Filter::read(d, text, lang, crs);
        if text.len() <= SHALLOW_BYTES && levels <= SHALLOW_LEVELS {
            stacker::maybe_grow(SHALLOW_STACK, PARSER_STACK, read)
        } else {
            stacker::grow(PARSER_STACK, read)
        }
    }

    fn read(d: &'static Dataset, text: &str, lang: Lang, crs: Crs) -> Result<Filter, ApiError> {
        let expr = match lang {
            Lang::Text => {
                // Read by each parse as it starts (a setting of the process's, set here so that
                // no parse can start without it).
                pest::set_call_limit(std::num::NonZeroUsize::new(PARSER_CALLS));
                cql2::parse_text(text).map_err(|e| bad(parse_error(&e.to_string())))?
            }
            Lang::Json => cql2::parse_json(text).map_err(|e| bad(format!("not CQL2 JSON: {e}")))?,
        };
        Filter::of_expr(d, &expr, crs)
    }

    fn of_expr(d: &'static Dataset, expr: &Expr, crs: Crs) -> Result<Filter, ApiError> {
        let translator = Translator { dataset: d, crs };
        let sql = translator.predicate(expr, true)?;
        // GeoJSON has no empty point, so a filter holding `POINT EMPTY` is keyed by its text;
        // the `~` keeps the two forms apart, as no JSON starts with it.
        let canonical = match (expr.to_json(), expr.to_text()) {
            (Ok(json), _) => json,
            (_, Ok(text)) => format!("~text {text}"),
            _ => format!("~debug {expr:?}"),
        };
        Ok(Filter {
            sql,
            key: format!("{crs:?} {canonical}"),
        })
    }

    /// `name = value`, `value` read as the queryable `name`'s kind (a number, or text): OGC's
    /// queryables as query parameters (`/req/queryables-query-parameters`).
    pub fn equals(d: &'static Dataset, name: &str, value: &str) -> Result<Filter, ApiError> {
        let Some(q) = queryables::find(d, name) else {
            return Err(bad(format!("unknown property `{name}`")));
        };
        let literal = match q.kind {
            queryables::Kind::Number => value
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .map(Expr::Float)
                .ok_or_else(|| {
                    ApiError::BadRequest(format!("{name} `{value}` is not a number."))
                })?,
            _ => Expr::Literal(value.to_string()),
        };
        let property = Expr::Property {
            property: name.to_string(),
        };
        let expr = Expr::Operation {
            op: "=".to_string(),
            args: vec![Box::new(property), Box::new(literal)],
        };
        Filter::of_expr(d, &expr, Crs::Crs84)
    }

    /// The WHERE term, each column as `column` names it, its arguments pushed onto `args`.
    pub fn term(
        &self,
        column: &dyn Fn(&'static Column) -> String,
        args: &mut Vec<SqlValue>,
    ) -> String {
        self.sql.render(column, args)
    }

    /// The columns it reads.
    pub fn columns(&self) -> Vec<&'static Column> {
        self.sql.columns()
    }

    /// The filter in one canonical form (the same expression in either encoding, however
    /// spaced, gives the same key).
    pub fn key(&self) -> &str {
        &self.key
    }
}

/// The filter a request asks for, if any: `filter`, in `filter-lang` (cql2-text when absent),
/// its geometries in `filter-crs` (a CRS's URI; CRS84 when absent). Each as given, or `None`.
pub fn asked(
    d: &'static Dataset,
    text: Option<&str>,
    lang: Option<&str>,
    crs: Option<&str>,
) -> Result<Option<Filter>, ApiError> {
    // Checked even without a filter: a misspelt one is a 400 either way.
    let lang = Lang::named(lang)?;
    let crs = match crs.map(str::trim).filter(|c| !c.is_empty()) {
        None => Crs::Crs84,
        Some(uri) => Crs::from_uri(uri).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "filter-crs `{uri}` is not one of `{}`, `{}`.",
                Crs::CRS84_URI,
                Crs::BNG_URI
            ))
        })?,
    };
    if let Some(long) = text.filter(|t| t.chars().count() > MAX_CHARACTERS_IN_A_URL) {
        // Blank or not: the description promises no more, and a client sending more has a bug.
        return Err(bad(format!(
            "it is {} characters, {} bytes long; at most {MAX_CHARACTERS_IN_A_URL} characters \
             and {MAX_BYTES} bytes are taken",
            long.chars().count(),
            long.len()
        )));
    }
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Ok(None);
    };
    Filter::parse(d, text, lang, crs).map(Some)
}

/// Refuses a filter too long, or nested too deep, before it is parsed; else the levels it
/// may nest, at most (brackets, `NOT`s and signs of arithmetic).
fn within_limits(text: &str, lang: Lang) -> Result<usize, ApiError> {
    if text.len() > MAX_BYTES {
        return Err(bad(format!(
            "it is {} bytes long; at most {MAX_BYTES} are taken",
            text.len()
        )));
    }
    // In JSON each operation opens an object and its arguments' array.
    let (open, close, most) = match lang {
        Lang::Text => ("(", ")", MAX_DEPTH),
        Lang::Json => ("[{", "]}", 2 * MAX_DEPTH + 2),
    };
    let (mut depth, mut deepest, mut quote) = (0usize, 0usize, None);
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if open.contains(c) => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            None if close.contains(c) => depth = depth.saturating_sub(1),
            None => {}
        }
    }
    // Prefix operators nest without parentheses: each `NOT` outside a quote is a level too.
    let unquoted: String = unquoted(text);
    let nots = (unquoted.split(|c: char| !c.is_ascii_alphanumeric() && c != '_'))
        .filter(|w| w.eq_ignore_ascii_case("not"))
        .count();
    // So is each sign of arithmetic (the parser recurses per operator of a chain of them):
    // not refused, as each nests little, but counted, so that many go onto its own stack.
    let signs = unquoted.matches(['+', '-', '*', '/', '%', '^']).count();
    if deepest > most || nots > MAX_DEPTH {
        return Err(bad(format!(
            "it is nested too deep; at most {MAX_DEPTH} levels are taken"
        )));
    }
    Ok(deepest + nots + signs)
}

/// The text outside quotes.
fn unquoted(text: &str) -> String {
    let mut quote = None;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None => out.push(c),
        }
    }
    out
}

/// The parser's message in one line: where (line and column) and what it expected.
fn parse_error(message: &str) -> String {
    if message.contains("call limit reached") {
        return format!(
            "it is too intricate to read (its parse gave up after {PARSER_CALLS} steps): \
             balance its parentheses, or write it more simply"
        );
    }
    let at = (message.lines())
        .find_map(|l| l.trim().strip_prefix("--> "))
        .and_then(|pos| pos.split_once(':'))
        .map(|(line, column)| match line {
            "1" => format!(" at character {column}"),
            _ => format!(" at line {line}, column {column}"),
        });
    let expected = (message.lines())
        .find_map(|l| l.trim().strip_prefix("= "))
        .map(|e| format!(": {e}"));
    format!(
        "not CQL2 text{}{}",
        at.unwrap_or_default(),
        expected.unwrap_or_default()
    )
}

#[cfg(test)]
mod tests;
