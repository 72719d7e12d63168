//! The zipped CSV form (a national file's `.zip`): the CSV writer's bytes deflated into a zip
//! as they are written. The zip's sizes follow its one file in a data descriptor, so nothing
//! needs to be seeked back to, and the bytes go on as they are made.

use std::cell::RefCell;
use std::io::Write;
use std::path::Path;
use std::rc::Rc;

use super::csv::Csv;
use super::writer::{Record, Writer};
use crate::error::ApiError;
use crate::rows::Found;

/// The zip's bytes as the zip writer makes them, taken from it after each record.
#[derive(Clone, Default)]
struct Made(Rc<RefCell<Vec<u8>>>);

impl Write for Made {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Made {
    /// Moves the bytes made so far to `out`.
    fn take_into(&self, out: &mut Vec<u8>) {
        out.append(&mut self.0.borrow_mut());
    }
}

/// A CSV file of this name, zipped.
pub struct Zip {
    csv: Csv,
    name: String,
    made: Made,
    zip: Option<zip::ZipWriter<zip::write::StreamWriter<Made>>>,
    /// The CSV's bytes of one record, before they are deflated.
    line: Vec<u8>,
}

impl Zip {
    pub fn new(csv: Csv, name: String) -> Zip {
        Zip {
            csv,
            name,
            made: Made::default(),
            zip: None,
            line: Vec::with_capacity(4096),
        }
    }

    /// Deflates the CSV's bytes of `line`, and moves what the zip made of them to `out`.
    fn deflate(&mut self, out: &mut Vec<u8>) -> Result<(), ApiError> {
        let zip = self
            .zip
            .as_mut()
            .ok_or_else(|| ApiError::internal("a zip not opened"))?;
        zip.write_all(&self.line).map_err(ApiError::internal)?;
        self.line.clear();
        self.made.take_into(out);
        Ok(())
    }
}

fn zip_error(e: zip::result::ZipError) -> ApiError {
    ApiError::internal(e)
}

/// The zip of a CSV file already written (`csv`), as `name`: the same bytes as the [`Zip`]
/// form writes from the rows, without reading them again (`roadtraffic_downloads::zip`).
pub fn zip_file(csv: &Path, name: &str, out: &mut dyn Write) -> Result<(), ApiError> {
    roadtraffic_downloads::zip::zip_file(csv, name, out).map_err(ApiError::internal)
}

impl Writer for Zip {
    fn open(&mut self, out: &mut Vec<u8>, found: &Found) -> Result<(), ApiError> {
        let mut zip = zip::ZipWriter::new_stream(self.made.clone());
        zip.start_file(self.name.as_str(), roadtraffic_downloads::zip::options())
            .map_err(zip_error)?;
        self.zip = Some(zip);
        self.csv.open(&mut self.line, found)?;
        self.deflate(out)
    }

    fn record(&mut self, out: &mut Vec<u8>, record: &mut dyn Record) -> Result<(), ApiError> {
        self.csv.record(&mut self.line, record)?;
        self.deflate(out)
    }

    fn close(&mut self, out: &mut Vec<u8>, found: &Found, written: usize) -> Result<(), ApiError> {
        self.csv.close(&mut self.line, found, written)?;
        self.deflate(out)?;
        let zip = self
            .zip
            .take()
            .ok_or_else(|| ApiError::internal("a zip not opened"))?;
        zip.finish().map_err(zip_error)?;
        self.made.take_into(out);
        Ok(())
    }
}
