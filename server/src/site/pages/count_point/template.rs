//! A count point's page: site details, map, the count points nearest it, AADF by year and by
//! direction, raw counts by hour, downloads, and the disclaimer.

use maud::{html, Markup};

use roadtraffic_catalog::{COUNT_POINTS, DATASETS};

use crate::html::{page_in, Section};
use crate::site::format;
use crate::site::pages::query::{Columns, Revised};
use crate::site::pages::template::{
    area_trail, breadcrumbs, chart_and_table, map, series, vehicle, Context, Figures, Focus,
};

use super::query::{
    Aadf, Against, CountDay, Counts, Neighbour, Revisions, Site, NEARBY_COUNT, NEARBY_METRES,
};

/// `nearby`: `None` when the count point has no easting and northing; `revised`: what the
/// release shown revised, when a kept release comes before it.
pub fn page(
    ctx: &Context,
    id: i64,
    site: &Site,
    nearby: Option<Vec<Neighbour>>,
    counts: Counts,
    revised: Option<Revisions>,
) -> Markup {
    let s = ctx.overview;
    let la = s.local_authority(site.local_authority_id);
    let trail = area_trail(ctx, s.region(site.region_id), la);
    let title = format!("Count point {id}: {}", site.road_name);
    let body = html! {
        (breadcrumbs(&trail))
        h1 { "Manual count point " (id) span.subtitle { (site.road_name) @if let Some(a) = la { ", " (a.name) } } }
        @if let Some(r @ Revisions { against: Against::New, .. }) = &revised {
            p.release-note { strong { "New in this release:" } " count point " (id) " is not in release " (r.previous) "." }
        }
        div.columns-2 {
            section aria-labelledby="details" {
                h2 #details { "Site details" }
                (details(ctx, id, site))
            }
            section aria-labelledby="location" {
                h2 #location { "Location" }
                (map(ctx, Focus::CountPoint(id, site.coordinates()), &format!("Map of count point {id} on {}", site.road_name)))
            }
        }
        (nearest(ctx, site, nearby))
        (aadf(id, counts.aadf, revised))
        (by_direction(id, counts.by_direction))
        (raw_counts(counts.count_days))
        (downloads(ctx, id))
        section aria-labelledby="disclaimer" {
            h2 #disclaimer { "About these figures" }
            p { "Regional and national figures are robust and accredited official statistics. Estimates for single road links are less robust: they are not always based on up-to-date counts. Figures whose count method is “Counted” are likely more accurate than those “Estimated”. " a href=(ctx.link("/about")) { "More about the data" } }
        }
    };
    page_in(ctx.frame, Section::None, &title, body)
}

/// What a detail reads when the loaded file does not give it (files split by area have no
/// road category).
const NOT_GIVEN: &str = "Not given in the loaded file";

