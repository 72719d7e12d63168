//! The Parquet files: the rows of a download (a national file, a split file or a listing) as a
//! typed, columnar file, written with the Apache Arrow project's `parquet` crate. The columns are the
//! CSV download's, in its order and under its headers; their types come from the catalogue
//! (`column.rs`). Rows are gathered into Arrow batches and handed to the writer, whose bytes
//! go out as each row group is finished: memory holds one row group, whatever the file's size.
//!
//! A file of records with places (a longitude and a latitude among its columns) is GeoParquet
//! 1.1 (`geoparquet`): after those columns, each record's point as WKB and its covering box, and the
//! `geo` key in the footer. Every DOUBLE column's statistics are declared in an order every
//! reader knows (`footer`).

mod column;
pub mod footer;
pub mod geoparquet;

use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::metadata::SortingColumn;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

use roadtraffic_catalog::places::{LATITUDE, LONGITUDE};

pub use column::Kind;
use column::{Builder, Misfit};
use geoparquet::GeoColumns;

use crate::error::DownloadError;
use crate::file_layout::{CellValue, FileLayout};

/// Rows per row group, about DuckDB's own (122,880): on the full-size release a year of raw
/// counts is one or two groups, so a filter on the sort keys (year, then local authority)
/// skips most groups by their min/max statistics; 65,536 made AADF's file 14% bigger
/// (BENCHMARKS.md).
const ROW_GROUP_ROWS: usize = 131_072;

/// Rows per row group of a file of records with places. The national and split files go by
/// place (`downloads::order`), so a group is a patch of the map: at 131,072 rows AADF had 5
/// groups and a town-sized box read one or two of them; at this size 10. Groups this compact
/// hold few count points, so their bloom filters are sized for fewer ids.
const PLACED_ROW_GROUP_ROWS: usize = 65_536;
const PLACED_BLOOM_DISTINCT: u64 = 4_096;

/// Rows per Arrow batch handed to the writer.
const BATCH_ROWS: usize = 8_192;

/// How the file is written: zstd (level 3), chosen by measurement over snappy (BENCHMARKS.md);
/// statistics per page, so readers that use page indexes skip pages too; the sort the rows
/// are in, when they are sorted, declared for engines that use it.
fn properties(layout: &FileLayout, sorted_by: &[usize]) -> Result<WriterProperties, DownloadError> {
    let level = ZstdLevel::try_new(3).map_err(DownloadError::parquet)?;
    let (group_rows, distinct) = match place_at(layout) {
        Some(_) => (PLACED_ROW_GROUP_ROWS, PLACED_BLOOM_DISTINCT),
        None => (ROW_GROUP_ROWS, BLOOM_DISTINCT),
    };
    let sorting = sorted_by.iter().map(|&at| SortingColumn {
        column_idx: at as i32,
        descending: false,
        nulls_first: true,
    });
    let mut properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .set_max_row_group_row_count(Some(group_rows))
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_sorting_columns(Some(sorting.collect()).filter(|s: &Vec<_>| !s.is_empty()));
    let looked_up = layout.columns.iter().zip(&layout.headers);
    for (_, header) in looked_up.filter(|(c, _)| c.is_some_and(|c| BLOOM.contains(&c.name))) {
        let path = ColumnPath::from(header.as_str());
        properties = properties
            .set_column_bloom_filter_enabled(path.clone(), true)
            .set_column_bloom_filter_fpp(path.clone(), 0.01)
            .set_column_bloom_filter_max_ndv(path, distinct);
    }
    Ok(properties.build())
}

/// The ids a filter looks up one value of (a count point's history, an authority's counts):
/// each row group gets a bloom filter of them, which DuckDB, Spark and others read to skip the
/// groups without the value that min/max statistics cannot rule out (ids are not sorted
/// across a year's rows).
const BLOOM: [&str; 3] = ["count_point_id", "local_authority_id", "region_id"];

/// Distinct values a bloom filter is sized for: a row group holds a few thousand count points
/// (about 20 KB a filter at 1% false positives).
const BLOOM_DISTINCT: u64 = 16_384;

