//! An external sort of one dataset's rows by count point, in bounded memory. Rows are encoded
//! as they come into a buffer of bytes; when it is full, its rows are written out in count point
//! order as a run (to a temporary file beside the target), and where each count point's rows
//! lie in the run is kept. Runs are never merged: a count point's rows are its pieces, one a
//! run it appears in, read one after another. Rows take their ids in the order they are read,
//! so the pieces in run order are in id order too; within a run, rows are sorted by id.
//!
//! Inputs usually come grouped by count point (DfT's files are), so a count point is in one or
//! two runs and the national file reads each in one or two reads; scattered input costs a read
//! a run per count point, never more memory.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use tempfile::NamedTempFile;

use roadtraffic_downloads::CellValue;

use crate::value::Value;

/// Bytes of encoded rows buffered before a run is written: runs this small cost a read or two
/// a count point on grouped input, and the load's memory is bounded (BENCHMARKS.md).
pub const BUFFER_BYTES: usize = 8 << 20;

/// [`BUFFER_BYTES`], or `ROADTRAFFIC_SPILL_BYTES` when set: a test's way to make a small input
/// span many runs (scattered input read back in pieces), not a setting to tune.
pub fn buffer_bytes() -> usize {
    let set = std::env::var("ROADTRAFFIC_SPILL_BYTES").ok();
    set.and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or(BUFFER_BYTES)
}

/// A count point's rows in one run: its id, and their bytes' start and length in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub count_point: i64,
    pub start: u64,
    pub len: u64,
}

/// One dataset's rows being sorted.
pub struct Spill {
    width: usize,
    count_point_at: usize,
    id_at: usize,
    budget: usize,
    /// The rows of the run being gathered, encoded, and each one's (count point, id, start, end).
    buffer: Vec<u8>,
    keys: Vec<(i64, i64, usize, usize)>,
    runs: BufWriter<NamedTempFile>,
    at: u64,
    segments: Vec<Segment>,
    /// Rows with no count point: not in the file, as the server leaves them out.
    pub placeless: u64,
}

/// The rows sorted: the runs' file, and each count point's pieces in it.
pub struct Sorted {
    file: NamedTempFile,
    /// By count point, then by place in the file (so in id order).
    segments: Vec<Segment>,
    /// Each count point, and its pieces' range in `segments`.
    pub count_points: Vec<(i64, std::ops::Range<usize>)>,
    pub width: usize,
}

impl Spill {
    pub fn new(
        dir: &Path,
        width: usize,
        count_point_at: usize,
        id_at: usize,
        budget: usize,
    ) -> std::io::Result<Spill> {
        let runs = NamedTempFile::new_in(dir)?;
        Ok(Spill {
            width,
            count_point_at,
            id_at,
            budget,
            // Made once at its full size: a buffer doubling as it fills would hold its old
            // half and the new one at once.
            buffer: Vec::with_capacity(budget + (64 << 10)),
            keys: Vec::new(),
            runs: BufWriter::with_capacity(1 << 20, runs),
            at: 0,
            segments: Vec::new(),
            placeless: 0,
        })
    }

    /// Takes rows (`width` values each), writing a run when the buffer is full.
    pub fn add(&mut self, values: &[Value]) -> std::io::Result<()> {
        for row in values.chunks_exact(self.width) {
            let Some(count_point) = row[self.count_point_at].as_int() else {
                self.placeless += 1;
                continue;
            };
            let id = row[self.id_at].as_int().unwrap_or(i64::MIN);
            let start = self.buffer.len();
            encode_row(&mut self.buffer, row);
            self.keys.push((count_point, id, start, self.buffer.len()));
            if self.buffer.len() >= self.budget {
                self.write_run()?;
            }
        }
        Ok(())
    }

    /// Writes the buffered rows out as a run, by count point then id.
    fn write_run(&mut self) -> std::io::Result<()> {
        self.keys.sort_unstable();
        let mut open: Option<Segment> = None;
        for &(count_point, _, start, end) in &self.keys {
            self.runs.write_all(&self.buffer[start..end])?;
            let len = (end - start) as u64;
            match &mut open {
                Some(s) if s.count_point == count_point => s.len += len,
                _ => {
                    self.segments.extend(open.take());
                    let start = self.at;
                    open = Some(Segment {
                        count_point,
                        start,
                        len,
                    });
                }
            }
            self.at += len;
        }
        self.segments.extend(open);
        self.buffer.clear();
        self.keys.clear();
        Ok(())
    }

    /// The bytes of rows taken so far.
    pub fn bytes(&self) -> u64 {
        self.at + self.buffer.len() as u64
    }

    /// Every row is in: the last run written, and the buffer's memory given back.
    pub fn release(&mut self) -> std::io::Result<()> {
        self.write_run()?;
        self.buffer = Vec::new();
        self.keys = Vec::new();
        Ok(())
    }

    /// Every row, sorted.
    pub fn finish(mut self) -> std::io::Result<Sorted> {
        self.release()?;
        let file = self.runs.into_inner().map_err(|e| e.into_error())?;
        let mut segments = self.segments;
        // Stable, and runs follow one another in the file: a count point's pieces stay in
        // the order their rows were read.
        segments.sort_by_key(|s| (s.count_point, s.start));
        let mut count_points: Vec<(i64, std::ops::Range<usize>)> = Vec::new();
        for (i, s) in segments.iter().enumerate() {
            match count_points.last_mut() {
                Some((cp, range)) if *cp == s.count_point => range.end = i + 1,
                _ => count_points.push((s.count_point, i..i + 1)),
            }
        }
        Ok(Sorted {
            file,
            segments,
            count_points,
            width: self.width,
        })
    }
}

