//! The Parquet form: the shared crate's (Geo)Parquet encoder (`roadtraffic_downloads::parquet`)
//! as one of the forms' writers, its errors the server's.

// The area sets' Parquet writes its geometry with the same columns (`GeoColumns`) and mends
// its footer the same way.
use roadtraffic_downloads::parquet::Encoder;
pub use roadtraffic_downloads::parquet::{footer, geoparquet};
use roadtraffic_downloads::DownloadError;

use super::file_layout::FileLayout;
use super::writer::{Record, Writer};
use crate::error::ApiError;
use crate::rows::Found;

/// Records as one Parquet file of the layout's columns (their cells), the rows sorted by the
/// cells at `sorted_by`, if any.
pub struct Parquet {
    layout: FileLayout,
    sorted_by: Vec<usize>,
    encoding: Option<Encoder>,
}

impl Parquet {
    pub fn new(layout: FileLayout, sorted_by: Vec<usize>) -> Parquet {
        Parquet {
            layout,
            sorted_by,
            encoding: None,
        }
    }

    fn encoding(&mut self) -> Result<&mut Encoder, ApiError> {
        let encoding = self.encoding.as_mut();
        encoding.ok_or_else(|| ApiError::internal("a Parquet file not opened"))
    }
}

fn internal(e: DownloadError) -> ApiError {
    ApiError::internal(e)
}

impl Writer for Parquet {
    fn open(&mut self, _: &mut Vec<u8>, _: &Found) -> Result<(), ApiError> {
        let encoder = Encoder::open(&self.layout, &self.sorted_by).map_err(internal)?;
        self.encoding = Some(encoder);
        Ok(())
    }

    fn record(&mut self, out: &mut Vec<u8>, record: &mut dyn Record) -> Result<(), ApiError> {
        let encoding = self.encoding()?;
        record.cells(&mut |value| encoding.push(value).map_err(internal))?;
        encoding.end_row(out).map_err(internal)
    }

    fn close(&mut self, out: &mut Vec<u8>, _: &Found, _: usize) -> Result<(), ApiError> {
        self.encoding()?.close(out).map_err(internal)
    }
}