/// The Arrow schema of a layout: its headers, each with its column's type; then, when it has
/// places, the geometry and its box.
pub fn schema(layout: &FileLayout) -> Schema {
    let fields = layout
        .cells
        .iter()
        .zip(&layout.columns)
        .zip(&layout.headers);
    let fields = fields.map(|((cell, column), name)| Kind::of(cell, *column).field(name));
    let geo = place_at(layout).map(|_| GeoColumns::fields());
    Schema::new(fields.chain(geo.into_iter().flatten()).collect::<Vec<_>>())
}

/// The positions of a layout's longitude and latitude, if it has both: a file of records with
/// places.
fn place_at(layout: &FileLayout) -> Option<(usize, usize)> {
    let at = |name: &str| {
        let mut columns = layout.columns.iter();
        columns.position(|c| c.is_some_and(|c| c.name == name))
    };
    Some((at(LONGITUDE)?, at(LATITUDE)?))
}

/// The leaf columns of a schema (a struct's fields each one), as the footer lists them.
fn leaves(fields: &arrow_schema::Fields) -> usize {
    let leaf = |f: &Arc<arrow_schema::Field>| match f.data_type() {
        DataType::Struct(children) => leaves(children),
        _ => 1,
    };
    fields.iter().map(leaf).sum()
}

/// Records as one Parquet file of the layout's columns (their cells), the rows sorted by the
/// cells at `sorted_by`, if any: each row's cells pushed in the layout's order, then the row
/// ended; the file's bytes come out into the caller's buffer as row groups are finished.
///
/// Two threads: the caller's gathers the cells into Arrow batches, another encodes and
/// compresses them (about as much work again), and their bytes come back to the caller (a
/// response body need not be `Send`, as the crate's writer wants).
pub struct Encoder {
    headers: Vec<String>,
    schema: Arc<Schema>,
    builders: Vec<Builder>,
    /// The geometry, from the cells at these positions (longitude, latitude).
    geo: Option<(GeoColumns, (usize, usize))>,
    /// The cell of the row being gathered that comes next, and the row's place so far.
    next_cell: usize,
    place: (Option<f64>, Option<f64>),
    gathered: usize,
    batches: Option<SyncSender<Piece>>,
    bytes: Receiver<Vec<u8>>,
    encoder: Option<JoinHandle<Result<(), DownloadError>>>,
}

impl Encoder {
    /// Starts a file of `layout`, its rows in the order of the cells at `sorted_by`.
    pub fn open(layout: &FileLayout, sorted_by: &[usize]) -> Result<Encoder, DownloadError> {
        let schema = Arc::new(schema(layout));
        let properties = properties(layout, sorted_by)?;
        let writer = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(properties))
            .map_err(DownloadError::parquet)?;
        let (batches, to_encode) = std::sync::mpsc::sync_channel::<Piece>(2);
        let (encoded, bytes) = std::sync::mpsc::channel::<Vec<u8>>();
        let leaves = leaves(schema.fields());
        let encoder = std::thread::spawn(move || encode(writer, leaves, &to_encode, &encoded));
        let kinds = layout.cells.iter().zip(&layout.columns);
        let geo = place_at(layout).map(|at| (GeoColumns::new(&["Point"], BATCH_ROWS), at));
        Ok(Encoder {
            headers: layout.headers.clone(),
            schema,
            builders: kinds
                .map(|(cell, column)| Builder::new(Kind::of(cell, *column), BATCH_ROWS))
                .collect(),
            geo,
            next_cell: 0,
            place: (None, None),
            gathered: 0,
            batches: Some(batches),
            bytes,
            encoder: Some(encoder),
        })
    }

    /// The next cell of the row being gathered.
    pub fn push(&mut self, value: CellValue) -> Result<(), DownloadError> {
        let at = self.next_cell;
        let (Some(builder), Some(name)) = (self.builders.get_mut(at), self.headers.get(at)) else {
            return Err(DownloadError::parquet(
                "a record with more cells than columns",
            ));
        };
        let misfit = |Misfit(why)| DownloadError::Parquet(format!("Parquet column {name}: {why}"));
        match self.geo.as_ref().map(|(_, at)| *at) {
            Some((x, _)) if x == at => self.place.0 = column::float(value).map_err(misfit)?,
            Some((_, y)) if y == at => self.place.1 = column::float(value).map_err(misfit)?,
            _ => {}
        }
        builder.append(value).map_err(misfit)?;
        self.next_cell += 1;
        Ok(())
    }

    /// Ends the row whose cells were pushed; a batch gathered goes to the encoder, and what
    /// it has encoded so far comes out into `out`.
    pub fn end_row(&mut self, out: &mut Vec<u8>) -> Result<(), DownloadError> {
        if self.next_cell != self.builders.len() {
            return Err(DownloadError::parquet(
                "a record with fewer cells than columns",
            ));
        }
        self.next_cell = 0;
        if let Some((geo, _)) = self.geo.as_mut() {
            geo.append_point(self.place.0, self.place.1);
        }
        self.place = (None, None);
        self.gathered += 1;
        if self.gathered == BATCH_ROWS {
            self.send(out)?;
        }
        Ok(())
    }

    /// Ends the file: the last rows, the `geo` metadata, the footer, all into `out`.
    pub fn close(&mut self, out: &mut Vec<u8>) -> Result<(), DownloadError> {
        if self.gathered > 0 {
            self.send(out)?;
        }
        if let Some((geo, _)) = &self.geo {
            let metadata = KeyValue::new("geo".to_string(), geo.metadata());
            self.hand(Piece::Metadata(metadata), out)?;
        }
        self.finish(out)
    }
}

