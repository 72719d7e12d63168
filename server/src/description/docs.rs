//! The docs page: the API described for a person, from the same catalogue as the OpenAPI
//! document, with an example request for each endpoint built from the loaded file's rows (so
//! that it returns rows), the fields with their meaning and units, and the mirror's deviations.

use maud::{html, Markup};
use rusqlite::types::ValueRef;

use roadtraffic_catalog::meanings::meaning;
use roadtraffic_catalog::places::Places;
use roadtraffic_catalog::{Column, Dataset, Domain, ValueType, COUNT_METHOD, DATASETS};

use super::deviations::DEVIATIONS;
use crate::api::Endpoint;
use crate::configuration::Config;
use crate::error::ApiError;
use crate::forms::Form;
use crate::query;
use crate::release::Release;

/// The page, of the API's listing endpoints (each dataset's section in the catalogue's order,
/// with its aliases and its other formats).
pub fn page(
    release: &Release,
    config: &Config,
    endpoints: &[Endpoint],
) -> Result<String, ApiError> {
    let conn = release.pool.get()?;
    let mut sections = Vec::new();
    for d in DATASETS {
        let example = example_query(&conn, d)?;
        let near = near_example(&conn, d)?;
        let of_d: Vec<Endpoint> = endpoints
            .iter()
            .filter(|e| std::ptr::eq(e.dataset, d))
            .copied()
            .collect();
        let revised = match of_d.iter().any(|e| e.has_revisions()) {
            true => super::releases_docs::revisions_example(&conn, d, config)?,
            false => None,
        };
        let examples = Examples {
            rows: &example,
            near: near.as_deref(),
            revised,
            totals: super::totals_docs::dataset_examples(d, config),
        };
        sections.push(endpoint(d, &of_d, config, examples));
    }
    let base = config.base_path();
    let totals = super::totals_docs::section(&conn, config)?;
    let body = html! {
        h1 { "The road traffic API" }
        p { "The Department for Transport's road traffic statistics API, answered from this mirror's copy of a release: the same paths, records, filters and pagination envelope as "
            code { "https://roadtraffic.dft.gov.uk/api" }
            ". A client written for the public service works here by changing only its base URL." }
        p { "Machine-readable: the OpenAPI 3.1 description at " a href={ (base) "/openapi.json" } { code { (base) "/openapi.json" } } ". Whole files as DfT publishes them: " a href="/downloads" { "downloads" } "." }
        h2 { "Requests" }
        ul {
            li { code { "page[size]" } " (default 250, 1 to " (config.max_page_size) ") and " code { "page[number]" } " (from 1), raw or URL-encoded (" code { "page%5Bsize%5D" } "). Past the last page: an empty page." }
            li { code { "filter[name]=v" } " or " code { "name=v" } "; " code { "v1,v2" } " is a list; matching is exact and text ignores letter case; empty values are ignored." }
            li { code { "sort=a,-b" } " (" code { "-" } " for descending); " code { "fields=a,b" } " for some fields only." }
            li { "Every listing is also served whole, with the same filters, sort and fields, as CSV (" code { "<endpoint>.csv" } ") and NDJSON (" code { "<endpoint>.ndjson" } "); those with places as GeoJSON too (" code { "<endpoint>.geojson" } ")." }
            li { "Where: " code { "filter[bbox]=minLon,minLat,maxLon,maxLat" } " and " code { "filter[near]=lon,lat,radius_m" } " on the listings with places (nearest first, each record with " code { "distance_m" } "); for GIS clients, the same data as an OGC API - Features service at " a href="/ogcapi" { code { "/ogcapi" } } "." }
            li { "Totals: " code { "<endpoint>/facets" } " and " code { "<endpoint>/summary" } " (also " code { ".csv" } ", " code { ".ndjson" } ") on every paginated listing, with its filters: " a href="#totals" { "facets and summaries" } "." }
            li { "Errors are JSON " code { "{\"message\": \"...\"}" } ": 400 bad parameter, 404 no such path, 405 wrong method, 429 rate limited, 503 busy or over the query time limit, 500 anything else." }
        }
        (totals)
        (super::releases_docs::section(config))
        h2 { "Where this mirror differs from the public service" }
        ul { @for d in DEVIATIONS { li { (inline_code(d)) } } }
        @for s in &sections { (s) }
        (super::ogc::section(config))
    };
    Ok(crate::html::page(
        crate::html::Section::Docs,
        "The road traffic API",
        body,
    ))
}

/// Backticks as `<code>`, the rest escaped.
fn inline_code(text: &str) -> Markup {
    html! {
        @for (i, part) in text.split('`').enumerate() {
            @if i % 2 == 1 { code { (part) } } @else { (part) }
        }
    }
}

