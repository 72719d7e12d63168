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

/// How the one file of every zip is stored: deflated at the fastest level (a national zip is
/// written while the release is served), and as zip64 (the raw counts' CSV passes 4 GiB in
/// time). No timestamp is given: the zip's bytes are the CSV's alone.
fn options() -> zip::write::SimpleFileOptions {
    zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1))
        .large_file(true)
}

/// The zip of a CSV file already written (`csv`), as `name`: the same bytes as the [`Zip`]
/// form writes from the rows, without reading them again. The deflater's output depends on
/// how its input is cut, so the file goes in as the form gives it: a line per record (a
/// line end inside quotes is inside a record).
pub fn zip_file(csv: &Path, name: &str, out: &mut dyn Write) -> Result<(), ApiError> {
    let mut zip = zip::ZipWriter::new_stream(out);
    zip.start_file(name, options()).map_err(zip_error)?;
    let file = std::fs::File::open(csv).map_err(ApiError::internal)?;
    let mut lines = std::io::BufReader::with_capacity(1 << 20, file);
    let (mut record, mut quoted) = (Vec::with_capacity(4096), false);
    loop {
        let start = record.len();
        let read = std::io::BufRead::read_until(&mut lines, b'\n', &mut record);
        if read.map_err(ApiError::internal)? == 0 {
            break;
        }
        // A doubled quote inside quotes turns the state twice.
        let quotes = record[start..].iter().filter(|&&b| b == b'"').count();
        quoted ^= quotes % 2 == 1;
        if !quoted {
            zip.write_all(&record).map_err(ApiError::internal)?;
            record.clear();
        }
    }
    zip.write_all(&record).map_err(ApiError::internal)?;
    zip.finish().map_err(zip_error)?;
    Ok(())
}

impl Writer for Zip {
    fn open(&mut self, out: &mut Vec<u8>, found: &Found) -> Result<(), ApiError> {
        let mut zip = zip::ZipWriter::new_stream(self.made.clone());
        zip.start_file(self.name.as_str(), options())
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
