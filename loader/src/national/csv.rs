//! The national CSV files and their zips, written by the load from the rows it reads, so that
//! every national download is ready when the load ends (the server would otherwise read each
//! table back out of SQLite on its first start). The text is the shared crate's
//! (`roadtraffic_downloads::csv`, `::zip`): the same bytes as the server writes.
//!
//! A streamed table's rows come in id order, which is its CSV file's order, but the names of
//! the areas a row shows are settled only once every row is read (an area's name is its latest
//! year's). So each row is written as it comes into a draft: its CSV text, with a mark where an
//! area's name goes (a NUL, the cell, the area's id); a NUL of the text itself is doubled. Once
//! the names are known, the draft is copied into the file with the names in place, and the
//! file is zipped. The small tables a load completes in SQLite are written from their tables.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;

use rusqlite::Connection;
use tempfile::NamedTempFile;

use roadtraffic_catalog::Dataset;
use roadtraffic_downloads::csv::{cell, header, text};
use roadtraffic_downloads::file_layout::stored_value;
use roadtraffic_downloads::{AreaNames, Cell, CellValue, DownloadError, FileLayout};

use super::write::{Out, Staged};
use crate::value::Value;

/// In a draft, the byte that starts a mark: followed by 0 for a NUL of the text, or by an
/// area cell's place in the layout (from 1) and the area's id (8 bytes, little endian).
const MARK: u8 = 0;

/// One streamed table's CSV text being drafted as its rows come.
pub struct Draft {
    dataset: &'static Dataset,
    layout: FileLayout,
    /// Each stored column's position in a row of values.
    stored_at: Vec<usize>,
    id_at: usize,
    last_id: i64,
    /// A row came with an id not after the one before: the draft is not in the file's order,
    /// and no file is made of it (the server writes it).
    out_of_order: bool,
    file: BufWriter<NamedTempFile>,
    row: Vec<u8>,
}

/// The CSV layout of a dataset's national file, and its paths under `/downloads/`: the CSV
/// file (its published name) and its zip.
fn national(d: &Dataset) -> Option<(FileLayout, String, String)> {
    let file = d.national_file()?;
    let stem = file.name.strip_suffix(".csv")?;
    let layout = FileLayout::national(d, file);
    Some((layout, file.name.to_string(), format!("{stem}.zip")))
}

impl Draft {
    /// A draft of `d`'s national CSV file in `dir`, headed; none if it has no such file.
    pub fn new(d: &'static Dataset, dir: &Path) -> std::io::Result<Option<Draft>> {
        let (Some((layout, _, _)), Some(id_at)) = (national(d), d.position("id")) else {
            return Ok(None);
        };
        let stored_at = (d.stored_columns())
            .map(|c| d.position(c.name).unwrap_or(usize::MAX))
            .collect();
        let mut file = BufWriter::with_capacity(1 << 20, NamedTempFile::new_in(dir)?);
        let mut head = Vec::new();
        header(&mut head, &layout.headers, layout.quoting);
        file.write_all(&head)?;
        Ok(Some(Draft {
            dataset: d,
            layout,
            stored_at,
            id_at,
            last_id: i64::MIN,
            out_of_order: false,
            file,
            row: Vec::with_capacity(4096),
        }))
    }

