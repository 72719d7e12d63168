//! The page's question, read from its query string: `dataset=` names a paginated listing by its
//! path (`raw-counts`), and everything else is what that listing's summary takes
//! (`group_by`, `sum`, `avg`, `min`, `max`, `filter[...]`, `sort`, `limit`). The form writes
//! it (a GET form, so a question is a URL); [`Ask::summary_query`] gives it back as the API's
//! own query string, which the page checks and runs with the API's code, and links to.
//!
//! Unlike the API, an empty field is no parameter: a form sends every field, filled or not.

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::places::Places;
use roadtraffic_catalog::{Dataset, Domain, AADF, DATASETS};

use crate::error::ApiError;
use crate::query::{self, Param, Params, Query};
use crate::totals::Stat;

/// The site's page of an area of a set.
pub fn area_page(set: &str, id: &str) -> String {
    let (mut set_part, mut id_part) = (String::new(), String::new());
    query::encode(set, &mut set_part);
    query::encode(id, &mut id_part);
    format!("/areas/{set_part}/{id_part}")
}

/// The page's own parameter: which listing the question is of.
pub const DATASET: &str = "dataset";
/// The list parameters of a summary: the groups, then a list per [`Stat`] (in `Stat::ALL`'s
/// order).
pub const GROUP_BY: &str = "group_by";
/// The filters of a dataset with places that are areas of the map, not columns (the API's
/// `filter[bbox]` and `filter[near]`).
const AREAS: [&str; 3] = ["bbox", "near", "area"];
/// A group by the areas of a set: `area:{set}`; its key column in the answer.
pub const AREA_GROUP: &str = "area:";
pub const AREA_KEY: &str = "area";
/// The filter of a record's id.
const ID: &str = "id";
/// The measure asked when nothing is: the catalogue's total of every motor vehicle.
const DEFAULT_MEASURE: &str = "all_motor_vehicles";

/// A question as the page's query string gives it, the texts as given (a refused question is
/// shown back in its form as it was typed).
#[derive(Debug)]
pub struct Ask {
    pub dataset: &'static Dataset,
    pub group_by: Vec<String>,
    /// The columns of each statistic, in `Stat::ALL`'s order.
    pub measures: Vec<(Stat, Vec<String>)>,
    /// `filter[name]` (or the bare `name` of one of the dataset's filters) and its text.
    pub filters: Vec<(String, String)>,
    pub sort: String,
    pub limit: String,
}

/// The paginated listings: those with totals, the page's datasets, in the catalogue's order.
pub fn datasets() -> impl Iterator<Item = &'static Dataset> {
    DATASETS.iter().copied().filter(|d| d.paginated)
}

/// A dataset's name in the page's query string: its API path without the `/`.
pub fn slug(d: &Dataset) -> &'static str {
    d.paths[0].trim_start_matches('/')
}

impl Ask {
    /// The question of a query string; a `dataset` that names no listing is refused (the
    /// default question is then the form's).
    pub fn read(query: &Query) -> (Ask, Option<ApiError>) {
        let asked = query.first(DATASET).filter(|s| !s.is_empty());
        let found = asked.map(|name| {
            datasets().find(|d| d.paths.iter().any(|p| p.trim_start_matches('/') == name))
        });
        match found {
            Some(None) => (Ask::default_of(&AADF), Some(unknown_dataset())),
            Some(Some(d)) => (Ask::of(d, query), None),
            None => (Ask::of(&AADF, query), None),
        }
    }

    /// The question of `raw` on `d`; without any group or measure parameter at all (a bare
    /// `?dataset=`), the dataset's default question with the filters given.
    fn of(d: &'static Dataset, query: &Query) -> Ask {
        let params = query.php();
        let text = |name: &str| match query::php::get(params, name) {
            Some(Param::Text(t)) => t.clone(),
            _ => String::new(),
        };
        let mut ask = Ask {
            dataset: d,
            group_by: listed(query, GROUP_BY),
            measures: (Stat::ALL.iter())
                .map(|s| (*s, listed(query, s.name())))
                .collect(),
            filters: filters(d, params),
            sort: text("sort"),
            limit: text("limit"),
        };
        let lists = std::iter::once(GROUP_BY).chain(Stat::ALL.iter().map(|s| s.name()));
        if lists.clone().all(|name| query.values(name).is_empty()) {
            let filters = std::mem::take(&mut ask.filters);
            ask = Ask {
                filters,
                ..Ask::default_of(d)
            };
        }
        ask
    }

