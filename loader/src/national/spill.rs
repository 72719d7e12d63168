//! An external sort of one dataset's rows by count point, then id, in bounded memory: rows
//! gather in a buffer, which is sorted and written out as a run when full (to a temporary file
//! beside the target); at the end the runs are merged into one sorted file, with where each
//! count point's rows start and end in it. The national file then reads the count points in
//! curve order (known only once every place is in), each one's rows a single read.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use compact_str::CompactString;
use tempfile::NamedTempFile;

use crate::value::Value;

/// Values buffered before a run is written: about 48 MB of rows (a value is 32 bytes).
pub const BUFFER_VALUES: usize = 1_500_000;

/// A count point's rows in the sorted file: its id, and their bytes' start and length.
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
    buffer: Vec<Value>,
    runs: NamedTempFile,
    /// Each run's bytes in `runs`, and its count points' segments.
    written: Vec<(u64, u64, Vec<Segment>)>,
    /// Rows with no count point: not in the file, as the server leaves them out.
    pub placeless: u64,
}

/// The rows sorted: a file and where each count point's rows are in it, by count point.
pub struct Sorted {
    pub file: NamedTempFile,
    pub segments: Vec<Segment>,
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
        Ok(Spill {
            width,
            count_point_at,
            id_at,
            budget,
            buffer: Vec::new(),
            runs: NamedTempFile::new_in(dir)?,
            written: Vec::new(),
            placeless: 0,
        })
    }

    /// Takes rows (`width` values each), writing a run when the buffer is full.
    pub fn add(&mut self, values: &[Value]) -> std::io::Result<()> {
        for row in values.chunks_exact(self.width) {
            if row[self.count_point_at].as_int().is_none() {
                self.placeless += 1;
                continue;
            }
            self.buffer.extend_from_slice(row);
            if self.buffer.len() >= self.budget {
                self.write_run()?;
            }
        }
        Ok(())
    }

    fn key(&self, row: &[Value]) -> (i64, i64) {
        let int = |at: usize| row[at].as_int().unwrap_or(i64::MIN);
        (int(self.count_point_at), int(self.id_at))
    }

    /// Sorts the buffer and appends it to the runs' file.
    fn write_run(&mut self) -> std::io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let rows: Vec<&[Value]> = self.buffer.chunks_exact(self.width).collect();
        let mut order: Vec<((i64, i64), usize)> = (rows.iter().enumerate())
            .map(|(i, r)| (self.key(r), i))
            .collect();
        order.sort_unstable();
        let file = self.runs.as_file_mut();
        let start = file.seek(SeekFrom::End(0))?;
        let mut out = Counting::new(BufWriter::with_capacity(1 << 20, file), start);
        let mut segments = Segments::default();
        for (key, i) in order {
            segments.row(key.0, out.at);
            encode_row(&mut out, rows[i])?;
        }
        let end = out.at;
        out.inner.flush()?;
        self.written.push((start, end, segments.end(end)));
        self.buffer.clear();
        Ok(())
    }

    /// Every row, sorted: the one run as it is, or the runs merged into a file of their own.
    pub fn finish(mut self, dir: &Path) -> std::io::Result<Sorted> {
        self.write_run()?;
        self.buffer = Vec::new();
        if self.written.len() <= 1 {
            let segments = self.written.pop().map(|w| w.2).unwrap_or_default();
            return Ok(Sorted {
                file: self.runs,
                segments,
                width: self.width,
            });
        }
        self.merge(dir)
    }

    /// Merges the runs: the least (count point, id) of their next rows, again and again.
    fn merge(self, dir: &Path) -> std::io::Result<Sorted> {
        let mut readers = Vec::new();
        for (start, end, _) in &self.written {
            let mut file = File::open(self.runs.path())?;
            file.seek(SeekFrom::Start(*start))?;
            readers.push(BufReader::with_capacity(1 << 16, file.take(end - start)));
        }
        let mut heads: Vec<Option<Vec<Value>>> = Vec::with_capacity(readers.len());
        let mut heap = BinaryHeap::new();
        for (i, reader) in readers.iter_mut().enumerate() {
            let row = decode_row(reader, self.width)?;
            if let Some(row) = &row {
                heap.push(Reverse((self.key(row), i)));
            }
            heads.push(row);
        }
        let mut merged = NamedTempFile::new_in(dir)?;
        let mut out = Counting::new(BufWriter::with_capacity(1 << 20, merged.as_file_mut()), 0);
        let mut segments = Segments::default();
        while let Some(Reverse((key, i))) = heap.pop() {
            let Some(row) = heads[i].take() else { continue };
            segments.row(key.0, out.at);
            encode_row(&mut out, &row)?;
            let next = decode_row(&mut readers[i], self.width)?;
            if let Some(next) = &next {
                heap.push(Reverse((self.key(next), i)));
            }
            heads[i] = next;
        }
        let end = out.at;
        out.inner.flush()?;
        drop(out);
        Ok(Sorted {
            file: merged,
            segments: segments.end(end),
            width: self.width,
        })
    }
}

