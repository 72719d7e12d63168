//! What a filter can ask of a dataset's records (OGC's queryables): every stored column by
//! its name, typed as CQL2 compares it, and, where the records have places, their point as
//! `geometry`. Written from the catalogue, for the filters and for `/queryables` alike.

use serde_json::{json, Map, Value};

use roadtraffic_catalog::places::Places;
use roadtraffic_catalog::{meanings, Column, Dataset, Domain, ValueType};

/// The name of a record's point.
pub const GEOMETRY: &str = "geometry";

/// How CQL2 compares a property's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Integers and decimals alike (a decimal kept as text, as the public API's coordinates
    /// and link lengths are, is compared as a number).
    Number,
    Text,
    /// A calendar day, `YYYY-MM-DD`.
    Date,
    Bool,
    /// A record's point, or a geometry literal.
    Geometry,
}

/// One property a filter may name.
#[derive(Debug, Clone, Copy)]
pub struct Queryable {
    pub name: &'static str,
    /// `None` for [`GEOMETRY`].
    pub column: Option<&'static Column>,
    pub kind: Kind,
}

impl Queryable {
    fn of_column(c: &'static Column) -> Queryable {
        let kind = match (c.ty, c.domain) {
            (ValueType::Integer | ValueType::Number, _) => Kind::Number,
            (ValueType::Text, Domain::Decimal { .. }) => Kind::Number,
            (ValueType::Date, _) => Kind::Date,
            (ValueType::Text, _) => Kind::Text,
        };
        Queryable {
            name: c.name,
            column: Some(c),
            kind,
        }
    }

    /// Whether its values are decimals kept as text (the public API writes them as strings).
    pub fn is_decimal_text(&self) -> bool {
        self.column
            .is_some_and(|c| c.ty == ValueType::Text && matches!(c.domain, Domain::Decimal { .. }))
    }

    /// Its schema as a field of a feature: its type, and what it means.
    pub fn field_schema(&self) -> Value {
        let mut schema = Map::new();
        let integer = self.column.is_some_and(|c| c.ty == ValueType::Integer);
        match self.kind {
            Kind::Number if integer => schema.insert("type".into(), json!("integer")),
            Kind::Number => schema.insert("type".into(), json!("number")),
            _ => schema.insert("type".into(), json!("string")),
        };
        if self.kind == Kind::Date {
            schema.insert("format".into(), json!("date"));
        }
        if let Some(meaning) = self.column.and_then(|c| meanings::meaning(c.name)) {
            schema.insert("description".into(), json!(meaning));
        }
        Value::Object(schema)
    }

    /// Its schema as `/queryables` writes it: as a field, titled by its name; the point as a
    /// geometry.
    fn schema(&self, d: &Dataset) -> Value {
        let mut schema = match self.kind {
            Kind::Geometry => json!({
                "description": format!("Where the record is: a point ({})", d.title),
                "format": "geometry-point",
                "x-ogc-role": "primary-geometry",
            }),
            _ => self.field_schema(),
        };
        schema["title"] = json!(self.name);
        schema
    }
}

/// Every queryable of a dataset, in record order, its point last.
pub fn of(d: &'static Dataset) -> Vec<Queryable> {
    let mut all: Vec<Queryable> = d.stored_columns().map(Queryable::of_column).collect();
    if Places::of(d).is_some() {
        all.push(Queryable {
            name: GEOMETRY,
            column: None,
            kind: Kind::Geometry,
        });
    }
    all
}

/// The queryable named `name`, if there is one.
pub fn find(d: &'static Dataset, name: &str) -> Option<Queryable> {
    of(d).into_iter().find(|q| q.name == name)
}

/// The queryables as one JSON Schema (2020-12) of an object, each property with its type and
/// title, no other allowed (OGC API - Features Part 3, `/req/queryables/get-queryables-response`).
pub fn schema(d: &'static Dataset, id: &str, title: &str) -> Value {
    let properties: Map<String, Value> = (of(d).iter())
        .map(|q| (q.name.to_string(), q.schema(d)))
        .collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": id,
        "type": "object",
        "title": title,
        "properties": properties,
        "additionalProperties": false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use roadtraffic_catalog::{COUNT_POINTS, REGIONS};

    #[test]
    fn queryables_are_the_stored_columns_typed_and_the_point() {
        let names: Vec<&str> = of(&COUNT_POINTS).iter().map(|q| q.name).collect();
        assert_eq!(names.last(), Some(&GEOMETRY));
        let kind = |name| find(&COUNT_POINTS, name).map(|q| q.kind);
        assert_eq!(kind("latitude"), Some(Kind::Number));
        assert_eq!(kind("road_name"), Some(Kind::Text));
        assert_eq!(kind("easting"), Some(Kind::Number));
        assert!(find(&REGIONS, GEOMETRY).is_none());
        let schema = schema(&COUNT_POINTS, "x", "Count points");
        assert_eq!(schema["properties"]["latitude"]["type"], "number");
        assert_eq!(schema["properties"]["count_point_id"]["type"], "integer");
        assert_eq!(schema["additionalProperties"], false);
    }
}
