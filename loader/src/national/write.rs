//! A national Parquet file written into the staging folder, with the SHA-256 of its bytes (its
//! ETag once in place): from the rows sorted as they were read (`spill`), or, for the small
//! tables a load completes in SQLite (count points, the tables of totals), from the table.

use std::collections::HashMap;
use std::convert::Infallible;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use sha2::{Digest, Sha256};

use roadtraffic_catalog::places::{Places, PLACE_KEY};
use roadtraffic_catalog::Dataset;
use roadtraffic_downloads::order::{self, file_order, position};
use roadtraffic_downloads::parquet::Encoder;
use roadtraffic_downloads::{AreaNames, DownloadError, FileLayout};

use super::spill::{self, Sorted};

/// A file written into the staging folder: its path under `/downloads/`, where it is, and the
/// hexadecimal SHA-256 of its bytes.
#[derive(Debug)]
pub struct Staged {
    pub key: String,
    pub path: PathBuf,
    pub sha256: String,
}

/// The file being written, and its hash.
pub struct Out {
    file: BufWriter<File>,
    hash: Sha256,
    path: PathBuf,
    key: String,
    len: u64,
}

impl Out {
    pub fn create(dir: &Path, key: String) -> Result<Out, DownloadError> {
        Out::buffered(dir, key, 1 << 20)
    }

    /// A file whose writes are gathered `buffer` bytes at a time (a CSV file written while the
    /// load's other tables are built holds a small buffer).
    pub fn buffered(dir: &Path, key: String, buffer: usize) -> Result<Out, DownloadError> {
        let path = dir.join(&key);
        Ok(Out {
            file: BufWriter::with_capacity(buffer, File::create(&path)?),
            hash: Sha256::new(),
            path,
            key,
            len: 0,
        })
    }

    /// Takes the bytes the encoder has given so far.
    fn take(&mut self, bytes: &mut Vec<u8>) -> Result<(), DownloadError> {
        self.file.write_all(bytes)?;
        self.hash.update(&bytes[..]);
        self.len += bytes.len() as u64;
        bytes.clear();
        Ok(())
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// The file whole once `bytes`, the last of it, are written.
    pub fn done(mut self, mut bytes: Vec<u8>) -> Result<Staged, DownloadError> {
        self.take(&mut bytes)?;
        let file = self.file.into_inner().map_err(|e| e.into_error())?;
        file.sync_data()?;
        Ok(Staged {
            key: self.key,
            path: self.path,
            sha256: format!("{:x}", self.hash.finalize()),
        })
    }
}

impl Write for Out {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.file.write_all(data)?;
        self.hash.update(data);
        self.len += data.len() as u64;
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Each stored column's position in a row of the loader's values (every column of `d`).
pub fn stored_positions(d: &Dataset) -> Vec<usize> {
    (d.stored_columns())
        .map(|c| d.position(c.name).unwrap_or(usize::MAX))
        .collect()
}

/// Bytes gathered from the encoder before they go to the file.
const FLUSH_BYTES: usize = 1 << 20;

fn layout(d: &Dataset) -> Option<(FileLayout, String)> {
    let national = d.national_file()?;
    let key = roadtraffic_downloads::national_parquet(d)?;
    Some((FileLayout::national(d, national), key))
}

/// A dataset's national Parquet file from its rows sorted by count point: the count points
/// in file order (`positions`: each one's place on the curve).
pub fn from_sorted(
    d: &'static Dataset,
    sorted: &Sorted,
    positions: &HashMap<i64, u64>,
    areas: &AreaNames,
    dir: &Path,
) -> Result<Option<Staged>, DownloadError> {
    let Some((layout, key)) = layout(d) else {
        return Ok(None);
    };
    let stored_at = stored_positions(d);
    let mut keyed: Vec<(u64, i64, usize)> = (sorted.count_points.iter().enumerate())
        .map(|(n, (count_point, _))| (position(positions, *count_point), *count_point, n))
        .collect();
    keyed.sort_unstable();
    let at: HashMap<i64, usize> = keyed.iter().map(|(_, cp, n)| (*cp, *n)).collect();
    let ids = file_order(keyed.into_iter().map(|(_, cp, _)| cp).collect());
    let mut out = Out::create(dir, key)?;
    let mut encoder = Encoder::open(&layout, &[])?;
    let (mut bytes, mut read) = (Vec::new(), Vec::new());
    for id in ids {
        sorted.read(at[&id], &mut read)?;
        let mut rows = Vec::new();
        spill::cells(&read, sorted.width, &mut rows)?;
        for row in rows.chunks_exact(sorted.width) {
            for cell in &layout.cells {
                let stored = |at: usize| Ok::<_, Infallible>(row[stored_at[at]]);
                let Ok(value) = cell.value(stored, areas);
                encoder.push(value)?;
            }
            encoder.end_row(&mut bytes)?;
        }
        if bytes.len() >= FLUSH_BYTES {
            out.take(&mut bytes)?;
        }
    }
    encoder.close(&mut bytes)?;
    out.done(bytes).map(Some)
}

/// A dataset's national Parquet file read from its finished table, in the order the server
/// reads it: by place (parts of count points in curve order), or by the sort columns then id.
pub fn from_table(
    conn: &Connection,
    d: &'static Dataset,
    areas: &AreaNames,
    dir: &Path,
) -> Result<Option<Staged>, DownloadError> {
    let Some((layout, key)) = layout(d) else {
        return Ok(None);
    };
    let columns: Vec<&str> = d.stored_columns().map(|c| c.name).collect();
    let select = format!("SELECT {} FROM {}", columns.join(", "), d.table);
    let (statements, sorted_by) = match Places::of(d) {
        Some(_) => {
            let ids = file_order(order::count_points(conn, d, None)?);
            let parts = ids.chunks(order::COUNT_POINTS_PER_PART).map(|part| {
                let ids: Vec<String> = part.iter().map(i64::to_string).collect();
                format!(
                    "{select} WHERE {PLACE_KEY} IN ({}) ORDER BY {PLACE_KEY}, id",
                    ids.join(",")
                )
            });
            (parts.collect::<Vec<_>>(), Vec::new())
        }
        None => {
            let (sort, sorted_by) = roadtraffic_downloads::parquet_sort(d, &layout);
            let keys: Vec<&str> = sort.iter().map(|c| c.name).chain(["id"]).collect();
            (
                vec![format!("{select} ORDER BY {}", keys.join(", "))],
                sorted_by,
            )
        }
    };
    let mut out = Out::create(dir, key)?;
    let mut encoder = Encoder::open(&layout, &sorted_by)?;
    let mut bytes = Vec::new();
    for sql in statements {
        let mut stmt = conn.prepare(&sql)?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            for cell in &layout.cells {
                encoder.push(cell.read(row, areas)?)?;
            }
            encoder.end_row(&mut bytes)?;
            if bytes.len() >= FLUSH_BYTES {
                out.take(&mut bytes)?;
            }
        }
    }
    encoder.close(&mut bytes)?;
    out.done(bytes).map(Some)
}
