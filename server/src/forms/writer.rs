//! The one interface of every form's writer ([`Writer`]: what comes before the records, each
//! record, what comes after) and of the records it writes ([`Record`]: as a JSON object, as a
//! GeoJSON feature, as cells); and the one way a dataset's rows are read into a writer
//! ([`write_rows`]: the SQL of what it reads, the page or window found by the pager, a row at
//! a time into a body flushed in chunks). A summary's rows go to the same writers (`totals`).

use roadtraffic_catalog::record::Decimals;
use rusqlite::Connection;

use super::file_layout::{AreaNames, Cell, CellValue, FileLayout};
use super::geojson::FeatureWriter;
use super::record::{Distance, JsonRecord};
use crate::error::ApiError;
use crate::release::Release;
use crate::rows::{FilterSets, Found, Pager, Plan, Rows, Sql};
use crate::spatial::Crs;
use crate::stream::Body;

/// A record of an answer, as each form reads it.
pub trait Record {
    /// The record as a JSON object, written as PHP writes JSON (`\/`, `\uXXXX`).
    fn json(&mut self, out: &mut Vec<u8>) -> Result<(), ApiError>;
    /// The record as a GeoJSON feature: its point, the record its properties.
    fn feature(&mut self, out: &mut Vec<u8>) -> Result<(), ApiError>;
    /// The record's cells, in order.
    fn cells(
        &mut self,
        each: &mut dyn FnMut(CellValue) -> Result<(), ApiError>,
    ) -> Result<(), ApiError>;
}

/// A form's writer: what comes before the records (`found` says which were found: all, or a
/// page or window of how many), each record, and what comes after them.
pub trait Writer {
    fn open(&mut self, out: &mut Vec<u8>, found: &Found) -> Result<(), ApiError>;
    fn record(&mut self, out: &mut Vec<u8>, record: &mut dyn Record) -> Result<(), ApiError>;
    fn close(&mut self, out: &mut Vec<u8>, found: &Found, written: usize) -> Result<(), ApiError>;
}

/// One of the parts of a file read in several queries: the whole's writer opened before the
/// first part's records and closed after the last's.
pub struct Part<'a> {
    pub whole: &'a mut dyn Writer,
    pub first: bool,
    pub last: bool,
}

impl Writer for Part<'_> {
    fn open(&mut self, out: &mut Vec<u8>, found: &Found) -> Result<(), ApiError> {
        match self.first {
            true => self.whole.open(out, found),
            false => Ok(()),
        }
    }

    fn record(&mut self, out: &mut Vec<u8>, record: &mut dyn Record) -> Result<(), ApiError> {
        self.whole.record(out, record)
    }

    fn close(&mut self, out: &mut Vec<u8>, found: &Found, written: usize) -> Result<(), ApiError> {
        match self.last {
            true => self.whole.close(out, found, written),
            false => Ok(()),
        }
    }
}

/// What a writer reads of each row of a dataset, which the SQL selects.
#[derive(Debug, Clone)]
pub enum Reads {
    /// Its JSON record: today's, or (`legacy`) with the fields of the 2019-2020 records.
    Json { legacy: bool },
    /// Its feature, at its coordinates in this CRS, its decimals kept as text written so.
    Feature(Crs, Decimals),
    /// The cells of a layout (a CSV or Parquet file's columns).
    Cells(FileLayout),
}

/// How each row is read, as the writer asks.
enum RowReader {
    Json(JsonRecord, Option<Distance>),
    Feature(FeatureWriter),
    Cells(FileLayout, AreaNames),
}

impl RowReader {
    fn of(
        reads: Reads,
        rows: &Rows,
        release: &Release,
        conn: &Connection,
    ) -> Result<Self, ApiError> {
        Ok(match reads {
            Reads::Json { legacy } => {
                RowReader::Json(JsonRecord::of(rows, release, legacy), Distance::of(rows, 0))
            }
            Reads::Feature(crs, decimals) => {
                RowReader::Feature(FeatureWriter::of(rows, release, crs, decimals))
            }
            Reads::Cells(layout) => {
                let areas = AreaNames::for_layout(conn, &layout)?;
                RowReader::Cells(layout, areas)
            }
        })
    }

