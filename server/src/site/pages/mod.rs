//! The site's pages, one module per kind, and the pieces they share: the map, a chart with its
//! table (drawn from the same numbers), and figures read from SQLite by year.

pub mod about;
pub mod count_point;
pub mod home;
pub mod local_authority;
pub mod regions;

use maud::{html, Markup};
use rusqlite::types::Value;

use crate::assets;
use crate::error::ApiError;
use crate::site::chart::{line_chart, LineChart, Series};
use crate::site::summary::Summary;
use crate::site::{format, View};

/// What a map shows first: everything, or the points of one area or one count point.
pub enum Focus {
    All,
    Region(i64),
    LocalAuthority(i64),
    /// A count point, and its latitude and longitude (drawn even when the count point is not
    /// among the map's points: a file of raw counts alone).
    CountPoint(i64, Option<(f64, f64)>),
}

/// The map of every count point. `label` says in words what it shows; the script draws it
/// (without scripts, the page's tables carry the same count points).
pub fn map(view: &View, focus: Focus, label: &str) -> Markup {
    let (kind, id, at) = match focus {
        Focus::All => ("all", 0, None),
        Focus::Region(id) => ("region", id, None),
        Focus::LocalAuthority(id) => ("local-authority", id, None),
        Focus::CountPoint(id, at) => ("count-point", id, at),
    };
    let points = format!("/assets/{}", Summary::points_asset(view.release));
    html! {
        div.map data-points=(points) data-outline=(assets::url(assets::OUTLINE))
            data-focus=(kind) data-focus-id=(id)
            data-lat=[at.map(|a| a.0)] data-lon=[at.map(|a| a.1)] {
            canvas tabindex="0" role="img" aria-label=(label) {}
            div.map-controls {
                button type="button" data-zoom="in" aria-label="Zoom in" { "+" }
                button type="button" data-zoom="out" aria-label="Zoom out" { "−" }
                button type="button" data-zoom="reset" { "Reset" }
            }
            p.map-tip aria-live="polite" {}
            p.map-fallback { "The map needs JavaScript. The search and the tables of each region and local authority list every count point." }
        }
        ul.map-legend aria-label="Map legend" {
            li { span.dot.motorway aria-hidden="true" {} "Motorway" }
            li { span.dot.trunk aria-hidden="true" {} "Trunk 'A' road" }
            li { span.dot.primary aria-hidden="true" {} "Principal 'A' road" }
            li { span.dot.b-road aria-hidden="true" {} "B road" }
            li { span.dot.minor aria-hidden="true" {} "C or unclassified road" }
            @if view.summary.points.major_without_category > 0 {
                li { span.dot.major aria-hidden="true" {} "Major road, category not in the file" }
            }
        }
        p.hint { "Drag to pan, scroll or use + and − to zoom (arrow keys and + − when the map has focus); point at a count point to see its road, click it to open its page." }
    }
}

/// Numbers by x (years, or hours), in series: drawn as a chart and as a table.
pub struct Figures<'a> {
    pub id: &'a str,
    pub title: String,
    /// What the numbers are (`Vehicle miles`, `AADF`).
    pub unit: &'a str,
    pub x_name: &'a str,
    pub x_label: fn(i64) -> String,
    /// An x on the chart's axis.
    pub x_tick: fn(i64) -> String,
    pub xs: Vec<i64>,
    pub series: Vec<Series>,
    /// Columns of the table only, after x (a count method, a link length).
    pub extra: Vec<(String, Vec<String>)>,
    /// Rows of the table latest first (years), or in order (hours).
    pub latest_first: bool,
}

impl<'a> Figures<'a> {
    /// Figures by year, latest first in the table, with no extra column.
    pub fn by_year(
        id: &'a str,
        title: String,
        unit: &'a str,
        xs: Vec<i64>,
        series: Vec<Series>,
    ) -> Self {
        Figures {
            id,
            title,
            unit,
            x_name: "Year",
            x_label: year,
            x_tick: year,
            xs,
            series,
            extra: Vec::new(),
            latest_first: true,
        }
    }

    /// The same, with columns of the table only.
    pub fn with_extra(self, extra: Vec<(String, Vec<String>)>) -> Self {
        Figures { extra, ..self }
    }
}

