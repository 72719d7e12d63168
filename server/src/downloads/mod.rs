//! Downloads: each dataset whole as DfT publishes it (its national file, plain or zipped, and
//! its per-area split files at DfT's paths), each of them also as Parquet, and any listing of
//! the API whole as CSV, NDJSON, GeoJSON or Parquet. The files are written once per release
//! and kept (`store`), so that they are served with a length and byte ranges; the listings
//! are streamed from SQLite. The paths and layouts come from the catalogue's national files.

mod order;
mod page;
pub mod store;

pub use page::page;

use roadtraffic_catalog::places::Places;
use roadtraffic_catalog::{Dataset, NationalFile, Splits, DATASETS};
use rusqlite::types::Value as SqlValue;

use std::io::Write;
use std::sync::Arc;

use crate::configuration::Config;
use crate::error::ApiError;
use crate::forms::{self, FileLayout, Form, Spec};
use crate::release::Release;
use crate::rows::{Condition, Rows};
use store::{Store, Stored};

/// A download the path names: its rows, and what writes them.
pub struct Download {
    pub rows: Rows,
    pub spec: Spec,
    /// The area it is of, to check it exists (a split file): its table and id.
    pub area: Option<(&'static str, i64)>,
    /// Whether its rows go by place (`order`): a Parquet file of records with places.
    pub by_place: bool,
}

/// The download at this path under `/downloads/`, if there is one.
pub fn resolve(path: &str) -> Option<Download> {
    match path.split('/').collect::<Vec<_>>().as_slice() {
        [file] => national(file),
        [folder, by, file] => split(folder, by, file),
        _ => None,
    }
}

pub use roadtraffic_downloads::national_paths;

fn national(file: &str) -> Option<Download> {
    DATASETS.iter().find_map(|d| {
        let national = d.national_file()?;
        let names = std::iter::once(national.name).chain(national.aliases.iter().copied());
        names.into_iter().find_map(|name| {
            let stem = name.strip_suffix(".csv")?;
            let layout = FileLayout::national(d, national);
            let by_place = Places::of(d).is_some();
            let (spec, sort) = match file.strip_prefix(stem)? {
                ".csv" => (Spec::Csv(layout), Vec::new()),
                ".zip" => (Spec::Zip(layout, name.to_string()), Vec::new()),
                ".parquet" if by_place => (Spec::Parquet(layout, Vec::new()), Vec::new()),
                ".parquet" => sorted_parquet(d, layout),
                _ => return None,
            };
            Some(Download {
                by_place: by_place && matches!(spec, Spec::Parquet(..)),
                rows: Rows::all(d, Vec::new(), sort),
                spec,
                area: None,
            })
        })
    })
}

/// A whole table as Parquet, and its rows' sort: by [`roadtraffic_downloads::PARQUET_SORT`],
/// which the file declares by the positions of those columns in its layout.
fn sorted_parquet(d: &'static Dataset, layout: FileLayout) -> (Spec, Sort) {
    let (sort, sorted_by) = roadtraffic_downloads::parquet_sort(d, &layout);
    let sort = sort.into_iter().map(|c| (c, false)).collect();
    (Spec::Parquet(layout, sorted_by), sort)
}

/// Columns to sort by, each with whether it is descending.
type Sort = Vec<(&'static roadtraffic_catalog::Column, bool)>;

/// The path of a dataset's split file of the records whose `by` column is `id`, if the
/// dataset is published split that way: `/downloads/{folder}/{by}/{stem}_{by}_{id}.csv`.
pub fn split_path(d: &Dataset, by: &str, id: i64) -> Option<String> {
    let splits = d.national_file()?.splits?;
    splits.by.contains(&by).then(|| {
        format!(
            "/downloads/{}/{by}/{}_{by}_{id}.csv",
            splits.folder, splits.stem
        )
    })
}

fn split(folder: &str, by: &str, file: &str) -> Option<Download> {
    let (d, national, splits): (&'static Dataset, &NationalFile, Splits) =
        DATASETS.iter().find_map(|d| {
            let national = d.national_file()?;
            let splits = national.splits.filter(|s| s.folder == folder)?;
            Some((*d, national, splits))
        })?;
    let by = *splits.by.iter().find(|b| **b == by)?;
    let rest = file.strip_prefix(&format!("{}_{by}_", splits.stem))?;
    let (id, parquet) = match rest.strip_suffix(".parquet") {
        Some(id) => (id, true),
        None => (rest.strip_suffix(".csv")?, false),
    };
    // Digits only: the path names a file of the store, and one id has one name.
    if id.is_empty()
        || id.len() > 18
        || !id.bytes().all(|b| b.is_ascii_digit())
        || (id.starts_with('0') && id != "0")
    {
        return None;
    }
    let id: i64 = id.parse().ok()?;
    let column = d.column(by)?;
    let sort = match splits.ids_descending {
        true => d.column("id").map(|c| vec![(c, true)]).unwrap_or_default(),
        false => Vec::new(),
    };
    let layout = FileLayout::split(d, national, &splits);
    Some(Download {
        rows: Rows::matching(d, (column, id), sort),
        spec: match parquet {
            true => Spec::Parquet(layout, Vec::new()),
            false => Spec::Csv(layout),
        },
        area: Some((roadtraffic_catalog::identified_by(by)?.table, id)),
        by_place: parquet && Places::of(d).is_some(),
    })
}

/// The form of the file at `key` (a path under `/downloads/`), by its ending: CSV, zip or
/// Parquet.
pub fn form_of(key: &str) -> Form {
    let suffix = key.rfind('.').map_or("", |at| &key[at..]);
    match Form::of_suffix(suffix) {
        Some(form @ (Form::Parquet | Form::Zip)) => form,
        _ => Form::Csv,
    }
}

/// The stored file of a download of `release` at `key` (its path under `/downloads/`),
/// written now if it is not yet.
pub async fn stored(
    store: &Store,
    release: Arc<Release>,
    key: &str,
    download: Download,
) -> Result<Stored, ApiError> {
    let heavy = download.area.is_none();
    if let Some(build) = zipped_from_csv(store, key, &download.spec) {
        return store.get(key, heavy, build).await;
    }
    let build: store::Build = Box::new(move |out: &mut dyn Write| {
        let mut flush = |chunk: Vec<u8>| out.write_all(&chunk).map_err(ApiError::internal);
        let parts = match download.by_place {
            true => by_place(&release, &download.rows)?,
            false => vec![download.rows],
        };
        let rest = forms::write_whole_parts(&release, &parts, download.spec, &mut flush)?;
        out.write_all(&rest).map_err(ApiError::internal)
    });
    store.get(key, heavy, build).await
}

/// A zip whose CSV is already written (as it is when the national files are written ahead:
/// Parquet, CSV, then zip): that file deflated, instead of the table read again.
fn zipped_from_csv(store: &Store, key: &str, spec: &Spec) -> Option<store::Build> {
    let Spec::Zip(_, name) = spec else {
        return None;
    };
    let csv = store.ready(&format!("{}.csv", key.strip_suffix(".zip")?))?;
    let name = name.clone();
    Some(Box::new(move |out: &mut dyn Write| {
        forms::zip_file(&csv.path, &name, out)
    }))
}

/// The rows of a download in parts whose rows go by place (`order`): the rows of the
/// release's count points in curve order, a few hundred at a time.
fn by_place(release: &Release, rows: &Rows) -> Result<Vec<Rows>, ApiError> {
    // A split file's rows: those of one id of a column.
    let within = match rows.conditions.as_slice() {
        [Condition::In(column, ids)] => match ids.as_slice() {
            [SqlValue::Integer(id)] => Some((*column, *id)),
            _ => None,
        },
        _ => None,
    };
    let conn = release.pool.get()?;
    let count_points = order::count_points(&conn, rows.dataset, within)?;
    Ok(order::parts(rows.dataset, &rows.conditions, &count_points))
}

/// The store of `release`'s downloads, in `--downloads-dir` (or, if that folder cannot be
/// made, in the system's temporary folder), kept with the release.
pub fn store_of(release: &Release, config: &Config) -> Arc<Store> {
    let made = release.kept.get_or_make(|| {
        let mut root = config.downloads_dir();
        if let Err(e) = std::fs::create_dir_all(&root) {
            let fallback = std::env::temp_dir().join("roadtraffic-downloads");
            log::warn!(
                "{}: {e}; downloads kept in {}",
                root.display(),
                fallback.display()
            );
            root = fallback;
        }
        Ok::<_, std::convert::Infallible>(Store::new(&root, release))
    });
    made.unwrap_or_else(|never| match never {})
}

/// Writes every national file of `release` not yet in its store, one after another, Parquet
/// first: query engines send a `HEAD` and then ranges, and would otherwise wait for the file
/// to be written (seconds to a minute on the national tables). Stops when `current` says the
/// release is no longer the one served.
pub async fn warm(store: Arc<Store>, release: Arc<Release>, current: impl Fn() -> bool) {
    for key in national_paths() {
        if !current() {
            return;
        }
        let Some(download) = resolve(&key) else {
            continue;
        };
        if let Err(e) = stored(&store, release.clone(), &key, download).await {
            log::warn!("download {key} not written ahead: {e:?}");
        }
    }
}
