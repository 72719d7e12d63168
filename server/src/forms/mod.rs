//! The forms an answer is written in, each named once: its path suffix, its media type, and
//! what asks for it ([`FORMS`]); which of them a request gets (`negotiation`: a path's suffix,
//! `Accept` with its q-values, or OGC's `f`, decided once per request by the route table).
//!
//! Adding a form is one entry in [`FORMS`], the routes that offer it, and its writer.

mod negotiation;

pub use negotiation::{negotiate, Chosen, Offer};

/// A form of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Form {
    /// JSON: a listing's page in its envelope, a summary, a document.
    Json,
    /// GeoJSON (RFC 7946): records as features.
    GeoJson,
    /// CSV with a header line.
    Csv,
    /// One JSON object a line.
    Ndjson,
    /// Apache Parquet.
    Parquet,
    /// A zip of one CSV file.
    Zip,
    /// A page for a person.
    Html,
}

/// What names a form.
pub struct Entry {
    pub form: Form,
    /// The path's ending that asks for it (a listing's `.csv`), or `""`.
    pub suffix: &'static str,
    /// Its `Content-Type`.
    pub content_type: &'static str,
}

/// Every form, by what names it.
pub const FORMS: [Entry; 7] = [
    Entry {
        form: Form::Json,
        suffix: "",
        content_type: "application/json",
    },
    Entry {
        form: Form::GeoJson,
        suffix: ".geojson",
        content_type: "application/geo+json",
    },
    Entry {
        form: Form::Csv,
        suffix: ".csv",
        content_type: "text/csv; charset=utf-8",
    },
    Entry {
        form: Form::Ndjson,
        suffix: ".ndjson",
        content_type: "application/x-ndjson",
    },
    // IANA's media type for Parquet (registered 2024).
    Entry {
        form: Form::Parquet,
        suffix: ".parquet",
        content_type: "application/vnd.apache.parquet",
    },
    Entry {
        form: Form::Zip,
        suffix: ".zip",
        content_type: "application/zip",
    },
    Entry {
        form: Form::Html,
        suffix: "",
        content_type: "text/html; charset=utf-8",
    },
];

impl Form {
    fn entry(self) -> &'static Entry {
        let found = FORMS.iter().find(|e| e.form == self);
        found.unwrap_or(&FORMS[0])
    }

    /// The path's ending that asks for it: `.csv`, `.geojson`, or `""`.
    pub fn suffix(self) -> &'static str {
        self.entry().suffix
    }

    pub fn content_type(self) -> &'static str {
        self.entry().content_type
    }

    /// Its media type without parameters (`text/csv`), as `Accept` names it.
    pub fn media(self) -> &'static str {
        let content_type = self.content_type();
        content_type.split(';').next().unwrap_or(content_type)
    }

    /// The form a path's ending names (`.parquet`), among those that have one.
    pub fn of_suffix(suffix: &str) -> Option<Form> {
        let named = FORMS.iter().filter(|e| !e.suffix.is_empty());
        named
            .into_iter()
            .find(|e| e.suffix == suffix)
            .map(|e| e.form)
    }

    /// Whether it is written as JSON (a GeoJSON document is one).
    pub fn is_json(self) -> bool {
        matches!(self, Form::Json | Form::GeoJson)
    }
}
