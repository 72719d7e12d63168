//! What the about page shows of the loaded file beyond its metadata's plain values: the lists
//! the loader kept there as JSON (source files, rows per table, the change report), read.

use roadtraffic_catalog::changes::ChangeReport;
use roadtraffic_catalog::schema::metadata;

use crate::site::overview::Overview;

/// The loaded file's lists, as kept in its metadata; each empty (or `None`) when absent or
/// unreadable.
pub struct Loaded {
    pub sources: Vec<SourceFile>,
    /// Rows of each table, by table name (a number, when it is one).
    pub row_counts: Vec<(String, Option<f64>)>,
    /// What changed since the file this one replaced (`roadtraffic-load` compares every file
    /// it replaces).
    pub changes: Option<ChangeReport>,
}

/// A source file's name, size and SHA-256, each as the loader wrote it.
pub struct SourceFile {
    pub file: Option<Field>,
    pub bytes: Option<Field>,
    pub sha256: Option<Field>,
}

/// A value of a source file's entry: text or a number (other values read as absent).
pub enum Field {
    Text(String),
    Number(f64),
}

pub fn loaded(summary: &Overview) -> Loaded {
    let value = |key| summary.metadata(key).unwrap_or("");
    let sources: Vec<serde_json::Value> =
        serde_json::from_str(value(metadata::SOURCES)).unwrap_or_default();
    let counts: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(value(metadata::ROW_COUNTS)).unwrap_or_default();
    Loaded {
        sources: sources.iter().map(source_file).collect(),
        row_counts: counts.into_iter().map(|(t, n)| (t, n.as_f64())).collect(),
        changes: summary
            .metadata(metadata::CHANGES)
            .and_then(|json| serde_json::from_str(json).ok()),
    }
}

fn source_file(s: &serde_json::Value) -> SourceFile {
    let field = |k: &str| match &s[k] {
        serde_json::Value::String(t) => Some(Field::Text(t.clone())),
        serde_json::Value::Number(n) => n.as_f64().map(Field::Number),
        _ => None,
    };
    SourceFile {
        file: field("file"),
        bytes: field("bytes"),
        sha256: field("sha256"),
    }
}
