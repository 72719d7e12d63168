//! What the description says of each listing's totals (the mirror's own): `<endpoint>/facets`
//! and `<endpoint>/summary` with its `.csv` and `.ndjson` forms, at every paginated listing's
//! path and alias. Their parameters are the listing's filters and the catalogue's columns (those
//! its records can be counted and grouped by, those that can be added up); their answers are
//! typed from the same columns; each operation's examples return rows of any release whose
//! table has rows (`example_group`, `example_measure`).

use serde_json::{json, Map, Value};

use roadtraffic_catalog::json_schema;
use roadtraffic_catalog::totals::SummaryMeasure;
use roadtraffic_catalog::{Column, Dataset, Domain, ValueType, DATASETS};

use super::openapi::{self, list_parameter, names};
use super::schemas;
use crate::api::{Endpoint, FACETS, SUMMARY, SUMMARY_FORMS};
use crate::configuration::Config;
use crate::forms::Form;
use crate::totals::{
    Measure, Stat, AVG_DECIMALS, DECIMAL_TEXT_DECIMALS, DEFAULT_FACET_SIZE, DERIVED_DECIMALS,
    MAX_FACET_SIZE, MAX_GROUP_BY, MAX_SUMMARY_LIMIT, MAX_SUMMARY_OFFSET, MAX_SUMMARY_ROWS,
};

/// The path items of every listing's totals, under the base path.
pub fn paths(config: &Config, endpoints: &[Endpoint], paths: &mut Map<String, Value>) {
    let base = config.base_path();
    for e in endpoints.iter().filter(|e| e.has_totals()) {
        let path = format!("{base}{}", e.path());
        let get = facets_operation(e, config);
        paths.insert(format!("{path}/{FACETS}"), json!({ "get": get }));
        for format in SUMMARY_FORMS {
            let get = summary_operation(e, format, config);
            let key = format!("{path}/{SUMMARY}{}", format.suffix());
            paths.insert(key, json!({ "get": get }));
        }
    }
}

/// The schemas of the answers, per dataset with totals: `<Record>Facets` and
/// `<Record>SummaryRow`.
pub fn schemas(out: &mut Map<String, Value>) {
    for d in DATASETS.iter().filter(|d| d.paginated) {
        let name = schemas::record_name(d);
        out.insert(format!("{name}Facets"), facets_schema(d));
        out.insert(format!("{name}SummaryRow"), summary_row_schema(d));
    }
}

/// The column an example counts or groups by: a year, else a coded column (a road category),
/// else the first.
pub fn example_group(d: &Dataset) -> Option<&'static Column> {
    let by = |wanted: fn(&Domain) -> bool| d.facet_columns().find(|c| wanted(&c.domain));
    by(|domain| *domain == Domain::Year)
        .or_else(|| by(|domain| matches!(domain, Domain::Code(_))))
        .or_else(|| d.facet_columns().next())
}

/// The measure an example adds up: the last, which is each dataset's total (all motor
/// vehicles).
pub fn example_measure(d: &Dataset) -> Option<&'static Column> {
    d.measure_columns().last()
}

/// A summary that returns rows of any release whose table has some: the example group, the
/// example measure's sum (`group_by=year&sum=all_motor_vehicles`).
pub fn summary_example(d: &Dataset) -> String {
    let mut query = Vec::new();
    if let Some(group) = example_group(d) {
        query.push(format!("group_by={}", group.name));
    }
    if let Some(measure) = example_measure(d) {
        query.push(format!("{}={}", Stat::Sum.name(), measure.name));
    }
    query.join("&")
}

/// An operation's id: `facets_raw_counts`, `summary_raw_counts_alias_1_csv`.
fn operation_id(what: &str, e: &Endpoint, suffix: &str) -> String {
    let alias = match e.alias {
        0 => String::new(),
        n => format!("_alias_{n}"),
    };
    let form = suffix.trim_start_matches('.');
    let form = if form.is_empty() {
        String::new()
    } else {
        format!("_{form}")
    };
    format!("{what}_{}{alias}{form}", e.dataset.table)
}

