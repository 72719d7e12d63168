//! The docs page drawn: the API described for a person, from the same catalogue as the
//! OpenAPI document, with an example request for each endpoint made of the loaded file's own
//! values (`examples`, so that it returns rows), the fields with their meaning and units, and
//! the mirror's deviations. No SQL here: the values come read.

use maud::{html, Markup};

use roadtraffic_catalog::json_schema;
use roadtraffic_catalog::meanings::meaning;
use roadtraffic_catalog::{Column, Dataset, Domain, DATASETS};

use super::examples::{DatasetExamples, Examples};
use crate::api::Endpoint;
use crate::configuration::Config;
use crate::description::deviations::DEVIATIONS;
use crate::forms::Form;
use crate::query;

/// The page, of the API's listing endpoints (each dataset's section in the catalogue's order,
/// with its aliases and its other formats), its examples made of `examples`.
pub fn page(examples: &Examples, config: &Config, endpoints: &[Endpoint]) -> String {
    let mut sections = Vec::new();
    for d in DATASETS {
        let first = examples.of(d);
        let of_d: Vec<Endpoint> = endpoints
            .iter()
            .filter(|e| std::ptr::eq(e.dataset, d))
            .copied()
            .collect();
        let revised = match of_d.iter().any(|e| e.has_revisions()) {
            true => first.and_then(|f| super::releases::revisions_example(f, config)),
            false => None,
        };
        let rows = first.map(example_query).unwrap_or_default();
        let near = first.and_then(near_example);
        let sectioned = Sectioned {
            rows: &rows,
            near: near.as_deref(),
            revised,
            totals: super::totals::dataset_examples(d, config),
        };
        sections.push(endpoint(d, &of_d, config, sectioned));
    }
    let base = config.base_path();
    let totals = super::totals::section(examples, config);
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
            li { "CQL2: " code { "filter=" } " in OGC's Common Query Language (" code { "filter-lang=cql2-text" } ", the default, or " code { "cql2-json" } "; geometries in " code { "filter-crs" } "), on every listing, its forms, facets and summaries: any field by name, " code { "= <> < <= > >=" } ", " code { "LIKE" } ", " code { "BETWEEN" } ", " code { "IN" } ", " code { "IS NULL" } ", " code { "AND OR NOT" } ", " code { "CASEI" } ", arithmetic, and on the listings with places the spatial functions of each record's point (" code { "S_INTERSECTS(geometry, POLYGON((...)))" } "). For example " code { "filter=year >= 2015 AND road_category = 'TM'" } ". Text compares minding letter case (unlike " code { "filter[...]" } "); " code { "latitude" } ", " code { "longitude" } " and the link lengths compare as numbers; a comparison with a null selects nothing. Not with " code { "filter[...]" } " in one request." }
            li { "Totals: " code { "<endpoint>/facets" } " and " code { "<endpoint>/summary" } " (also " code { ".csv" } ", " code { ".ndjson" } ") on every paginated listing, with its filters: " a href="#totals" { "facets and summaries" } "." }
            li { "Errors are JSON " code { "{\"message\": \"...\"}" } ": 400 bad parameter, 404 no such path, 405 wrong method, 429 rate limited, 503 busy or over the query time limit, 500 anything else." }
        }
        (totals)
        (super::releases::section(config))
        h2 { "Where this mirror differs from the public service" }
        ul { @for d in DEVIATIONS { li { (inline_code(d)) } } }
        @for s in &sections { (s) }
        (super::ogc::section(config))
    };
    crate::html::page(crate::html::Section::Docs, "The road traffic API", body)
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
fn near_example(first: &DatasetExamples) -> Option<String> {
    let (lon, lat) = first.place.as_ref()?;
    let size = if first.dataset.paginated {
        "&page%5Bsize%5D=5"
    } else {
        ""
    };
    Some(format!("filter%5Bnear%5D={lon},{lat},5000{size}"))
}

/// A query that returns rows of the loaded file: the first record's values for the dataset's
/// first two filters that have one (its name, for the area lists).
fn example_query(first: &DatasetExamples) -> String {
    let mut out = String::new();
    for (name, value) in &first.filters {
        out.push_str(&format!("filter%5B{name}%5D="));
        query::encode(value, &mut out);
        out.push('&');
    }
    if first.dataset.paginated {
        out.push_str("page%5Bsize%5D=5");
    }
    out.trim_end_matches('&').to_string()
}

fn field_meaning(d: &Dataset, c: &Column) -> String {
    let unit = match (c.domain, d.count_unit) {
        (Domain::Count, Some(unit)) => format!(" In {unit}."),
        _ => String::new(),
    };
    format!("{}{unit}", meaning(c.name).unwrap_or(""))
}

/// A dataset section's examples, each returning rows of the release.
struct Sectioned<'a> {
    /// A query of its first two filters.
    rows: &'a str,
    /// `filter[near]`, on a dataset with places.
    near: Option<&'a str>,
    /// The revisions of a record, on a dataset that has them.
    revised: Option<Markup>,
    /// Its facets and summary, on a paginated dataset.
    totals: Option<Markup>,
}

fn endpoint(d: &Dataset, endpoints: &[Endpoint], config: &Config, examples: Sectioned) -> Markup {
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
                tbody { @for c in d.stored_columns() { tr { td { code { (c.name) } } td { (json_schema::words(d, c)) } td { (field_meaning(d, c)) } } } }
            }
        }
    }
}
