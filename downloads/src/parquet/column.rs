//! A Parquet column of a download: its type, chosen from the catalogue's description of the
//! column, and the Arrow builder that gathers its values row by row.

use std::sync::Arc;

use arrow_array::builder::{
    Date32Builder, Float64Builder, Int32Builder, Int64Builder, StringBuilder,
};
use arrow_array::ArrayRef;
use arrow_schema::{DataType, Field};

use roadtraffic_catalog::{dates, Column, Domain, ValueType};

use crate::file_layout::{Cell, CellValue};

/// The Parquet (Arrow) type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Whole numbers whose domain fits 32 bits: ids, years, hours, eastings.
    Int32,
    /// Counts and totals (GB's yearly vehicle miles pass 2^32).
    Int64,
    /// Decimals, including those the files give as text to keep their digits (latitude).
    Float64,
    /// `YYYY-MM-DD`, as days since 1970-01-01.
    Date,
    /// Text, dictionary-encoded by the writer.
    Text,
}

impl Kind {
    /// The type of a cell of this catalogue column (`None`: `distance_m`).
    pub fn of(cell: &Cell, column: Option<&Column>) -> Kind {
        match (cell, column) {
            (Cell::Area(..), _) => Kind::Text,
            (Cell::CodeNumber { .. }, _) => Kind::Int32,
            (Cell::Distance(_), _) | (_, None) => Kind::Float64,
            (Cell::Stored(_), Some(c)) => Kind::of_column(c),
        }
    }

    fn of_column(c: &Column) -> Kind {
        let fits = |min: i64, max: i64| min >= i32::MIN.into() && max <= i32::MAX.into();
        match (c.ty, c.domain) {
            (ValueType::Date, _) | (_, Domain::Date) => Kind::Date,
            (_, Domain::Decimal { .. }) | (ValueType::Number, _) => Kind::Float64,
            (ValueType::Integer, Domain::Whole { min, max }) if fits(min, max) => Kind::Int32,
            (ValueType::Integer, Domain::Hour | Domain::Year) => Kind::Int32,
            (ValueType::Integer, _) => Kind::Int64,
            (ValueType::Text, _) => Kind::Text,
        }
    }

    fn data_type(self) -> DataType {
        match self {
            Kind::Int32 => DataType::Int32,
            Kind::Int64 => DataType::Int64,
            Kind::Float64 => DataType::Float64,
            Kind::Date => DataType::Date32,
            Kind::Text => DataType::Utf8,
        }
    }

    /// The Arrow field of a column of this type named `name`; every column may be null (an
    /// empty cell of the CSV).
    pub fn field(self, name: &str) -> Field {
        Field::new(name, self.data_type(), true)
    }
}

/// The values of one column of the batch being gathered.
pub enum Builder {
    Int32(Int32Builder),
    Int64(Int64Builder),
    Float64(Float64Builder),
    Date(Date32Builder),
    Text(StringBuilder),
}

/// A value that does not fit its column's type: the file breaks the catalogue's promise.
#[derive(Debug)]
pub struct Misfit(pub String);

impl Builder {
    pub fn new(kind: Kind, capacity: usize) -> Builder {
        match kind {
            Kind::Int32 => Builder::Int32(Int32Builder::with_capacity(capacity)),
            Kind::Int64 => Builder::Int64(Int64Builder::with_capacity(capacity)),
            Kind::Float64 => Builder::Float64(Float64Builder::with_capacity(capacity)),
            Kind::Date => Builder::Date(Date32Builder::with_capacity(capacity)),
            Kind::Text => Builder::Text(StringBuilder::with_capacity(capacity, capacity * 8)),
        }
    }

