//! What the pages' templates share: what they may read besides their page's data
//! ([`Context`]), the map, a chart with its table (drawn from the same numbers), a page's trail
//! back up and a pager.

use maud::{html, Markup};

use roadtraffic_catalog::COUNT_POINTS;

use crate::assets;
use crate::html::Frame;
use crate::site::chart::{line_chart, LineChart, Series};
use crate::site::format;
use crate::site::overview::{AdminArea, Overview};
use crate::site::pages::query::{Column, Columns, PointRow, Revised};

/// What every template may read besides its page's data: what was learnt of the loaded file
/// once, and where things are. Not the connection: a template runs no query.
pub struct Context<'a> {
    pub overview: &'a Overview,
    /// The map's point data of the loaded file (an asset's name).
    pub points_asset: String,
    /// The API's base path in the release shown (`/api`, `/releases/{name}/api`), for links to
    /// its listings.
    pub api_base: String,
    /// The largest page the API answers: the map asks for no more.
    pub max_page_size: i64,
    /// The release shown: the prefix of every link to a page, and the header's picker.
    pub frame: &'a Frame,
}

impl Context<'_> {
    /// A path of the site (`/regions/3`, `/downloads/...`) in the release shown.
    pub fn link(&self, path: &str) -> String {
        self.frame.link(path)
    }
}

/// What a map shows first: everything, or the points of one area or one count point.
pub enum Focus {
    All,
    Region(i64),
    LocalAuthority(i64),
    /// A count point, and its latitude and longitude (drawn even when the count point is not
    /// among the map's points: a file of raw counts alone).
    CountPoint(i64, Option<(f64, f64)>),
    /// An area of a set: the URL of its GeoJSON Feature (the API's), whose outline the map
    /// draws and fits.
    Area(String),
}

/// The map of every count point. `label` says in words what it shows; the script draws it
/// (without scripts, the page's tables carry the same count points) from the point data of
/// the whole file and, zoomed in, from the API's count points listing (`data-api`).
pub fn map(ctx: &Context, focus: Focus, label: &str) -> Markup {
    let (kind, id, at, area) = match focus {
        Focus::All => ("all", 0, None, None),
        Focus::Region(id) => ("region", id, None, None),
        Focus::LocalAuthority(id) => ("local-authority", id, None, None),
        Focus::CountPoint(id, at) => ("count-point", id, at, None),
        Focus::Area(url) => ("area", 0, None, Some(url)),
    };
    let points = format!("/assets/{}", ctx.points_asset);
    let api = format!("{}{}", ctx.api_base, COUNT_POINTS.paths[0]);
    html! {
        div.map data-points=(points) data-outline=(assets::url(assets::OUTLINE))
            data-api=(api) data-max-page-size=(ctx.max_page_size)
            data-focus=(kind) data-focus-id=(id) data-area=[area]
            data-prefix=[Some(&ctx.frame.prefix).filter(|p| !p.is_empty())]
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
            @if ctx.overview.points.major_without_category > 0 {
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
    /// Values of the table that the release shown revised, each marked with the value it
    /// replaced, and xs new in it (marked too).
    pub revised: Vec<Revised>,
    pub new_xs: Vec<i64>,
}

impl<'a> Figures<'a> {
    /// Figures by year, latest first in the table, with no extra column: each column of `data`
    /// a series named by `label`.
    pub fn by_year(
        id: &'a str,
        title: String,
        unit: &'a str,
        data: Columns,
        label: fn(&str) -> String,
    ) -> Self {
        Figures {
            id,
            title,
            unit,
            x_name: "Year",
            x_label: year,
            x_tick: year,
            xs: data.xs,
            series: series(data.columns, label),
            extra: Vec::new(),
            latest_first: true,
            revised: Vec::new(),
            new_xs: Vec::new(),
        }
    }

    /// The same, with columns of the table only.
    pub fn with_extra(self, extra: Vec<(String, Vec<String>)>) -> Self {
        Figures { extra, ..self }
    }

    /// The same, the values revised and the xs new in the release shown marked.
    pub fn with_revisions(self, revised: Vec<Revised>, new_xs: Vec<i64>) -> Self {
        Figures {
            revised,
            new_xs,
            ..self
        }
    }
}

/// Columns as a chart's series, each named by `label`.
pub fn series(columns: Vec<Column>, label: fn(&str) -> String) -> Vec<Series> {
    columns
        .into_iter()
        .map(|c| Series {
            label: label(&c.key),
            key: c.key,
            values: c.values,
        })
        .collect()
}

/// A vehicle column as a series' name.
pub fn vehicle(column: &str) -> String {
    format::vehicle(column).to_string()
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
                            th scope="row" {
                                ((f.x_label)(f.xs[i]))
                                @if f.new_xs.contains(&f.xs[i]) { span.was { "new in this release" } }
                            }
                            @for (_, cells) in &f.extra { td { (cells[i]) } }
                            @for s in &f.series {
                                @let x = f.xs[i];
                                @if let Some(r) = f.revised.iter().find(|r| r.key == s.key && r.x == x) {
                                    td.num.revised data-series=(s.key) data-x=(x) {
                                        (format::count(s.values[i]))
                                        span.was { "revised from " del { (r.before.map_or("no figure".into(), format::whole)) } }
                                    }
                                } @else {
                                    td.num data-series=(s.key) data-x=(x) {
                                        (format::count(s.values[i]))
                                    }
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

/// The trail back up from a page under a region (and a local authority): Regions, then the
/// region and the authority when known.
pub fn area_trail(
    ctx: &Context,
    region: Option<&AdminArea>,
    la: Option<&AdminArea>,
) -> Vec<(String, String)> {
    let mut trail = vec![(ctx.link("/regions"), "Regions".to_string())];
    if let Some(r) = region {
        trail.push((ctx.link(&format!("/regions/{}", r.id)), r.name.clone()));
    }
    if let Some(a) = la {
        let href = ctx.link(&format!("/local-authorities/{}", a.id));
        trail.push((href, a.name.clone()));
    }
    trail
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

/// A page of count points as a table, from the `first`th of `total`: each a link to its page,
/// its road, category, and latest AADF.
pub fn count_point_table(ctx: &Context, rows: &[PointRow], first: i64, total: i64) -> Markup {
    html! {
        div.table-scroll tabindex="0" role="region" aria-label="Count points (table)" {
            table {
                caption {
                    "Count points, by road: " (first) " to " (first + rows.len() as i64 - 1) " of " (total)
                }
                thead { tr {
                    th scope="col" { "Count point" }
                    th scope="col" { "Road" }
                    th scope="col" { "Road category" }
                    th scope="col" { "Latest AADF year" }
                    th scope="col" { "AADF, all motor vehicles" }
                } }
                tbody {
                    @for p in rows {
                        tr {
                            th scope="row" { a href=(ctx.link(&format!("/manualcountpoints/{}", p.id))) { (p.id) } }
                            td { (p.road.as_deref().unwrap_or("")) }
                            td { (format::category_or_type(p.category.as_deref(), p.road_type.as_deref())) }
                            td.num { (p.aadf_year.map(|y| y.to_string()).unwrap_or_default()) }
                            td.num { (format::count(p.aadf)) }
                        }
                    }
                }
            }
        }
    }
}