/// The chart and its table, from the same numbers: the table is the chart's text equivalent.
pub fn chart_and_table(f: Figures) -> Markup {
    if f.xs.is_empty() {
        return html! { p.empty { "No figures for this in the loaded data." } };
    }
    let mut rows: Vec<usize> = (0..f.xs.len()).collect();
    if f.latest_first {
        rows.reverse();
    }
    let table = html! {
        div.table-scroll tabindex="0" role="region" aria-label=(format!("{} (table)", f.title)) {
            table.figures data-for-chart=(f.id) {
                caption { (f.title) " (" (f.unit) ")" }
                thead {
                    tr {
                        th scope="col" { (f.x_name) }
                        @for (name, _) in &f.extra { th scope="col" { (name) } }
                        @for s in &f.series { th scope="col" { (s.label) } }
                    }
                }
                tbody {
                    @for i in rows {
                        tr {
                            th scope="row" { ((f.x_label)(f.xs[i])) }
                            @for (_, cells) in &f.extra { td { (cells[i]) } }
                            @for s in &f.series {
                                td.num data-series=(s.key) data-x=(f.xs[i]) {
                                    (format::count(s.values[i]))
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    let chart = line_chart(&LineChart {
        id: f.id,
        title: f.title.clone(),
        y_label: f.unit,
        xs: f.xs.clone(),
        x_label: f.x_label,
        x_tick: f.x_tick,
        series: f.series,
    });
    html! { (chart) (table) }
}

pub fn year(y: i64) -> String {
    y.to_string()
}

/// Rows of `(x, value per column)` as series by x: one series per column.
pub fn wide(
    view: &View,
    sql: &str,
    params: &[&dyn rusqlite::ToSql],
    columns: &[&str],
) -> Result<(Vec<i64>, Vec<Series>), ApiError> {
    let mut stmt = view.conn.prepare(sql)?;
    let mut xs = Vec::new();
    let mut values: Vec<Vec<Option<f64>>> = vec![Vec::new(); columns.len()];
    let mut rows = stmt.query(params)?;
    while let Some(r) = rows.next()? {
        xs.push(r.get(0)?);
        for (i, v) in values.iter_mut().enumerate() {
            v.push(number(r.get(i + 1)?));
        }
    }
    let series = columns
        .iter()
        .zip(values)
        .map(|(c, values)| Series {
            key: (*c).to_string(),
            label: format::vehicle(c).to_string(),
            values,
        })
        .collect();
    Ok((xs, series))
}

/// Rows of `(x, key, value)` as series by x: one series per key, in `keys` order and then
/// in the order keys are first met; `label` names a key.
pub fn long(
    view: &View,
    sql: &str,
    params: &[&dyn rusqlite::ToSql],
    keys: &[&str],
    label: fn(&str) -> String,
) -> Result<(Vec<i64>, Vec<Series>), ApiError> {
    let mut stmt = view.conn.prepare(sql)?;
    let mut cells: Vec<(i64, String, Option<f64>)> = Vec::new();
    let mut rows = stmt.query(params)?;
    while let Some(r) = rows.next()? {
        let key: Option<String> = r.get(1)?;
        cells.push((r.get(0)?, key.unwrap_or_default(), number(r.get(2)?)));
    }
    let mut xs: Vec<i64> = cells.iter().map(|c| c.0).collect();
    xs.sort_unstable();
    xs.dedup();
    let mut order: Vec<String> = keys.iter().map(|k| (*k).to_string()).collect();
    for (_, k, _) in &cells {
        if !order.contains(k) {
            order.push(k.clone());
        }
    }
    order.retain(|k| cells.iter().any(|c| &c.1 == k));
    let series = order
        .into_iter()
        .map(|key| {
            let mut values = vec![None; xs.len()];
            for (x, k, v) in &cells {
                if *k == key {
                    if let Ok(i) = xs.binary_search(x) {
                        values[i] = *v;
                    }
                }
            }
            Series {
                label: label(&key),
                key,
                values,
            }
        })
        .collect();
    Ok((xs, series))
}

/// A number stored as an integer or a real (published totals may be decimals).
fn number(v: Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(i as f64),
        Value::Real(r) => Some(r),
        _ => None,
    }
}

/// A page's trail back up: Regions › a region › ...
pub fn breadcrumbs(trail: &[(String, String)]) -> Markup {
    html! {
        nav.breadcrumbs aria-label="Breadcrumb" {
            ol {
                @for (href, label) in trail { li { a href=(href) { (label) } } }
            }
        }
    }
}

/// Links to pages 1..last around `page`, with `?page=N`.
pub fn pager(path: &str, page: i64, last: i64) -> Markup {
    let shown: Vec<i64> = (1..=last)
        .filter(|p| *p == 1 || *p == last || (p - page).abs() <= 2)
        .collect();
    html! {
        @if last > 1 {
            nav.pager aria-label="Pages" {
                ul {
                    @if page > 1 { li { a href=(format!("{path}?page={}", page - 1)) rel="prev" { "Previous" } } }
                    @for (i, p) in shown.iter().enumerate() {
                        @if i > 0 && shown[i - 1] + 1 < *p { li.gap { "…" } }
                        li {
                            @if *p == page {
                                a href=(format!("{path}?page={p}")) aria-current="page" { (p) }
                            } @else {
                                a href=(format!("{path}?page={p}")) { (p) }
                            }
                        }
                    }
                    @if page < last { li { a href=(format!("{path}?page={}", page + 1)) rel="next" { "Next" } } }
                }
            }
        }
    }
}

/// The first value of a plain parameter of the query string (`q`, `page`).
pub fn query_param(query: &str, name: &str) -> Option<String> {
    use crate::api::query::url_decode;
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| url_decode(k) == name)
        .map(|(_, v)| url_decode(v))
}
