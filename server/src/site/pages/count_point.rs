//! `/manualcountpoints/{id}`: a count point as the public page shows it (site details, its
//! place on the map, AADF by year with the count method), plus a chart of AADF over the years,
//! AADF by direction, the raw counts of each count day by hour, and its downloads.

use maud::{html, Markup};

use roadtraffic_catalog::{
    AADF, AADF_BY_DIRECTION, COUNT_POINTS, DATASETS, DIRECTIONS, RAW_COUNTS,
};

use crate::error::ApiError;
use crate::html::{page_in, Section};
use crate::site::chart::Series;
use crate::site::format::{self, aadf_groups};
use crate::site::pages::context;
use crate::site::pages::query::{long, wide};
use crate::site::pages::template::{
    area_trail, breadcrumbs, chart_and_table, map, vehicle, Context, Figures, Focus,
};
use crate::site::View;

/// The count point's own columns, as read for its details.
struct Site {
    region_id: i64,
    local_authority_id: i64,
    road_name: String,
    road_category: String,
    road_type: String,
    start_junction: String,
    end_junction: String,
    easting: Option<i64>,
    northing: Option<i64>,
    latitude: String,
    longitude: String,
    link_km: String,
    link_miles: String,
}

pub fn render(view: &View, id: i64) -> Result<Markup, ApiError> {
    let site = site(view, id)?.ok_or_else(|| ApiError::NotFound(format!("count point {id}")))?;
    let ctx = context(view);
    let s = view.summary;
    let la = s.local_authority(site.local_authority_id);
    let trail = area_trail(s.region(site.region_id), la);
    let title = format!("Count point {id}: {}", site.road_name);
    let body = html! {
        (breadcrumbs(&trail))
        h1 { "Manual count point " (id) span.subtitle { (site.road_name) @if let Some(a) = la { ", " (a.name) } } }
        div.columns-2 {
            section aria-labelledby="details" {
                h2 #details { "Site details" }
                (details(view, id, &site))
            }
            section aria-labelledby="location" {
                h2 #location { "Location" }
                (map(&ctx, Focus::CountPoint(id, coordinates(&site)), &format!("Map of count point {id} on {}", site.road_name)))
            }
        }
        (aadf(view, id)?)
        (by_direction(view, id)?)
        (raw_counts(view, id)?)
        (downloads(&ctx, id))
        section aria-labelledby="disclaimer" {
            h2 #disclaimer { "About these figures" }
            p { "Regional and national figures are robust and accredited official statistics. Estimates for single road links are less robust: they are not always based on up-to-date counts. Figures whose count method is “Counted” are likely more accurate than those “Estimated”. " a href="/about" { "More about the data" } }
        }
    };
    Ok(page_in(Section::None, &title, body))
}

/// The count point's details from the count points table or, for a file loaded without its
/// count point (raw counts alone), from its latest raw count, which carries the same columns.
fn site(view: &View, id: i64) -> Result<Option<Site>, ApiError> {
    const COLUMNS: &str = "region_id, local_authority_id, road_name, road_category, road_type, \
         start_junction_road_name, end_junction_road_name, easting, northing, latitude, \
         longitude, link_length_km, link_length_miles";
    let listed = format!(
        "SELECT {COLUMNS} FROM {} WHERE count_point_id = ?1",
        COUNT_POINTS.table
    );
    if let Some(site) = site_from(view, &listed, id)? {
        return Ok(Some(site));
    }
    let runs = RAW_COUNTS.runs_table().unwrap_or_default();
    let counted = format!(
        "SELECT {} FROM {runs} u JOIN {} r ON r.id BETWEEN u.first_id AND u.last_id \
         WHERE u.count_point_id = ?1 ORDER BY u.first_id DESC LIMIT 1",
        COLUMNS
            .split(", ")
            .map(|c| format!("r.{}", c.trim()))
            .collect::<Vec<_>>()
            .join(", "),
        RAW_COUNTS.table
    );
    site_from(view, &counted, id)
}

