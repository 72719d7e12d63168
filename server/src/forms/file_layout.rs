//! The columns of a CSV or Parquet file of a dataset's rows: the shared crate's layouts
//! (`roadtraffic_downloads::file_layout`), so that the server writes what the loader writes.

pub use roadtraffic_downloads::file_layout::*;
