//! The docs page's words on totals: what `<endpoint>/facets` and `<endpoint>/summary` take and
//! give, their caps and precision, where their answers come from (the tables of totals kept at
//! load time), what each listing counts and adds up, and examples that return rows of the
//! loaded file; in each dataset's section, its own two examples.

use maud::{html, Markup};

use roadtraffic_catalog::totals::{RECORDS, STATS};
use roadtraffic_catalog::{Column, Dataset, Domain, AADF, COUNT_POINTS, DATASETS, RAW_COUNTS};

use super::examples::Examples;
use crate::api::{FACETS, SUMMARY};
use crate::configuration::Config;
use crate::description::totals::{example_group, example_measure, summary_example};
use crate::totals::{
    AVG_DECIMALS, DECIMAL_TEXT_DECIMALS, DEFAULT_FACET_SIZE, DERIVED_DECIMALS, MAX_FACET_SIZE,
    MAX_GROUP_BY, MAX_SUMMARY_LIMIT, MAX_SUMMARY_OFFSET, MAX_SUMMARY_ROWS,
};

/// The section, under the page's requests.
pub fn section(examples: &Examples, config: &Config) -> Markup {
    let examples = totals_examples(examples, config);
    html! {
        section id="totals" {
            h2 { "Totals: facets and summaries" }
            p { "How much, by what, without paging through a listing: every paginated listing answers two questions of the records its filters match (" code { "filter[x]" } " or " code { "x" } ", lists, " code { "count_method" } ", and " code { "filter[bbox]" } " and " code { "filter[near]" } " where it has places, or a CQL2 " code { "filter=" } "). The mirror's own: the public service has neither." }
            (questions())
            (precision())
            (sources())
            h3 { "What each listing counts and adds up" }
            (columns_table())
            h3 { "Examples" }
            p { "Each returns rows of this file:" }
            ul { @for (url, what) in &examples { li { (what) ": " a href=(url) { code { (url) } } } } }
        }
    }
}

/// `facets` and `summary`, parameter by parameter.
fn questions() -> Markup {
    html! {
        h3 { "Facets" }
        p { code { "<endpoint>/facets?facet=year&facet=road_category" } ": each column's values among the matching records, with how many records hold each, largest count first, ties by value: " code { "{\"facets\": {\"year\": {\"values\": [{\"value\": 2019, \"count\": 1200}, ...], \"truncated\": false}, ...}}" } "." }
        ul {
            li { code { "facet" } " (required): the columns, the parameter repeated or a comma-separated list." }
            li { code { "facet_size" } ": values listed per column (default " (DEFAULT_FACET_SIZE) ", at most " (MAX_FACET_SIZE) "); " code { "truncated" } " is " code { "true" } " when more were left off." }
        }
        h3 { "Summaries" }
        p { code { "<endpoint>/summary?group_by=year&sum=all_motor_vehicles" } ": one row per group, as a JSON array of objects; " code { "summary.csv" } " the same as CSV with a header, " code { "summary.ndjson" } " one object a line. A row holds the group's values, " code { "count" } " (its records), then " code { "sum_<m>" } ", " code { "avg_<m>" } ", " code { "min_<m>" } " and " code { "max_<m>" } " for the measures asked, in that order." }
        ul {
            li { code { "group_by" } ": at most " (MAX_GROUP_BY) " of the columns a facet takes (a comma-separated list, or repeated); none, one row for every matching record." }
            li { code { "sum" } ", " code { "avg" } ", " code { "min" } ", " code { "max" } ": comma-separated lists of the measures: every column whose values are numbers (counts, years, hours, eastings and northings, link lengths, longitudes and latitudes; not the record's id), and on the AADF listings " code { "vehicle_km" } " and " code { "vehicle_miles" } " (each record's " code { "all_motor_vehicles" } " x its link length x the days in its year, 366 in a leap year)." }
            li { code { "sort" } ": any output column, " code { "-" } " for descending (" code { "sort=-sum_all_motor_vehicles" } "); ties, and a summary without it, are ordered by the group's values ascending." }
            li { code { "limit" } ": the first rows in that order, 1 to " (MAX_SUMMARY_LIMIT) ". Without it, a summary of more than " (MAX_SUMMARY_ROWS) " groups is a 400: filter it, group by fewer columns, or give " code { "limit" } "." }
            li { code { "offset" } ": the rows before it left out (0 to " (MAX_SUMMARY_OFFSET) "): " code { "limit=10000&offset=10000" } " is the second 10,000 rows; every group comes a page at a time, until a page has fewer rows than its " code { "limit" } "." }
            li { "A wrong parameter is a 400 that names it and lists the values it allows; a question over the query time limit, a 503." }
        }
    }
}