    pub fn dataset(&self) -> &'static Dataset {
        self.dataset
    }

    /// Bytes drafted so far.
    pub fn bytes(&self) -> u64 {
        self.file
            .get_ref()
            .as_file()
            .metadata()
            .map_or(0, |m| m.len())
    }

    /// Drafts rows (a row's values, one after another).
    pub fn add(&mut self, values: &[Value]) -> std::io::Result<()> {
        let width = self.dataset.columns().count();
        for row in values.chunks_exact(width) {
            let id = row[self.id_at].as_int().unwrap_or(i64::MIN);
            self.out_of_order |= id <= self.last_id;
            self.last_id = id;
            self.draft_row(row);
            self.file.write_all(&self.row)?;
        }
        Ok(())
    }

    /// A row's line into `self.row`: its cells as the file has them, areas marked.
    fn draft_row(&mut self, row: &[Value]) {
        let none = AreaNames::default();
        let stored =
            |at: usize| Ok::<_, std::convert::Infallible>(cell_value(&row[self.stored_at[at]]));
        self.row.clear();
        for (n, c) in self.layout.cells.iter().enumerate() {
            if n > 0 {
                self.row.push(b',');
            }
            if let Cell::Area(_, id_at) = *c {
                if let Some(id) = row[self.stored_at[id_at]].as_int() {
                    self.row.extend_from_slice(&[MARK, n as u8 + 1]);
                    self.row.extend_from_slice(&id.to_le_bytes());
                }
                continue;
            }
            let start = self.row.len();
            let Ok(value) = c.value(stored, &none);
            cell(&mut self.row, value, self.layout.quoting);
            if memchr::memchr(MARK, &self.row[start..]).is_some() {
                escape_marks(&mut self.row, start);
            }
        }
        self.row.push(b'\n');
    }

    /// The CSV file and its zip, in `dir`: the draft with the areas' names in place. None if
    /// its rows did not come in id order.
    pub fn finish(self, areas: &AreaNames, dir: &Path) -> Result<Vec<Staged>, DownloadError> {
        let d = self.dataset;
        if self.out_of_order {
            log::warn!(
                "{}: rows not in id order; its CSV is left to the server",
                d.table
            );
            return Ok(Vec::new());
        }
        let Some((_, key, zip_key)) = national(d) else {
            return Ok(Vec::new());
        };
        let mut draft = self.file.into_inner().map_err(|e| e.into_error())?;
        draft.rewind()?;
        let mut out = Out::create(dir, key)?;
        let mut names = Names::new(&self.layout, areas);
        copy_naming(
            &mut BufReader::with_capacity(1 << 20, draft),
            &mut out,
            &mut names,
        )?;
        let csv = out.done(Vec::new())?;
        let zip = zipped(d, &csv, dir, zip_key)?;
        Ok(vec![csv, zip])
    }
}

/// A value of the loader as a file's cell.
fn cell_value(v: &Value) -> CellValue<'_> {
    match v {
        Value::Null => CellValue::Null,
        Value::Int(i) => CellValue::Integer(*i),
        Value::Real(f) => CellValue::Real(*f),
        Value::Text(t) => CellValue::Text(t.as_bytes()),
    }
}

/// Doubles each NUL of `row[start..]`, so that it is not taken for a mark.
fn escape_marks(row: &mut Vec<u8>, start: usize) {
    let text = row.split_off(start);
    for b in text {
        row.push(b);
        if b == MARK {
            row.push(0);
        }
    }
}

/// The areas' names as a file's cells: each area's text, quoted, made once.
struct Names<'a> {
    layout: &'a FileLayout,
    areas: &'a AreaNames,
    made: HashMap<(u8, i64), Vec<u8>>,
}

impl<'a> Names<'a> {
    fn new(layout: &'a FileLayout, areas: &'a AreaNames) -> Names<'a> {
        let made = HashMap::new();
        Names {
            layout,
            areas,
            made,
        }
    }

    /// The text of the area cell marked `tag` for area `id`.
    fn of(&mut self, tag: u8, id: i64) -> std::io::Result<&[u8]> {
        let Some(Cell::Area(field, _)) = self.layout.cells.get(usize::from(tag) - 1) else {
            return Err(std::io::Error::other("a draft's mark names no area cell"));
        };
        let (areas, quoting) = (self.areas, self.layout.quoting);
        Ok(self.made.entry((tag, id)).or_insert_with(|| {
            let mut t = Vec::new();
            if let Some(name) = areas.get(*field, id) {
                text(&mut t, name.as_bytes(), quoting);
            }
            t
        }))
    }
}