    /// The SQL of the rows, selecting what is read of each.
    fn sql(&self, rows: &Rows) -> Sql {
        match self {
            RowReader::Json(record, _) => record.sql(rows),
            RowReader::Feature(feature) => feature.sql(rows),
            RowReader::Cells(..) => Plan(rows).sql(),
        }
    }
}

/// A row of the dataset as a record, read as its writer asks.
struct RowRecord<'a> {
    conn: &'a Connection,
    row: &'a rusqlite::Row<'a>,
    reader: &'a mut RowReader,
}

impl Record for RowRecord<'_> {
    fn json(&mut self, out: &mut Vec<u8>) -> Result<(), ApiError> {
        let RowReader::Json(record, distance) = self.reader else {
            return Err(ApiError::internal("a row not read as JSON"));
        };
        record.write(self.conn, out, self.row)?;
        match distance {
            Some(distance) => distance.append(out, self.row),
            None => Ok(()),
        }
    }

    fn feature(&mut self, out: &mut Vec<u8>) -> Result<(), ApiError> {
        let RowReader::Feature(feature) = self.reader else {
            return Err(ApiError::internal("a row not read as a feature"));
        };
        feature.write(self.conn, out, self.row)
    }

    fn cells(
        &mut self,
        each: &mut dyn FnMut(CellValue) -> Result<(), ApiError>,
    ) -> Result<(), ApiError> {
        let RowReader::Cells(layout, areas) = self.reader else {
            return Err(ApiError::internal("a row not read as cells"));
        };
        for cell in &layout.cells {
            let value = match cell {
                Cell::Distance(at) => match self.row.get::<_, Option<f64>>(*at)? {
                    Some(squared) => CellValue::Real(crate::spatial::sql::metres(squared)),
                    None => CellValue::Null,
                },
                _ => cell.read(self.row, areas)?,
            };
            each(value)?;
        }
        Ok(())
    }
}

/// Writes `rows` of `release` with `writer`, which reads `reads` of each row, into `body` (full
/// chunks flushed as they fill): the page or window asked found by the pager with the filter
/// sets learnt of the release, or every row.
pub fn write_rows(
    (release, conn): (&Release, &Connection),
    rows: &Rows,
    filter_sets: Option<&FilterSets>,
    (reads, writer): (Reads, &mut dyn Writer),
    body: &mut Body,
) -> Result<(), ApiError> {
    let mut reader = RowReader::of(reads, rows, release, conn)?;
    let sql = reader.sql(rows);
    let pager = Pager {
        request: rows,
        release,
        filter_sets,
    };
    let (found, query) = pager.find(conn, &sql)?;
    writer.open(&mut body.buf, &found)?;
    let mut written = 0;
    if let Some(query) = query {
        let mut stmt = conn.prepare_cached(&query.sql)?;
        let mut found_rows = stmt.query(rusqlite::params_from_iter(query.args.iter()))?;
        while let Some(row) = found_rows.next()? {
            let mut record = RowRecord {
                conn,
                row,
                reader: &mut reader,
            };
            writer.record(&mut body.buf, &mut record)?;
            written += 1;
            body.flush_if_full()?;
        }
        if query.exactly.is_some_and(|rows| rows != written as i64) {
            let why = format!("{written} rows read of {:?}: {}", query.exactly, query.sql);
            return Err(ApiError::internal(why));
        }
    }
    writer.close(&mut body.buf, &found, written)
}

/// The bytes the body of a page or window of these rows is sized for at first: its rows at
/// about 800 bytes each, up to a chunk's worth.
pub fn capacity(rows: &Rows) -> usize {
    rows.asked().clamp(1, 1400) as usize * 800
}