fn column_names(columns: impl Iterator<Item = &'static Column>) -> Vec<String> {
    columns.map(|c| c.name.to_string()).collect()
}

/// A whole-number parameter from 1 to `max`.
fn whole(name: &str, description: String, max: usize, default: Option<usize>) -> Value {
    let mut schema = json!({"type": "integer", "minimum": 1, "maximum": max});
    if let Some(default) = default {
        schema["default"] = json!(default);
    }
    json!({"name": name, "in": "query", "required": false, "description": description, "schema": schema})
}

fn facets_operation(e: &Endpoint, config: &Config) -> Value {
    let d = e.dataset;
    let columns = column_names(d.facet_columns());
    let mut parameters = openapi::listing_filters(d);
    let facet = format!("The columns to count the values of: repeated (`facet=year&facet=road_category`) or a comma-separated list. Allowed: {}.", columns.join(", "));
    let items = json!({"type": "string", "enum": columns});
    let mut facet = json!({
        "name": "facet", "in": "query", "required": true, "description": facet,
        "style": "form", "explode": true,
        "schema": {"type": "array", "items": items, "minItems": 1},
    });
    if let Some(c) = example_group(d) {
        facet["example"] = json!([c.name]);
    }
    parameters.push(facet);
    let size = format!("Values listed per column (default {DEFAULT_FACET_SIZE}, at most {MAX_FACET_SIZE}): the most common; `truncated` says whether more were left off.");
    parameters.push(whole(
        "facet_size",
        size,
        MAX_FACET_SIZE,
        Some(DEFAULT_FACET_SIZE),
    ));
    let mut content = Map::new();
    let schema = json!({"$ref": format!("#/components/schemas/{}Facets", schemas::record_name(d))});
    content.insert("application/json".into(), json!({"schema": schema}));
    let bad = "A parameter is wrong: the message names it and lists the values it allows.";
    json!({
        "operationId": operation_id("facets", e, ""),
        "summary": format!("How many {} hold each value of some columns", d.title),
        "description": format!("Each `facet` column's values among the records the listing's filters match, with how many records hold each: largest count first, ties by value. {SOURCES} A mirror's own endpoint (the public service has none)."),
        "parameters": parameters,
        "responses": openapi::answered("Each column's values and counts.", content, bad, config),
    })
}

/// Where an answer comes from, in the operations' descriptions.
const SOURCES: &str = "Answered from the tables of totals kept at load time (`<table>_totals_<name>`) when the filters and columns are all among one's columns, else from the table's runs or through the listing's own indexes; the answer is the same whichever. Under `/releases/{release}` the same for a kept release, cached as immutable.";

fn summary_operation(e: &Endpoint, format: Form, config: &Config) -> Value {
    let d = e.dataset;
    let mut parameters = openapi::listing_filters(d);
    parameters.extend(summary_parameters(d));
    let rows = match format {
        Form::Csv => "CSV with a header of the output columns (empty for null; text holding a comma, quote or line end is quoted)",
        Form::Ndjson => "NDJSON: one JSON object a line",
        _ => "a JSON array of objects",
    };
    let body = match format {
        Form::Json => {
            let row = format!("#/components/schemas/{}SummaryRow", schemas::record_name(d));
            json!({"type": "array", "maxItems": MAX_SUMMARY_LIMIT, "items": {"$ref": row}})
        }
        _ => json!({"type": "string"}),
    };
    let mut content = Map::new();
    content.insert(format.content_type().into(), json!({"schema": body}));
    let example = format!(
        "{}{}/{SUMMARY}{}?{}",
        config.base_path(),
        e.path(),
        format.suffix(),
        summary_example(d)
    );
    let bad = format!("A parameter is wrong (the message names it and lists the values it allows: `sort` names an output column of this summary, `group_by` at most {MAX_GROUP_BY} columns), a sum is beyond 64-bit integers, or there are more than {MAX_SUMMARY_ROWS} groups and no `limit`.");
    json!({
        "operationId": operation_id("summary", e, format.suffix()),
        "summary": format!("Totals of {} per group, as {rows}", d.title),
        "description": format!("One row per combination of the `group_by` columns' values among the records the listing's filters match (one row for them all without `group_by`), as {rows}. Each row: the group's values, `count` (its records), then the measures asked, sums first, then averages, minima and maxima, each in the order listed: `sum_<m>` (exact), `avg_<m>` (the exact sum over the count of non-empty values, rounded half away from zero to {AVG_DECIMALS} decimal places), `min_<m>`, `max_<m>`; null where no record of the group has a value. Ordered by `sort`, then by the group's values ascending. For example `{example}`. {SOURCES} A mirror's own endpoint (the public service has none)."),
        "parameters": parameters,
        "responses": openapi::answered("The groups, each with its totals.", content, &bad, config),
    })
}