/// `filter[near]` around the first record's place, for a dataset with places that has one.
fn near_example(
    conn: &rusqlite::Connection,
    d: &'static Dataset,
) -> Result<Option<String>, ApiError> {
    let Some(places) = Places::of(d) else {
        return Ok(None);
    };
    let table = match places.in_runs {
        true => d.runs_table().unwrap_or_default(),
        false => d.table.to_string(),
    };
    let sql = format!(
        "SELECT longitude, latitude FROM {table} WHERE longitude IS NOT NULL AND latitude IS NOT NULL ORDER BY rowid LIMIT 1"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let (lon, lat): (String, String) = (row.get(0)?, row.get(1)?);
    let size = if d.paginated { "&page%5Bsize%5D=5" } else { "" };
    Ok(Some(format!("filter%5Bnear%5D={lon},{lat},5000{size}")))
}

/// A query that returns rows of the loaded file: the first record's values for the dataset's
/// first two filters that have one (its name, for the area lists).
fn example_query(conn: &rusqlite::Connection, d: &Dataset) -> Result<String, ApiError> {
    let candidates: Vec<&Column> = d
        .filters
        .iter()
        .filter(|f| **f != "id" && **f != COUNT_METHOD)
        .filter_map(|f| d.filter_column(f))
        .collect();
    let names: Vec<&str> = candidates.iter().map(|c| c.name).collect();
    let sql = format!(
        "SELECT {} FROM {} ORDER BY id LIMIT 1",
        names.join(", "),
        d.table
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([])?;
    let Some(row) = rows.next()? else {
        return Ok(String::new());
    };
    let mut out = String::new();
    let mut used = 0;
    for (i, c) in candidates.iter().enumerate() {
        let value = match row.get_ref(i)? {
            ValueRef::Integer(v) => v.to_string(),
            ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
            _ => continue,
        };
        out.push_str(&format!("filter%5B{}%5D=", c.name));
        query::encode(&value, &mut out);
        out.push('&');
        used += 1;
        if used == 2 {
            break;
        }
    }
    if d.paginated {
        out.push_str("page%5Bsize%5D=5");
    }
    Ok(out.trim_end_matches('&').to_string())
}

fn type_of(d: &Dataset, c: &Column) -> String {
    let base = match c.ty {
        ValueType::Integer => "integer",
        ValueType::Number => "number",
        ValueType::Text => "text",
        ValueType::Date => "date (text, YYYY-MM-DD)",
    };
    let nullable = !(c.filled || d.natural_key.contains(&c.name) || c.name == "id");
    if nullable {
        format!("{base} or null")
    } else {
        base.to_string()
    }
}

fn field_meaning(d: &Dataset, c: &Column) -> String {
    let unit = match (c.domain, d.count_unit) {
        (Domain::Count, Some(unit)) => format!(" In {unit}."),
        _ => String::new(),
    };
    format!("{}{unit}", meaning(c.name).unwrap_or(""))
}

/// A dataset section's examples, each returning rows of the release.
struct Examples<'a> {
    /// A query of its first two filters.
    rows: &'a str,
    /// `filter[near]`, on a dataset with places.
    near: Option<&'a str>,
    /// The revisions of a record, on a dataset that has them.
    revised: Option<Markup>,
    /// Its facets and summary, on a paginated dataset.
    totals: Option<Markup>,
}

fn endpoint(d: &Dataset, endpoints: &[Endpoint], config: &Config, examples: Examples) -> Markup {
    let (example, near) = (examples.rows, examples.near);
    let aliases = endpoints
        .iter()
        .filter(|e| e.alias > 0 && e.format == Form::Json);
    let whole = endpoints
        .iter()
        .filter(|e| e.alias == 0 && e.format != Form::Json);
    let base = config.base_path();
    let path = format!("{base}{}", d.paths[0]);
    let example_url = if example.is_empty() {
        path.clone()
    } else {
        format!("{path}?{example}")
    };
    html! {
        section id=(d.table) {
            h2 { code { (path) } }
            @for alias in aliases { p { "Also at " code { (base) (alias.path()) } "." } }
            p { (d.about) }
            @if let Some(unit) = d.count_unit { p { "Counts are " (unit) "." } }
            p { @if d.paginated { "A page of records in the envelope." } @else { "Every record, as a JSON array." }
                " Whole: " @for e in whole { a href={ (path) (e.format.suffix()) } { code { (e.format.suffix()) } } " " } }
            p { "Example (returns rows of this file): " a href=(example_url) { code { (example_url) } } }
            @if let Some(revised) = examples.revised { (revised) }
            @if let Some(totals) = examples.totals { (totals) }
            h3 { "Filters" }
            p { @for (i, f) in d.filters.iter().enumerate() { @if i > 0 { ", " } code { (f) } } ". Sorts: the same" @if d.count_method.is_some() { " but " code { "count_method" } } "." }
            @if let Some(near) = near {
                @let url = format!("{path}?{near}");
                p { "Where: " code { "filter[bbox]" } " and " code { "filter[near]" } ", for example " a href=(url) { code { (url) } } " (the records within 5 km of the first record's place, nearest first)." }
            }
            h3 { "Fields" }
            table {
                caption { "The fields of a record, in order" }
                thead { tr { th scope="col" { "Field" } th scope="col" { "Type" } th scope="col" { "Meaning" } } }
                tbody { @for c in d.stored_columns() { tr { td { code { (c.name) } } td { (type_of(d, c)) } td { (field_meaning(d, c)) } } } }
            }
        }
    }
}
