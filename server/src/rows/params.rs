//! A listing's parameters checked against the catalogue: which rows (filters), in which order
//! (sort), which fields, which page. Anything wrong is a 400 that says what.

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::places::Places;
use roadtraffic_catalog::{Column, CountMethod, Dataset, ValueType, COUNT_METHOD};

use std::sync::Arc;

use super::area_filter::{self, AreaFilter, AreaLookup, AREA};
use super::page::PageNumber;
use crate::error::ApiError;
use crate::filter::{self, Filter};
use crate::query::php::{self, Param, Params};
use crate::query::Query;
use crate::spatial::Area;

pub const DEFAULT_PAGE_SIZE: i64 = 250;

/// What a filter keeps.
#[derive(Debug, Clone)]
pub enum Condition {
    /// `column IN (values)`.
    In(&'static Column, Vec<SqlValue>),
    /// Matches nothing (`count_method=estimated` on raw counts).
    Nothing,
    /// In an area of the map (`filter[bbox]`, `filter[near]`, OGC's `bbox`): only on a
    /// dataset with places.
    Within(Places, Area),
    /// `columns`, compared as one row value (lexicographically), from `low` to `high`, both
    /// included; an end that is `None` is open (OGC's `datetime`: a span of years, or of the
    /// hours of count days). With `or_null`, rows whose first column is NULL match too: they
    /// have no value to compare, and OGC matches a feature without a time to any span.
    Range(Range),
    /// A CQL2 filter (`filter=`, OGC's `filter`).
    Cql2(Arc<Filter>),
    /// In some areas of a set (`filter[area]`): the rows of their count points, on a dataset
    /// with places (`column` is its count point).
    InAreas(&'static Column, Arc<AreaFilter>),
}

/// The bounds of a [`Condition::Range`].
#[derive(Debug, Clone)]
pub struct Range {
    pub columns: Vec<&'static Column>,
    /// One value per column, or `None` for no lower bound.
    pub low: Option<Vec<SqlValue>>,
    /// One value per column, or `None` for no upper bound.
    pub high: Option<Vec<SqlValue>>,
    pub or_null: bool,
}

impl Range {
    /// The range as text that names it exactly (the key of its filter set).
    pub fn key(&self) -> String {
        let names: Vec<&str> = self.columns.iter().map(|c| c.name).collect();
        format!("{names:?} {:?} {:?} {}", self.low, self.high, self.or_null)
    }
}

/// The filters that are not columns but areas, on a dataset with places.
pub const BBOX: &str = "bbox";
pub const NEAR: &str = "near";

fn bad(message: String) -> ApiError {
    ApiError::BadRequest(message)
}

fn text_param<'a>(name: &str, p: &'a Param) -> Result<&'a str, ApiError> {
    match p {
        Param::Text(t) => Ok(t),
        Param::Map(_) => Err(bad(format!(
            "The {name} parameter must be a single value or a comma-separated list."
        ))),
    }
}

pub fn list(value: &str) -> Vec<&str> {
    value
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .collect()
}

fn filter_value(column: &'static Column, raw: &str) -> Result<SqlValue, ApiError> {
    let not = |what: &str| {
        bad(format!(
            "The value `{raw}` of filter `{}` is not {what}.",
            column.name
        ))
    };
    match column.ty {
        ValueType::Integer => raw
            .parse::<i64>()
            .map(SqlValue::Integer)
            .map_err(|_| not("an integer")),
        ValueType::Number => raw
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .map(SqlValue::Real)
            .ok_or_else(|| not("a number")),
        ValueType::Date => {
            let shaped = raw.len() == 10
                && raw.bytes().enumerate().all(|(i, b)| match i {
                    4 | 7 => b == b'-',
                    _ => b.is_ascii_digit(),
                });
            shaped
                .then(|| SqlValue::Text(raw.to_string()))
                .ok_or_else(|| not("a date (YYYY-MM-DD)"))
        }
        ValueType::Text => Ok(SqlValue::Text(raw.to_string())),
    }
}

