//! The Parquet form: the rows of a download (a national file, a split file or a listing) as a
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

use super::file_layout::FileLayout;
use super::writer::{Record, Writer};
use crate::error::ApiError;
use crate::rows::Found;

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
fn properties(layout: &FileLayout, sorted_by: &[usize]) -> Result<WriterProperties, ApiError> {
    let level = ZstdLevel::try_new(3).map_err(ApiError::internal)?;
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
/// cells at `sorted_by`, if any.
///
/// Two threads: this one reads the records into Arrow batches, another encodes and compresses
/// them (about as much work again), and their bytes come back here to be written (a response
/// body need not be `Send`, as the writer wants).
pub struct Parquet {
    layout: FileLayout,
    sorted_by: Vec<usize>,
    encoding: Option<Encoder>,
}

/// A file being encoded: the batch being gathered, and the encoder's thread.
struct Encoder {
    schema: Arc<Schema>,
    builders: Vec<Builder>,
    /// The geometry, from the cells at these positions (longitude, latitude).
    geo: Option<(GeoColumns, (usize, usize))>,
    gathered: usize,
    batches: Option<SyncSender<Piece>>,
    bytes: Receiver<Vec<u8>>,
    encoder: Option<JoinHandle<Result<(), ApiError>>>,
}

impl Parquet {
    pub fn new(layout: FileLayout, sorted_by: Vec<usize>) -> Parquet {
        Parquet {
            layout,
            sorted_by,
            encoding: None,
        }
    }

    fn encoding(&mut self) -> Result<&mut Encoder, ApiError> {
        let encoding = self.encoding.as_mut();
        encoding.ok_or_else(|| ApiError::internal("a Parquet file not opened"))
    }
}

impl Writer for Parquet {
    fn open(&mut self, _: &mut Vec<u8>, _: &Found) -> Result<(), ApiError> {
        let schema = Arc::new(schema(&self.layout));
        let properties = properties(&self.layout, &self.sorted_by)?;
        let writer = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(properties))
            .map_err(ApiError::internal)?;
        let (batches, to_encode) = std::sync::mpsc::sync_channel::<Piece>(2);
        let (encoded, bytes) = std::sync::mpsc::channel::<Vec<u8>>();
        let leaves = leaves(schema.fields());
        let encoder = std::thread::spawn(move || encode(writer, leaves, &to_encode, &encoded));
        let kinds = self.layout.cells.iter().zip(&self.layout.columns);
        let geo = place_at(&self.layout).map(|at| (GeoColumns::new(&["Point"], BATCH_ROWS), at));
        self.encoding = Some(Encoder {
            schema,
            builders: kinds
                .map(|(cell, column)| Builder::new(Kind::of(cell, *column), BATCH_ROWS))
                .collect(),
            geo,
            gathered: 0,
            batches: Some(batches),
            bytes,
            encoder: Some(encoder),
        });
        Ok(())
    }

    fn record(&mut self, out: &mut Vec<u8>, record: &mut dyn Record) -> Result<(), ApiError> {
        let headers = &self.layout.headers;
        let encoding = self.encoding.as_mut();
        let encoding = encoding.ok_or_else(|| ApiError::internal("a Parquet file not opened"))?;
        let mut builders = encoding.builders.iter_mut().zip(headers).enumerate();
        let place_at = encoding.geo.as_ref().map(|(_, at)| *at);
        let mut place = (None, None);
        record.cells(&mut |value| {
            let Some((at, (builder, name))) = builders.next() else {
                return Err(ApiError::internal("a record with more cells than columns"));
            };
            let misfit = |Misfit(why)| ApiError::internal(format!("Parquet column {name}: {why}"));
            match place_at {
                Some((x, _)) if x == at => place.0 = column::float(value).map_err(misfit)?,
                Some((_, y)) if y == at => place.1 = column::float(value).map_err(misfit)?,
                _ => {}
            }
            builder.append(value).map_err(misfit)
        })?;
        if let Some((geo, _)) = encoding.geo.as_mut() {
            geo.append_point(place.0, place.1);
        }
        encoding.gathered += 1;
        if encoding.gathered == BATCH_ROWS {
            encoding.send(out)?;
        }
        Ok(())
    }

    fn close(&mut self, out: &mut Vec<u8>, _: &Found, _: usize) -> Result<(), ApiError> {
        let encoding = self.encoding()?;
        if encoding.gathered > 0 {
            encoding.send(out)?;
        }
        if let Some((geo, _)) = &encoding.geo {
            let metadata = KeyValue::new("geo".to_string(), geo.metadata());
            encoding.hand(Piece::Metadata(metadata), out)?;
        }
        encoding.finish(out)
    }
}

impl Encoder {
    /// Hands the batch gathered to the encoder, and takes what it has encoded so far.
    fn send(&mut self, out: &mut Vec<u8>) -> Result<(), ApiError> {
        let mut columns: Vec<_> = self.builders.iter_mut().map(Builder::finish).collect();
        if let Some((geo, _)) = self.geo.as_mut() {
            columns.extend(geo.finish());
        }
        let batch =
            RecordBatch::try_new(self.schema.clone(), columns).map_err(ApiError::internal)?;
        self.gathered = 0;
        self.hand(Piece::Batch(batch), out)
    }

    /// Hands a piece of the file to the encoder, and takes what it has encoded so far.
    fn hand(&mut self, piece: Piece, out: &mut Vec<u8>) -> Result<(), ApiError> {
        let sent = self.batches.as_ref().map(|b| b.send(piece));
        if !matches!(sent, Some(Ok(()))) {
            // An encoder's failure stops the reading: it is the cause to report.
            self.finish(out)?;
            return Err(ApiError::internal("the Parquet encoder stopped"));
        }
        out.extend(self.bytes.try_iter().flatten());
        Ok(())
    }

    /// Waits for the encoder to write the rest and the footer, and takes its bytes.
    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), ApiError> {
        self.batches = None;
        let encoder = self.encoder.take();
        let joined = encoder.map(|e| e.join());
        if let Some(joined) = joined {
            joined.map_err(|_| ApiError::internal("the Parquet encoder panicked"))??;
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
) -> Result<(), ApiError> {
    for piece in pieces {
        let batch = match piece {
            Piece::Batch(batch) => batch,
            Piece::Metadata(kv) => {
                writer.append_key_value_metadata(kv);
                continue;
            }
        };
        writer.write(&batch).map_err(ApiError::internal)?;
        let written = std::mem::take(writer.inner_mut());
        if !written.is_empty() && bytes.send(written).is_err() {
            return Ok(()); // the reader stopped: its error says why
        }
    }
    let mut rest = writer.into_inner().map_err(ApiError::internal)?;
    footer::type_defined_orders(&mut rest, leaves)
        .map_err(|footer::Unexpected(why)| ApiError::internal(format!("Parquet footer: {why}")))?;
    let _ = bytes.send(rest);
    Ok(())
}
