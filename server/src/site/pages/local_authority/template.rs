//! The local authorities' pages: the A to Z table, and an authority's traffic, count points and
//! map.

use maud::{html, Markup};

use crate::html::{page_in, Section};
use crate::site::format;
use crate::site::overview::AdminArea;
use crate::site::pages::template::{
    area_trail, breadcrumbs, chart_and_table, count_point_table, map, pager, vehicle, Context,
    Figures, Focus,
};

use super::query::{Traffic, PER_PAGE};
use crate::site::pages::query::PointRow;

/// A page of the authority's count points: its rows, its number, the last page's, and the
/// number of count points in all.
pub struct Points {
    pub rows: Vec<PointRow>,
    pub page: i64,
    pub last: i64,
    pub total: i64,
}

pub fn list(ctx: &Context) -> Markup {
    let s = ctx.overview;
    let body = html! {
        (breadcrumbs(&area_trail(ctx, None, None)))
        h1 { "Local authorities" }
        div.table-scroll tabindex="0" role="region" aria-label="Local authorities (table)" {
            table {
                caption { "Local authorities in the loaded data, A to Z" }
                thead { tr { th scope="col" { "Local authority" } th scope="col" { "Region" } } }
                tbody {
                    @for a in &s.local_authorities {
                        tr {
                            th scope="row" { a href=(ctx.link(&format!("/local-authorities/{}", a.id))) { (a.name) } }
                            td {
                                @if let Some(r) = a.parent.and_then(|r| s.region(r)) {
                                    a href=(ctx.link(&format!("/regions/{}", r.id))) { (r.name) }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    page_in(ctx.frame, Section::Regions, "Local authorities", body)
}

pub fn one(ctx: &Context, la: &AdminArea, traffic: Traffic, points: &Points) -> Markup {
    let region = la.parent.and_then(|r| ctx.overview.region(r));
    let (id, total) = (la.id, points.total);
    let latest = traffic.miles.last_of("all_motor_vehicles");
    let body = html! {
        (breadcrumbs(&area_trail(ctx, region, None)))
        h1 { (la.name) }
        @if let Some((y, total)) = latest {
            p.key-figure { (format::miles(total)) " vehicle miles were travelled on roads in " (la.name) " in " (y) "." }
        }
        section aria-labelledby="traffic" { h2 #traffic { "Traffic over the years" } (traffic_figures(&la.name, traffic)) }
        section aria-labelledby="points" {
            h2 #points { "Count points" }
            p { (format::whole(total as f64)) " count points in " (la.name) "." }
            (map(ctx, Focus::LocalAuthority(id), &format!("Map of the {total} count points in {}", la.name)))
            (count_points(ctx, points))
            (pager(&ctx.link(&format!("/local-authorities/{id}")), points.page, points.last))
        }
    };
    page_in(ctx.frame, Section::Regions, &la.name, body)
}

/// The traffic chart and table, with the road length a column of the table.
fn traffic_figures(name: &str, traffic: Traffic) -> Markup {
    let lengths = traffic.lengths.iter().map(|(km, miles)| match (km, miles) {
        (Some(km), Some(mi)) => format!("{km:.1} / {mi:.1}"),
        (Some(km), None) => format!("{km:.1} km"),
        _ => String::new(),
    });
    chart_and_table(
        Figures::by_year(
            "la-traffic",
            format!("Traffic in {name}"),
            "vehicle miles",
            traffic.miles,
            vehicle,
        )
        .with_extra(vec![("Road length (km / miles)".into(), lengths.collect())]),
    )
}

fn count_points(ctx: &Context, points: &Points) -> Markup {
    let first = (points.page - 1) * PER_PAGE + 1;
    count_point_table(ctx, &points.rows, first, points.total)
}