/// `count_method`, as the dataset declares it: `None` when it keeps every row.
fn count_method(d: &'static Dataset, values: &[&str]) -> Result<Option<Condition>, ApiError> {
    let mut methods = Vec::new();
    for v in values {
        match v.to_ascii_lowercase().as_str() {
            m @ ("counted" | "estimated") => methods.push(m.to_string()),
            _ => {
                return Err(bad(format!(
                    "The value `{v}` of filter `count_method` is not one of `counted, estimated`."
                )))
            }
        }
    }
    Ok(match d.count_method {
        // Matched case-insensitively, as the column's collation is.
        Some(CountMethod::Column(name)) => d
            .column(name)
            .map(|c| Condition::In(c, methods.into_iter().map(SqlValue::Text).collect())),
        Some(CountMethod::AllCounted) if methods.iter().any(|m| m == "counted") => None,
        Some(CountMethod::AllCounted) | None => Some(Condition::Nothing),
    })
}

/// `filter[name]=v`, and the bare `name=v` for names this endpoint filters on.
fn given_filters<'p>(
    d: &'static Dataset,
    params: &'p Params,
) -> Result<Vec<(&'p str, &'p Param)>, ApiError> {
    let mut given: Vec<(&str, &Param)> = Vec::new();
    // A plain `filter=` is a CQL2 filter, read by `cql2`.
    if let Some(Param::Map(m)) = php::get(params, "filter") {
        given.extend(m.iter().map(|(k, v)| (k.as_str(), v)));
    }
    for (k, v) in params {
        if d.filters.contains(&k.as_str()) && !given.iter().any(|(g, _)| g == k) {
            given.push((k, v));
        }
    }
    let spatial = |k: &str| Places::of(d).is_some() && (k == BBOX || k == NEAR || k == AREA);
    let unknown: Vec<&str> = given
        .iter()
        .map(|(k, _)| *k)
        .filter(|k| !d.filters.contains(k) && !spatial(k))
        .collect();
    if !unknown.is_empty() {
        return Err(bad(format!(
            "Requested filter(s) `{}` are not allowed. Allowed filter(s) are `{}`.",
            unknown.join(", "),
            d.filters.join(", ")
        )));
    }
    Ok(given)
}

/// Every condition a listing's parameters ask: `filter[name]`, the bare names the endpoint
/// filters on, and a CQL2 `filter`; `areas` finds the count points of `filter[area]`.
pub fn conditions(
    d: &'static Dataset,
    query: &Query,
    areas: &dyn AreaLookup,
) -> Result<Vec<Condition>, ApiError> {
    let mut conditions = Vec::new();
    for (name, value) in given_filters(d, query.php())? {
        if let Some(places) = Places::of(d).filter(|_| name == BBOX || name == NEAR) {
            conditions.extend(area(places, name, value)?);
            continue;
        }
        if name == AREA && Places::of(d).is_some() {
            let text = text_param("filter[area]", value)?;
            conditions.extend(in_areas(d, text, areas)?);
            continue;
        }
        let text = text_param(&format!("filter[{name}]"), value)?;
        conditions.extend(filter_condition(d, name, text)?);
    }
    conditions.extend(cql2(d, query)?);
    Ok(conditions)
}

/// `filter=` in CQL2, with `filter-lang` and `filter-crs`. Not with `filter[...]`, which PHP's
/// reading of the query (the public API's) would let one silently replace the other.
fn cql2(d: &'static Dataset, query: &Query) -> Result<Option<Condition>, ApiError> {
    let text = query.first("filter");
    if text.is_some_and(|t| !t.trim().is_empty()) && query.has_bracketed("filter") {
        return Err(bad(
            "Give either filter[name]=value filters or a CQL2 filter=, not both: \
             the CQL2 filter can say both (`road_category = 'TM' AND year > 2015`)."
                .to_string(),
        ));
    }
    let (lang, crs) = (query.first("filter-lang"), query.first("filter-crs"));
    let filter = filter::asked(d, text, lang, crs)?;
    Ok(filter.map(|f| Condition::Cql2(Arc::new(f))))
}