impl Encoder {
    /// Hands the batch gathered to the encoder, and takes what it has encoded so far.
    fn send(&mut self, out: &mut Vec<u8>) -> Result<(), DownloadError> {
        let mut columns: Vec<_> = self.builders.iter_mut().map(Builder::finish).collect();
        if let Some((geo, _)) = self.geo.as_mut() {
            columns.extend(geo.finish());
        }
        let batch =
            RecordBatch::try_new(self.schema.clone(), columns).map_err(DownloadError::parquet)?;
        self.gathered = 0;
        self.hand(Piece::Batch(batch), out)
    }

    /// Hands a piece of the file to the encoder, and takes what it has encoded so far.
    fn hand(&mut self, piece: Piece, out: &mut Vec<u8>) -> Result<(), DownloadError> {
        let sent = self.batches.as_ref().map(|b| b.send(piece));
        if !matches!(sent, Some(Ok(()))) {
            // An encoder's failure stops the reading: it is the cause to report.
            self.finish(out)?;
            return Err(DownloadError::parquet("the Parquet encoder stopped"));
        }
        out.extend(self.bytes.try_iter().flatten());
        Ok(())
    }

    /// Waits for the encoder to write the rest and the footer, and takes its bytes.
    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), DownloadError> {
        self.batches = None;
        let encoder = self.encoder.take();
        let joined = encoder.map(|e| e.join());
        if let Some(joined) = joined {
            joined.map_err(|_| DownloadError::parquet("the Parquet encoder panicked"))??;
        }
        out.extend(self.bytes.try_iter().flatten());
        Ok(())
    }
}

/// A file left before its end (the client gone, a query stopped): its encoder is stopped.
impl Drop for Encoder {
    fn drop(&mut self) {
        self.batches = None;
        if let Some(encoder) = self.encoder.take() {
            let _ = encoder.join();
        }
    }
}

/// What the encoder is handed: rows, or a key of the footer's metadata.
enum Piece {
    Batch(RecordBatch),
    Metadata(KeyValue),
}

/// Encodes each batch received, sending on the bytes written so far; the footer last, its
/// column orders (of `leaves` columns) rewritten for every reader (`footer`).
fn encode(
    mut writer: ArrowWriter<Vec<u8>>,
    leaves: usize,
    pieces: &std::sync::mpsc::Receiver<Piece>,
    bytes: &std::sync::mpsc::Sender<Vec<u8>>,
) -> Result<(), DownloadError> {
    for piece in pieces {
        let batch = match piece {
            Piece::Batch(batch) => batch,
            Piece::Metadata(kv) => {
                writer.append_key_value_metadata(kv);
                continue;
            }
        };
        writer.write(&batch).map_err(DownloadError::parquet)?;
        let written = std::mem::take(writer.inner_mut());
        if !written.is_empty() && bytes.send(written).is_err() {
            return Ok(()); // the reader stopped: its error says why
        }
    }
    let mut rest = writer.into_inner().map_err(DownloadError::parquet)?;
    footer::type_defined_orders(&mut rest, leaves).map_err(|footer::Unexpected(why)| {
        DownloadError::Parquet(format!("Parquet footer: {why}"))
    })?;
    let _ = bytes.send(rest);
    Ok(())
}
