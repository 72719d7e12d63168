//! `/regions` (every region, with its latest traffic) and `/regions/{id}`: a region's traffic
//! by vehicle type and by road category over the years, its local authorities, its count
//! points on the map.

use std::collections::HashMap;

use maud::{html, Markup};

use roadtraffic_catalog::{
    COUNT_POINTS, REGION_TRAFFIC_BY_ROAD_TYPE, REGION_TRAFFIC_BY_VEHICLE_TYPE, ROAD_CATEGORY_CODES,
};

use crate::error::ApiError;
use crate::html::{page_in, Section};
use crate::site::pages::context;
use crate::site::pages::query::{long, wide};
use crate::site::pages::template::{
    area_trail, breadcrumbs, chart_and_table, map, vehicle, Figures, Focus,
};
use crate::site::summary::regional_vehicle_columns;
use crate::site::{format, View};

pub fn list(view: &View) -> Result<Markup, ApiError> {
    let table = REGION_TRAFFIC_BY_VEHICLE_TYPE.table;
    let sql = format!(
        "SELECT region_id, all_motor_vehicles, year FROM {table} \
         WHERE year = (SELECT max(year) FROM {table})"
    );
    let mut stmt = view.conn.prepare(&sql)?;
    let latest: HashMap<i64, (f64, i64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?
        .collect::<Result<_, _>>()?;
    let year = latest.values().map(|(_, y)| *y).next();
    let s = view.summary;
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
                        @if let Some(y) = year { ", " (y) }
                    }
                } }
                tbody {
                    @for r in &s.regions {
                        tr {
                            th scope="row" { a href=(format!("/regions/{}", r.id)) { (r.name) } }
                            td.num { (s.local_authorities.iter().filter(|a| a.parent == Some(r.id)).count()) }
                            td.num { (latest.get(&r.id).map(|(v, _)| format::miles(*v)).unwrap_or_default()) }
                        }
                    }
                }
            }
        }
        p { a href="/local-authorities" { "Every local authority, A to Z" } }
    };
    Ok(page_in(Section::Regions, "Regions", body))
}

pub fn one(view: &View, id: i64) -> Result<Markup, ApiError> {
    let s = view.summary;
    let region = s
        .region(id)
        .ok_or_else(|| ApiError::NotFound(format!("regions/{id}")))?;
    let (by_vehicle, latest) = by_vehicle(view, id, &region.name)?;
    let by_road = by_road(view, id, &region.name)?;
    let points: i64 = view.conn.query_row(
        &format!(
            "SELECT count(*) FROM {} WHERE region_id = ?1",
            COUNT_POINTS.table
        ),
        [id],
        |r| r.get(0),
    )?;
    let authorities: Vec<_> = s
        .local_authorities
        .iter()
        .filter(|a| a.parent == Some(id))
        .collect();
    let body = html! {
        (breadcrumbs(&area_trail(None, None)))
        h1 { (region.name) }
        @if let Some((y, total)) = latest {
            p.key-figure { (format::miles(total)) " vehicle miles were travelled on roads in " (region.name) " in " (y) "." }
        }
        section aria-labelledby="vehicles" { h2 #vehicles { "Traffic by vehicle type" } (by_vehicle) }
        section aria-labelledby="roads" { h2 #roads { "Traffic by road category" } (by_road) }
        section aria-labelledby="authorities" {
            h2 #authorities { "Local authorities" }
            @if authorities.is_empty() { p { "None in the loaded data." } }
            ul.columns {
                @for a in &authorities { li { a href=(format!("/local-authorities/{}", a.id)) { (a.name) } } }
            }
        }
        section aria-labelledby="points" {
            h2 #points { "Count points" }
            p { (format::whole(points as f64)) " count points in " (region.name) ", highlighted on the map." }
            (map(&context(view), Focus::Region(id), &format!("Map of the {points} count points in {}", region.name)))
        }
    };
    Ok(page_in(Section::Regions, &region.name, body))
}

/// The region's traffic by vehicle type (chart and table), and its latest total.
fn by_vehicle(view: &View, id: i64, name: &str) -> Result<(Markup, Option<(i64, f64)>), ApiError> {
    let columns = regional_vehicle_columns();
    let sql = format!(
        "SELECT year, {} FROM {} WHERE region_id = ?1 ORDER BY year",
        columns.join(", "),
        REGION_TRAFFIC_BY_VEHICLE_TYPE.table
    );
    let data = wide(view, &sql, &[&id], &columns)?;
    let latest = data.last_of("all_motor_vehicles");
    let by_vehicle = chart_and_table(Figures::by_year(
        "region-vehicles",
        format!("Traffic in {name} by vehicle type"),
        "vehicle miles",
        data,
        vehicle,
    ));
    Ok((by_vehicle, latest))
}

/// The region's motor vehicle traffic by road category (chart and table).
fn by_road(view: &View, id: i64, name: &str) -> Result<Markup, ApiError> {
    let sql = format!(
        "SELECT year, road_category, all_motor_vehicles FROM {} WHERE region_id = ?1 ORDER BY year",
        REGION_TRAFFIC_BY_ROAD_TYPE.table
    );
    let data = long(view, &sql, &[&id], ROAD_CATEGORY_CODES)?;
    Ok(chart_and_table(Figures::by_year(
        "region-roads",
        format!("Motor vehicle traffic in {name} by road category"),
        "vehicle miles, all motor vehicles",
        data,
        format::category_name,
    )))
}
