//! The home page: the search form and what it found, the map, the latest year's headline.

use maud::{html, Markup};

use crate::html::{page_in, Section};
use crate::site::format;
use crate::site::overview::{AdminArea, Overview};
use crate::site::pages::template::{map, Context, Focus};

use super::query::{Search, SearchHit, MOST};

/// The page, with the search `q` and its results when there was one.
pub fn page(ctx: &Context, q: Option<&str>, results: Option<&Search>) -> Markup {
    let s = ctx.overview;
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
            a href=(ctx.link("/regions")) { "regions and local authorities" } "."
        }
        form.search role="search" action=(ctx.link("/")) method="get" {
            label for="q" { "Search by count point number, road name, local authority or region" }
            div.search-row {
                input #q type="search" name="q" value=[q] autocomplete="off" spellcheck="false";
                button type="submit" { "Search" }
            }
        }
        @if let (Some(q), Some(results)) = (q, results) { (search_results(ctx, q, results)) }
        section aria-labelledby="map-heading" {
            h2 #map-heading { "Count points" }
            (map(ctx, Focus::All, &label))
        }
        (headline(s))
    };
    page_in(ctx.frame, Section::Map, "Map of count points", body)
}

fn headline(summary: &Overview) -> Markup {
    let Some(h) = &summary.headline else {
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

fn search_results(ctx: &Context, q: &str, found: &Search) -> Markup {
    html! {
        section.results aria-labelledby="results-heading" {
            h2 #results-heading { "Search results for “" (q) "”" }
            @if found.is_empty() {
                p { "Nothing matches. Try a count point number (e.g. 501), a road (A1, M25), a local authority or a region." }
            }
            @if !found.points.is_empty() {
                h3 { "Count points" }
                ul.result-list {
                    @for p in found.points.iter().take(MOST) { li { (count_point(ctx, p)) } }
                }
                @if found.points.len() > MOST { p { "The first " (MOST) " are shown." } }
            }
            @if !found.roads.is_empty() {
                h3 { "Roads" }
                ul.result-list.columns {
                    @for (road, n) in &found.roads {
                        li { a href=(ctx.link(&format!("/?q={}", encode(road)))) { (road) } " (" (n) " count points)" }
                    }
                }
            }
            (areas(ctx, "Local authorities", "local-authorities", &found.authorities))
            (areas(ctx, "Regions", "regions", &found.regions))
        }
    }
}

/// Areas found, each a link to its page at `/{path}/{id}`.
fn areas(ctx: &Context, heading: &str, path: &str, found: &[&AdminArea]) -> Markup {
    html! {
        @if !found.is_empty() {
            h3 { (heading) }
            ul.result-list { @for a in found { li { a href=(ctx.link(&format!("/{path}/{}", a.id))) { (a.name) } } } }
        }
    }
}

fn count_point(ctx: &Context, p: &SearchHit) -> Markup {
    let la = ctx.overview.local_authority(p.local_authority);
    html! {
        a href=(ctx.link(&format!("/manualcountpoints/{}", p.id))) { (p.road) ", count point " (p.id) }
        " – " (format::category_name(&p.category))
        @if let Some(la) = la { ", " (la.name) }
    }
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
