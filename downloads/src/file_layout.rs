//! The columns of a CSV or Parquet file of a dataset's rows, their headers and their quoting,
//! as the catalogue declares them: DfT's national files, its per-area split files, or a
//! listing's own fields; and the names of the areas some of them show.

use std::collections::HashMap;

use rusqlite::types::ValueRef;

use roadtraffic_catalog::{AreaField, Column, Dataset, Fill, NationalFile, Splits};

/// Where a cell of the file comes from.
#[derive(Debug, Clone)]
pub enum Cell {
    /// A stored column of the record, by its position in the row read.
    Stored(usize),
    /// An area's name or code, by the position of the row's region or local authority id.
    Area(AreaField, usize),
    /// The number 1..N of another column's code (`road_category_id` from `road_category`).
    CodeNumber {
        at: usize,
        codes: &'static [&'static str],
    },
    /// `distance_m` (with `filter[near]`): metres from the squared distance at this position.
    Distance(usize),
}

/// How text is quoted: DfT's big and split files quote what holds a space, a comma, a quote,
/// a backslash, a tab or a line end; its summary tables quote every text field and the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quoting {
    WhereNeeded,
    AllText,
}

#[derive(Debug, Clone)]
pub struct FileLayout {
    pub headers: Vec<String>,
    pub cells: Vec<Cell>,
    /// The catalogue's column of each cell (none for `distance_m`): its type in a Parquet file.
    pub columns: Vec<Option<&'static Column>>,
    pub quoting: Quoting,
}

/// A cell's value in a row, whatever the file it is written to.
#[derive(Debug, Clone, Copy)]
pub enum CellValue<'a> {
    Null,
    Integer(i64),
    Real(f64),
    /// A decimal written as is (a summary's average, rounded).
    Decimal(&'a str),
    Text(&'a [u8]),
}

impl Cell {
    /// The cell's value in a row whose stored columns `stored` gives by position (a SQLite
    /// row, a row of the loader's values). `Distance` is the stored squared distance: the
    /// server, which alone asks for it, gives it in metres.
    pub fn value<'a, E>(
        &self,
        stored: impl Fn(usize) -> Result<CellValue<'a>, E>,
        areas: &'a AreaNames,
    ) -> Result<CellValue<'a>, E> {
        Ok(match *self {
            Cell::Stored(at) | Cell::Distance(at) => stored(at)?,
            Cell::Area(field, id_at) => {
                let id = match stored(id_at)? {
                    CellValue::Integer(id) => Some(id),
                    _ => None,
                };
                match id.and_then(|id| areas.get(field, id)) {
                    Some(name) => CellValue::Text(name.as_bytes()),
                    None => CellValue::Null,
                }
            }
            Cell::CodeNumber { at, codes } => {
                let code = match stored(at)? {
                    CellValue::Text(t) => std::str::from_utf8(t).ok(),
                    _ => None,
                };
                match code.and_then(|c| codes.iter().position(|k| k.eq_ignore_ascii_case(c))) {
                    Some(n) => CellValue::Integer(n as i64 + 1),
                    None => CellValue::Null,
                }
            }
        })
    }

    /// The cell's value in a row of SQLite.
    pub fn read<'a>(
        &self,
        row: &'a rusqlite::Row,
        areas: &'a AreaNames,
    ) -> rusqlite::Result<CellValue<'a>> {
        self.value(|at| stored_value(row, at), areas)
    }
}

/// A stored column's value in a row of SQLite, by its position in the row.
pub fn stored_value<'a>(row: &'a rusqlite::Row, at: usize) -> rusqlite::Result<CellValue<'a>> {
    Ok(match row.get_ref(at)? {
        ValueRef::Null => CellValue::Null,
        ValueRef::Integer(i) => CellValue::Integer(i),
        ValueRef::Real(f) => CellValue::Real(f),
        ValueRef::Text(t) | ValueRef::Blob(t) => CellValue::Text(t),
    })
}

/// The cell of a column the records do not store, when the file has it.
fn derived_cell(d: &Dataset, c: &Column, stored: &[&str]) -> Option<Cell> {
    if let Some(field) = c.area {
        let id = match field {
            AreaField::RegionName | AreaField::RegionCode => "region_id",
            AreaField::LocalAuthorityName | AreaField::LocalAuthorityCode => "local_authority_id",
        };
        return Some(Cell::Area(field, stored.iter().position(|s| *s == id)?));
    }
    // A column whose code another column gives: its number among the codes.
    d.columns().find_map(|other| match other.fill {
        Some(Fill::CodeOf { column, codes }) if column == c.name => Some(Cell::CodeNumber {
            at: stored.iter().position(|s| *s == other.name)?,
            codes,
        }),
        _ => None,
    })
}