/// Copies a draft into `out`, each mark replaced by what it stands for.
fn copy_naming(
    draft: &mut BufReader<NamedTempFile>,
    out: &mut Out,
    names: &mut Names,
) -> std::io::Result<()> {
    loop {
        let buffer = draft.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        let Some(at) = memchr::memchr(MARK, buffer) else {
            let n = buffer.len();
            out.write_all(buffer)?;
            draft.consume(n);
            continue;
        };
        out.write_all(&buffer[..at])?;
        draft.consume(at + 1);
        let mut tag = [0u8];
        draft.read_exact(&mut tag)?;
        if tag[0] == 0 {
            out.write_all(&[MARK])?;
            continue;
        }
        let mut id = [0u8; 8];
        draft.read_exact(&mut id)?;
        out.write_all(names.of(tag[0], i64::from_le_bytes(id))?)?;
    }
}

/// The zip of a CSV file written into `dir`, as the server makes it from the file.
fn zipped(d: &Dataset, csv: &Staged, dir: &Path, zip_key: String) -> Result<Staged, DownloadError> {
    let name = d.national_file().map_or(csv.key.as_str(), |f| f.name);
    let mut out = Out::create(dir, zip_key)?;
    roadtraffic_downloads::zip::zip_file(&csv.path, name, &mut out)?;
    out.done(Vec::new())
}

/// A dataset's national CSV file and its zip from its finished table, in id order as the
/// server reads it.
pub fn from_table(
    conn: &Connection,
    d: &'static Dataset,
    areas: &AreaNames,
    dir: &Path,
) -> Result<Vec<Staged>, DownloadError> {
    let Some((layout, key, zip_key)) = national(d) else {
        return Ok(Vec::new());
    };
    let columns: Vec<&str> = d.stored_columns().map(|c| c.name).collect();
    let sql = format!("SELECT {} FROM {} ORDER BY id", columns.join(", "), d.table);
    let mut out = Out::create(dir, key)?;
    let mut line = Vec::with_capacity(4096);
    header(&mut line, &layout.headers, layout.quoting);
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        for (n, c) in layout.cells.iter().enumerate() {
            if n > 0 {
                line.push(b',');
            }
            let value = c.value(|at| stored_value(row, at), areas)?;
            cell(&mut line, value, layout.quoting);
        }
        line.push(b'\n');
        out.write_all(&line)?;
        line.clear();
    }
    out.write_all(&line)?;
    let csv = out.done(Vec::new())?;
    let zip = zipped(d, &csv, dir, zip_key)?;
    Ok(vec![csv, zip])
}

#[cfg(test)]
mod tests {
    use super::*;
    use roadtraffic_catalog::AreaField;
    use roadtraffic_downloads::Quoting;

    #[test]
    fn a_draft_gives_back_its_text_with_each_mark_replaced() {
        let layout = FileLayout {
            headers: vec!["a".into(), "region".into()],
            cells: vec![Cell::Stored(0), Cell::Area(AreaField::RegionName, 1)],
            columns: vec![None, None],
            quoting: Quoting::WhereNeeded,
        };
        // A NUL of the text, then an area whose id's bytes hold NULs (256), read through a
        // buffer of 4 bytes: marks cross its ends.
        let mut row = b"x\0y".to_vec();
        escape_marks(&mut row, 1);
        row.extend_from_slice(&[b',', MARK, 2]);
        row.extend_from_slice(&256i64.to_le_bytes());
        row.push(b'\n');
        let mut draft = NamedTempFile::new().unwrap();
        draft.write_all(&row).unwrap();
        draft.rewind().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut out = Out::create(dir.path(), "t.csv".into()).unwrap();
        let areas = AreaNames::default();
        let mut names = Names::new(&layout, &areas);
        copy_naming(
            &mut BufReader::with_capacity(4, draft),
            &mut out,
            &mut names,
        )
        .unwrap();
        let staged = out.done(Vec::new()).unwrap();
        // No name for area 256: an empty cell, as the server writes it.
        assert_eq!(std::fs::read(staged.path).unwrap(), b"x\0y,\n");
    }
}