impl Sorted {
    /// The rows of a segment, in id order, into `rows` (emptied first).
    pub fn read(
        &self,
        s: &Segment,
        bytes: &mut Vec<u8>,
        rows: &mut Vec<Value>,
    ) -> std::io::Result<()> {
        bytes.resize(s.len as usize, 0);
        self.file.as_file().read_exact_at(bytes, s.start)?;
        rows.clear();
        let mut reader: &[u8] = bytes;
        while let Some(row) = decode_row(&mut reader, self.width)? {
            rows.extend(row);
        }
        Ok(())
    }
}

/// The segments of a file being written, a count point's rows following one another.
#[derive(Default)]
struct Segments {
    done: Vec<Segment>,
    open: Option<(i64, u64)>,
}

impl Segments {
    fn row(&mut self, count_point: i64, at: u64) {
        match self.open {
            Some((open, _)) if open == count_point => {}
            _ => {
                self.close(at);
                self.open = Some((count_point, at));
            }
        }
    }

    fn close(&mut self, at: u64) {
        if let Some((count_point, start)) = self.open.take() {
            let len = at - start;
            self.done.push(Segment {
                count_point,
                start,
                len,
            });
        }
    }

    fn end(mut self, at: u64) -> Vec<Segment> {
        self.close(at);
        self.done
    }
}

/// A writer that knows how many bytes it has written (from where it started).
struct Counting<W> {
    inner: W,
    at: u64,
}

impl<W: Write> Counting<W> {
    fn new(inner: W, at: u64) -> Self {
        Counting { inner, at }
    }
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(data)?;
        self.at += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A row's values, each a tag and its bytes: 0 null, 1 an integer, 2 a double (8 bytes, little
/// endian), 3 text (its length in 4 bytes, then the bytes).
fn encode_row(out: &mut impl Write, row: &[Value]) -> std::io::Result<()> {
    for value in row {
        match value {
            Value::Null => out.write_all(&[0])?,
            Value::Int(i) => {
                out.write_all(&[1])?;
                out.write_all(&i.to_le_bytes())?;
            }
            Value::Real(f) => {
                out.write_all(&[2])?;
                out.write_all(&f.to_le_bytes())?;
            }
            Value::Text(t) => {
                out.write_all(&[3])?;
                out.write_all(&(t.len() as u32).to_le_bytes())?;
                out.write_all(t.as_bytes())?;
            }
        }
    }
    Ok(())
}

/// The next row of `width` values, or none at the end.
fn decode_row(input: &mut impl Read, width: usize) -> std::io::Result<Option<Vec<Value>>> {
    let mut row = Vec::with_capacity(width);
    let mut tag = [0u8; 1];
    for i in 0..width {
        if let Err(e) = input.read_exact(&mut tag) {
            return match (i, e.kind()) {
                (0, std::io::ErrorKind::UnexpectedEof) => Ok(None),
                _ => Err(e),
            };
        }
        let mut eight = [0u8; 8];
        row.push(match tag[0] {
            0 => Value::Null,
            1 => {
                input.read_exact(&mut eight)?;
                Value::Int(i64::from_le_bytes(eight))
            }
            2 => {
                input.read_exact(&mut eight)?;
                Value::Real(f64::from_le_bytes(eight))
            }
            _ => {
                let mut len = [0u8; 4];
                input.read_exact(&mut len)?;
                let mut text = vec![0u8; u32::from_le_bytes(len) as usize];
                input.read_exact(&mut text)?;
                let text = String::from_utf8(text).map_err(std::io::Error::other)?;
                Value::Text(CompactString::from(text))
            }
        });
    }
    Ok(Some(row))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of (count point, id, text) in a scrambled order, sorted through runs of a few rows
    /// each, come out by count point then id, each count point's rows in one segment.
    #[test]
    fn runs_merged_give_every_row_by_count_point_then_id() {
        let dir = tempfile::tempdir().unwrap();
        let mut spill = Spill::new(dir.path(), 3, 0, 1, 3 * 7).unwrap();
        let mut want = Vec::new();
        for n in 0..100i64 {
            let (count_point, id) = ((n * 37) % 11, (n * 53) % 100);
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
        let sorted = spill.finish(dir.path()).unwrap();
        assert_eq!(sorted.segments.len(), 11);
        let (mut bytes, mut rows, mut got) = (Vec::new(), Vec::new(), Vec::new());
        for s in &sorted.segments {
            sorted.read(s, &mut bytes, &mut rows).unwrap();
            for row in rows.chunks_exact(3) {
                assert_eq!(row[0].as_int(), Some(s.count_point));
                let id = row[1].as_int().unwrap();
                assert_eq!(row[2], Value::Text(format!("row {id}").into()));
                got.push((s.count_point, id));
            }
        }
        assert_eq!(got, want);
    }
}