fn details(ctx: &Context, id: i64, site: &Site) -> Markup {
    let s = ctx.overview;
    let category = format::road_category(&site.road_category);
    let opt = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_default();
    html! {
        dl.details {
            dt { "Site number" } dd { (id) }
            dt { "Region" }
            dd { @if let Some(r) = s.region(site.region_id) { a href=(ctx.link(&format!("/regions/{}", r.id))) { (r.name) } } }
            dt { "Local authority" }
            dd { @if let Some(a) = s.local_authority(site.local_authority_id) { a href=(ctx.link(&format!("/local-authorities/{}", a.id))) { (a.name) } } }
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

/// The count points nearest this one, as a table, and the API's query for the same.
fn nearest(ctx: &Context, site: &Site, nearby: Option<Vec<Neighbour>>) -> Markup {
    let km = NEARBY_METRES / 1000;
    let listed = nearby.as_ref().is_some_and(|list| !list.is_empty());
    let api_query = near_query(&ctx.api_base, site);
    html! {
        section aria-labelledby="nearby" {
            h2 #nearby { "Nearby count points" }
            @match &nearby {
                None => p.empty { "This count point has no easting and northing in the loaded file, so the count points near it cannot be found." },
                Some(list) if list.is_empty() => p.empty { "No other count point within " (km) " km." },
                Some(list) => (neighbours(ctx, list, km)),
            }
            @if listed || api_query.is_some() {
                p.hint {
                    @if listed { "Distances are straight lines between eastings and northings (the National Grid). " }
                    @if let Some(href) = &api_query {
                        a href=(href) { "The count points within " (km) " km in the API (JSON)" }
                        ": measured from this count point's latitude and longitude, a metre or two from its easting and northing, so distances that nearly tie may come in another order; this count point among them."
                    }
                }
            }
        }
    }
}

fn neighbours(ctx: &Context, list: &[Neighbour], km: i64) -> Markup {
    let caption = match list.len() as i64 {
        NEARBY_COUNT => format!(
            "The {NEARBY_COUNT} count points nearest this one within {km} km, nearest first"
        ),
        1 => format!("The one other count point within {km} km"),
        n => format!("The {n} other count points within {km} km, nearest first"),
    };
    html! {
        div.table-scroll tabindex="0" role="region" aria-label="Nearby count points (table)" {
            table.nearby {
                caption { (caption) }
                thead { tr {
                    th scope="col" { "Count point" }
                    th scope="col" { "Road" }
                    th scope="col" { "Road category" }
                    th scope="col" { "Distance" }
                } }
                tbody {
                    @for n in list {
                        tr {
                            th scope="row" { a href=(ctx.link(&format!("/manualcountpoints/{}", n.id))) { (n.id) } }
                            td { (n.road_name) }
                            td { (format::category_or_type(n.road_category.as_deref(), n.road_type.as_deref())) }
                            td.num data-metres=(n.metres) { (format::distance(n.metres)) }
                        }
                    }
                }
            }
        }
    }
}

/// The API's listing of the count points within the same radius of this one's latitude and
/// longitude (itself among them, so one more), when it has them.
fn near_query(api: &str, site: &Site) -> Option<String> {
    site.coordinates()?;
    Some(format!(
        "{api}{}?filter%5Bnear%5D={},{},{NEARBY_METRES}&page%5Bsize%5D={}",
        COUNT_POINTS.paths[0],
        site.longitude,
        site.latitude,
        NEARBY_COUNT + 1
    ))
}

fn aadf(id: i64, aadf: Aadf, revised: Option<Revisions>) -> Markup {
    let title = format!("Annual average daily flow at count point {id}");
    let (legend, revised, new_years) = match revised {
        Some(r) => revision_legend(id, r),
        None => (html! {}, Vec::new(), Vec::new()),
    };
    let figures = Figures::by_year("aadf", title, "vehicles per day", aadf.by_vehicle, vehicle)
        .with_extra(vec![("Count method".into(), aadf.methods)])
        .with_revisions(revised, new_years);
    html! {
        section aria-labelledby="aadf" {
            h2 #aadf { "Annual average daily flow" }
            p { "Vehicles passing the count point on an average day of the year, both directions." }
            (legend)
            (chart_and_table(figures))
        }
    }
}

/// What the marks of the AADF table mean, and the marks: the figures the release shown
/// revised and the years new in it.
fn revision_legend(id: i64, r: Revisions) -> (Markup, Vec<Revised>, Vec<i64>) {
    let (shown, previous) = (&r.shown, &r.previous);
    let (revised, new_years) = match r.against {
        Against::New => {
            let legend = html! {
                p.revisions { "Nothing to mark: count point " (id) " is new in release " (shown) " (release " (previous) " does not have it)." }
            };
            return (legend, Vec::new(), Vec::new());
        }
        Against::Known { revised, new_years } => (revised, new_years),
    };
    let legend = if revised.is_empty() && new_years.is_empty() {
        html! { p.revisions { "No figure here was revised by release " (shown) " (from release " (previous) ")." } }
    } else {
        html! {
            p.revisions {
                strong { "Marked:" } " figures revised by release " (shown) " (from release " (previous) "), each with the value it replaced"
                @if !new_years.is_empty() { ", and the years new in release " (shown) }
                "."
            }
        }
    };
    (legend, revised, new_years)
}

fn by_direction(id: i64, data: Columns) -> Markup {
    let title = format!("All motor vehicles by direction of travel at count point {id}");
    let figures = Figures::by_year("aadf-direction", title, "vehicles per day", data, direction);
    html! {
        section aria-labelledby="by-direction" {
            h2 #by-direction { "Annual average daily flow by direction" }
            (chart_and_table(figures))
        }
    }
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

/// The raw counts, one count day each: all motor vehicles by hour and direction (chart and
/// table), the latest day open.
fn raw_counts(days: Vec<CountDay>) -> Markup {
    html! {
        section aria-labelledby="raw" {
            h2 #raw { "Raw counts by hour" }
            @if days.is_empty() {
                p { "No manual counts of this count point in the loaded data." }
            } @else {
                p { "Vehicles counted in each hour of each count day, in each direction: all motor vehicles. " (days.len()) " count days, latest first." }
            }
            @for (n, day) in days.into_iter().enumerate() {
                details.count-day open[n == 0] {
                    summary { (format::date(&day.date)) }
                    (count_day(n, day))
                }
            }
        }
    }
}

fn count_day(n: usize, day: CountDay) -> Markup {
    let id = format!("raw-{n}");
    chart_and_table(Figures {
        id: &id,
        title: format!(
            "Motor vehicles counted by hour on {}",
            format::date(&day.date)
        ),
        unit: "vehicles in the hour",
        x_name: "Hour",
        x_label: format::hour,
        x_tick: |h| format!("{h:02}:00"),
        xs: day.by_hour.xs,
        series: series(day.by_hour.columns, direction),
        extra: Vec::new(),
        latest_first: false,
        revised: Vec::new(),
        new_xs: Vec::new(),
    })
}

/// This count point's records of every dataset keyed by count point: its split file where DfT
/// publishes one, else the API's CSV form filtered to it.
fn downloads(ctx: &Context, id: i64) -> Markup {
    let api = &ctx.api_base;
    let by = "count_point_id";
    let mut links: Vec<(String, String)> = DATASETS
        .iter()
        .filter(|d| d.paginated && d.column(by).is_some() && d.id_column() != Some(by))
        .map(|d| {
            let href = crate::downloads::split_path(d, by, id)
                .map(|path| ctx.link(&path))
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
            p.hint { "The API's listings take the same filters: see " a href=(ctx.link("/docs")) { "the API documentation" } "." }
        }
    }
}
