//! A facet or summary question checked against the catalogue: the listing's filters, then
//! which columns to count or group by, which measures, in which order. Anything wrong is a 400
//! that names the parameter and lists what it allows.

use roadtraffic_catalog::totals::{SummaryMeasure, DERIVED_MEASURES};
use roadtraffic_catalog::{Column, Dataset, DATASETS};

use super::by_area::{self, AREA, AREA_NAME};
use crate::error::ApiError;
use crate::query::php::{self, Param, Params};
use crate::query::Query;
use crate::rows::{conditions_key, AreaGrouping, AreaLookup, Condition};
use crate::rows::{sort_keys, sorts_not_allowed};

/// Values listed per facet when `facet_size` is not given.
pub const DEFAULT_FACET_SIZE: usize = 30;
/// The largest `facet_size`.
pub const MAX_FACET_SIZE: usize = 1_000;
/// The most `group_by` columns a summary takes (an area set counting as one).
pub const MAX_GROUP_BY: usize = 5;
/// The most rows a summary returns without `limit`: more groups than this is a 400.
pub const MAX_SUMMARY_ROWS: usize = 10_000;
/// The largest `limit`: every group of the biggest summaries asked in one answer (AADF
/// vehicle-km by ward and year: 125,052 groups, 12.6 MB, on the full-size release; BENCHMARKS.md).
pub const MAX_SUMMARY_LIMIT: usize = 200_000;
/// The largest `offset` (more than any summary's groups: past the last, an empty answer).
pub const MAX_SUMMARY_OFFSET: usize = 1_000_000_000;
/// Averages are rounded to this many decimal places (half away from zero).
pub const AVG_DECIMALS: u32 = 3;
/// Sums and averages of decimals published as text (link lengths, coordinates) are written
/// to this many places (added up exactly, then rounded half away from zero).
pub const DECIMAL_TEXT_DECIMALS: u32 = 6;
/// Vehicle-km and vehicle-miles are written to this many places: exact, in thousandths
/// (`roadtraffic_catalog::totals::DERIVED_SCALE`); their averages rounded to them.
pub const DERIVED_DECIMALS: u32 = 3;

/// `facets`: each column's values under the filters.
#[derive(Debug)]
pub struct Facets {
    pub dataset: &'static Dataset,
    pub conditions: Vec<Condition>,
    pub columns: Vec<&'static Column>,
    /// `facet=area:{set}`: the areas' counts, before the columns'.
    pub by_area: Option<AreaGrouping>,
    /// Values listed per column.
    pub size: usize,
}

/// What a summary computes of a measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stat {
    Sum,
    Avg,
    Min,
    Max,
}

impl Stat {
    /// In the order a summary's row gives them.
    pub const ALL: [Stat; 4] = [Stat::Sum, Stat::Avg, Stat::Min, Stat::Max];

    /// Its parameter, and its output column's prefix.
    pub fn name(self) -> &'static str {
        match self {
            Stat::Sum => "sum",
            Stat::Avg => "avg",
            Stat::Min => "min",
            Stat::Max => "max",
        }
    }
}

/// One aggregate asked of a summary: `sum_all_motor_vehicles`, `max_latitude`,
/// `sum_vehicle_km`.
#[derive(Debug, Clone, Copy)]
pub struct Measure {
    pub stat: Stat,
    pub of: SummaryMeasure,
}

impl Measure {
    /// Its output column: `<stat>_<measure>`.
    pub fn name(&self) -> String {
        format!("{}_{}", self.stat.name(), self.of.name())
    }
}

/// What a summary's rows are ordered by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// The n-th `group_by` column.
    Group(usize),
    /// The area's id (`group_by=area:{set}`).
    Area,
    Count,
    /// The n-th measure.
    Measure(usize),
}

