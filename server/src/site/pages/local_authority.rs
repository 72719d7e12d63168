//! `/local-authorities` (every one, A to Z) and `/local-authorities/{id}`: an authority's
//! traffic over the years, its count points (a table, paged) and their map.

use maud::{html, Markup};

use roadtraffic_catalog::{AADF, COUNT_POINTS, LOCAL_AUTHORITY_TRAFFIC};

use crate::error::ApiError;
use crate::html::{page_in, Section};
use crate::site::pages::query::wide;
use crate::site::pages::template::{
    area_trail, breadcrumbs, chart_and_table, map, pager, vehicle, Figures, Focus,
};
use crate::site::pages::{context, query_param};
use crate::site::{format, View};

/// Count points a page of the table.
const PER_PAGE: i64 = 50;

pub fn list(view: &View) -> Result<Markup, ApiError> {
    let s = view.summary;
    let body = html! {
        (breadcrumbs(&area_trail(None, None)))
        h1 { "Local authorities" }
        div.table-scroll tabindex="0" role="region" aria-label="Local authorities (table)" {
            table {
                caption { "Local authorities in the loaded data, A to Z" }
                thead { tr { th scope="col" { "Local authority" } th scope="col" { "Region" } } }
                tbody {
                    @for a in &s.local_authorities {
                        tr {
                            th scope="row" { a href=(format!("/local-authorities/{}", a.id)) { (a.name) } }
                            td {
                                @if let Some(r) = a.parent.and_then(|r| s.region(r)) {
                                    a href=(format!("/regions/{}", r.id)) { (r.name) }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(page_in(Section::Regions, "Local authorities", body))
}

pub fn one(view: &View, id: i64, query: &str) -> Result<Markup, ApiError> {
    let s = view.summary;
    let la = s
        .local_authority(id)
        .ok_or_else(|| ApiError::NotFound(format!("local-authorities/{id}")))?;
    let region = la.parent.and_then(|r| s.region(r));
    let columns = ["cars_and_taxis", "all_motor_vehicles"];
    let sql = format!(
        "SELECT year, {}, link_length_km, link_length_miles FROM {} \
         WHERE local_authority_id = ?1 ORDER BY year",
        columns.join(", "),
        LOCAL_AUTHORITY_TRAFFIC.table
    );
    let data = wide(view, &sql, &[&id], &columns)?;
    let lengths = link_lengths(view, &sql, id)?;
    let latest = data.last_of("all_motor_vehicles");
    let traffic = chart_and_table(
        Figures::by_year(
            "la-traffic",
            format!("Traffic in {}", la.name),
            "vehicle miles",
            data,
            vehicle,
        )
        .with_extra(vec![("Road length (km / miles)".into(), lengths)]),
    );
    let total: i64 = view.conn.query_row(
        &format!(
            "SELECT count(*) FROM {} WHERE local_authority_id = ?1",
            COUNT_POINTS.table
        ),
        [id],
        |r| r.get(0),
    )?;
    let last = (total + PER_PAGE - 1) / PER_PAGE;
    let page = query_param(query, "page")
        .and_then(|p| p.parse::<i64>().ok())
        .unwrap_or(1)
        .clamp(1, last.max(1));
    let trail = area_trail(region, None);
    let path = format!("/local-authorities/{id}");
    let body = html! {
        (breadcrumbs(&trail))
        h1 { (la.name) }
        @if let Some((y, total)) = latest {
            p.key-figure { (format::miles(total)) " vehicle miles were travelled on roads in " (la.name) " in " (y) "." }
        }
        section aria-labelledby="traffic" { h2 #traffic { "Traffic over the years" } (traffic) }
        section aria-labelledby="points" {
            h2 #points { "Count points" }
            p { (format::whole(total as f64)) " count points in " (la.name) "." }
            (map(&context(view), Focus::LocalAuthority(id), &format!("Map of the {total} count points in {}", la.name)))
            (count_points(view, id, page, total)?)
            (pager(&path, page, last))
        }
    };
    Ok(page_in(Section::Regions, &la.name, body))
}

/// The road length column of the traffic table, in the same order as its years.
fn link_lengths(view: &View, sql: &str, id: i64) -> Result<Vec<String>, ApiError> {
    let mut stmt = view.conn.prepare(sql)?;
    let rows = stmt.query_map([id], |r| {
        let km: Option<f64> = r.get(3)?;
        let miles: Option<f64> = r.get(4)?;
        Ok(match (km, miles) {
            (Some(km), Some(mi)) => format!("{km:.1} / {mi:.1}"),
            (Some(km), None) => format!("{km:.1} km"),
            _ => String::new(),
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn count_points(view: &View, id: i64, page: i64, total: i64) -> Result<Markup, ApiError> {
    // The page of count points first, then their latest AADF: joining before the limit would
    // look up the AADF of every count point of the authority (thousands) for a page of 50.
    let sql = format!(
        "SELECT c.count_point_id, c.road_name, c.road_category, c.aadf_year, a.all_motor_vehicles, c.road_type \
         FROM (SELECT * FROM {} WHERE local_authority_id = ?1 \
               ORDER BY road_name, count_point_id LIMIT ?2 OFFSET ?3) c \
         LEFT JOIN {} a ON a.count_point_id = c.count_point_id AND a.year = c.aadf_year \
         ORDER BY c.road_name, c.count_point_id",
        COUNT_POINTS.table, AADF.table
    );
    let mut stmt = view.conn.prepare(&sql)?;
    type Row = (i64, Option<String>, String, Option<i64>, Option<f64>);
    let rows: Vec<Row> = stmt
        .query_map([id, PER_PAGE, (page - 1) * PER_PAGE], |r| {
            let category: Option<String> = r.get(2)?;
            let road_type: Option<String> = r.get(5)?;
            let category = match (category.filter(|c| !c.is_empty()), road_type) {
                (Some(c), _) => format::category_name(&c),
                (None, Some(t)) => format!("{t} road"),
                (None, None) => String::new(),
            };
            Ok((r.get(0)?, r.get(1)?, category, r.get(3)?, r.get(4)?))
        })?
        .collect::<Result<_, _>>()?;
    let first = (page - 1) * PER_PAGE + 1;
    Ok(html! {
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
                    @for (cp, road, category, year, aadf) in &rows {
                        tr {
                            th scope="row" { a href=(format!("/manualcountpoints/{cp}")) { (cp) } }
                            td { (road.as_deref().unwrap_or("")) }
                            td { (category) }
                            td.num { (year.map(|y| y.to_string()).unwrap_or_default()) }
                            td.num { (format::count(*aadf)) }
                        }
                    }
                }
            }
        }
    })
}
