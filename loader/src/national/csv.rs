//! The national CSV files and their zips, written by the load from the rows it reads, so that
//! every national download is ready when the load ends (the server would otherwise read each
//! table back out of SQLite on its first start). The text is the shared crate's
//! (`roadtraffic_downloads::csv`, `::zip`): the same bytes as the server writes.
//!
//! A streamed table's rows come in id order, which is its CSV file's order, so each row is
//! written into the file as it comes. The names of the areas a file shows are the areas'
//! tables' (an area's name is its latest year's, settled only once every row is read); a row is
//! written with the names it gives itself, and what each row gave for each area is kept. When
//! the names are settled, a file whose every row gave each area its settled name is whole as
//! written, and is zipped. Where a row named an area otherwise (a renamed area, a file of an
//! era that gives no names), or the ids did not come in order, the file is written again from
//! the finished table instead (`from_table`, as the small tables a load completes in SQLite
//! are).

use std::collections::hash_map::Entry;
use std::io::Write;
use std::path::Path;

use compact_str::CompactString;
use rusqlite::Connection;
use rustc_hash::FxHashMap;

use roadtraffic_catalog::Dataset;
use roadtraffic_downloads::csv::{cell, header, text};
use roadtraffic_downloads::file_layout::stored_value;
use roadtraffic_downloads::{AreaNames, Cell, CellValue, DownloadError, FileLayout};

use super::write::{stored_positions, Out, Staged};
use crate::value::Value;

/// One streamed table's CSV file being written as its rows come.
pub struct Draft {
    dataset: &'static Dataset,
    layout: FileLayout,
    /// Each stored column's position in a row of values.
    stored_at: Vec<usize>,
    /// For each area cell of the layout, the position of the row's own text for it.
    own_name_at: Vec<Option<usize>>,
    id_at: usize,
    last_id: i64,
    /// What the rows gave each area cell (by its place in the layout) for each area id.
    said: FxHashMap<(usize, i64), Said>,
    /// A row came with an id not after the one before, or named an area otherwise than
    /// another row did: the file is not whole as written.
    unsure: bool,
    out: Out,
    row: Vec<u8>,
}

/// Areas (of all area cells) whose names are kept: more, in a hostile file of an id a row,
/// and the file is written from the table rather than the memory grow.
const AREAS_KEPT: usize = 100_000;

/// The text rows gave an area cell for one area.
struct Said(Option<CompactString>);

/// The CSV layout of a dataset's national file, and its paths under `/downloads/`: the CSV
/// file (its published name) and its zip.
fn national(d: &Dataset) -> Option<(FileLayout, String, String)> {
    let file = d.national_file()?;
    let stem = file.name.strip_suffix(".csv")?;
    let layout = FileLayout::national(d, file);
    Some((layout, file.name.to_string(), format!("{stem}.zip")))
}

/// The path under `/downloads/` of a dataset's national CSV file, if it has one.
pub fn csv_key(d: &Dataset) -> Option<&'static str> {
    d.national_file().map(|f| f.name)
}

impl Draft {
    /// `d`'s national CSV file, headed, in `dir`; none if it has no such file.
    pub fn new(d: &'static Dataset, dir: &Path) -> Result<Option<Draft>, DownloadError> {
        let (Some((layout, key, _)), Some(id_at)) = (national(d), d.position("id")) else {
            return Ok(None);
        };
        let stored_at = stored_positions(d);
        let own_name_at = (layout.cells.iter().zip(&layout.columns))
            .map(|(c, column)| match (c, column) {
                (Cell::Area(..), Some(column)) => d.position(column.name),
                _ => None,
            })
            .collect();
        let mut out = Out::buffered(dir, key, 128 << 10)?;
        let mut head = Vec::new();
        header(&mut head, &layout.headers, layout.quoting);
        out.write_all(&head)?;
        Ok(Some(Draft {
            dataset: d,
            layout,
            stored_at,
            own_name_at,
            id_at,
            last_id: i64::MIN,
            said: FxHashMap::default(),
            unsure: false,
            out,
            row: Vec::with_capacity(4096),
        }))
    }

    pub fn dataset(&self) -> &'static Dataset {
        self.dataset
    }

    /// Bytes written so far.
    pub fn bytes(&self) -> u64 {
        self.out.len()
    }

    /// Writes rows (a row's values, one after another).
    pub fn add(&mut self, values: &[Value]) -> std::io::Result<()> {
        let width = self.dataset.columns().count();
        for row in values.chunks_exact(width) {
            let id = row[self.id_at].as_int().unwrap_or(i64::MIN);
            self.unsure |= id <= self.last_id;
            self.last_id = id;
            self.write_row(row);
            self.out.write_all(&self.row)?;
        }
        Ok(())
    }

    /// A row's line into `self.row`: its cells as the file has them, each area's name as the
    /// row gives it.
    fn write_row(&mut self, row: &[Value]) {
        let none = AreaNames::default();
        let stored =
            |at: usize| Ok::<_, std::convert::Infallible>(cell_value(&row[self.stored_at[at]]));
        self.row.clear();
        for (n, c) in self.layout.cells.iter().enumerate() {
            if n > 0 {
                self.row.push(b',');
            }
            if let Cell::Area(_, id_at) = *c {
                let own = self.own_name_at[n].and_then(|at| row[at].as_text());
                if let Some(id) = row[self.stored_at[id_at]].as_int() {
                    if let Some(name) = own {
                        text(&mut self.row, name.as_bytes(), self.layout.quoting);
                    }
                    self.unsure |= said_otherwise(&mut self.said, (n, id), own);
                }
                continue;
            }
            let Ok(value) = c.value(stored, &none);
            cell(&mut self.row, value, self.layout.quoting);
        }
        self.row.push(b'\n');
    }

    /// Whether every area cell shows the area's settled name as written.
    fn named_as_settled(&self, areas: &AreaNames) -> bool {
        !self.unsure
            && self.said.iter().all(|(&(n, id), Said(said))| {
                let Some(Cell::Area(field, _)) = self.layout.cells.get(n) else {
                    return false;
                };
                areas.get(*field, id) == said.as_deref()
            })
    }

    /// The CSV file and its zip, in `dir`, if the file is whole as written (else none: it is
    /// written from the table).
    pub fn finish(self, areas: &AreaNames, dir: &Path) -> Result<Vec<Staged>, DownloadError> {
        let d = self.dataset;
        let Some((_, _, zip_key)) = national(d) else {
            return Ok(Vec::new());
        };
        if !self.named_as_settled(areas) {
            log::info!("{}: areas named otherwise by some rows, or ids out of order: its CSV file is written from the table", d.table);
            return Ok(Vec::new());
        }
        let csv = self.out.done(Vec::new())?;
        let zip = zipped(d, &csv, dir, zip_key)?;
        Ok(vec![csv, zip])
    }
}

/// Notes what a row gave an area cell for one area: whether it differs from what an earlier
/// row gave.
fn said_otherwise(
    said: &mut FxHashMap<(usize, i64), Said>,
    key: (usize, i64),
    own: Option<&str>,
) -> bool {
    let full = said.len() >= AREAS_KEPT;
    match said.entry(key) {
        Entry::Occupied(e) => e.get().0.as_deref() != own,
        Entry::Vacant(_) if full => true,
        Entry::Vacant(e) => {
            e.insert(Said(own.map(CompactString::from)));
            false
        }
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
