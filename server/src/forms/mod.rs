//! How an answer is written: the forms it can take, each named once with its path suffix and
//! content type ([`FORMS`]); which of them a request gets (`negotiation`: a path's suffix,
//! `Accept` with its q-values, or OGC's `f`, decided once per request by the route table); and
//! one writer per form behind one interface (`writer`: [`Writer`], which writes [`Record`]s),
//! fed a dataset's rows by one driver ([`write_rows`]) or a summary's rows by `totals`:
//!
//! - `json`: a JSON array, and NDJSON; `envelope` and `legacy`: a page in today's Laravel
//!   envelope or the 2019-2020 one; `geojson`: a `FeatureCollection` (the API's and OGC's);
//! - `csv` (and `zip`, a CSV zipped), `parquet`: the cells of a `file_layout`;
//! - `record`: a row as its JSON record; `links`: the links of a JSON answer.
//!
//! Adding a form is one entry in [`FORMS`], its writer, and the [`Spec`] that makes it; the
//! routes that offer it say so (`routes::table`).

mod csv;
pub mod envelope;
pub mod file_layout;
pub mod geojson;
mod json;
mod legacy;
pub mod links;
mod negotiation;
pub mod parquet;
mod record;
mod writer;
mod zip;

use std::time::Duration;

use roadtraffic_catalog::record::Decimals;

pub use envelope::Envelope;
pub use file_layout::{CellValue, FileLayout, Quoting};
pub use geojson::{FeatureWriter, Members};
pub use negotiation::{negotiate, Chosen, Offer};
pub use record::JsonRecord;
pub use writer::{write_rows, Reads, Record, Writer};
pub use zip::zip_file;

use crate::error::ApiError;
use crate::query::Params;
use crate::release::Release;
use crate::rows::{FilterSets, Rows};
use crate::spatial::Crs;
use crate::stream::{Body, Flush};

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

/// What writes a dataset's rows in a form, with what it needs: made where the rows are read,
/// on the blocking pool ([`Spec::writer`]).
pub enum Spec {
    /// A JSON array of records (an unpaginated listing).
    Json,
    /// A page of records in an envelope, its page URLs at `path` with the request's `params`.
    Page {
        envelope: Envelope,
        path: String,
        params: Params,
    },
    Ndjson,
    /// A `FeatureCollection` in a CRS, the decimals its properties keep as text written as
    /// numbers or not (OGC's or the API's), and what it says after its features.
    Features(Crs, Decimals, Box<dyn Members + Send>),
    Csv(FileLayout),
    /// The CSV file of this name, zipped.
    Zip(FileLayout, String),
    /// A Parquet file of the layout's columns; the rows sorted by the cells at these positions.
    Parquet(FileLayout, Vec<usize>),
}

impl Spec {
    /// What its writer reads of each row.
    pub fn reads(&self) -> Reads {
        match self {
            Spec::Json | Spec::Ndjson => Reads::Json { legacy: false },
            Spec::Page { envelope, .. } => Reads::Json {
                legacy: *envelope == Envelope::Legacy,
            },
            Spec::Features(crs, decimals, _) => Reads::Feature(*crs, *decimals),
            Spec::Csv(layout) | Spec::Zip(layout, _) | Spec::Parquet(layout, _) => {
                Reads::Cells(layout.clone())
            }
        }
    }

    /// Its writer.
    pub fn writer(self) -> Box<dyn Writer> {
        let csv = |layout: FileLayout| csv::Csv::new(layout.headers, layout.quoting);
        match self {
            Spec::Json => Box::new(json::JsonArray::default()),
            Spec::Ndjson => Box::new(json::Ndjson),
            Spec::Page {
                envelope,
                path,
                params,
            } => Box::new(envelope::PageWriter::new(envelope, path, params)),
            Spec::Features(.., members) => Box::new(geojson::FeatureCollection::new(members)),
            Spec::Csv(layout) => Box::new(csv(layout)),
            Spec::Zip(layout, name) => Box::new(zip::Zip::new(csv(layout), name)),
            Spec::Parquet(layout, sorted_by) => Box::new(parquet::Parquet::new(layout, sorted_by)),
        }
    }

