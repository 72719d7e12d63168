//! The Explore page: the answer to its question (in words, a chart, a table, and the same
//! question as the API's URLs), then the forms that ask another; or, for a question the API
//! refuses, its message at the top (an error summary, linked to the field it names) and the
//! forms as they were filled.

use maud::{html, Markup};
use rusqlite::types::Value as SqlValue;

use super::figure::{self, Plot, MOST_BARS};
use super::form;
use super::labels;
use super::query::Hints;
use super::question::{area_page, Ask, AREA_GROUP, AREA_KEY};
use crate::html::{page_in, Section};
use crate::site::format;
use crate::site::pages::template::Context;
use crate::totals::{Summary, SummaryCell, SummaryRows, AVG_DECIMALS};

/// Rows of an answer shown in the page at most (its CSV has them all).
pub const MOST_ROWS: usize = 1_000;

/// A question answered.
pub struct Answered {
    pub question: Summary,
    pub rows: SummaryRows,
}

/// What the page shows: the question as asked, and its answer or why it was refused.
pub struct Shown<'a> {
    pub ask: &'a Ask,
    pub hints: &'a Hints,
    /// The area sets stored: `group_by=area:{set}` of a dataset with places.
    pub area_sets: &'a [String],
    pub outcome: Result<Answered, String>,
}

pub fn page(ctx: &Context, shown: &Shown) -> Markup {
    let refused = shown.outcome.as_ref().err();
    let body = html! {
        h1 { "Explore the statistics" }
        @if let Some(message) = refused { (error_summary(message)) }
        p.lead {
            "Count, add up and compare the records of any dataset: choose what to group them by, what to add up and which records. "
            "The answer is a table and a chart, and the same question is a URL of the API, linked below it. "
            a href="#ask" { "Change the question" } "."
        }
        p { "Traffic in any boundary (a ward, a constituency, a council's own zones): " a href=(ctx.link("/areas")) { "the areas" } ", each with its count points and vehicle-km." }
        @if let Ok(answered) = &shown.outcome { (answer(ctx, shown.ask, answered)) }
        section #ask aria-labelledby="ask-heading" {
            h2 #ask-heading { "Ask a question" }
            (form::dataset(ctx, shown.ask))
            (form::question(ctx, shown.ask, (shown.hints, shown.area_sets)))
        }
    };
    // A title of its own for each question (a bookmark, a tab, the history say which).
    let title = match &shown.outcome {
        Err(_) => "Error: Explore the statistics".to_string(),
        Ok(answered) => format!(
            "Explore: {}",
            labels::question(&answered.question, shown.ask)
        ),
    };
    page_in(ctx.frame, Section::Explore, &title, body)
}

/// The API's message, first on the page, with a link to the field it is about.
fn error_summary(message: &str) -> Markup {
    html! {
        div.error-summary role="alert" aria-labelledby="error-summary-title" tabindex="-1" {
            h2 #error-summary-title { "There is a problem with the question" }
            p { (message) }
            p { a href=(format!("#{}", field_named(message))) { "Go to the field to change it" } }
        }
    }
}

/// The form's field a message of the API is about, from the parameter it names.
fn field_named(message: &str) -> &'static str {
    let names = [
        ("dataset", form::DATASET_FIELD),
        ("group_by", form::GROUPS_FIELD),
        ("filter", form::FILTERS_FIELD),
        ("sort", form::SORT_FIELD),
        ("limit", form::LIMIT_FIELD),
        ("sum", form::MEASURES_FIELD),
        ("avg", form::MEASURES_FIELD),
        ("min", form::MEASURES_FIELD),
        ("max", form::MEASURES_FIELD),
    ];
    let at = |name: &str| message.find(name).unwrap_or(usize::MAX);
    (names.iter().min_by_key(|(name, _)| at(name)))
        .filter(|(name, _)| at(name) < usize::MAX)
        .map_or(form::GROUPS_FIELD, |(_, field)| field)
}

fn answer(ctx: &Context, ask: &Ask, answered: &Answered) -> Markup {
    let Answered { question, rows } = answered;
    let words = labels::question(question, ask);
    let records: i64 = (rows.rows.iter())
        .filter_map(|r| match r.get(labels::keys(question)) {
            Some(SummaryCell::Value(SqlValue::Integer(n))) => Some(*n),
            _ => None,
        })
        .sum();
    let plot = Plot::of(question, rows);
    html! {
        section #answer aria-labelledby="answer-heading" {
            h2 #answer-heading { "The answer" }
            p.key-figure { (words) }
            p {
                (format::grouped(&records.to_string())) " records"
                @if labels::keys(question) > 0 { " in " (format::grouped(&rows.rows.len().to_string())) " rows" }
                "."
                @if rows.rows.len() > MOST_ROWS { " The first " (format::grouped(&MOST_ROWS.to_string())) " rows are shown: the CSV below has them all." }
                @if matches!(plot.kind, figure::ChartKind::Bars) && rows.rows.len() > MOST_BARS { " The chart draws the first " (MOST_BARS) " rows." }
            }
            (figure::draw(ctx, &plot, question, rows))
            (table(ctx, ask, &words, &plot, answered))
            (links(ctx, ask))
        }
    }
}

