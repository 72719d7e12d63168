//! Why a run fails: the file or the option at fault.

use std::path::{Path, PathBuf};

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("seed file {path}: {source}")]
    SeedJson {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("seed file {path}: {msg}")]
    Seed { path: PathBuf, msg: String },
    #[error("invalid option: {0}")]
    Option(String),
    #[error("worker thread panicked")]
    Panic,
}

/// Maps an I/O error to one that names the file it happened on.
pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> SynthError + '_ {
    move |source| SynthError::Io {
        path: path.to_path_buf(),
        source,
    }
}
