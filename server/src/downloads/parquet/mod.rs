//! Parquet: the rows of a download (a national file, a split file or a listing) as a typed,
//! columnar file, written with the Apache Arrow project's `parquet` crate. The columns are the
//! CSV download's, in its order and under its headers; their types come from the catalogue
//! (`column.rs`). Rows are gathered into Arrow batches and handed to the writer, whose bytes
//! go out as each row group is finished: memory holds one row group, whatever the file's size.

mod column;

use std::io::Write;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::Schema;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::SortingColumn;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

pub use column::Kind;
use column::{Builder, Misfit};

use super::layout::{AreaNames, Layout};
use crate::error::ApiError;

/// Rows per row group, about DuckDB's own (122,880): on the full-size release a year of raw
/// counts is one or two groups, so a filter on the sort keys (year, then local authority)
/// skips most groups by their min/max statistics; 65,536 made AADF's file 14% bigger
/// (BENCHMARKS.md).
const ROW_GROUP_ROWS: usize = 131_072;

/// Rows per Arrow batch handed to the writer.
const BATCH_ROWS: usize = 8_192;

/// How the file is written: zstd (level 3), chosen by measurement over snappy (BENCHMARKS.md);
/// statistics per page, so readers that use page indexes skip pages too; the sort the rows
/// are in, when they are sorted, declared for engines that use it.
fn properties(layout: &Layout, sorted_by: &[usize]) -> Result<WriterProperties, ApiError> {
    let level = ZstdLevel::try_new(3).map_err(ApiError::internal)?;
    let sorting = sorted_by.iter().map(|&at| SortingColumn {
        column_idx: at as i32,
        descending: false,
        nulls_first: true,
    });
    let mut properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_sorting_columns(Some(sorting.collect()).filter(|s: &Vec<_>| !s.is_empty()));
    let looked_up = layout.columns.iter().zip(&layout.headers);
    for (_, header) in looked_up.filter(|(c, _)| c.is_some_and(|c| BLOOM.contains(&c.name))) {
        let path = ColumnPath::from(header.as_str());
        properties = properties
            .set_column_bloom_filter_enabled(path.clone(), true)
            .set_column_bloom_filter_fpp(path.clone(), 0.01)
            .set_column_bloom_filter_max_ndv(path, BLOOM_DISTINCT);
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

/// The Arrow schema of a layout: its headers, each with its column's type.
pub fn schema(layout: &Layout) -> Schema {
    let fields = layout
        .cells
        .iter()
        .zip(&layout.columns)
        .zip(&layout.headers);
    Schema::new(
        fields
            .map(|((cell, column), name)| Kind::of(cell, *column).field(name))
            .collect::<Vec<_>>(),
    )
}

/// Writes every row `rows` gives, read through `layout`, as one Parquet file into `out`.
/// `sorted_by`: the positions of the layout's cells the rows are sorted by, if any.
///
/// Two threads: this one reads the rows into Arrow batches, another encodes and compresses
/// them (about as much work again), and their bytes come back here to be written to `out`
/// (a response body need not be `Send`, as the writer wants).
pub fn write(
    rows: &mut rusqlite::Rows,
    layout: &Layout,
    areas: &AreaNames,
    sorted_by: &[usize],
    out: &mut dyn Write,
) -> Result<(), ApiError> {
    let schema = Arc::new(schema(layout));
    let writer = ArrowWriter::try_new(
        Vec::new(),
        schema.clone(),
        Some(properties(layout, sorted_by)?),
    )
    .map_err(ApiError::internal)?;
    let (batches, to_encode) = std::sync::mpsc::sync_channel::<RecordBatch>(2);
    let (encoded, bytes) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::scope(|scope| {
        let encoder = scope.spawn(move || encode(writer, &to_encode, &encoded));
        let send = |batch| {
            batches
                .send(batch)
                .map_err(|_| ApiError::internal("the Parquet encoder stopped"))?;
            bytes
                .try_iter()
                .try_for_each(|b| out.write_all(&b))
                .map_err(|_| ApiError::ClientGone)
        };
        let read = gather(rows, layout, areas, &schema, send);
        drop(batches);
        let encoded = encoder
            .join()
            .map_err(|_| ApiError::internal("the Parquet encoder panicked"))?;
        // An encoder's failure stops the reading: it is the cause to report.
        encoded.and(read)?;
        bytes
            .try_iter()
            .try_for_each(|b| out.write_all(&b))
            .map_err(|_| ApiError::ClientGone)
    })
}

/// Reads every row into batches of [`BATCH_ROWS`], each handed to `send`.
fn gather(
    rows: &mut rusqlite::Rows,
    layout: &Layout,
    areas: &AreaNames,
    schema: &Arc<Schema>,
    mut send: impl FnMut(RecordBatch) -> Result<(), ApiError>,
) -> Result<(), ApiError> {
    let kinds = layout.cells.iter().zip(&layout.columns);
    let mut builders: Vec<Builder> = kinds
        .map(|(cell, column)| Builder::new(Kind::of(cell, *column), BATCH_ROWS))
        .collect();
    let batch = |builders: &mut [Builder]| {
        let columns = builders.iter_mut().map(Builder::finish).collect();
        RecordBatch::try_new(schema.clone(), columns).map_err(ApiError::internal)
    };
    let mut gathered = 0;
    while let Some(row) = rows.next()? {
        for ((cell, builder), name) in layout.cells.iter().zip(&mut builders).zip(&layout.headers) {
            let value = cell.read(row, areas)?;
            builder.append(value).map_err(|Misfit(why)| {
                ApiError::internal(format!("Parquet column {name}: {why}"))
            })?;
        }
        gathered += 1;
        if gathered == BATCH_ROWS {
            send(batch(&mut builders)?)?;
            gathered = 0;
        }
    }
    if gathered > 0 {
        send(batch(&mut builders)?)?;
    }
    Ok(())
}

/// Encodes each batch received, sending on the bytes written so far; the footer last.
fn encode(
    mut writer: ArrowWriter<Vec<u8>>,
    batches: &std::sync::mpsc::Receiver<RecordBatch>,
    bytes: &std::sync::mpsc::Sender<Vec<u8>>,
) -> Result<(), ApiError> {
    for batch in batches {
        writer.write(&batch).map_err(ApiError::internal)?;
        let written = std::mem::take(writer.inner_mut());
        if !written.is_empty() && bytes.send(written).is_err() {
            return Ok(()); // the reader stopped: its error says why
        }
    }
    let rest = writer.into_inner().map_err(ApiError::internal)?;
    let _ = bytes.send(rest);
    Ok(())
}