fn table(ctx: &Context, ask: &Ask, words: &str, plot: &Plot, answered: &Answered) -> Markup {
    // A group by area links to the area's page, in the set asked.
    let area_set = (ask.group_by.iter()).find_map(|g| g.strip_prefix(AREA_GROUP));
    let Answered { question, rows } = answered;
    let groups = labels::keys(question);
    let lines = matches!(plot.kind, figure::ChartKind::Lines { .. });
    html! {
        div.table-scroll tabindex="0" role="region" aria-label="The answer (table)" {
            table.answer data-for-chart=[lines.then_some(figure::ID)] {
                caption { (words) }
                thead { tr {
                    @if groups == 0 { th scope="col" { "Group" } }
                    @for name in &rows.names {
                        // The API's name too, for who reads its URLs (the links below give it to
                        // everyone: screen readers are spared it at every cell).
                        th scope="col" { (labels::output(question, name)) span.api-name aria-hidden="true" { (name) } }
                    }
                } }
                tbody {
                    @for row in rows.rows.iter().take(MOST_ROWS) {
                        tr {
                            @if groups == 0 { th scope="row" { "All records that match" } }
                            @for (i, (name, cell)) in rows.names.iter().zip(row).enumerate() {
                                @if i < groups {
                                    (key_cell(ctx, (name, area_set), cell))
                                } @else {
                                    (number_cell(name, cell, (i == plot.column).then(|| plot.point(rows, row)).flatten()))
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A group's key: its name (a link to its page where the site has one), its value as the
/// API gives it in `data-value`.
fn key_cell(ctx: &Context, (column, area_set): (&str, Option<&str>), cell: &SummaryCell) -> Markup {
    let value = match cell {
        SummaryCell::Value(v) => v.clone(),
        SummaryCell::Decimal(d) => SqlValue::Text(d.clone()),
    };
    let (text, href) = match (column, area_set, &value) {
        (AREA_KEY, Some(set), SqlValue::Text(id)) => {
            (id.clone(), Some(ctx.link(&area_page(set, id))))
        }
        _ => labels::key(ctx, column, &value),
    };
    html! {
        th scope="row" data-column=(column) data-value=(super::question::filter_text(&value)) {
            @match href {
                Some(href) => a href=(href) { (text) },
                None => (text),
            }
        }
    }
}

/// A number, with its thousands separated; the chart's, marked with its line and x.
fn number_cell(column: &str, cell: &SummaryCell, point: Option<(i64, String)>) -> Markup {
    let text = match cell {
        SummaryCell::Value(SqlValue::Integer(n)) => format::grouped(&n.to_string()),
        SummaryCell::Value(SqlValue::Real(f)) => format::decimal(*f, AVG_DECIMALS as usize),
        SummaryCell::Value(SqlValue::Text(t)) => t.clone(),
        SummaryCell::Value(_) => String::new(),
        SummaryCell::Decimal(d) => format::grouped(d),
    };
    let (x, series) = point.unzip();
    html! { td.num data-column=(column) data-series=[series] data-x=[x] { (text) } }
}

/// The question as the API's URLs: the summary (JSON, CSV), and the records it counts.
fn links(ctx: &Context, ask: &Ask) -> Markup {
    let listing = format!("{}{}", ctx.api_base, ask.dataset.paths[0]);
    let with = |path: String, query: String| match query.is_empty() {
        true => path,
        false => format!("{path}?{query}"),
    };
    let summary = ask.summary_query();
    let records = ask.filter_query();
    let links = [
        (
            "The summary as JSON (the API)",
            with(format!("{listing}/summary"), summary.clone()),
        ),
        (
            "The summary as CSV",
            with(format!("{listing}/summary.csv"), summary),
        ),
        (
            "The records counted, as Parquet",
            with(format!("{listing}.parquet"), records.clone()),
        ),
        (
            "The records counted, as JSON (the listing, page by page)",
            with(listing, records),
        ),
    ];
    html! {
        h3 #links { "This question as data" }
        p { "Each link asks the API this question, or for the records it counts; the same URLs work in any program." }
        ul.api-links {
            @for (label, href) in links {
                li { a href=(href) { (label) } br; code { (href) } }
            }
        }
        p { a href=(ctx.link(&format!("/explore?{}", ask.page_query()))) { "A link to this page's question" } " (to share it, or keep it)." }
    }
}
