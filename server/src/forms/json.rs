//! The JSON forms of a list of records: a JSON array (`[` record `,` record `]`: an unpaginated
//! listing, a summary) and NDJSON (a record a line: a listing's `.ndjson`, a summary's).

use super::writer::{Record, Writer};
use crate::error::ApiError;
use crate::rows::Found;

/// The commas between the items of a JSON array: none before the first.
#[derive(Default)]
pub struct Commas {
    written: usize,
}

impl Commas {
    /// Writes the comma the next item needs, if any.
    pub fn before_next(&mut self, out: &mut Vec<u8>) {
        if self.written > 0 {
            out.push(b',');
        }
        self.written += 1;
    }
}

/// Records as a JSON array.
#[derive(Default)]
pub struct JsonArray {
    commas: Commas,
}

impl Writer for JsonArray {
    fn open(&mut self, out: &mut Vec<u8>, _: &Found) -> Result<(), ApiError> {
        out.push(b'[');
        Ok(())
    }

    fn record(&mut self, out: &mut Vec<u8>, record: &mut dyn Record) -> Result<(), ApiError> {
        self.commas.before_next(out);
        record.json(out)
    }

    fn close(&mut self, out: &mut Vec<u8>, _: &Found, _: usize) -> Result<(), ApiError> {
        out.push(b']');
        Ok(())
    }
}

/// Records as NDJSON: a JSON object a line.
pub struct Ndjson;

impl Writer for Ndjson {
    fn open(&mut self, _: &mut Vec<u8>, _: &Found) -> Result<(), ApiError> {
        Ok(())
    }

    fn record(&mut self, out: &mut Vec<u8>, record: &mut dyn Record) -> Result<(), ApiError> {
        record.json(out)?;
        out.push(b'\n');
        Ok(())
    }

    fn close(&mut self, _: &mut Vec<u8>, _: &Found, _: usize) -> Result<(), ApiError> {
        Ok(())
    }
}