/// `group_by`, the measures (when the dataset has any), `sort`, `limit` and `offset`.
fn summary_parameters(d: &'static Dataset) -> Vec<Value> {
    let groups = column_names(d.facet_columns());
    let group_by = format!("The columns to group by, at most {MAX_GROUP_BY} (repeating one counts once); none: one row for every matching record. A comma-separated list, or the parameter repeated. Allowed: {}.", groups.join(", "));
    let mut group_by = columns_parameter("group_by", group_by, groups);
    if let Some(c) = example_group(d) {
        group_by["example"] = json!([c.name]);
    }
    let mut out = vec![group_by];
    let measures: Vec<String> = (d.summary_measures())
        .map(|m| m.name().to_string())
        .collect();
    for stat in (Stat::ALL).into_iter().filter(|_| !measures.is_empty()) {
        let what = match stat {
            Stat::Sum => "sum (`sum_<m>`: exact; an integer column's sum is an integer)",
            Stat::Avg => "average (`avg_<m>`)",
            Stat::Min => "minimum (`min_<m>`)",
            Stat::Max => "maximum (`max_<m>`)",
        };
        let text = format!("The measures whose {what} each row gives: a comma-separated list, or the parameter repeated. Allowed: {}.{}", measures.join(", "), measures_note(d));
        let mut parameter = columns_parameter(stat.name(), text, measures.clone());
        // The dataset's total; where its tables of totals keep none, its last number (a
        // count point's link length).
        let example = (example_measure(d).map(|c| c.name))
            .or_else(|| d.summary_measures().last().map(|m| m.name()));
        if let Some(m) = example.filter(|_| stat == Stat::Sum) {
            parameter["example"] = json!([m]);
        }
        out.push(parameter);
    }
    out.push(sort(d));
    let limit = format!("At most this many rows, the first in order (1 to {MAX_SUMMARY_LIMIT}). Without it, a summary of more than {MAX_SUMMARY_ROWS} groups is a 400.");
    out.push(whole("limit", limit, MAX_SUMMARY_LIMIT, None));
    let offset = "The rows before it left out: `limit=10000&offset=10000` is the second 10,000 rows, so every group comes a page at a time, until a page has fewer rows than its `limit`.";
    let mut offset = whole("offset", offset.to_string(), MAX_SUMMARY_OFFSET, None);
    offset["schema"]["minimum"] = json!(0);
    out.push(offset);
    out
}

/// A comma-separated list of some of `columns`: given empty (`group_by=`), it is a 400 that
/// lists them.
fn columns_parameter(name: &str, description: String, columns: Vec<String>) -> Value {
    let items = json!({"type": "string", "enum": columns});
    let mut parameter = list_parameter(name, description, items);
    parameter["schema"]["minItems"] = json!(1);
    parameter
}

/// Every output column a summary can have, in output order: the groups, `count`, each
/// statistic of each measure.
fn outputs(d: &Dataset) -> Vec<String> {
    let mut out = column_names(d.facet_columns());
    out.push("count".to_string());
    for stat in Stat::ALL {
        out.extend(d.summary_measures().map(|of| Measure { stat, of }.name()));
    }
    out
}

