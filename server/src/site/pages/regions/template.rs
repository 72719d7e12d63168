//! The regions' pages: the table of every region, and a region's figures, local authorities
//! and map.

use maud::{html, Markup};

use crate::html::{page_in, Section};
use crate::site::format;
use crate::site::overview::AdminArea;
use crate::site::pages::query::Columns;
use crate::site::pages::template::{
    area_trail, breadcrumbs, chart_and_table, map, vehicle, Context, Figures, Focus,
};

use super::query::{LatestTotals, Region};

pub fn list(ctx: &Context, latest: &LatestTotals) -> Markup {
    let s = ctx.overview;
    let body = html! {
        h1 { "Regions" }
        p.lead { "Each region's traffic over the years, by vehicle type and road category, and its local authorities." }
        div.table-scroll tabindex="0" role="region" aria-label="Regions (table)" {
            table {
                caption { "Regions of Great Britain in the loaded data" }
                thead { tr {
                    th scope="col" { "Region" }
                    th scope="col" { "Local authorities" }
                    th scope="col" {
                        "Vehicle miles, all motor vehicles"
                        @if let Some(y) = latest.year { ", " (y) }
                    }
                } }
                tbody {
                    @for r in &s.regions {
                        tr {
                            th scope="row" { a href=(ctx.link(&format!("/regions/{}", r.id))) { (r.name) } }
                            td.num { (s.local_authorities.iter().filter(|a| a.parent == Some(r.id)).count()) }
                            td.num { (latest.by_region.get(&r.id).map(|v| format::miles(*v)).unwrap_or_default()) }
                        }
                    }
                }
            }
        }
        p { a href=(ctx.link("/local-authorities")) { "Every local authority, A to Z" } }
    };
    page_in(ctx.frame, Section::Regions, "Regions", body)
}

pub fn one(ctx: &Context, region: &AdminArea, figures: Region) -> Markup {
    let (id, name) = (region.id, &region.name);
    let points = figures.count_points;
    let latest = figures.by_vehicle.last_of("all_motor_vehicles");
    let authorities: Vec<_> = ctx
        .overview
        .local_authorities
        .iter()
        .filter(|a| a.parent == Some(id))
        .collect();
    let body = html! {
        (breadcrumbs(&area_trail(ctx, None, None)))
        h1 { (name) }
        @if let Some((y, total)) = latest {
            p.key-figure { (format::miles(total)) " vehicle miles were travelled on roads in " (name) " in " (y) "." }
        }
        section aria-labelledby="vehicles" { h2 #vehicles { "Traffic by vehicle type" } (by_vehicle(name, figures.by_vehicle)) }
        section aria-labelledby="roads" { h2 #roads { "Traffic by road category" } (by_road(name, figures.by_road)) }
        section aria-labelledby="authorities" {
            h2 #authorities { "Local authorities" }
            @if authorities.is_empty() { p { "None in the loaded data." } }
            ul.columns {
                @for a in &authorities { li { a href=(ctx.link(&format!("/local-authorities/{}", a.id))) { (a.name) } } }
            }
        }
        section aria-labelledby="points" {
            h2 #points { "Count points" }
            p { (format::whole(points as f64)) " count points in " (name) ", highlighted on the map." }
            (map(ctx, Focus::Region(id), &format!("Map of the {points} count points in {name}")))
        }
    };
    page_in(ctx.frame, Section::Regions, name, body)
}

/// The region's traffic by vehicle type (chart and table).
fn by_vehicle(name: &str, data: Columns) -> Markup {
    chart_and_table(Figures::by_year(
        "region-vehicles",
        format!("Traffic in {name} by vehicle type"),
        "vehicle miles",
        data,
        vehicle,
    ))
}

/// The region's motor vehicle traffic by road category (chart and table).
fn by_road(name: &str, data: Columns) -> Markup {
    chart_and_table(Figures::by_year(
        "region-roads",
        format!("Motor vehicle traffic in {name} by road category"),
        "vehicle miles, all motor vehicles",
        data,
        format::category_name,
    ))
}
