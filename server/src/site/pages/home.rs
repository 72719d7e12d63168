//! `/`: the map of every count point, the search (count point id, road, local authority or
//! region; `?q=`), and the headline figures of the latest year.

use maud::{html, Markup};

use roadtraffic_catalog::COUNT_POINTS;

use crate::error::ApiError;
use crate::html::{page_in, Section};
use crate::site::pages::template::{map, Focus};
use crate::site::pages::{context, query_param};
use crate::site::summary::Area;
use crate::site::{format, View};

/// Results of each kind shown at most.
const MOST: usize = 100;

pub fn render(view: &View, query: &str) -> Result<Markup, ApiError> {
    let q = query_param(query, "q")
        .map(|q| q.trim().chars().take(100).collect::<String>())
        .filter(|q| !q.is_empty());
    let s = view.summary;
    let results = match &q {
        Some(q) => Some(search(view, q)?),
        None => None,
    };
    let label = format!(
        "Map of Great Britain with {} count points, coloured by road category",
        format::whole(s.points.mapped as f64)
    );
    let body = html! {
        h1 { "Road traffic statistics" }
        p.lead {
            "Traffic counted at " (format::whole(s.count_points as f64)) " count points on Great Britain's roads"
            @if let Some(release) = s.metadata(roadtraffic_catalog::schema::metadata::RELEASE) {
                ", release " (release)
            }
            ". Find a road on the map or search, or browse the "
            a href="/regions" { "regions and local authorities" } "."
        }
        form.search role="search" action="/" method="get" {
            label for="q" { "Search by count point number, road name, local authority or region" }
            div.search-row {
                input #q type="search" name="q" value=[q.as_deref()] autocomplete="off" spellcheck="false";
                button type="submit" { "Search" }
            }
        }
        @if let Some(results) = results { (results) }
        section aria-labelledby="map-heading" {
            h2 #map-heading { "Count points" }
            (map(&context(view), Focus::All, &label))
        }
        (headline(view))
    };
    Ok(page_in(Section::Map, "Map of count points", body))
}

fn headline(view: &View) -> Markup {
    let Some(h) = &view.summary.headline else {
        return html! {};
    };
    let total = h
        .rows
        .iter()
        .find(|(c, _, _)| *c == "all_motor_vehicles")
        .map(|(_, v, _)| *v);
    let regions = if h.regions == 1 {
        "the one region".to_string()
    } else {
        format!("the {} regions", h.regions)
    };
    html! {
        section aria-labelledby="headline-heading" {
            h2 #headline-heading { "Traffic in " (h.year) }
            @if let Some(total) = total {
                p.key-figure { (format::miles(total)) " vehicle miles were travelled on the roads of " (regions) " in this data in " (h.year) "." }
            }
            div.table-scroll tabindex="0" role="region" aria-label="Vehicle miles by vehicle type (table)" {
                table {
                    caption { "Vehicle miles by vehicle type, " (h.year) ", summed over " (regions) " of the regional table" }
                    thead { tr {
                        th scope="col" { "Vehicle type" }
                        th scope="col" { (h.year) }
                        th scope="col" { (h.year - 1) }
                        th scope="col" { "Change" }
                    } }
                    tbody {
                        @for (column, now, before) in &h.rows {
                            tr {
                                th scope="row" { (format::vehicle(column)) }
                                td.num { (format::miles(*now)) }
                                td.num { (before.map(format::miles).unwrap_or_default()) }
                                td.num { (before.and_then(|b| format::change(*now, b)).unwrap_or_default()) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A count point found, as a search result shows it.
struct Found {
    id: i64,
    road: String,
    category: String,
    local_authority: i64,
}

fn search(view: &View, q: &str) -> Result<Markup, ApiError> {
    let mut points = Vec::new();
    if let Ok(id) = q.trim_start_matches('#').parse::<i64>() {
        points.extend(count_points(view, "count_point_id = ?1", &[&id])?);
    }
    points.extend(count_points(view, "road_name = ?1", &[&q])?);
    let roads = roads_starting(view, q)?;
    let needle = q.to_lowercase();
    let matching = |areas: &'static str, list: &[Area]| -> Vec<(String, String)> {
        list.iter()
            .filter(|a| a.name.to_lowercase().contains(&needle))
            .take(MOST)
            .map(|a| (format!("/{areas}/{}", a.id), a.name.clone()))
            .collect()
    };
    let authorities = matching("local-authorities", &view.summary.local_authorities);
    let regions = matching("regions", &view.summary.regions);
    let nothing =
        points.is_empty() && roads.is_empty() && authorities.is_empty() && regions.is_empty();
    Ok(html! {
        section.results aria-labelledby="results-heading" {
            h2 #results-heading { "Search results for “" (q) "”" }
            @if nothing {
                p { "Nothing matches. Try a count point number (e.g. 501), a road (A1, M25), a local authority or a region." }
            }
            @if !points.is_empty() {
                h3 { "Count points" }
                ul.result-list {
                    @for p in points.iter().take(MOST) { li { (found(view, p)) } }
                }
                @if points.len() > MOST { p { "The first " (MOST) " are shown." } }
            }
            @if !roads.is_empty() {
                h3 { "Roads" }
                ul.result-list.columns {
                    @for (road, n) in &roads {
                        li { a href=(format!("/?q={}", encode(road))) { (road) } " (" (n) " count points)" }
                    }
                }
            }
            (area_results("Local authorities", &authorities))
            (area_results("Regions", &regions))
        }
    })
}

fn area_results(heading: &str, found: &[(String, String)]) -> Markup {
    html! {
        @if !found.is_empty() {
            h3 { (heading) }
            ul.result-list { @for (href, name) in found { li { a href=(href) { (name) } } } }
        }
    }
}

fn found(view: &View, p: &Found) -> Markup {
    let la = view.summary.local_authority(p.local_authority);
    html! {
        a href=(format!("/manualcountpoints/{}", p.id)) { (p.road) ", count point " (p.id) }
        " – " (format::category_name(&p.category))
        @if let Some(la) = la { ", " (la.name) }
    }
}

fn count_points(
    view: &View,
    condition: &str,
    params: &[&dyn rusqlite::ToSql],
) -> Result<Vec<Found>, ApiError> {
    let sql = format!(
        "SELECT count_point_id, road_name, road_category, local_authority_id FROM {} \
         WHERE {condition} ORDER BY count_point_id LIMIT {}",
        COUNT_POINTS.table,
        MOST + 1
    );
    let mut stmt = view.conn.prepare(&sql)?;
    let rows = stmt.query_map(params, |r| {
        Ok(Found {
            id: r.get(0)?,
            road: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
            category: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
            local_authority: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Road names that start with `q` (ignoring case), other than `q` itself, with their number
/// of count points: a range of the road name index.
fn roads_starting(view: &View, q: &str) -> Result<Vec<(String, i64)>, ApiError> {
    let sql = format!(
        "SELECT road_name, count(*) FROM {} WHERE road_name > ?1 AND road_name < ?2 \
         GROUP BY road_name ORDER BY road_name LIMIT 60",
        COUNT_POINTS.table
    );
    let end = format!("{q}\u{10FFFF}");
    let mut stmt = view.conn.prepare(&sql)?;
    let rows = stmt.query_map([q, end.as_str()], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// A value for a query string.
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