fn site_from(view: &View, sql: &str, id: i64) -> Result<Option<Site>, ApiError> {
    let text = |r: &rusqlite::Row, i| -> rusqlite::Result<String> {
        Ok(r.get::<_, Option<String>>(i)?.unwrap_or_default())
    };
    let mut stmt = view.conn.prepare(sql)?;
    let mut rows = stmt.query_map([id], |r| {
        Ok(Site {
            region_id: r.get(0)?,
            local_authority_id: r.get(1)?,
            road_name: text(r, 2)?,
            road_category: text(r, 3)?,
            road_type: text(r, 4)?,
            start_junction: text(r, 5)?,
            end_junction: text(r, 6)?,
            easting: r.get(7)?,
            northing: r.get(8)?,
            latitude: text(r, 9)?,
            longitude: text(r, 10)?,
            link_km: text(r, 11)?,
            link_miles: text(r, 12)?,
        })
    })?;
    Ok(rows.next().transpose()?)
}

/// What a detail reads when the loaded file does not give it (files split by area have no
/// road category).
const NOT_GIVEN: &str = "Not given in the loaded file";

fn coordinates(site: &Site) -> Option<(f64, f64)> {
    site.latitude.parse().ok().zip(site.longitude.parse().ok())
}

fn details(view: &View, id: i64, site: &Site) -> Markup {
    let s = view.summary;
    let category = format::road_category(&site.road_category);
    let opt = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_default();
    html! {
        dl.details {
            dt { "Site number" } dd { (id) }
            dt { "Region" }
            dd { @if let Some(r) = s.region(site.region_id) { a href=(format!("/regions/{}", r.id)) { (r.name) } } }
            dt { "Local authority" }
            dd { @if let Some(a) = s.local_authority(site.local_authority_id) { a href=(format!("/local-authorities/{}", a.id)) { (a.name) } } }
            dt { "Road name" } dd { (site.road_name) }
            dt { "Road classification" }
            dd { (category.as_ref().map_or(NOT_GIVEN, |c| c.classification)) }
            dt { "Managed by" }
            dd { (category.as_ref().map_or(NOT_GIVEN, |c| c.managed_by)) }
            dt { "Road type" } dd { (site.road_type) }
            dt { "Start junction" } dd { (site.start_junction) }
            dt { "End junction" } dd { (site.end_junction) }
            dt { "Link length" }
            dd { @if !site.link_km.is_empty() { (site.link_km) " km (" (site.link_miles) " miles)" } }
            dt { "Easting, northing" } dd { (opt(site.easting)) ", " (opt(site.northing)) }
            dt { "Latitude, longitude" } dd { (site.latitude) ", " (site.longitude) }
        }
    }
}

fn aadf(view: &View, id: i64) -> Result<Markup, ApiError> {
    let sql = format!(
        "SELECT year, {} FROM {} WHERE count_point_id = ?1 ORDER BY year",
        aadf_groups().join(", "),
        AADF.table
    );
    let data = wide(view, &sql, &[&id], aadf_groups())?;
    let sql = format!(
        "SELECT estimation_method, estimation_method_detailed FROM {} \
         WHERE count_point_id = ?1 ORDER BY year",
        AADF.table
    );
    let mut stmt = view.conn.prepare(&sql)?;
    let methods: Vec<String> = stmt
        .query_map([id], |r| {
            let method: Option<String> = r.get(0)?;
            let detailed: Option<String> = r.get(1)?;
            Ok(detailed
                .filter(|d| !d.is_empty())
                .or(method)
                .unwrap_or_default())
        })?
        .collect::<Result<_, _>>()?;
    let title = format!("Annual average daily flow at count point {id}");
    let figures = Figures::by_year("aadf", title, "vehicles per day", data, vehicle)
        .with_extra(vec![("Count method".into(), methods)]);
    Ok(html! {
        section aria-labelledby="aadf" {
            h2 #aadf { "Annual average daily flow" }
            p { "Vehicles passing the count point on an average day of the year, both directions." }
            (chart_and_table(figures))
        }
    })
}

fn by_direction(view: &View, id: i64) -> Result<Markup, ApiError> {
    let sql = format!(
        "SELECT year, direction_of_travel, all_motor_vehicles FROM {} \
         WHERE count_point_id = ?1 ORDER BY year",
        AADF_BY_DIRECTION.table
    );
    let data = long(view, &sql, &[&id], DIRECTIONS)?;
    let title = format!("All motor vehicles by direction of travel at count point {id}");
    let figures = Figures::by_year("aadf-direction", title, "vehicles per day", data, direction);
    Ok(html! {
        section aria-labelledby="by-direction" {
            h2 #by-direction { "Annual average daily flow by direction" }
            (chart_and_table(figures))
        }
    })
}