/// `summary`: rows per group.
#[derive(Debug)]
pub struct Summary {
    pub dataset: &'static Dataset,
    pub conditions: Vec<Condition>,
    /// `group_by=area:{set}`: grouped by area first (`area`, `area_name`), then the columns.
    pub by_area: Option<AreaGrouping>,
    pub group_by: Vec<&'static Column>,
    /// Sums first, then averages, minima and maxima, each in the order listed.
    pub measures: Vec<Measure>,
    /// (key, descending); the group keys in order follow, as ties.
    pub sort: Vec<(SortKey, bool)>,
    /// At most this many rows (the first, in order); without it, more than
    /// [`MAX_SUMMARY_ROWS`] is refused.
    pub limit: Option<usize>,
    /// The rows before these are left out: with `limit`, the groups a page at a time.
    pub offset: Option<usize>,
}

fn bad(message: String) -> ApiError {
    ApiError::BadRequest(message)
}

/// A list parameter's names: repeated (`facet=a&facet=b`, `facet[]=a`) or comma-separated;
/// `None` when not given, a 400 when given with nothing in it.
fn listed(query: &Query, name: &str, allowed: &[&str]) -> Result<Option<Vec<String>>, ApiError> {
    let values = query.values(name);
    if values.is_empty() {
        return Ok(None);
    }
    let mut names: Vec<String> = Vec::new();
    for v in values.iter().flat_map(|v| v.split(',')).map(str::trim) {
        if !v.is_empty() && !names.iter().any(|n| n == v) {
            names.push(v.to_string());
        }
    }
    if names.is_empty() {
        return Err(bad(format!(
            "The {name} parameter is empty. Allowed {name} value(s) are `{}`.",
            allowed.join(", ")
        )));
    }
    Ok(Some(names))
}

/// The catalogue's columns of a list parameter: each name among `allowed`, or a 400 that
/// names the others and lists the allowed.
fn columns_of(
    name: &str,
    names: &[String],
    allowed: &[&'static Column],
) -> Result<Vec<&'static Column>, ApiError> {
    let found = |n: &str| allowed.iter().copied().find(|c| c.name == n);
    let unknown: Vec<&str> = (names.iter())
        .map(String::as_str)
        .filter(|n| found(n).is_none())
        .collect();
    if !unknown.is_empty() {
        let allowed: Vec<&str> = allowed.iter().map(|c| c.name).collect();
        return Err(bad(not_allowed(name, &unknown, &allowed, "")));
    }
    Ok(names.iter().filter_map(|n| found(n)).collect())
}

/// What a 400 of names a list parameter does not take says: those names, why, what it takes.
fn not_allowed(name: &str, unknown: &[&str], allowed: &[&str], why: &str) -> String {
    format!(
        "Requested {name} column(s) `{}` are not allowed{why}. Allowed {name} column(s) are `{}`.",
        unknown.join(", "),
        allowed.join(", ")
    )
}

/// A whole-number parameter from 1 to `max`, or `None` when absent or empty; given more
/// than once, a 400 (PHP would take the last and never look at the others: the description
/// cannot say so, and a client that repeats it has a bug worth hearing about).
fn whole(
    query: &Query,
    name: &str,
    allowed: std::ops::RangeInclusive<usize>,
) -> Result<Option<usize>, ApiError> {
    if query.values(name).len() > 1 {
        return Err(bad(format!("{name} is given more than once.")));
    }
    let text = match php::get(query.php(), name) {
        None => return Ok(None),
        Some(Param::Text(t)) if t.is_empty() => return Ok(None),
        Some(Param::Text(t)) => t.as_str(),
        Some(Param::Map(_)) => "[...]",
    };
    (text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse::<usize>().ok())
        .flatten()
        .filter(|n| allowed.contains(n))
        .map(Some)
        .ok_or_else(|| {
            bad(format!(
                "{name} must be an integer from {} to {}, not `{text}`.",
                allowed.start(),
                allowed.end()
            ))
        })
}