    /// What a dataset is asked when nothing is chosen: by year, with the sum of all motor
    /// vehicles where it has them.
    pub fn default_of(d: &'static Dataset) -> Ask {
        let by_year = d.facet_columns().find(|c| c.domain == Domain::Year);
        let measure = d.measure_columns().find(|c| c.name == DEFAULT_MEASURE);
        let sums: Vec<String> = measure.map(|c| c.name.to_string()).into_iter().collect();
        Ask {
            dataset: d,
            group_by: by_year.map(|c| c.name.to_string()).into_iter().collect(),
            measures: (Stat::ALL.iter())
                .map(|s| {
                    (
                        *s,
                        if *s == Stat::Sum {
                            sums.clone()
                        } else {
                            vec![]
                        },
                    )
                })
                .collect(),
            filters: Vec::new(),
            sort: String::new(),
            limit: String::new(),
        }
    }

    /// The columns asked of one statistic.
    pub fn measures_of(&self, stat: Stat) -> &[String] {
        let found = self.measures.iter().find(|(s, _)| *s == stat);
        found.map_or(&[], |(_, columns)| columns.as_slice())
    }

    /// The summary's query string, as the API takes it: each list comma-separated, the
    /// filters, the order and the limit; empty ones left out.
    pub fn summary_query(&self) -> String {
        let mut out = String::new();
        push(&mut out, GROUP_BY, &self.group_by.join(","));
        for (stat, columns) in &self.measures {
            push(&mut out, stat.name(), &columns.join(","));
        }
        out.push_str(&self.filter_query_after(!out.is_empty()));
        push(&mut out, "sort", &self.sort);
        push(&mut out, "limit", &self.limit);
        out
    }

    /// The filters alone, as a listing takes them (its records are the summary's).
    pub fn filter_query(&self) -> String {
        self.filter_query_after(false)
    }

    fn filter_query_after(&self, more: bool) -> String {
        let mut out = String::new();
        for (name, text) in &self.filters {
            let mut key = String::from("filter[");
            query::encode(name, &mut key);
            key.push(']');
            push(&mut out, &key, text);
        }
        match (more, out.is_empty()) {
            (true, false) => format!("&{out}"),
            _ => out,
        }
    }

    /// The page's own query string of this question (its URL, as the form would write it but
    /// shorter).
    pub fn page_query(&self) -> String {
        let mut out = format!("{DATASET}={}", slug(self.dataset));
        let rest = self.summary_query();
        if !rest.is_empty() {
            out.push('&');
            out.push_str(&rest);
        }
        out
    }

    /// The filter's text as given, or empty.
    pub fn filter(&self, name: &str) -> &str {
        let found = self.filters.iter().find(|(n, _)| n == name);
        found.map_or("", |(_, text)| text.as_str())
    }
}

/// A value as a filter takes it (a group key, a value a field suggests).
pub fn filter_text(value: &SqlValue) -> String {
    match value {
        SqlValue::Integer(n) => n.to_string(),
        SqlValue::Real(f) => f.to_string(),
        SqlValue::Text(t) => t.clone(),
        SqlValue::Null | SqlValue::Blob(_) => String::new(),
    }
}

fn unknown_dataset() -> ApiError {
    let names: Vec<&str> = datasets().map(slug).collect();
    ApiError::BadRequest(format!(
        "The dataset parameter names a listing that has totals. Allowed dataset(s) are `{}`.",
        names.join(", ")
    ))
}

/// The names of a list parameter, however given (repeated, `name[]`, comma-separated), in
/// order, empty ones left out.
fn listed(query: &Query, name: &str) -> Vec<String> {
    let values = query.values(name);
    let names = values.iter().flat_map(|v| v.split(',')).map(str::trim);
    names
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect()
}

/// The filters given, `filter[name]` or the bare name of one of the dataset's filters, each
/// once (PHP's last value), in the order of the form (the dataset's, then the areas, then any
/// other): a question has one URL however its filters were ordered. Empty ones are left out.
/// A filter given as a map (`filter[a][b]`) keeps a text the API refuses, so that the page
/// says what the API says.
fn filters(d: &'static Dataset, params: &Params) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    if let Some(Param::Map(given)) = query::php::get(params, "filter") {
        for (name, value) in given {
            out.push((name.clone(), text_of(value)));
        }
    }
    for (name, value) in params {
        if d.filters.contains(&name.as_str()) && !out.iter().any(|(n, _)| n == name) {
            out.push((name.clone(), text_of(value)));
        }
    }
    out.retain(|(_, text)| !text.is_empty());
    let order = filter_names(d);
    out.sort_by_key(|(name, _)| order.iter().position(|f| f == name).unwrap_or(usize::MAX));
    out
}

