//! The national download files, one description for the loader, which writes them as it loads
//! a release, and for the server, which serves them (and writes any it lacks): their names and
//! where they are kept (this file), their columns (`file_layout.rs`), their row order by place
//! (`order.rs`), the CSV text (`csv.rs`), the zip (`zip.rs`) and the (Geo)Parquet writer
//! (`parquet/`). One writer for both, so that a file is the same bytes whichever program
//! wrote it.

pub mod csv;
mod error;
pub mod file_layout;
pub mod order;
pub mod parquet;
pub mod zip;

use sha2::{Digest, Sha256};

use roadtraffic_catalog::DATASETS;

pub use error::DownloadError;
pub use file_layout::{AreaNames, Cell, CellValue, FileLayout, Quoting};

/// Changes whenever some download is written differently: files kept by another version are
/// then written again rather than served.
pub const FILES_VERSION: &str = "1";

/// The folder of a release's stored downloads under the downloads root, by the release's id
/// ([`release_id`]): the same for every copy of one load, with the files' version.
pub fn release_folder(release_id: &str) -> String {
    let short = release_id.get(..16).unwrap_or(release_id);
    format!("{short}-v{FILES_VERSION}")
}

/// A release's id: the SHA-256 of its file's metadata, as `key<TAB>value<LF>` lines in key
/// order (`sqlite3 -separator "$(printf '\t')" FILE "SELECT key, value FROM metadata ORDER BY
/// key" | sha256sum` gives the same).
pub fn release_id<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut id = Sha256::new();
    for (key, value) in entries {
        id.update(format!("{key}\t{value}\n"));
    }
    format!("{:x}", id.finalize())
}

/// The id of the release in the SQLite file `conn` has open ([`release_id`]).
pub fn release_id_of(conn: &rusqlite::Connection) -> rusqlite::Result<String> {
    let mut stmt = conn.prepare("SELECT key, value FROM metadata ORDER BY key")?;
    let entries = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    let entries: Vec<(String, String)> = entries.collect::<rusqlite::Result<_>>()?;
    Ok(release_id(
        entries.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    ))
}

/// The whole-table files of every dataset: its national file's paths under `/downloads/`, as
/// Parquet, CSV and zip (Parquet first: what query engines ask for with ranges).
pub fn national_paths() -> impl Iterator<Item = String> {
    let stems = DATASETS.iter().filter_map(|d| {
        let name = d.national_file()?.name;
        name.strip_suffix(".csv")
    });
    stems.flat_map(|stem| [".parquet", ".csv", ".zip"].map(|suffix| format!("{stem}{suffix}")))
}

/// The path under `/downloads/` of a dataset's national file as Parquet, if it has one.
pub fn national_parquet(d: &roadtraffic_catalog::Dataset) -> Option<String> {
    let stem = d.national_file()?.name.strip_suffix(".csv")?;
    Some(format!("{stem}.parquet"))
}

/// The columns a whole table's Parquet file is sorted by when its records have no places,
/// those of them the dataset has (then by id): a filter on the year, or on an area, then skips
/// most row groups by their statistics. Records with places go by place (`order`).
pub const PARQUET_SORT: [&str; 2] = ["year", "local_authority_id"];

/// The columns of [`PARQUET_SORT`] a dataset stores, and their positions in `layout`: what a
/// whole table's Parquet file of records without places is sorted by, and declares.
pub fn parquet_sort(
    d: &roadtraffic_catalog::Dataset,
    layout: &FileLayout,
) -> (Vec<&'static roadtraffic_catalog::Column>, Vec<usize>) {
    let sort: Vec<_> = (PARQUET_SORT.iter())
        .filter_map(|c| d.column(c).filter(|c| c.stored))
        .collect();
    let position = |name: &str| {
        let mut columns = layout.columns.iter();
        columns.position(|l| l.is_some_and(|l| l.name == name))
    };
    let sorted_by = sort.iter().filter_map(|c| position(c.name)).collect();
    (sort, sorted_by)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_folder_is_named_by_its_id_and_the_files_version() {
        let id = release_id([("a", "1"), ("b", "2")]);
        assert_eq!(id.len(), 64);
        assert_eq!(
            release_folder(&id),
            format!("{}-v{FILES_VERSION}", &id[..16])
        );
    }
}
