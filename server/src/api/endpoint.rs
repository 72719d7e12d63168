//! The endpoints a dataset is listed at: each of its paths in each form a listing is served in.

use roadtraffic_catalog::places::Places;
use roadtraffic_catalog::{Dataset, DATASETS};

use crate::forms::Form;

/// The forms a listing is served in: JSON (paged for the big tables), CSV, NDJSON, GeoJSON for
/// the datasets with places, Parquet; each at its path with the form's suffix.
pub const LISTING_FORMS: [Form; 5] = [
    Form::Json,
    Form::Csv,
    Form::Ndjson,
    Form::GeoJson,
    Form::Parquet,
];

/// Whether a dataset is listed in this form: GeoJSON needs places.
fn serves(form: Form, d: &'static Dataset) -> bool {
    form != Form::GeoJson || Places::of(d).is_some()
}

/// The last segment of a listing's facets (`Endpoint::has_totals`), and of its summary (before
/// its form's ending).
pub const FACETS: &str = "facets";
pub const SUMMARY: &str = "summary";

/// The forms of a summary, each at `summary` with the form's suffix.
pub const SUMMARY_FORMS: [Form; 3] = [Form::Json, Form::Csv, Form::Ndjson];

/// A listing endpoint: a dataset at one of its paths (`alias` 0 is its own, the others the
/// public service's aliases) in one form. The route table is built of these, from the
/// catalogue, and the description and docs page are written from the table's.
#[derive(Debug, Clone, Copy)]
pub struct Endpoint {
    pub dataset: &'static Dataset,
    pub alias: usize,
    pub format: Form,
}

impl Endpoint {
    /// Every endpoint of the catalogue: each dataset's paths, each in every form it is listed in.
    pub fn all() -> impl Iterator<Item = Endpoint> {
        DATASETS.iter().flat_map(|dataset| {
            (0..dataset.paths.len()).flat_map(move |alias| {
                (LISTING_FORMS.into_iter())
                    .filter(|format| serves(*format, dataset))
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
        self.format == Form::Json && d.paginated && !matches!(d.natural_key, [] | ["id"])
    }

    /// Whether the endpoint has totals (`<endpoint>/facets`, `<endpoint>/summary`): a paginated
    /// JSON listing.
    pub fn has_totals(&self) -> bool {
        self.format == Form::Json && self.dataset.paginated
    }

    /// Whether its JSON page may be asked as GeoJSON by `Accept`: a paginated JSON listing of
    /// a dataset with places.
    pub fn pages_as_features(&self) -> bool {
        self.format == Form::Json && self.dataset.paginated && Places::of(self.dataset).is_some()
    }

    /// The path of the same listing at the dataset's own path: the metric label's.
    pub fn own_path(&self) -> String {
        format!("{}{}", self.dataset.paths[0], self.format.suffix())
    }
}
