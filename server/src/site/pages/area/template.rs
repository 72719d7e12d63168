//! The area pages: the sets, a set's areas (A to Z), and an area (its outline and count points
//! on the map, its vehicle-km by year, its count points, and where the same is in the API).

use maud::{html, Markup};

use roadtraffic_catalog::{AADF, COUNT_POINTS};

use super::query::{AreaShown, SetAreas, SetRow, AREAS_PER_PAGE, PER_PAGE};
use crate::html::{page_in, Section};
use crate::query::encode;
use crate::site::format;
use crate::site::pages::query::{Columns, PointRow};
use crate::site::pages::template::{
    breadcrumbs, chart_and_table, count_point_table, map, pager, Context, Figures, Focus,
};
use crate::vehicle_km::{self, VEHICLE_KM};

/// Text as a URL's path segment or query value.
fn encoded(text: &str) -> String {
    let mut out = String::new();
    encode(text, &mut out);
    out
}

/// The site's path of a set, or of an area of it.
fn set_path(set: &str) -> String {
    format!("/areas/{}", encoded(set))
}

fn area_path(set: &str, id: &str) -> String {
    format!("{}/{}", set_path(set), encoded(id))
}

/// `filter[area]`'s value for one area, as the API takes it (`set:id`).
fn area_filter(set: &str, id: &str) -> String {
    format!(
        "filter[area]={}",
        encoded(&format!("{set}:{id}")).replace("%3A", ":")
    )
}

fn trail(ctx: &Context, set: Option<&str>) -> Vec<(String, String)> {
    let mut trail = vec![(ctx.link("/areas"), "Areas".to_string())];
    if let Some(set) = set {
        trail.push((ctx.link(&set_path(set)), set.to_string()));
    }
    trail
}

fn km(thousandths: Option<i64>) -> String {
    format::count(thousandths.map(vehicle_km::km))
}

pub fn sets(ctx: &Context, sets: &[SetRow]) -> Markup {
    let body = html! {
        (breadcrumbs(&trail(ctx, None)))
        h1 { "Areas" }
        p.lead { "Traffic for any boundary: each set of areas (wards, constituencies, a council's own zones) was loaded from a boundary file, and each of its areas holds the count points inside it or on its edge." }
        @if sets.is_empty() {
            p.empty { "No area sets are stored in the loaded data. Add one with " code { "roadtraffic-load areas add NAME FILE --db FILE" } "." }
        } @else {
            div.table-scroll tabindex="0" role="region" aria-label="Area sets (table)" {
                table {
                    caption { "Area sets, by name" }
                    thead { tr {
                        th scope="col" { "Set" } th scope="col" { "Areas" }
                        th scope="col" { "Boundary file" } th scope="col" { "SHA-256" }
                    } }
                    tbody { @for s in sets { tr {
                        th scope="row" { a href=(ctx.link(&set_path(&s.name))) { (s.name) } }
                        td.num { (format::whole(s.areas as f64)) }
                        td { (s.source) }
                        td { code.hash { (s.sha256) } }
                    } } }
                }
            }
        }
        p { "The same as data: " a href=(format!("{}/areas", ctx.api_base)) { "the sets in the API" } "." }
    };
    page_in(ctx.frame, Section::Explore, "Areas", body)
}

pub fn set(ctx: &Context, shown: &SetAreas, page: i64) -> Markup {
    let name = &shown.set.info.name;
    let total = shown.rows.len() as i64;
    let last = ((total + AREAS_PER_PAGE - 1) / AREAS_PER_PAGE).max(1);
    let page = page.clamp(1, last);
    let first = (page - 1) * AREAS_PER_PAGE;
    let rows = shown
        .rows
        .iter()
        .skip(first as usize)
        .take(AREAS_PER_PAGE as usize);
    let year = shown.year.map(|y| y.to_string()).unwrap_or_default();
    let title = format!("Areas of {name}");
    let api = format!("{}/areas/{}", ctx.api_base, encoded(name));
    let body = html! {
        (breadcrumbs(&trail(ctx, None)))
        h1 { (title) }
        p { (format::whole(total as f64)) " areas, from " (shown.set.info.source) "." }
        div.table-scroll tabindex="0" role="region" aria-label={ (title) " (table)" } {
            table {
                caption { (title) ", A to Z: " (first + 1) " to " (first + rows.len() as i64) " of " (total) }
                thead { tr {
                    th scope="col" { "Area" } th scope="col" { "Id" }
                    th scope="col" { "Count points" }
                    th scope="col" { "Vehicle-km in " (year) }
                } }
                tbody { @for a in rows { tr {
                    th scope="row" { a href=(ctx.link(&area_path(name, &a.id))) { (a.name) } }
                    td { (a.id) }
                    td.num { (format::whole(a.count_points as f64)) }
                    td.num { (km(a.vehicle_km)) }
                } } }
            }
        }
        (pager(&ctx.link(&set_path(name)), page, last))
        h2 #data { "This set as data" }
        ul.api-links {
            li { a href=(api) { "Its areas in the API (JSON)" } }
            li { a href=(format!("{api}.geojson")) { "Its areas as GeoJSON polygons" } }
            li { a href=(format!("{api}.parquet")) { "Its areas as GeoParquet (for GeoPandas, DuckDB, QGIS)" } }
            li { a href=(ctx.link(&format!("/ogcapi/collections/areas-{}", encoded(name)))) { "Its collection in OGC API - Features (for QGIS)" } }
            li { a href=(ctx.link(&format!("/explore?dataset=average-annual-daily-flow&group_by=area:{},year&sum={VEHICLE_KM}", encoded(name)))) { "Vehicle-km by area and year, on the Explore page" } }
        }
    };
    page_in(ctx.frame, Section::Explore, &title, body)
}