    pub fn append(&mut self, value: CellValue) -> Result<(), Misfit> {
        // A decimal is read as its text is: a number where the column has numbers.
        let value = match value {
            CellValue::Decimal(d) => CellValue::Text(d.as_bytes()),
            other => other,
        };
        match self {
            Builder::Int32(b) => b.append_option(
                integer(value)?
                    .map(i32::try_from)
                    .transpose()
                    .map_err(|_| misfit(value, "a 32-bit integer"))?,
            ),
            Builder::Int64(b) => b.append_option(integer(value)?),
            Builder::Float64(b) => b.append_option(float(value)?),
            Builder::Date(b) => b.append_option(date(value)?),
            Builder::Text(b) => match value {
                CellValue::Null => b.append_null(),
                CellValue::Text(t) => b.append_value(String::from_utf8_lossy(t)),
                CellValue::Integer(i) => b.append_value(i.to_string()),
                CellValue::Real(f) => b.append_value(f.to_string()),
                CellValue::Decimal(d) => b.append_value(d),
            },
        }
        Ok(())
    }

    /// The values gathered since the last call, as an array; the builder starts again empty.
    pub fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Int32(b) => Arc::new(b.finish()),
            Builder::Int64(b) => Arc::new(b.finish()),
            Builder::Float64(b) => Arc::new(b.finish()),
            Builder::Date(b) => Arc::new(b.finish()),
            Builder::Text(b) => Arc::new(b.finish()),
        }
    }
}

fn misfit(value: CellValue, wanted: &str) -> Misfit {
    let shown = match value {
        CellValue::Text(t) => format!("{:?}", String::from_utf8_lossy(t)),
        other => format!("{other:?}"),
    };
    Misfit(format!("{shown} is not {wanted}"))
}

fn integer(value: CellValue) -> Result<Option<i64>, Misfit> {
    match value {
        CellValue::Null => Ok(None),
        CellValue::Integer(i) => Ok(Some(i)),
        CellValue::Real(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Ok(Some(f as i64)),
        CellValue::Text(t) => std::str::from_utf8(t)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .map(Some)
            .ok_or_else(|| misfit(value, "an integer")),
        CellValue::Real(_) | CellValue::Decimal(_) => Err(misfit(value, "an integer")),
    }
}

pub fn float(value: CellValue) -> Result<Option<f64>, Misfit> {
    match value {
        CellValue::Null => Ok(None),
        CellValue::Integer(i) => Ok(Some(i as f64)),
        CellValue::Real(f) => Ok(Some(f)),
        CellValue::Text(t) => std::str::from_utf8(t)
            .ok()
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|f| f.is_finite())
            .map(Some)
            .ok_or_else(|| misfit(value, "a number")),
        CellValue::Decimal(d) => d.parse().map(Some).map_err(|_| misfit(value, "a number")),
    }
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` date (the loader keeps dates so), by the
/// catalogue's calendar.
fn date(value: CellValue) -> Result<Option<i32>, Misfit> {
    let CellValue::Text(t) = value else {
        return match value {
            CellValue::Null => Ok(None),
            _ => Err(misfit(value, "a date")),
        };
    };
    let parts = std::str::from_utf8(t).ok().and_then(|s| {
        let mut it = s.splitn(3, '-').map(|p| p.parse::<i64>().ok());
        Some((it.next()??, it.next()??, it.next()??))
    });
    match parts {
        Some((y, m, d))
            if (1..=12).contains(&m) && (1..=dates::days_in_month(y, m)).contains(&d) =>
        {
            let days = i32::try_from(dates::days_from_civil(y, m, d));
            days.map(Some)
                .map_err(|_| misfit(value, "a date of 32-bit days"))
        }
        _ => Err(misfit(value, "a date")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_is_not_a_date_is_a_misfit() {
        assert!(date(CellValue::Text(b"2019-13-01")).is_err());
        assert!(date(CellValue::Text(b"2019-02-29")).is_err());
        assert!(date(CellValue::Text(b"2019-06")).is_err());
        assert_eq!(date(CellValue::Text(b"2019-06-14")).unwrap(), Some(18_061));
    }
}
