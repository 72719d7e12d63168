//! A column's values as JSON Schema, written once for every description of them: the API's
//! OpenAPI document (records, filters, summaries, revisions), OGC's definition and the docs
//! page's words.

use serde_json::{json, Map, Value};

use crate::{Column, Dataset, Source, ValueType};

/// The JSON type of a column's values: integers and decimals are numbers, dates are strings.
pub fn json_type(ty: ValueType) -> &'static str {
    match ty {
        ValueType::Integer => "integer",
        ValueType::Number => "number",
        ValueType::Text | ValueType::Date => "string",
    }
}

/// Whether a served value of the column can be null: ids, natural keys and the columns every
/// row must have never are.
pub fn nullable(d: &Dataset, c: &Column) -> bool {
    !(c.source == Source::Id || c.filled || d.natural_key.contains(&c.name))
}

/// The schema of a column's values (not null): its type, and `format: date` for a date.
pub fn value(c: &Column) -> Map<String, Value> {
    let mut schema = Map::new();
    schema.insert("type".into(), json!(json_type(c.ty)));
    if c.ty == ValueType::Date {
        schema.insert("format".into(), json!("date"));
    }
    schema
}

/// The schema of a value a filter on the column takes: the value's, bounded as the server reads
/// it (a whole number within 64 bits, a date written `YYYY-MM-DD`).
pub fn filter_value(c: &Column) -> Value {
    let mut schema = value(c);
    match c.ty {
        ValueType::Integer => {
            schema.insert("minimum".into(), json!(i64::MIN));
            schema.insert("maximum".into(), json!(i64::MAX));
        }
        ValueType::Date => {
            let pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$";
            schema.insert("pattern".into(), json!(pattern));
        }
        ValueType::Number | ValueType::Text => {}
    }
    Value::Object(schema)
}

/// The schema of a column of a dataset's records as served: its value's, or null where it can
/// be empty.
pub fn field(d: &Dataset, c: &Column) -> Map<String, Value> {
    let mut schema = value(c);
    if nullable(d, c) {
        schema.insert("type".into(), json!([json_type(c.ty), "null"]));
    }
    schema
}

/// A column's type in words, for a person: `integer`, `date (text, YYYY-MM-DD) or null`.
pub fn words(d: &Dataset, c: &Column) -> String {
    let base = match c.ty {
        ValueType::Text => "text",
        ValueType::Date => "date (text, YYYY-MM-DD)",
        ty => json_type(ty),
    };
    match nullable(d, c) {
        true => format!("{base} or null"),
        false => base.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DATASETS, RAW_COUNTS};

    #[test]
    fn every_column_has_one_json_type() {
        for d in DATASETS {
            for c in d.stored_columns() {
                let field = field(d, c);
                let ty = &field["type"];
                let named = ty.as_str().or_else(|| ty[0].as_str());
                assert_eq!(named, Some(json_type(c.ty)), "{}.{}", d.table, c.name);
                assert_eq!(words(d, c).ends_with("or null"), nullable(d, c));
            }
        }
        let date = RAW_COUNTS.column("count_date").unwrap();
        assert_eq!(filter_value(date)["format"], "date");
        assert!(filter_value(date)["pattern"].is_string());
    }
}
