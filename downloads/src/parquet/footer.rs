//! The footer's column orders, rewritten so that every reader trusts the DOUBLE statistics.
//!
//! parquet-rs 60 declares `IEEE_754_TOTAL_ORDER` (PARQUET-2249, 2025) for every FLOAT and
//! DOUBLE column, and has no setting to declare anything else. pyarrow 26 does not know that
//! order, so it drops those columns' min/max (`has_min_max` false), and GeoPandas'
//! `read_parquet(bbox=...)` or a pyarrow filter on `latitude` then reads every row group.
//! Declared as `TYPE_DEFINED_ORDER` (the order every reader knows; for doubles, signed, NaN
//! ignored), the same statistics are read by all: they hold no NaN (the files' doubles are
//! numbers from text, never NaN) and a -0.0 is as good as a 0.0 to a reader that prunes.
//!
//! The column orders are the last field of the footer's `FileMetaData` (Thrift compact),
//! written by the crate in one piece after every page; each order is a union of one empty
//! struct, three bytes whatever its kind, so the footer keeps its length and only one byte of
//! each DOUBLE column's order changes.

/// A union's first byte when it holds `TYPE_DEFINED_ORDER` (field 1, a struct) and when it holds
/// `IEEE_754_TOTAL_ORDER` (field 2).
const TYPE_DEFINED: u8 = 0x1C;
const TOTAL_ORDER: u8 = 0x2C;
const INT96_ORDER: u8 = 0x3C;

/// Why a footer could not be rewritten: a writer that no longer writes it as described above.
#[derive(Debug)]
pub struct Unexpected(pub &'static str);

/// Rewrites the column orders of the footer at the end of `tail` (the last bytes of a file,
/// those the writer wrote when it closed it), which has `leaves` leaf columns, to
/// `TYPE_DEFINED_ORDER`; gives how many it changed.
pub fn type_defined_orders(tail: &mut [u8], leaves: usize) -> Result<usize, Unexpected> {
    let end = tail.len();
    if end < 8 || &tail[end - 4..] != b"PAR1" {
        return Err(Unexpected("no PAR1 at the end"));
    }
    let length = u32::from_le_bytes(tail[end - 8..end - 4].try_into().unwrap_or_default());
    let footer_end = end - 8;
    let footer_start = (footer_end.checked_sub(length as usize)).ok_or(Unexpected(
        "a footer longer than the bytes written at the close",
    ))?;
    let footer = &mut tail[footer_start..footer_end];
    let orders_end = footer
        .len()
        .checked_sub(1)
        .ok_or(Unexpected("an empty footer"))?;
    if footer[orders_end] != 0 {
        return Err(Unexpected("a footer that does not end its struct"));
    }
    let orders_start = (orders_end.checked_sub(3 * leaves))
        .ok_or(Unexpected("a footer shorter than its column orders"))?;
    if !list_header_ends_at(&footer[..orders_start], leaves) {
        return Err(Unexpected("no list of column orders last in the footer"));
    }
    let mut changed = 0;
    for order in footer[orders_start..orders_end].chunks_exact_mut(3) {
        match order {
            [TOTAL_ORDER, 0, 0] => {
                order[0] = TYPE_DEFINED;
                changed += 1;
            }
            [TYPE_DEFINED | INT96_ORDER, 0, 0] => {}
            _ => return Err(Unexpected("a column order that is not an empty struct")),
        }
    }
    Ok(changed)
}

/// Whether `before` ends with field 7's header (a list, after field 4, 5 or 6) and a list
/// header of `count` structs.
fn list_header_ends_at(before: &[u8], count: usize) -> bool {
    let mut header = Vec::new();
    if count < 15 {
        header.push(((count as u8) << 4) | 0x0C);
    } else {
        header.push(0xFC);
        let mut rest = count;
        loop {
            let byte = (rest & 0x7F) as u8;
            rest >>= 7;
            if rest == 0 {
                header.push(byte);
                break;
            }
            header.push(byte | 0x80);
        }
    }
    let Some(field_at) = before.len().checked_sub(header.len() + 1) else {
        return false;
    };
    let field = before[field_at];
    let list_field = matches!(field, 0x19 | 0x29 | 0x39);
    list_field && before[field_at + 1..] == header[..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow_array::{Float64Array, Int32Array, RecordBatch};
    use arrow_schema::{DataType, Field, Schema};
    use parquet::arrow::ArrowWriter;
    use parquet::basic::{ColumnOrder, SortOrder};
    use parquet::file::reader::{FileReader, SerializedFileReader};

    fn file(columns: usize) -> Vec<u8> {
        let fields = (0..columns).map(|i| match i % 2 {
            0 => Field::new(format!("d{i}"), DataType::Float64, true),
            _ => Field::new(format!("i{i}"), DataType::Int32, true),
        });
        let schema = Arc::new(Schema::new(fields.collect::<Vec<_>>()));
        let arrays = (0..columns).map(|i| match i % 2 {
            0 => Arc::new(Float64Array::from(vec![-1.5, 2.0])) as _,
            _ => Arc::new(Int32Array::from(vec![3, 4])) as _,
        });
        let batch = RecordBatch::try_new(schema.clone(), arrays.collect()).unwrap();
        let mut writer = ArrowWriter::try_new(Vec::new(), schema, None).unwrap();
        writer.write(&batch).unwrap();
        writer.into_inner().unwrap()
    }

    /// Rewritten, the file is read back whole by the crate, its DOUBLE columns in the type's
    /// own order; a list of 15 columns or more has a longer header.
    #[test]
    fn the_double_columns_are_declared_in_the_type_defined_order() {
        for columns in [3, 30] {
            let mut bytes = file(columns);
            let changed = type_defined_orders(&mut bytes, columns).unwrap();
            assert_eq!(changed, columns.div_ceil(2));
            let reader = SerializedFileReader::new(bytes::Bytes::from(bytes)).unwrap();
            let orders = reader.metadata().file_metadata().column_orders().unwrap();
            let signed = ColumnOrder::TYPE_DEFINED_ORDER(SortOrder::SIGNED);
            assert!(orders.iter().all(|o| *o == signed), "{orders:?}");
            let stats = reader.metadata().row_group(0).column(0).statistics();
            assert!(stats.is_some_and(|s| s.min_bytes_opt().is_some()));
        }
    }

    #[test]
    fn a_footer_of_another_shape_is_refused_unchanged() {
        let mut bytes = file(3);
        let before = bytes.clone();
        assert!(type_defined_orders(&mut bytes, 4).is_err());
        assert_eq!(bytes, before);
        assert!(type_defined_orders(&mut bytes[..10], 3).is_err());
    }
}
