//! The formats a listing is served in, named by its path's ending, and the endpoints a
//! dataset is listed at.

use roadtraffic_catalog::places::Places;
use roadtraffic_catalog::{Dataset, DATASETS};

/// The formats a listing is served in: JSON (paged for the big tables), CSV, NDJSON, Parquet,
/// and GeoJSON for the datasets with places.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
    Ndjson,
    GeoJson,
    Parquet,
}

impl Format {
    pub const ALL: [Format; 5] = [
        Format::Json,
        Format::Csv,
        Format::Ndjson,
        Format::GeoJson,
        Format::Parquet,
    ];

    /// Whether a dataset is served in this format: GeoJSON needs places.
    pub fn serves(self, d: &'static Dataset) -> bool {
        self != Format::GeoJson || Places::of(d).is_some()
    }

    /// The path's ending: `.csv`, `.ndjson`, or nothing.
    pub fn suffix(self) -> &'static str {
        match self {
            Format::Json => "",
            Format::Csv => ".csv",
            Format::Ndjson => ".ndjson",
            Format::GeoJson => ".geojson",
            Format::Parquet => ".parquet",
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Csv => "text/csv; charset=utf-8",
            Format::Ndjson => "application/x-ndjson",
            Format::GeoJson => super::features::CONTENT_TYPE,
            // IANA's media type for Parquet (registered 2024).
            Format::Parquet => "application/vnd.apache.parquet",
        }
    }
}

/// The last segment of a listing's facets (`Endpoint::has_totals`), and of its summary (before
/// its form's ending).
pub const FACETS: &str = "facets";
pub const SUMMARY: &str = "summary";

/// A listing endpoint: a dataset at one of its paths (`alias` 0 is its own, the others the
/// public service's aliases) in one format. The route table is built of these, from the
/// catalogue, and the description and docs page are written from the table's.
#[derive(Debug, Clone, Copy)]
pub struct Endpoint {
    pub dataset: &'static Dataset,
    pub alias: usize,
    pub format: Format,
}

impl Endpoint {
    /// Every endpoint of the catalogue: each dataset's paths, each in every format.
    pub fn all() -> impl Iterator<Item = Endpoint> {
        DATASETS.iter().flat_map(|dataset| {
            (0..dataset.paths.len()).flat_map(move |alias| {
                (Format::ALL.into_iter())
                    .filter(|format| format.serves(dataset))
                    .map(move |format| Endpoint {
                        dataset,
                        alias,
                        format,
                    })
            })
        })
    }

    /// The path under the base path: `/count-points`, `/count-points.csv`.
    pub fn path(&self) -> String {
        format!("{}{}", self.dataset.paths[self.alias], self.format.suffix())
    }

    /// Whether the endpoint has revisions (`<endpoint>/revisions`): a paginated JSON listing
    /// whose records have a natural key of their own (the area lists are keyed by their id
    /// alone, which the loader assigns).
    pub fn has_revisions(&self) -> bool {
        let d = self.dataset;
        self.format == Format::Json && d.paginated && !matches!(d.natural_key, [] | ["id"])
    }

    /// Whether the endpoint has totals (`<endpoint>/facets`, `<endpoint>/summary`): a paginated
    /// JSON listing.
    pub fn has_totals(&self) -> bool {
        self.format == Format::Json && self.dataset.paginated
    }

    /// The path of the same listing at the dataset's own path: the metric label's.
    pub fn own_path(&self) -> String {
        format!("{}{}", self.dataset.paths[0], self.format.suffix())
    }
}
