//! The one error of writing a download file: the program that writes it (the loader, the
//! server) says what it means at its own boundary.

/// Why a download file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    #[error("reading the rows: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("writing Parquet: {0}")]
    Parquet(String),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl DownloadError {
    pub fn parquet(e: impl std::fmt::Display) -> DownloadError {
        DownloadError::Parquet(e.to_string())
    }
}
