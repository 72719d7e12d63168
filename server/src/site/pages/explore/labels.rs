//! The words of the Explore page: a question read out, its columns' headings, and group keys
//! as people know them (a region's name, a road category's), each with its page on the site
//! where it has one.

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::Dataset;

use super::question::{filter_text, Ask};
use crate::site::format;
use crate::site::pages::template::Context;
use crate::totals::{Measure, Stat, Summary};

/// The heading of a summary's `count`.
pub const RECORDS: &str = "Records";

/// A dataset as a heading names it: `AADF`, `Raw counts`.
pub fn dataset(d: &Dataset) -> String {
    format::sentence(d.title)
}

pub fn stat(s: Stat) -> &'static str {
    match s {
        Stat::Sum => "Sum",
        Stat::Avg => "Average",
        Stat::Min => "Minimum",
        Stat::Max => "Maximum",
    }
}

/// `Sum of cars and taxis`.
pub fn measure(m: &Measure) -> String {
    let column = format::lower_first(&format::column(m.of.name()));
    format!("{} of {column}", stat(m.stat))
}

/// How many key columns a row of `question` has: the area's id and name when grouped by
/// area, then the columns grouped by.
pub fn keys(question: &Summary) -> usize {
    question.group_by.len() + 2 * usize::from(question.by_area.is_some())
}

/// What the rows are grouped by, in words: `area, year`.
pub fn groups(question: &Summary) -> Vec<String> {
    let area = question.by_area.iter().map(|_| "area".to_string());
    let columns = (question.group_by.iter()).map(|c| format::lower_first(&format::column(c.name)));
    area.chain(columns).collect()
}

/// The heading of an output column of `question` (`Summary::output_names`).
pub fn output(question: &Summary, name: &str) -> String {
    match name {
        "area" if question.by_area.is_some() => return "Area".to_string(),
        "area_name" if question.by_area.is_some() => return "Area name".to_string(),
        _ => {}
    }
    if let Some(c) = question.group_by.iter().find(|c| c.name == name) {
        return format::column(c.name);
    }
    match question.measures.iter().find(|m| m.name() == name) {
        Some(m) => measure(m),
        None => RECORDS.to_string(),
    }
}

/// A filter's label: its column's, or what an area filter takes.
pub fn filter(name: &str) -> String {
    match name {
        "bbox" => "Map box (bbox)".to_string(),
        "near" => "Near a point (near)".to_string(),
        "area" => "In areas (area)".to_string(),
        other => format::column(other),
    }
}

/// The question in words: `AADF: records and sum of all motor vehicles, by year, where year
/// is 2019`.
pub fn question(question: &Summary, ask: &Ask) -> String {
    let mut asked = vec![RECORDS.to_lowercase()];
    asked.extend(
        question
            .measures
            .iter()
            .map(|m| format::lower_first(&measure(m))),
    );
    let mut words = format!("{}: {}", dataset(question.dataset), and(&asked));
    if keys(question) > 0 {
        let by = groups(question);
        words.push_str(&format!(", by {}", and(&by)));
    }
    let filters: Vec<String> = (ask.filters.iter())
        .map(|(name, text)| format!("{} is {text}", format::lower_first(&filter(name))))
        .collect();
    if !filters.is_empty() {
        words.push_str(&format!(", where {}", filters.join("; ")));
    }
    words
}

/// `a`, `a and b`, `a, b and c`.
fn and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [first @ .., last] => format!("{} and {last}", first.join(", ")),
    }
}

/// A group key as people read it, and the site's page of it where there is one.
pub fn key(ctx: &Context, column: &str, value: &SqlValue) -> (String, Option<String>) {
    let s = ctx.overview;
    match (column, value) {
        (_, SqlValue::Null) => ("(none)".to_string(), None),
        ("region_id", SqlValue::Integer(id)) => match s.region(*id) {
            Some(r) => (r.name.clone(), Some(ctx.link(&format!("/regions/{id}")))),
            None => (format!("Region {id}"), None),
        },
        ("local_authority_id", SqlValue::Integer(id)) => match s.local_authority(*id) {
            Some(a) => (
                a.name.clone(),
                Some(ctx.link(&format!("/local-authorities/{id}"))),
            ),
            None => (format!("Local authority {id}"), None),
        },
        ("count_point_id", SqlValue::Integer(id)) => (
            id.to_string(),
            Some(ctx.link(&format!("/manualcountpoints/{id}"))),
        ),
        ("road_category", SqlValue::Text(code)) => match format::road_category(code) {
            Some(c) => (format!("{} ({code})", c.short), None),
            None => (code.clone(), None),
        },
        ("hour", SqlValue::Integer(h)) => (format::hour(*h), None),
        ("direction_of_travel", SqlValue::Text(code)) => (direction(code), None),
        (_, other) => (filter_text(other), None),
    }
}

/// A direction of travel's code read out (`C`, whose meaning the published notes leave open,
/// as it is).
fn direction(code: &str) -> String {
    let name = match code {
        "N" => "Northbound",
        "S" => "Southbound",
        "E" => "Eastbound",
        "W" => "Westbound",
        other => return other.to_string(),
    };
    format!("{name} ({code})")
}

/// A filter value suggested, as its field's list names it: a region's name for its id.
pub fn hint(ctx: &Context, column: &str, value: &str) -> Option<String> {
    let id = value.parse::<i64>().ok();
    let s = ctx.overview;
    match column {
        "region_id" => id.and_then(|id| s.region(id)).map(|r| r.name.clone()),
        "local_authority_id" => id
            .and_then(|id| s.local_authority(id))
            .map(|a| a.name.clone()),
        "road_category" => format::road_category(value).map(|c| c.short.to_string()),
        "direction_of_travel" => Some(direction(value)).filter(|d| d != value),
        _ => None,
    }
}