/// A file of these columns (catalogue names) of `d`'s records, read with every stored column.
fn of_columns(
    d: &Dataset,
    columns: &[&'static str],
    headers: Vec<String>,
    quoting: Quoting,
) -> FileLayout {
    let stored: Vec<&str> = d.stored_columns().map(|c| c.name).collect();
    let (cells, columns) = columns
        .iter()
        .filter_map(|name| {
            let c = d.column(name)?;
            let cell = match stored.iter().position(|s| s == name) {
                Some(at) if c.stored => Some(Cell::Stored(at)),
                _ => derived_cell(d, c, &stored),
            };
            Some((cell?, Some(c)))
        })
        .unzip();
    FileLayout {
        headers,
        cells,
        columns,
        quoting,
    }
}

impl FileLayout {
    /// DfT's national file, headers as published.
    pub fn national(d: &Dataset, file: &NationalFile) -> FileLayout {
        let columns = file.columns();
        let headers = columns
            .iter()
            .map(|c| d.column(c).map_or(*c, |c| c.published).to_string())
            .collect();
        let quoting = if file.quote_all_text {
            Quoting::AllText
        } else {
            Quoting::WhereNeeded
        };
        of_columns(d, &columns, headers, quoting)
    }

    /// DfT's per-area split files: lower-case headers, text quoted where needed.
    pub fn split(d: &Dataset, file: &NationalFile, splits: &Splits) -> FileLayout {
        let columns = splits.columns(file);
        let headers = columns.iter().map(|c| c.to_ascii_lowercase()).collect();
        of_columns(d, &columns, headers, Quoting::WhereNeeded)
    }

    /// A listing's fields, headed by their names.
    pub fn fields(fields: &[&'static Column]) -> FileLayout {
        FileLayout {
            headers: fields.iter().map(|c| c.name.to_string()).collect(),
            cells: (0..fields.len()).map(Cell::Stored).collect(),
            columns: fields.iter().map(|c| Some(*c)).collect(),
            quoting: Quoting::WhereNeeded,
        }
    }

    /// The layout with `distance_m` last, read from the row's squared distance at `at`.
    pub fn with_distance(mut self, at: usize) -> FileLayout {
        self.headers.push("distance_m".to_string());
        self.cells.push(Cell::Distance(at));
        self.columns.push(None);
        self
    }

    /// Whether the file needs the area tables (names and codes by id).
    pub fn uses_areas(&self) -> bool {
        self.cells.iter().any(|c| matches!(c, Cell::Area(..)))
    }
}

/// An area table's names and ONS codes, by id.
type NamesById = HashMap<i64, (Option<String>, Option<String>)>;

/// Names and ONS codes of the regions and local authorities, by id.
#[derive(Default)]
pub struct AreaNames {
    regions: NamesById,
    local_authorities: NamesById,
}

impl AreaNames {
    /// The names a layout needs: none unless it has area columns.
    pub fn for_layout(conn: &rusqlite::Connection, layout: &FileLayout) -> rusqlite::Result<Self> {
        match layout.uses_areas() {
            true => AreaNames::read(conn),
            false => Ok(AreaNames::default()),
        }
    }

    pub fn read(conn: &rusqlite::Connection) -> rusqlite::Result<AreaNames> {
        let read = |table: &str| -> rusqlite::Result<NamesById> {
            let mut stmt = conn.prepare(&format!("SELECT id, name, ons_code FROM {table}"))?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?;
            rows.collect()
        };
        Ok(AreaNames {
            regions: read(roadtraffic_catalog::REGIONS.table)?,
            local_authorities: read(roadtraffic_catalog::LOCAL_AUTHORITIES.table)?,
        })
    }

    pub fn get(&self, field: AreaField, id: i64) -> Option<&str> {
        let (table, name) = match field {
            AreaField::RegionName => (&self.regions, true),
            AreaField::RegionCode => (&self.regions, false),
            AreaField::LocalAuthorityName => (&self.local_authorities, true),
            AreaField::LocalAuthorityCode => (&self.local_authorities, false),
        };
        let (n, code) = table.get(&id)?;
        if name {
            n.as_deref()
        } else {
            code.as_deref()
        }
    }
}