impl Facets {
    /// The question in one canonical form: the same question, the same text, whatever the
    /// order, encoding or repetition of its parameters (the key of its answer and its tag).
    pub fn key(&self) -> String {
        let columns: Vec<&str> = self.columns.iter().map(|c| c.name).collect();
        let rows = conditions_key(self.dataset, &self.conditions);
        let areas = by_area::key(self.by_area.as_ref());
        format!(
            "facets of {rows}:{areas} {} ({})",
            columns.join(","),
            self.size
        )
    }

    pub fn parse(
        d: &'static Dataset,
        query: &Query,
        areas: &dyn AreaLookup,
    ) -> Result<Self, ApiError> {
        let allowed: Vec<&'static Column> = d.facet_columns().collect();
        let names: Vec<&str> = allowed.iter().map(|c| c.name).collect();
        let asked = listed(query, "facet", &names)?.ok_or_else(|| {
            bad(format!(
                "The facet parameter names the column(s) to count the values of. Allowed facet column(s) are `{}`.",
                names.join(", ")
            ))
        })?;
        let conditions = crate::rows::conditions(d, query, areas)?;
        let (by_area, asked) = by_area::split("facet", asked, areas)?;
        Ok(Facets {
            dataset: d,
            conditions,
            columns: columns_of("facet", &asked, &allowed)?,
            by_area,
            size: whole(query, "facet_size", 1..=MAX_FACET_SIZE)?.unwrap_or(DEFAULT_FACET_SIZE),
        })
    }
}

impl Summary {
    pub fn parse(
        d: &'static Dataset,
        query: &Query,
        areas: &dyn AreaLookup,
    ) -> Result<Self, ApiError> {
        let groupable: Vec<&'static Column> = d.facet_columns().collect();
        let names: Vec<&str> = groupable.iter().map(|c| c.name).collect();
        let conditions = crate::rows::conditions(d, query, areas)?;
        let (by_area, group_by) = match listed(query, "group_by", &names)? {
            Some(asked) => {
                let (by_area, asked) = by_area::split("group_by", asked, areas)?;
                (by_area, columns_of("group_by", &asked, &groupable)?)
            }
            None => (None, Vec::new()),
        };
        let groups = group_by.len() + usize::from(by_area.is_some());
        if groups > MAX_GROUP_BY {
            return Err(bad(format!(
                "At most {MAX_GROUP_BY} group_by columns can be given, not {groups}."
            )));
        }
        let measures = measures(d, query)?;
        let mut summary = Summary {
            dataset: d,
            conditions,
            by_area,
            group_by,
            measures,
            sort: Vec::new(),
            limit: whole(query, "limit", 1..=MAX_SUMMARY_LIMIT)?,
            offset: whole(query, "offset", 0..=MAX_SUMMARY_OFFSET)?.filter(|&n| n > 0),
        };
        summary.sort = summary.sort_keys(query.php())?;
        Ok(summary)
    }

    /// The question in one canonical form (as [`Facets::key`]).
    pub fn key(&self) -> String {
        let rows = conditions_key(self.dataset, &self.conditions);
        let limit = self.limit.map_or(String::new(), |n| format!(" limit {n}"));
        let limit = limit
            + &self
                .offset
                .map_or(String::new(), |n| format!(" offset {n}"));
        let sort: Vec<String> = (self.sort.iter())
            .map(|(key, desc)| format!("{key:?}{}", if *desc { " desc" } else { "" }))
            .collect();
        let groups = self.group_by.len() + 2 * usize::from(self.by_area.is_some());
        let columns = self.output_names();
        format!(
            "summary of {rows}:{} {} by {} sort {}{limit}",
            by_area::key(self.by_area.as_ref()),
            columns[groups..].join(","),
            columns[..groups].join(","),
            sort.join(",")
        )
    }