pub fn one(ctx: &Context, shown: AreaShown, page: i64) -> Markup {
    let set = &shown.set.info.name;
    let area = &shown.set.areas()[shown.index];
    let latest = shown.years.last_of(VEHICLE_KM);
    let last = ((shown.listed + PER_PAGE - 1) / PER_PAGE).max(1);
    let geojson = format!(
        "{}/areas/{}/{}",
        ctx.api_base,
        encoded(set),
        encoded(&area.id)
    );
    let label = format!(
        "Map of {}: its outline and its {} count points",
        area.name, shown.members
    );
    let body = html! {
        (breadcrumbs(&trail(ctx, Some(set))))
        h1 { (area.name) }
        p { "Area " code { (area.id) } " of the set " a href=(ctx.link(&set_path(set))) { (set) } " (from " (shown.set.info.source) ")." }
        @if let Some((y, km)) = latest {
            p.key-figure { (format::whole(km)) " vehicle-km were driven over the counted road links of " (area.name) " in " (y) "." }
        }
        section aria-labelledby="traffic" {
            h2 #traffic { "Vehicle-km over the years" }
            p { "Each year's AADF of every motor vehicle at the area's count points, times the length of each count point's road link, times the days in the year (DfT's method for major roads), added up." }
            (traffic(&area.name, shown.years, &shown.records))
        }
        section aria-labelledby="points" {
            h2 #points { "Count points" }
            p { (format::whole(shown.members as f64)) " count points of the loaded data are in " (area.name) " or on its edge; " (format::whole(shown.listed as f64)) " of them in the count points table." }
            (map(ctx, Focus::Area(geojson.clone()), &label))
            (count_points(ctx, &shown.points, page, shown.listed))
            (pager(&ctx.link(&area_path(set, &area.id)), page, last))
        }
        (as_data(ctx, (set, &area.id), &geojson))
    };
    page_in(ctx.frame, Section::Explore, &area.name, body)
}

/// The vehicle-km by year as a chart and a table (with the AADF records of each year); where
/// no record has a link length (minor roads), a sentence instead of an empty chart.
fn traffic(name: &str, years: Columns, records: &[i64]) -> Markup {
    let has_figures = (years.columns.iter()).any(|c| c.values.iter().any(Option::is_some));
    if !has_figures && !years.xs.is_empty() {
        let total: i64 = records.iter().sum();
        return html! { p.empty {
            "The AADF records of its count points give no link length (as for minor roads), so no vehicle-km: "
            (format::whole(total as f64)) " records in " (years.xs.len()) " years."
        } };
    }
    let records = records.iter().map(|n| format::whole(*n as f64)).collect();
    let title = format!("Vehicle-km in {name}");
    let figures = Figures::by_year("area-vehicle-km", title, "vehicle-km", years, |_| {
        "Vehicle-km".to_string()
    });
    chart_and_table(figures.with_extra(vec![("AADF records".into(), records)]))
}

/// Where the same is in the API, the downloads and OGC API - Features.
fn as_data(ctx: &Context, (set, id): (&str, &str), geojson: &str) -> Markup {
    let filter = area_filter(set, id);
    let (points, aadf) = (
        format!("{}{}", ctx.api_base, COUNT_POINTS.paths[0]),
        format!("{}{}", ctx.api_base, AADF.paths[0]),
    );
    let summary = format!("{aadf}/summary?group_by=year&sum={VEHICLE_KM}&{filter}");
    let ogc = format!(
        "/ogcapi/collections/areas-{}/items/{}",
        encoded(set),
        encoded(id)
    );
    let links = [
        ("Its outline, as a GeoJSON Feature", geojson.to_string()),
        ("Its count points (the API)", format!("{points}?{filter}")),
        ("Its AADF records (the API)", format!("{aadf}?{filter}")),
        ("Its vehicle-km by year (the API's summary)", summary),
        ("Its count points as CSV", format!("{points}.csv?{filter}")),
        (
            "Its count points as GeoJSON",
            format!("{points}.geojson?{filter}"),
        ),
        ("Its AADF records as CSV", format!("{aadf}.csv?{filter}")),
        (
            "Its AADF records as Parquet",
            format!("{aadf}.parquet?{filter}"),
        ),
        ("The area in OGC API - Features (for QGIS)", ctx.link(&ogc)),
    ];
    html! {
        section aria-labelledby="data" {
            h2 #data { "This area as data" }
            ul.api-links { @for (label, href) in links { li { a href=(href) { (label) } br; code { (href) } } } }
        }
    }
}

fn count_points(ctx: &Context, rows: &[PointRow], page: i64, total: i64) -> Markup {
    match rows.is_empty() {
        true => html! { p.empty { "No count point of the loaded data is in this area." } },
        false => count_point_table(ctx, rows, (page - 1) * PER_PAGE + 1, total),
    }
}