impl Sorted {
    /// The rows of the `n`th count point, in id order, into `bytes` (emptied first): decode
    /// them with [`cells`].
    pub fn read(&self, n: usize, bytes: &mut Vec<u8>) -> std::io::Result<()> {
        bytes.clear();
        let file: &File = self.file.as_file();
        for s in &self.segments[self.count_points[n].1.clone()] {
            let start = bytes.len();
            bytes.resize(start + s.len as usize, 0);
            file.read_exact_at(&mut bytes[start..], s.start)?;
        }
        Ok(())
    }
}

/// The values of rows read by [`Sorted::read`], `width` a row, onto `cells` (emptied first):
/// borrowed from the bytes, as the Parquet encoder takes them.
pub fn cells<'a>(
    mut input: &'a [u8],
    width: usize,
    cells: &mut Vec<CellValue<'a>>,
) -> std::io::Result<()> {
    cells.clear();
    while !input.is_empty() {
        for _ in 0..width {
            cells.push(decode(&mut input)?);
        }
    }
    Ok(())
}

/// A row's values, each a tag and its bytes: 0 null, 1 an integer (zigzag LEB128), 2 a
/// double (8 bytes, little endian), 3 text (its length in LEB128, then the bytes).
fn encode_row(out: &mut Vec<u8>, row: &[Value]) {
    for value in row {
        match value {
            Value::Null => out.push(0),
            Value::Int(i) => {
                out.push(1);
                put_varint(out, ((i << 1) ^ (i >> 63)) as u64);
            }
            Value::Real(f) => {
                out.push(2);
                out.extend_from_slice(&f.to_le_bytes());
            }
            Value::Text(t) => {
                out.push(3);
                put_varint(out, t.len() as u64);
                out.extend_from_slice(t.as_bytes());
            }
        }
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn corrupt() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, "a sorted run cut short")
}

fn take<'a>(input: &mut &'a [u8], n: usize) -> std::io::Result<&'a [u8]> {
    if input.len() < n {
        return Err(corrupt());
    }
    let (head, rest) = input.split_at(n);
    *input = rest;
    Ok(head)
}

fn get_varint(input: &mut &[u8]) -> std::io::Result<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = take(input, 1)?[0];
        v |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Ok(v);
        }
    }
    Err(corrupt())
}

/// The next value.
fn decode<'a>(input: &mut &'a [u8]) -> std::io::Result<CellValue<'a>> {
    Ok(match take(input, 1)?[0] {
        0 => CellValue::Null,
        1 => {
            let z = get_varint(input)?;
            CellValue::Integer(((z >> 1) as i64) ^ -((z & 1) as i64))
        }
        2 => {
            let eight: [u8; 8] = take(input, 8)?.try_into().map_err(|_| corrupt())?;
            CellValue::Real(f64::from_le_bytes(eight))
        }
        _ => {
            let len = get_varint(input)? as usize;
            CellValue::Text(take(input, len)?)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of (count point, id, text) in a scrambled order, sorted through runs of a few rows
    /// each, come out by count point then id.
    #[test]
    fn runs_give_every_row_by_count_point_then_id() {
        let dir = tempfile::tempdir().unwrap();
        let mut spill = Spill::new(dir.path(), 3, 0, 1, 60).unwrap();
        let mut want = Vec::new();
        for id in 0..100i64 {
            let count_point = (id * 37) % 11 - 5;
            let text = Value::Text(format!("row {id}").into());
            spill
                .add(&[Value::Int(count_point), Value::Int(id), text])
                .unwrap();
            want.push((count_point, id));
        }
        spill
            .add(&[Value::Null, Value::Int(1000), Value::Null])
            .unwrap();
        assert_eq!(spill.placeless, 1);
        want.sort();
        let sorted = spill.finish().unwrap();
        assert_eq!(sorted.count_points.len(), 11);
        let (mut bytes, mut got) = (Vec::new(), Vec::new());
        for (n, (count_point, _)) in sorted.count_points.iter().enumerate() {
            sorted.read(n, &mut bytes).unwrap();
            let mut rows = Vec::new();
            cells(&bytes, 3, &mut rows).unwrap();
            for row in rows.chunks_exact(3) {
                let [CellValue::Integer(cp), CellValue::Integer(id), CellValue::Text(text)] = row
                else {
                    panic!("{row:?}");
                };
                assert_eq!(cp, count_point);
                assert_eq!(*text, format!("row {id}").as_bytes());
                got.push((*count_point, *id));
            }
        }
        assert_eq!(got, want);
    }

    /// Every kind of value comes back as it went in, extreme integers included.
    #[test]
    fn values_round_trip() {
        let row = [
            Value::Int(i64::MIN),
            Value::Int(i64::MAX),
            Value::Int(-1),
            Value::Int(0),
            Value::Real(-0.5),
            Value::Null,
            Value::Text("é".repeat(100).into()),
        ];
        let mut bytes = Vec::new();
        encode_row(&mut bytes, &row);
        let mut back = Vec::new();
        cells(&bytes, row.len(), &mut back).unwrap();
        let back = format!("{back:?}");
        let want = "[Integer(-9223372036854775808), Integer(9223372036854775807), Integer(-1), \
                    Integer(0), Real(-0.5), Null, Text(";
        assert!(back.starts_with(want), "{back}");
        assert!(cells(&bytes[..bytes.len() - 1], row.len(), &mut Vec::new()).is_err());
    }
}
