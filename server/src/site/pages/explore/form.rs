//! The Explore page's forms, both GET forms to the page itself (a question is its URL, and
//! works without any script): first the dataset (its own form, as each dataset has its own
//! fields: choosing one starts from its default question), then the question, its fields
//! named as the API's parameters.

use maud::{html, Markup};

use super::labels;
use super::query::Hints;
use super::question::{datasets, filter_names, slug, Ask, AREA_GROUP, DATASET, GROUP_BY};
use crate::site::format;
use crate::site::pages::template::Context;
use crate::totals::{Stat, MAX_GROUP_BY, MAX_SUMMARY_ROWS};
use roadtraffic_catalog::places::Places;

/// The fields of the question form, each an id the error summary may link to.
pub const GROUPS_FIELD: &str = "group_by-1";
pub const MEASURES_FIELD: &str = "measures";
pub const FILTERS_FIELD: &str = "filters";
pub const SORT_FIELD: &str = "sort";
pub const LIMIT_FIELD: &str = "limit";
pub const DATASET_FIELD: &str = "dataset";

/// The dataset chooser.
pub fn dataset(ctx: &Context, ask: &Ask) -> Markup {
    html! {
        form.explore-dataset action=(ctx.link("/explore")) method="get" {
            div.field {
                label for=(DATASET_FIELD) { "Dataset" }
                div.search-row {
                    select #(DATASET_FIELD) name=(DATASET) aria-describedby="dataset-about" {
                        @for d in datasets() {
                            option value=(slug(d)) selected[std::ptr::eq(d, ask.dataset)] { (labels::dataset(d)) }
                        }
                    }
                    button type="submit" { "Choose" }
                }
                p.hint #dataset-about { (ask.dataset.about) }
            }
        }
    }
}

/// The question's form: groups, measures, filters, order and number of rows.
pub fn question(ctx: &Context, ask: &Ask, (hints, area_sets): (&Hints, &[String])) -> Markup {
    html! {
        form.explore-question action=(ctx.link("/explore")) method="get" {
            input type="hidden" name=(DATASET) value=(slug(ask.dataset));
            (groups(ask, area_sets))
            (measures(ask))
            (filters(ctx, ask, hints))
            (order(ask))
            button type="submit" { "Show the answer" }
        }
    }
}

