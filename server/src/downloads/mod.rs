//! Downloads: each dataset whole as DfT publishes it (its national file, plain or zipped, and
//! its per-area split files at DfT's paths), and any listing of the API whole as CSV or NDJSON,
//! streamed from SQLite. The paths and layouts come from the catalogue's national files.

pub mod layout;
mod page;
mod write;

pub use page::page;
pub use write::{export, Export};

use roadtraffic_catalog::{Dataset, NationalFile, Splits, DATASETS};

use crate::api::ListRequest;
use layout::Layout;

/// A download the path names, with the request that finds its rows.
pub struct Download {
    pub request: ListRequest,
    pub export: Export,
    /// The file's name, as the client should save it.
    pub name: String,
    /// The area it is of, to check it exists (a split file): its table and id.
    pub area: Option<(&'static str, i64)>,
}

/// The download at this path under `/downloads/`, if there is one.
pub fn resolve(path: &str) -> Option<Download> {
    match path.split('/').collect::<Vec<_>>().as_slice() {
        [file] => national(file),
        [folder, by, file] => split(folder, by, file),
        _ => None,
    }
}

fn national(file: &str) -> Option<Download> {
    DATASETS.iter().find_map(|d| {
        let national = d.national_file()?;
        let names = std::iter::once(national.name).chain(national.aliases.iter().copied());
        names.into_iter().find_map(|name| {
            let stem = name.strip_suffix(".csv")?;
            let zipped = match file.strip_prefix(stem)? {
                ".csv" => false,
                ".zip" => true,
                _ => return None,
            };
            let layout = Layout::national(d, national);
            let export = match zipped {
                true => Export::Zip(layout, name.to_string()),
                false => Export::Csv(layout),
            };
            Some(Download {
                request: ListRequest::everything(d),
                export,
                name: file.to_string(),
                area: None,
            })
        })
    })
}

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
    let id: i64 = file
        .strip_prefix(&format!("{}_{by}_", splits.stem))?
        .strip_suffix(".csv")?
        .parse()
        .ok()?;
    let column = d.column(by)?;
    let mut request = ListRequest::matching(d, column, id);
    if splits.ids_descending {
        request.sort = d.column("id").map(|c| vec![(c, true)]).unwrap_or_default();
    }
    Some(Download {
        request,
        export: Export::Csv(Layout::split(d, national, &splits)),
        name: file.to_string(),
        area: Some((roadtraffic_catalog::identified_by(by)?.table, id)),
    })
}