fn precision() -> Markup {
    html! {
        h3 { "Precision" }
        ul {
            li { code { "count" } " and the sums of whole-number columns are exact (64-bit integers; a sum beyond them is a 400 that says so)." }
            li { "An average is the exact sum over the number of non-empty values, rounded half away from zero to " (AVG_DECIMALS) " decimal places (a number column's, such as a published total link length, from its floating-point sum)." }
            li { "Decimals published as text (link lengths, longitudes, latitudes) are added up exactly (each value to 8 places); their sums and averages are written to " (DECIMAL_TEXT_DECIMALS) " decimal places, their minima and maxima as the numbers they read as." }
            li { code { "vehicle_km" } " and " code { "vehicle_miles" } " are exact: each record's in thousandths (link lengths are published to two places), summed as integers and written to " (DERIVED_DECIMALS) " decimal places; an average rounded to them. A record without a link length (most minor roads) has none. They are read from the table's rows: the tables of totals keep the counts." }
            li { "Empty values are left out of sums, averages, minima and maxima (and still counted in " code { "count" } "); a group with none has " code { "null" } " there." }
        }
    }
}

/// Where answers come from: the tables of totals, the runs, the table.
fn sources() -> Markup {
    let tables: Vec<(String, String)> = (DATASETS.iter())
        .flat_map(|d| d.rollup_tables())
        .map(|(table, r)| (table, r.by.join(", ")))
        .collect();
    let stats = STATS.map(|s| format!("{s}_<m>")).join(", ");
    html! {
        h3 { "Where the answers come from" }
        p { "The load keeps small tables of totals beside the national ones, one row per combination of a few columns' values that the table holds, with " code { (RECORDS) } " (its rows) and, for each measure " code { "m" } ", " code { (stats) } ":" }
        ul { @for (table, by) in &tables { li { code { (table) } ", by " (by) } } }
        p { "A question whose filters and columns are all among one table's columns is answered from it: a few thousand rows for a national question, tens of thousands for one by local authority, rather than millions. Others read the table's runs when they only count (raw counts by count point, date or road name, say), or the listing's own rows through its indexes. The answer is the same whichever. Answers are cached as a listing's are, and immutable under " code { "/releases/{name}" } ". The tables are an interface: open the file with " code { "sqlite3" } " or Datasette and query them directly." }
    }
}

/// Each paginated listing's path, the columns it counts and groups by, its measures.
fn columns_table() -> Markup {
    // Each name as code, which breaks inside a long name on a narrow screen.
    let names = |columns: &mut dyn Iterator<Item = &'static Column>| {
        html! { @for (i, c) in columns.enumerate() { @if i > 0 { ", " } code { (c.name) } } }
    };
    html! {
        table {
            caption { "The columns of each listing's totals" }
            thead { tr { th scope="col" { "Listing" } th scope="col" { "Facets and groups" } th scope="col" { "Measures" } } }
            tbody {
                @for d in DATASETS.iter().filter(|d| d.paginated) {
                    tr {
                        td { code { (d.paths[0]) } }
                        td { (names(&mut d.facet_columns())) }
                        td { (measure_names(d)) }
                    }
                }
            }
        }
    }
}

/// A listing's summary measures, each as code.
fn measure_names(d: &Dataset) -> Markup {
    html! {
        @for (i, m) in d.summary_measures().enumerate() { @if i > 0 { ", " } code { (m.name()) } }
    }
}