fn groups(ask: &Ask, area_sets: &[String]) -> Markup {
    let columns: Vec<&str> = ask.dataset.facet_columns().map(|c| c.name).collect();
    // The areas of each set stored, for a dataset with places (`group_by=area:{set}`).
    let areas: Vec<String> = match Places::of(ask.dataset) {
        Some(_) => area_sets
            .iter()
            .map(|s| format!("{AREA_GROUP}{s}"))
            .collect(),
        None => Vec::new(),
    };
    html! {
        fieldset.groups aria-describedby="group_by-hint" {
            legend { "Group by" }
            p.hint #group_by-hint { "One row of the answer per combination of these columns' values, in this order (up to " (MAX_GROUP_BY) "). None: one row for every record." }
            div.field-grid {
                @for i in 0..MAX_GROUP_BY {
                    @let chosen = ask.group_by.get(i).map(String::as_str).unwrap_or("");
                    div.field {
                        label for=(format!("group_by-{}", i + 1)) { (ordinal(i)) " column" }
                        select #(format!("group_by-{}", i + 1)) name=(GROUP_BY) {
                            option value="" selected[chosen.is_empty()] { "(none)" }
                            @for c in &columns {
                                option value=(c) selected[*c == chosen] { (format::column(c)) }
                            }
                            @for a in &areas {
                                option value=(a) selected[a == chosen] { "Area of " (a[AREA_GROUP.len()..]) }
                            }
                            // A name the dataset does not have, kept so that the refused
                            // question is shown as asked.
                            @if !chosen.is_empty() && !columns.contains(&chosen) && !areas.iter().any(|a| a == chosen) {
                                option value=(chosen) selected { (chosen) }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn ordinal(i: usize) -> &'static str {
    ["First", "Second", "Third", "Fourth", "Fifth", "Sixth"]
        .get(i)
        .copied()
        .unwrap_or("Next")
}

/// A grid of check boxes: a row per numeric column, a column per statistic.
fn measures(ask: &Ask) -> Markup {
    let d = ask.dataset;
    html! {
        fieldset #(MEASURES_FIELD) tabindex="-1" aria-describedby="measures-hint" {
            legend { "Measures" }
            @if d.measure_columns().next().is_none() {
                p.hint #measures-hint { "This dataset has no numbers to add up: each row of the answer counts its records." }
            } @else {
                p.hint #measures-hint { "Each row of the answer counts its records. Tick what to add up (sum), average (avg), or find the least (min) or most (max) of, in each row." }
                div.table-scroll tabindex="0" role="region" aria-label="Measures (table of check boxes)" {
                    table.measures {
                        caption.visually-hidden { "Measures: a check box per column and statistic" }
                        thead { tr {
                            th scope="col" { "Column" }
                            // The API's names: short enough for a phone, and what the
                            // links below say (each box's own label says it in words).
                            @for s in Stat::ALL { th scope="col" { (s.name()) } }
                        } }
                        tbody {
                            @for c in d.measure_columns() {
                                tr {
                                    th scope="row" { (format::column(c.name)) }
                                    @for s in Stat::ALL { td { (tick(ask, s, c.name)) } }
                                }
                            }
                            // Measures made of a record's columns (vehicle-km): added up.
                            @for m in d.derived_measures() {
                                tr {
                                    th scope="row" { (format::column(m.name)) }
                                    @for s in Stat::ALL {
                                        td { @if s == Stat::Sum { (tick(ask, s, m.name)) } }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn tick(ask: &Ask, stat: Stat, column: &str) -> Markup {
    let id = format!("{}-{column}", stat.name());
    let checked = ask.measures_of(stat).iter().any(|c| c == column);
    let label = format!(
        "{} of {}",
        labels::stat(stat),
        format::lower_first(&format::column(column))
    );
    html! {
        input.tick type="checkbox" #(id) name=(stat.name()) value=(column) checked[checked];
        label.visually-hidden for=(id) { (label) }
    }
}

fn filters(ctx: &Context, ask: &Ask, hints: &Hints) -> Markup {
    let d = ask.dataset;
    let mut names: Vec<&str> = filter_names(d);
    // A filter the dataset does not take, kept so that the refused question shows as asked.
    let other: Vec<&str> = (ask.filters.iter())
        .map(|(n, _)| n.as_str())
        .filter(|n| !names.contains(n))
        .collect();
    names.extend(other);
    html! {
        fieldset #(FILTERS_FIELD) tabindex="-1" aria-describedby="filters-hint" {
            legend { "Filters" }
            p.hint #filters-hint { "Which records to count: leave a field empty for all, give one value, or several separated by commas (2019,2020)." }
            div.field-grid {
                @for name in names { (filter(ctx, ask, hints, name)) }
            }
        }
    }
}

fn filter(ctx: &Context, ask: &Ask, hints: &Hints, name: &str) -> Markup {
    let id = format!("filter-{name}");
    let values = hints.values(name);
    let list = format!("{id}-values");
    let example = match name {
        "bbox" => {
            Some("West, south, east, north, in degrees of longitude and latitude: -5,51,-2,54")
        }
        "near" => Some("Longitude, latitude and a radius in metres: -3.03,51.58,5000"),
        "area" => Some("A set and its areas' ids (see the areas): wards:E05000001,E05000002"),
        "count_method" => Some("counted or estimated"),
        _ => None,
    };
    let hint = format!("{id}-hint");
    html! {
        div.field {
            label for=(id) { (labels::filter(name)) }
            @if let Some(example) = example { p.hint #(hint) { (example) } }
            input #(id) type="text" name=(format!("filter[{name}]")) value=(ask.filter(name))
                autocomplete="off" spellcheck="false"
                aria-describedby=[example.map(|_| &hint)]
                list=[(!values.is_empty()).then_some(&list)];
            @if !values.is_empty() {
                datalist #(list) {
                    @for v in values {
                        @match labels::hint(ctx, name, v) {
                            Some(label) => option value=(v) label=(label) { (label) },
                            None => option value=(v) {},
                        }
                    }
                }
            }
        }
    }
}

/// The order of the rows (by any column of the answer) and how many.
fn order(ask: &Ask) -> Markup {
    let mut orders = vec![(String::new(), "Group order".to_string())];
    orders.push(("-count".into(), "Most records first".into()));
    for (stat, columns) in &ask.measures {
        for c in columns {
            let label = format!(
                "{} of {}",
                labels::stat(*stat),
                format::lower_first(&format::column(c))
            );
            let name = format!("{}_{c}", stat.name());
            orders.push((format!("-{name}"), format!("{label}, largest first")));
            orders.push((name, format!("{label}, smallest first")));
        }
    }
    if !orders.iter().any(|(v, _)| *v == ask.sort) {
        orders.push((ask.sort.clone(), ask.sort.clone()));
    }
    html! {
        fieldset.rows {
            legend { "Rows" }
            div.field-grid {
                div.field {
                    label for=(SORT_FIELD) { "Order" }
                    select #(SORT_FIELD) name="sort" {
                        @for (value, label) in &orders {
                            option value=(value) selected[*value == ask.sort] { (label) }
                        }
                    }
                }
                div.field {
                    label for=(LIMIT_FIELD) { "Rows at most" }
                    p.hint #limit-hint { "Empty for every row (up to " (format::whole(MAX_SUMMARY_ROWS as f64)) ")." }
                    input #(LIMIT_FIELD) type="number" name="limit" min="1" max=(MAX_SUMMARY_ROWS)
                        value=(ask.limit) inputmode="numeric" aria-describedby="limit-hint";
                }
            }
        }
    }
}