/// One of the dataset's filters (`name`, one of [`Dataset::filters`]) given `text`: a value,
/// or a comma-separated list of them; `None` when it keeps every row (empty, or `counted` on
/// raw counts). The JSON API's `filter[name]` and OGC's `name=` read it alike.
pub fn filter_condition(
    d: &'static Dataset,
    name: &str,
    text: &str,
) -> Result<Option<Condition>, ApiError> {
    let values = list(text);
    if values.is_empty() {
        return Ok(None);
    }
    if name == COUNT_METHOD {
        return count_method(d, &values);
    }
    let column = d
        .filter_column(name)
        .ok_or_else(|| ApiError::internal(format!("{}: filter {name} is no column", d.table)))?;
    let values = values
        .iter()
        .map(|v| filter_value(column, v))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(Condition::In(column, values)))
}

/// What a filter of the dataset's (`name`, one of [`Dataset::filters`]) keeps, in words: the
/// one description of it, for the API's description and OGC's alike.
pub fn filter_words(d: &Dataset, name: &str) -> Option<String> {
    let list = "A comma-separated list matches any of its values.";
    if name == COUNT_METHOD {
        return Some(match d.count_method? {
            CountMethod::Column(c) => format!("Counted or estimated figures: `counted` keeps those whose `{c}` is Counted, `estimated` those whose `{c}` is Estimated (letter case ignored). {list}"),
            CountMethod::AllCounted => format!("Counted or estimated figures: every record is a manual count, so `counted` keeps all and `estimated` none. {list}"),
        });
    }
    let c = d.filter_column(name)?;
    let case = match c.ty {
        ValueType::Text => " (letter case ignored)",
        _ => "",
    };
    Some(format!(
        "Those whose `{name}` is exactly this value{case}. {list}"
    ))
}

/// `filter[bbox]` or `filter[near]`: `None` when empty, as other filters.
fn area(places: Places, name: &str, value: &Param) -> Result<Option<Condition>, ApiError> {
    let param = format!("filter[{name}]");
    let text = text_param(&param, value)?.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let area = match name {
        BBOX => Area::parse_bbox(&param, text),
        _ => Area::parse_near(&param, text),
    };
    area.map(|a| Some(Condition::Within(places, a)))
        .map_err(bad)
}

/// `filter[area]={set}:{id}[,{id}...]`: `None` when empty, as other filters.
fn in_areas(
    d: &'static Dataset,
    text: &str,
    areas: &dyn AreaLookup,
) -> Result<Option<Condition>, ApiError> {
    let Some((set, ids)) = area_filter::parse(text)? else {
        return Ok(None);
    };
    let column = (d.column(roadtraffic_catalog::places::PLACE_KEY))
        .ok_or_else(|| ApiError::internal(format!("{}: places without a count point", d.table)))?;
    let filter = areas.area_filter(set, &ids)?;
    Ok(Some(Condition::InAreas(column, Arc::new(filter))))
}

/// `sort=a,-b`: ascending, `-` for descending.
pub fn sort(
    d: &'static Dataset,
    params: &Params,
) -> Result<Vec<(&'static Column, bool)>, ApiError> {
    match php::get(params, "sort") {
        Some(p) => sort_by(d, text_param("sort", p)?),
        None => Ok(Vec::new()),
    }
}

/// The sort `text` asks (`a,-b`; `+` or nothing ascends), of the names the API sorts by.
pub fn sort_by(d: &'static Dataset, text: &str) -> Result<Vec<(&'static Column, bool)>, ApiError> {
    let sortable: Vec<&str> = d.sorts().collect();
    let (mut sort, mut unknown) = (Vec::new(), Vec::new());
    for (name, desc) in sort_keys(text) {
        match d.filter_column(name).filter(|_| sortable.contains(&name)) {
            Some(c) => sort.push((c, desc)),
            None => unknown.push(name),
        }
    }
    if !unknown.is_empty() {
        return Err(sorts_not_allowed(&unknown, &sortable));
    }
    Ok(sort)
}