/// The filters of a dataset in the form's order: its columns', the areas of the map where it
/// has places, and last the record's own id (which few people know).
pub fn filter_names(d: &'static Dataset) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = d.filters.iter().copied().filter(|f| *f != ID).collect();
    if Places::of(d).is_some() {
        names.extend(AREAS);
    }
    if d.filters.contains(&ID) {
        names.push(ID);
    }
    names
}

/// A filter's text; a nested one as its parts, which no filter takes.
fn text_of(value: &Param) -> String {
    match value {
        Param::Text(t) => t.clone(),
        Param::Map(parts) => {
            let texts: Vec<String> = parts.iter().map(|(_, p)| text_of(p)).collect();
            format!("[{}]", texts.join("]["))
        }
    }
}

/// `&name=value` (no `&` first), the value encoded as a query's value but for its commas, which
/// separate a list and read better as they are; nothing for an empty value.
fn push(out: &mut String, name: &str, value: &str) {
    if value.is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push('&');
    }
    out.push_str(name);
    out.push('=');
    let mut encoded = String::new();
    query::encode(value, &mut encoded);
    out.push_str(&encoded.replace("%2C", ","));
}

/// A name of the query string as the page reads it (for tests of the round trip).
#[cfg(test)]
fn decoded_names(raw: &str) -> Vec<String> {
    raw.split('&')
        .filter_map(|p| p.split_once('='))
        .map(|(k, _)| query::url_decode(k))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use roadtraffic_catalog::{COUNT_POINTS, RAW_COUNTS};

    fn read(raw: &str) -> (Ask, Option<ApiError>) {
        Ask::read(&Query::read(raw))
    }

    #[test]
    fn nothing_chosen_is_the_default_question() {
        let (ask, refused) = read("");
        assert!(refused.is_none());
        assert_eq!(ask.summary_query(), "group_by=year&sum=all_motor_vehicles");
        assert_eq!(
            ask.page_query(),
            "dataset=average-annual-daily-flow&group_by=year&sum=all_motor_vehicles"
        );
        let (points, _) = read("dataset=count-points&filter[road_category]=TM");
        assert!(std::ptr::eq(points.dataset, &COUNT_POINTS));
        assert_eq!(
            points.summary_query(),
            "group_by=aadf_year&filter[road_category]=TM"
        );
    }

    #[test]
    fn a_form_submission_is_the_apis_question() {
        let form = "dataset=raw-counts&group_by=year&group_by=&group_by=road_category\
                    &sum=cars_and_taxis&sum=lgvs&avg=&filter%5Byear%5D=2019%2C2020\
                    &filter%5Broad_name%5D=&filter%5Bbbox%5D=-5%2C51%2C-2%2C54&sort=&limit=10";
        let (ask, refused) = read(form);
        assert!(refused.is_none() && std::ptr::eq(ask.dataset, &RAW_COUNTS));
        assert_eq!(
            ask.summary_query(),
            "group_by=year,road_category&sum=cars_and_taxis,lgvs\
             &filter[year]=2019,2020&filter[bbox]=-5,51,-2,54&limit=10"
        );
        assert_eq!(
            ask.filter_query(),
            "filter[year]=2019,2020&filter[bbox]=-5,51,-2,54"
        );
        assert_eq!(ask.filter("bbox"), "-5,51,-2,54");
        // Chosen nothing: no default, the count of every record.
        let (none, _) = read("dataset=raw-counts&group_by=&sum=");
        assert_eq!(none.summary_query(), "");
        // The page's own URL reads back to the same question.
        let (again, _) = read(&ask.page_query());
        assert_eq!(again.summary_query(), ask.summary_query());
        assert!(decoded_names(&ask.page_query()).contains(&"filter[bbox]".to_string()));
    }

    #[test]
    fn values_are_encoded_and_names_of_no_listing_refused() {
        let (ask, _) = read("filter[road_name]=A%26B%20x&year=2019&filter[x][y]=1");
        assert_eq!(
            ask.filter_query(),
            "filter[year]=2019&filter[road_name]=A%26B%20x&filter[x]=%5B1%5D"
        );
        let (ask, refused) = read("dataset=regions&group_by=year");
        assert!(std::ptr::eq(ask.dataset, &AADF));
        let message = refused.unwrap().to_string();
        assert!(message.contains("raw-counts"), "{message}");
        assert!(read("dataset=traffic/local-authorities").1.is_none());
    }
}