fn direction(code: &str) -> String {
    match code {
        "N" => "Northbound",
        "S" => "Southbound",
        "E" => "Eastbound",
        "W" => "Westbound",
        "C" => "Both directions",
        other => other,
    }
    .to_string()
}

/// One raw count: its hour, its direction, its motor vehicles.
type HourCount = (i64, String, Option<f64>);

/// The raw counts, one count day each: all motor vehicles by hour and direction (chart and
/// table), the latest day open.
fn raw_counts(view: &View, id: i64) -> Result<Markup, ApiError> {
    let runs = RAW_COUNTS.runs_table().unwrap_or_default();
    let sql = format!(
        "SELECT r.count_date, r.hour, r.direction_of_travel, r.all_motor_vehicles \
         FROM {runs} u JOIN {} r ON r.id BETWEEN u.first_id AND u.last_id \
         WHERE u.count_point_id = ?1 ORDER BY r.count_date DESC, r.hour, r.direction_of_travel",
        RAW_COUNTS.table
    );
    let mut stmt = view.conn.prepare(&sql)?;
    let mut days: Vec<(String, Vec<HourCount>)> = Vec::new();
    let mut rows = stmt.query([id])?;
    while let Some(r) = rows.next()? {
        let date: String = r.get(0)?;
        let cell = (
            r.get(1)?,
            r.get::<_, Option<String>>(2)?.unwrap_or_default(),
            r.get(3)?,
        );
        match days.last_mut() {
            Some((d, cells)) if *d == date => cells.push(cell),
            _ => days.push((date, vec![cell])),
        }
    }
    Ok(html! {
        section aria-labelledby="raw" {
            h2 #raw { "Raw counts by hour" }
            @if days.is_empty() {
                p { "No manual counts of this count point in the loaded data." }
            } @else {
                p { "Vehicles counted in each hour of each count day, in each direction: all motor vehicles. " (days.len()) " count days, latest first." }
            }
            @for (n, (date, cells)) in days.iter().enumerate() {
                details.count-day open[n == 0] {
                    summary { (format::date(date)) }
                    (count_day(n, date, cells))
                }
            }
        }
    })
}

fn count_day(n: usize, date: &str, cells: &[HourCount]) -> Markup {
    let mut hours: Vec<i64> = cells.iter().map(|c| c.0).collect();
    hours.dedup();
    let mut keys: Vec<&str> = DIRECTIONS.to_vec();
    keys.retain(|k| cells.iter().any(|c| c.1 == *k));
    for c in cells {
        if !keys.contains(&c.1.as_str()) {
            keys.push(&c.1);
        }
    }
    let series = keys
        .iter()
        .map(|k| Series {
            key: (*k).to_string(),
            label: direction(k),
            values: hours
                .iter()
                .map(|h| {
                    cells
                        .iter()
                        .find(|c| c.0 == *h && c.1 == *k)
                        .and_then(|c| c.2)
                })
                .collect(),
        })
        .collect();
    let id = format!("raw-{n}");
    chart_and_table(Figures {
        id: &id,
        title: format!("Motor vehicles counted by hour on {}", format::date(date)),
        unit: "vehicles in the hour",
        x_name: "Hour",
        x_label: format::hour,
        x_tick: |h| format!("{h:02}:00"),
        xs: hours,
        series,
        extra: Vec::new(),
        latest_first: false,
    })
}

/// This count point's records of every dataset keyed by count point: its split file where DfT
/// publishes one, else the API's CSV form filtered to it.
fn downloads(ctx: &Context, id: i64) -> Markup {
    let api = ctx.api_base;
    let by = "count_point_id";
    let mut links: Vec<(String, String)> = DATASETS
        .iter()
        .filter(|d| d.paginated && d.column(by).is_some() && d.id_column() != Some(by))
        .map(|d| {
            let href = crate::downloads::split_path(d, by, id)
                .unwrap_or_else(|| format!("{api}{}.csv?filter%5B{by}%5D={id}", d.paths[0]));
            (href, format!("{} (CSV)", d.title))
        })
        .collect();
    links.push((
        format!("{api}{}?filter%5B{by}%5D={id}", COUNT_POINTS.paths[0]),
        "This count point in the API (JSON)".into(),
    ));
    html! {
        section aria-labelledby="download" {
            h2 #download { "Download data" }
            ul {
                @for (href, label) in &links { li { a href=(href) { (label) } } }
            }
            p.hint { "The API's listings take the same filters: see " a href="/docs" { "the API documentation" } "." }
        }
    }
}