/// The keys of `sort=a,-b`, each with whether it is descending (`-`; `+` or nothing ascends).
pub fn sort_keys(text: &str) -> impl Iterator<Item = (&str, bool)> {
    list(text)
        .into_iter()
        .map(|key| match key.strip_prefix('-') {
            Some(name) => (name, true),
            None => (key.strip_prefix('+').unwrap_or(key), false),
        })
}

/// The 400 of sort keys that are not allowed, in the public service's words.
pub fn sorts_not_allowed<S: AsRef<str>>(unknown: &[&str], allowed: &[S]) -> ApiError {
    let allowed: Vec<&str> = allowed.iter().map(AsRef::as_ref).collect();
    bad(format!(
        "Requested sort(s) `{}` is not allowed. Allowed sort(s) are `{}`.",
        unknown.join(", "),
        allowed.join(", ")
    ))
}

/// `fields=a,b` (or JSON:API's `fields[type]=a,b`): those fields only, in record order.
pub fn fields(d: &'static Dataset, params: &Params) -> Result<Vec<&'static Column>, ApiError> {
    let wanted = match php::get(params, "fields") {
        None => Vec::new(),
        Some(Param::Text(t)) => list(t),
        Some(Param::Map(m)) => match m.as_slice() {
            [(_, Param::Text(t))] => list(t),
            _ => {
                return Err(bad(
                    "The fields parameter must be a comma-separated list.".into()
                ))
            }
        },
    };
    fields_named(d, &wanted)
}

/// The fields `wanted` (a list of names; every field when empty), in record order; a 400
/// naming any that is none.
pub fn fields_named(
    d: &'static Dataset,
    wanted: &[&str],
) -> Result<Vec<&'static Column>, ApiError> {
    let mut fields: Vec<&'static Column> = d.stored_columns().collect();
    if wanted.is_empty() {
        return Ok(fields);
    }
    let unknown: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|w| !fields.iter().any(|c| c.name == *w))
        .collect();
    if !unknown.is_empty() {
        return Err(bad(format!(
            "Requested field(s) `{}` are not allowed. Allowed field(s) are `{}`.",
            unknown.join(", "),
            fields.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
        )));
    }
    fields.retain(|c| wanted.contains(&c.name));
    Ok(fields)
}

/// `page[number]` and `page[size]`.
pub fn page(params: &Params, max_page_size: i64) -> Result<(PageNumber, i64), ApiError> {
    let page_map = match php::get(params, "page") {
        Some(Param::Map(m)) => m.as_slice(),
        _ => &[],
    };
    Ok((
        requested_page(page_map)?,
        page_size(page_map, max_page_size)?,
    ))
}

/// The text of `page[key]`, if given and not empty.
fn page_param<'a>(page: &'a [(String, Param)], key: &str) -> Result<Option<&'a str>, ApiError> {
    match page.iter().find(|(k, _)| k == key) {
        Some((_, p)) => Ok(Some(text_param(&format!("page[{key}]"), p)?).filter(|t| !t.is_empty())),
        None => Ok(None),
    }
}

/// `page[number]`: 1 when absent; any positive integer, however large (a page past the last
/// is empty, as any other).
fn requested_page(page: &[(String, Param)]) -> Result<PageNumber, ApiError> {
    let Some(text) = page_param(page, "number")? else {
        return Ok(PageNumber::Small(1));
    };
    let digits = text.strip_prefix('+').unwrap_or(text);
    digits
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| PageNumber::from_digits(digits))
        .flatten()
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "page[number] must be a positive integer, not `{text}`."
            ))
        })
}

/// `page[size]`: [`DEFAULT_PAGE_SIZE`] when absent; otherwise a whole number from 1 to `max`.
fn page_size(page: &[(String, Param)], max: i64) -> Result<i64, ApiError> {
    let Some(text) = page_param(page, "size")? else {
        return Ok(DEFAULT_PAGE_SIZE);
    };
    text.parse::<i64>()
        .ok()
        .filter(|n| text.bytes().all(|b| b.is_ascii_digit()) && (1..=max).contains(n))
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "page[size] must be an integer from 1 to {max}, not `{text}`."
            ))
        })
}
