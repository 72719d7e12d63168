//! The load report: what every stage saw (rows per table, rows rejected, duplicates, warnings,
//! notes, sources, what was fetched, what would shrink, what changed). It sits below the
//! stages, which record into it, and knows nothing of them.
//!
//! Its data is `data`; its forms are modules of their own:
//! - `text`: the report for people (stderr), and the messages of a refused load;
//! - `json`: the report as `--report-json` writes it;
//! - `metadata`: what the new file's metadata table keeps of it;
//! - `progress`: the progress bar drawn while the rows are read.

mod data;
mod json;
mod metadata;
mod progress;
mod text;

pub use data::{
    FetchedFile, KeptReport, LoadReport, Problem, Shrunk, SourceReport, TableRows, WarningKind,
};
pub use progress::Progress;
pub use text::{bad_rows_message, listed, shrink_message};
