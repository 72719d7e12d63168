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

pub use column::Kind;
use column::{Builder, Misfit};

use super::layout::{AreaNames, Layout};
use crate::error::ApiError;

/// Rows per row group. Measured on the full-size release (BENCHMARKS.md): small enough that
/// a filter on the sort keys (year, then local authority) skips most groups by their min/max
/// statistics, big enough that the footer stays small and zstd finds its repeats.
const ROW_GROUP_ROWS: usize = 65_536;

/// Rows per Arrow batch handed to the writer.
const BATCH_ROWS: usize = 8_192;

/// How the file is written: zstd (level 3), chosen by measurement over snappy (BENCHMARKS.md);
/// statistics per page, so readers that use page indexes skip pages too; the sort the rows
/// are in, when they are sorted, declared for engines that use it.
fn properties(sorted_by: &[usize]) -> Result<WriterProperties, ApiError> {
    let level = ZstdLevel::try_new(3).map_err(ApiError::internal)?;
    let sorting = sorted_by.iter().map(|&at| SortingColumn {
        column_idx: at as i32,
        descending: false,
        nulls_first: true,
    });
    Ok(WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_sorting_columns(Some(sorting.collect()).filter(|s: &Vec<_>| !s.is_empty()))
        .build())
}

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
pub fn write(
    rows: &mut rusqlite::Rows,
    layout: &Layout,
    areas: &AreaNames,
    sorted_by: &[usize],
    out: &mut dyn Write,
) -> Result<(), ApiError> {
    let schema = Arc::new(schema(layout));
    let kinds: Vec<Kind> = (layout.cells.iter().zip(&layout.columns))
        .map(|(cell, column)| Kind::of(cell, *column))
        .collect();
    let mut builders: Vec<Builder> = kinds.iter().map(|k| Builder::new(*k, BATCH_ROWS)).collect();
    // The writer writes into a buffer that is emptied into `out` after each batch: `out` (a
    // response body) need not be `Send`, as the writer wants.
    let mut writer = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(properties(sorted_by)?))
        .map_err(ApiError::internal)?;
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
            write_batch(&mut writer, &schema, &mut builders, out)?;
            gathered = 0;
        }
    }
    if gathered > 0 {
        write_batch(&mut writer, &schema, &mut builders, out)?;
    }
    let rest = writer.into_inner().map_err(ApiError::internal)?;
    out.write_all(&rest).map_err(|_| ApiError::ClientGone)
}

fn write_batch(
    writer: &mut ArrowWriter<Vec<u8>>,
    schema: &Arc<Schema>,
    builders: &mut [Builder],
    out: &mut dyn Write,
) -> Result<(), ApiError> {
    let columns = builders.iter_mut().map(Builder::finish).collect();
    let batch = RecordBatch::try_new(schema.clone(), columns).map_err(ApiError::internal)?;
    writer.write(&batch).map_err(ApiError::internal)?;
    let written = std::mem::take(writer.inner_mut());
    out.write_all(&written).map_err(|_| ApiError::ClientGone)
}