    /// Its output columns, in order: the group keys, `count`, the measures.
    pub fn output_names(&self) -> Vec<String> {
        let areas = self.by_area.iter().flat_map(|_| [AREA, AREA_NAME]);
        let columns = self.group_by.iter().map(|c| c.name);
        let mut names: Vec<String> = areas.chain(columns).map(str::to_string).collect();
        names.push("count".to_string());
        names.extend(self.measures.iter().map(Measure::name));
        names
    }

    /// `sort=-sum_all_motor_vehicles,year`: any output column, `-` for descending.
    fn sort_keys(&self, params: &Params) -> Result<Vec<(SortKey, bool)>, ApiError> {
        let Some(p) = php::get(params, "sort") else {
            return Ok(Vec::new());
        };
        let Param::Text(text) = p else {
            return Err(bad(
                "The sort parameter must be a comma-separated list.".into()
            ));
        };
        let names = self.output_names();
        let areas = 2 * usize::from(self.by_area.is_some());
        let key_of = |name: &str| {
            if areas > 0 && name == AREA {
                return Some(SortKey::Area);
            }
            let at = names.iter().position(|n| n == name)?.checked_sub(areas)?;
            let groups = self.group_by.len();
            Some(match at {
                i if i < groups => SortKey::Group(i),
                i if i == groups => SortKey::Count,
                i => SortKey::Measure(i - groups - 1),
            })
        };
        let (mut keys, mut unknown) = (Vec::new(), Vec::new());
        for (name, desc) in sort_keys(text) {
            match key_of(name) {
                // A key given again can change nothing: the first already ordered by it.
                Some(key) if keys.iter().any(|(k, _)| *k == key) => {}
                Some(key) => keys.push((key, desc)),
                None => unknown.push(name),
            }
        }
        if !unknown.is_empty() {
            return Err(sorts_not_allowed(&unknown, &names));
        }
        Ok(keys)
    }
}

/// `sum=`, `avg=`, `min=`, `max=`: the dataset's summary measures, sums first.
fn measures(d: &'static Dataset, query: &Query) -> Result<Vec<Measure>, ApiError> {
    let allowed: Vec<SummaryMeasure> = d.summary_measures().collect();
    let names: Vec<&str> = allowed.iter().map(SummaryMeasure::name).collect();
    let mut out = Vec::new();
    for stat in Stat::ALL {
        let Some(asked) = listed(query, stat.name(), &names)? else {
            continue;
        };
        let unknown: Vec<&str> = (asked.iter())
            .map(String::as_str)
            .filter(|n| !names.contains(n))
            .collect();
        if !unknown.is_empty() {
            return Err(measures_not_allowed(stat, &unknown, &names));
        }
        let found = |n: &String| allowed.iter().find(|m| m.name() == n);
        out.extend((asked.iter().filter_map(found)).map(|&of| Measure { stat, of }));
    }
    Ok(out)
}

/// The 400 of measures a dataset does not have: what it allows, and where a derived measure
/// asked of it is measured.
fn measures_not_allowed(stat: Stat, unknown: &[&str], allowed: &[&str]) -> ApiError {
    let derived = |n: &&str| DERIVED_MEASURES.iter().any(|m| m.name == *n);
    let why = match allowed.is_empty() {
        true => ": this dataset has no numeric columns",
        false if unknown.iter().all(derived) => "",
        false => ": only numeric columns are added up",
    };
    let mut message = not_allowed(stat.name(), unknown, allowed, why);
    for m in DERIVED_MEASURES
        .iter()
        .filter(|m| unknown.contains(&m.name))
    {
        let listings: Vec<String> = (DATASETS.iter())
            .filter(|other| other.derived_measures().any(|o| o.name == m.name))
            .map(|other| format!("{} (`{}/summary`)", other.title, other.paths[0]))
            .collect();
        message.push_str(&format!(
            " `{}` is summed only over {}.",
            m.name,
            listings.join(" and ")
        ));
    }
    ApiError::BadRequest(message)
}