    /// Every record of a listing in `form`: its fields (and its distance when `near` is asked)
    /// as CSV, zipped CSV (a file of `name`) or Parquet, its records as NDJSON or a JSON array,
    /// its features as GeoJSON; `None` for a page.
    pub fn whole(form: Form, rows: &Rows, name: &str) -> Option<Spec> {
        let layout = || {
            let layout = FileLayout::fields(&rows.fields);
            let plan = crate::rows::Plan(rows);
            match plan.near() {
                // The distance is the row's first extra: after the fields and any ORDER BY
                // key they do not select (`Sql::order_keys`).
                Some(_) => layout.with_distance(plan.sql().extras_at()),
                None => layout,
            }
        };
        Some(match form {
            Form::Json => Spec::Json,
            Form::Ndjson => Spec::Ndjson,
            Form::GeoJson => {
                let members = Box::new(geojson::Whole);
                Spec::Features(Crs::Crs84, Decimals::AsText, members)
            }
            Form::Csv => Spec::Csv(layout()),
            Form::Zip => Spec::Zip(layout(), name.replace(".zip", ".csv")),
            Form::Parquet => Spec::Parquet(layout(), Vec::new()),
            Form::Html => return None,
        })
    }

    /// A summary's writer in `form`, under the summary's column `names`: a JSON array, CSV
    /// (text quoted where needed) or NDJSON.
    pub fn of_summary(form: Form, names: Vec<String>) -> Box<dyn Writer> {
        match form {
            Form::Csv => Box::new(csv::Csv::new(names, Quoting::WhereNeeded)),
            Form::Ndjson => Box::new(json::Ndjson),
            _ => Box::new(json::JsonArray::default()),
        }
    }
}

/// Writes `rows` of `release` as `spec` asks, on a connection under `time_limit` (time spent
/// waiting for the client to take a chunk does not count): full chunks go to `flush` as they
/// fill, the last is returned. A page or a window of a listing, OGC's items.
pub fn write_timed(
    release: &Release,
    (rows, filter_sets): (&Rows, &FilterSets),
    spec: Spec,
    time_limit: Duration,
    flush: &mut Flush,
) -> Result<Vec<u8>, ApiError> {
    let conn = release.timed_connection(time_limit)?;
    let mut timed_flush = conn.paced(flush);
    let mut body = Body::new(writer::capacity(rows), &mut timed_flush);
    let reads = spec.reads();
    let mut writer = spec.writer();
    let sets = Some(filter_sets);
    write_rows(
        (release, &conn),
        rows,
        sets,
        (reads, writer.as_mut()),
        &mut body,
    )?;
    Ok(body.buf)
}

/// Writes every row of `rows` as `spec` asks, with no time limit (a whole national file takes
/// seconds, and the client's reading paces it), in chunks of a megabyte: a download.
pub fn write_whole(
    release: &Release,
    rows: &Rows,
    spec: Spec,
    flush: &mut Flush,
) -> Result<Vec<u8>, ApiError> {
    write_whole_parts(release, std::slice::from_ref(rows), spec, flush)
}

/// Writes the rows of each of `parts` in turn as one file, as `spec` asks: a download in an
/// order no one query gives (the national Parquet files, by place: `downloads::order`).
pub fn write_whole_parts(
    release: &Release,
    parts: &[Rows],
    spec: Spec,
    flush: &mut Flush,
) -> Result<Vec<u8>, ApiError> {
    // Counted as every query's connection is (`/metrics`).
    let conn = release.connection()?;
    let mut body = Body::new(1 << 20, flush);
    let reads = spec.reads();
    let mut writer = spec.writer();
    for (at, rows) in parts.iter().enumerate() {
        let mut part = writer::Part {
            whole: writer.as_mut(),
            first: at == 0,
            last: at + 1 == parts.len(),
        };
        let reads = (reads.clone(), &mut part as &mut dyn Writer);
        write_rows((release, &conn), rows, None, reads, &mut body)?;
    }
    Ok(body.buf)
}