/// The section's examples, with what each asks: a file whose raw counts and AADF have rows
/// returns rows for each.
fn totals_examples(examples: &Examples, config: &Config) -> Vec<(String, &'static str)> {
    let at = |d: &Dataset, what: &str| format!("{}{}/{what}", config.base_path(), d.paths[0]);
    let mut out = Vec::new();
    let coded = RAW_COUNTS
        .facet_columns()
        .find(|c| matches!(c.domain, Domain::Code(_)));
    if let (Some(year), Some(coded)) = (example_group(&RAW_COUNTS), coded) {
        let url = format!(
            "{}?facet={}&facet={}",
            at(&RAW_COUNTS, FACETS),
            year.name,
            coded.name
        );
        out.push((url, "raw counts per year and per road category"));
    }
    let url = format!(
        "{}?{}",
        at(&RAW_COUNTS, SUMMARY),
        summary_example(&RAW_COUNTS)
    );
    out.push((url, "the motor vehicles counted each year"));
    if let Some(url) = busiest_hours(examples, &at(&RAW_COUNTS, SUMMARY)) {
        out.push((
            url,
            "the five busiest hours of a local authority's counts, on average, as CSV",
        ));
    }
    if let Some(measure) = example_measure(&AADF) {
        let m = measure.name;
        let url = format!(
            "{}.ndjson?group_by=year,road_category&avg={m}&max={m}&sort=-year,-avg_{m}",
            at(&AADF, SUMMARY)
        );
        out.push((
            url,
            "AADF per year and road category, latest first, as NDJSON",
        ));
    }
    out.extend(measure_examples(examples, &at));
    out
}

/// Summaries of numbers beside the counts: road length, extent, years counted, vehicle-km.
fn measure_examples(
    examples: &Examples,
    at: &dyn Fn(&Dataset, &str) -> String,
) -> Vec<(String, &'static str)> {
    let points = at(&COUNT_POINTS, SUMMARY);
    let mut out = vec![
        (
            format!("{points}?group_by=road_category&sum=link_length_km"),
            "the total length of the road links counted, by road category",
        ),
        (
            format!("{points}?group_by=region_id&min=longitude,latitude&max=longitude,latitude"),
            "each region's extent: the least and most longitude and latitude of its count points",
        ),
    ];
    let aadf = at(&AADF, SUMMARY);
    let point =
        (examples.of(&AADF)).and_then(|e| e.filters.iter().find(|(f, _)| *f == "count_point_id"));
    if let Some((f, id)) = point {
        out.push((
            format!("{aadf}?filter%5B{f}%5D={id}&min=year&max=year"),
            "a count point's first and last year of AADF",
        ));
    }
    if let Some(m) = AADF.derived_measures().next() {
        let m = m.name;
        out.push((
            format!("{aadf}?group_by=region_id,year&sum={m}&sort=-sum_{m}"),
            "vehicle-km by region and year (AADF x link length x days), largest first",
        ));
    }
    out
}

/// The busiest hours of the first raw count's local authority, as CSV.
fn busiest_hours(examples: &Examples, summary: &str) -> Option<String> {
    let area = "local_authority_id";
    let hour = (RAW_COUNTS.facet_columns()).find(|c| c.domain == Domain::Hour)?;
    let m = example_measure(&RAW_COUNTS)?;
    let id = examples.busiest_area.as_ref()?;
    let (hour, m) = (hour.name, m.name);
    Some(format!(
        "{summary}.csv?filter%5B{area}%5D={id}&group_by={hour}&avg={m}&sort=-avg_{m}&limit=5"
    ))
}

/// A dataset section's examples of its totals, for a paginated listing.
pub fn dataset_examples(d: &'static Dataset, config: &Config) -> Option<Markup> {
    let path = format!("{}{}", config.base_path(), d.paths[0]);
    let facets = format!("{path}/{FACETS}?facet={}", example_group(d)?.name);
    let summary = format!("{path}/{SUMMARY}?{}", summary_example(d));
    d.paginated.then(|| {
        html! {
            p { "Its totals (return rows of this file; see " a href="#totals" { "Totals" } "): " a href=(facets) { code { (facets) } } " and " a href=(summary) { code { (summary) } } }
        }
    })
}