/// What the measures beside the stored numbers are, and how decimals are written.
fn measures_note(d: &Dataset) -> String {
    let mut note = String::new();
    if d.summary_measures()
        .any(|m| matches!(m, SummaryMeasure::DecimalText(_)))
    {
        note.push_str(&format!(" Decimals published as text (link lengths, coordinates) are read as numbers: their sums and averages are exact, written to {DECIMAL_TEXT_DECIMALS} decimal places; their minima and maxima are the numbers read."));
    }
    for m in d.derived_measures() {
        note.push_str(&format!(" `{}`: each record's `{}` x `{}` x the days in its year (366 in a leap year), summed exactly and written to {DERIVED_DECIMALS} decimal places (a record without a link length has none).", m.name, m.count, m.length));
    }
    note
}

fn sort(d: &Dataset) -> Value {
    let keys = outputs(d)
        .into_iter()
        .flat_map(|s| [s.clone(), format!("-{s}")])
        .collect();
    let text = "Sort keys in order, `-` for descending: any output column of this summary (a `group_by` column, `count`, or a measure asked, such as `-sum_all_motor_vehicles`). Ties, and a summary without `sort`, are ordered by the group's values ascending.".to_string();
    list_parameter("sort", text, names(keys))
}

fn facets_schema(d: &Dataset) -> Value {
    let facets: Map<String, Value> = d
        .facet_columns()
        .map(|c| (c.name.to_string(), facet_schema(d, c)))
        .collect();
    json!({
        "type": "object",
        "description": "Each `facet` column asked, in the order asked, with its values.",
        "required": ["facets"],
        "properties": {"facets": {"type": "object", "properties": facets, "additionalProperties": false}},
        "additionalProperties": false,
    })
}

fn facet_schema(d: &Dataset, c: &Column) -> Value {
    let value = json!({
        "type": "object",
        "required": ["value", "count"],
        "properties": {
            "value": schemas::field_schema(d, c),
            "count": {"type": "integer", "minimum": 1, "description": "Records holding the value."},
        },
        "additionalProperties": false,
    });
    json!({
        "type": "object",
        "required": ["values", "truncated"],
        "properties": {
            "values": {"type": "array", "maxItems": MAX_FACET_SIZE, "items": value, "description": "Largest count first, ties by value; at most `facet_size`."},
            "truncated": {"type": "boolean", "description": "Whether more values were left off than `facet_size` lists."},
        },
        "additionalProperties": false,
    })
}

/// A summary's row: every output column it can have (a row has the groups and measures
/// asked, and `count`), typed from the catalogue.
fn summary_row_schema(d: &Dataset) -> Value {
    let mut properties: Map<String, Value> = d
        .facet_columns()
        .map(|c| (c.name.to_string(), schemas::field_schema(d, c)))
        .collect();
    properties.insert(
        "count".into(),
        json!({"type": "integer", "minimum": 0, "description": "The group's records."}),
    );
    for stat in Stat::ALL {
        for of in d.summary_measures() {
            let name = Measure { stat, of }.name();
            properties.insert(name, measure_schema(stat, &of));
        }
    }
    json!({
        "type": "object",
        "description": format!("One group: its `group_by` values, `count`, then the measures asked (sums, averages, minima, maxima). {}", d.about),
        "required": ["count"],
        "properties": properties,
        "additionalProperties": false,
    })
}

fn measure_schema(stat: Stat, m: &SummaryMeasure) -> Value {
    // An average of whole numbers is a decimal; any other statistic of a stored number is of
    // the column's type; decimal text and derived measures are numbers.
    let ty = match (stat, m) {
        (Stat::Avg, _) | (_, SummaryMeasure::DecimalText(_) | SummaryMeasure::Derived(_)) => {
            json_schema::json_type(ValueType::Number)
        }
        (_, SummaryMeasure::Number(c)) => json_schema::json_type(c.ty),
    };
    let what = match stat {
        Stat::Sum => "The sum of the group's values (exact)",
        Stat::Avg => "The average of the group's non-empty values: the exact sum over their count, rounded half away from zero",
        Stat::Min => "The smallest of the group's values",
        Stat::Max => "The largest of the group's values",
    };
    let text = format!("{what} of {}; null when none has one.", m.name());
    json!({"type": [ty, "null"], "description": text})
}
