//! The CSV form: a header line, then a line of cells per record (a download's layout, a
//! listing's fields, a summary's columns), each cell as the layout quotes it: the text of
//! the shared crate (`roadtraffic_downloads::csv`), which the loader writes national files with.

use roadtraffic_downloads::csv as csv_text;

use super::file_layout::Quoting;
use super::writer::{Record, Writer};
use crate::error::ApiError;
use crate::rows::Found;

/// Records as CSV lines under `headers`.
pub struct Csv {
    headers: Vec<String>,
    quoting: Quoting,
}

impl Csv {
    pub fn new(headers: Vec<String>, quoting: Quoting) -> Csv {
        Csv { headers, quoting }
    }
}

impl Writer for Csv {
    fn open(&mut self, out: &mut Vec<u8>, _: &Found) -> Result<(), ApiError> {
        csv_text::header(out, &self.headers, self.quoting);
        Ok(())
    }

    fn record(&mut self, out: &mut Vec<u8>, record: &mut dyn Record) -> Result<(), ApiError> {
        let mut first = true;
        record.cells(&mut |value| {
            if !first {
                out.push(b',');
            }
            first = false;
            csv_text::cell(out, value, self.quoting);
            Ok(())
        })?;
        out.push(b'\n');
        Ok(())
    }

    fn close(&mut self, _: &mut Vec<u8>, _: &Found, _: usize) -> Result<(), ApiError> {
        Ok(())
    }
}
