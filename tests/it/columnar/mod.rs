//! Issue 24: Parquet beside every download, and the stored files answered with byte ranges.
//! `values`: every Parquet file read back with the `parquet` crate equals its CSV form, cell
//! by cell, and a release loaded again from its own CSV files writes the same Parquet bytes;
//! `ranges`: the stored files' lengths, validators, ranges and conditional requests;
//! `big`: a release of megabytes (bodies of many chunks, Parquet of several row groups);
//! `store`: the files written once, whoever asks first, and shared between servers;
//! `clients`: DuckDB, pandas and polars query the files over HTTP as the README shows;
//! `wire`: the files sent by `sendfile` on kept-alive, pipelined and slow connections.
//! This file: reading Parquet and CSV bodies into rows that can be compared.

mod big;
mod clients;
mod geo;
mod geo_areas;
mod one_pass;
mod ranges;
mod store;
mod values;
mod wire;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Float64Type, Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::statistics::Statistics;

use crate::support::*;

/// A cell of a Parquet file, as read back.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Float(f64),
    /// A `Date32`, written back as `YYYY-MM-DD` by arrow's own conversion (not the server's).
    Date(String),
    Text(String),
}

/// A Parquet file read back whole: the columns of its CSV form, then (GeoParquet) each row's
/// point and covering box, if it has them.
pub struct Parquet {
    pub names: Vec<String>,
    pub types: Vec<DataType>,
    pub rows: Vec<Vec<Value>>,
    pub metadata: Arc<ParquetMetaData>,
    /// Each row's `geometry` (a WKB point) and `bbox`, when the file has them.
    pub places: Option<Vec<Place>>,
}

/// A row's geometry, read from its WKB, and its covering box; `None` where null.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Place {
    pub point: Option<(f64, f64)>,
    pub bbox: Option<[f64; 4]>,
}

/// The x and y of a WKB point (little-endian, type 1), checked to be one.
pub fn wkb_point(wkb: &[u8]) -> (f64, f64) {
    assert_eq!(wkb.len(), 21, "{wkb:?}");
    assert_eq!(wkb[..5], [1, 1, 0, 0, 0], "not a little-endian point");
    let double = |at: usize| f64::from_le_bytes(wkb[at..at + 8].try_into().unwrap());
    (double(5), double(13))
}

/// A row's place from the `geometry` and `bbox` columns.
fn place(geometry: &ArrayRef, bbox: &ArrayRef, row: usize) -> Place {
    let bbox = bbox.as_struct();
    let corner = |i: usize| bbox.column(i).as_primitive::<Float64Type>().value(row);
    Place {
        point: (!geometry.is_null(row)).then(|| wkb_point(geometry.as_binary::<i32>().value(row))),
        bbox: (!bbox.is_null(row)).then(|| [corner(0), corner(1), corner(2), corner(3)]),
    }
}

impl Parquet {
    pub fn read(bytes: &[u8]) -> Parquet {
        let builder =
            ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::copy_from_slice(bytes))
                .expect("a Parquet file");
        let metadata = builder.metadata().clone();
        let schema = builder.schema().clone();
        let geo = schema.index_of("geometry").ok();
        let columns = geo.unwrap_or(schema.fields().len());
        let mut rows = Vec::new();
        let mut places = geo.map(|_| Vec::new());
        for batch in builder.build().unwrap() {
            let batch = batch.expect("a readable row group");
            for row in 0..batch.num_rows() {
                let cells = batch.columns()[..columns].iter();
                rows.push(cells.map(|c| value(c, row)).collect());
                if let (Some(places), Some(at)) = (places.as_mut(), geo) {
                    places.push(place(batch.column(at), batch.column(at + 1), row));
                }
            }
        }
        let fields = &schema.fields()[..columns];
        Parquet {
            names: fields.iter().map(|f| f.name().clone()).collect(),
            types: fields.iter().map(|f| f.data_type().clone()).collect(),
            rows,
            metadata,
            places,
        }
    }

    /// The type of the column named `name`.
    pub fn type_of(&self, name: &str) -> &DataType {
        let at = self.position(name);
        &self.types[at]
    }

    pub fn position(&self, name: &str) -> usize {
        (self.names.iter().position(|n| n == name))
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.names))
    }
}

fn value(column: &ArrayRef, row: usize) -> Value {
    if column.is_null(row) {
        return Value::Null;
    }
    match column.data_type() {
        DataType::Int32 => Value::Int(column.as_primitive::<Int32Type>().value(row).into()),
        DataType::Int64 => Value::Int(column.as_primitive::<Int64Type>().value(row)),
        DataType::Float64 => Value::Float(column.as_primitive::<Float64Type>().value(row)),
        DataType::Date32 => Value::Date(
            (column.as_primitive::<Date32Type>().value_as_date(row))
                .expect("a calendar date")
                .to_string(),
        ),
        DataType::Utf8 => Value::Text(column.as_string::<i32>().value(row).to_string()),
        other => panic!("a column of an unexpected type: {other}"),
    }
}

/// A CSV file read with the `csv` crate: its header and its rows' cells as text.
pub struct Csv {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Csv {
    pub fn read(bytes: &[u8]) -> Csv {
        let mut reader = csv::Reader::from_reader(bytes);
        let header = reader.headers().unwrap().iter().map(String::from).collect();
        let rows = reader
            .records()
            .map(|r| r.unwrap().iter().map(String::from).collect())
            .collect();
        Csv { header, rows }
    }

    /// The rows in the order of a national or split Parquet file with places: count point by
    /// count point, in the order `file` has them, each count point's rows in id order (the
    /// order of the national CSV; a split CSV's may be the reverse); checked that the file
    /// has each count point's rows together.
    pub fn by_place_as(mut self, file: &Parquet, ids_descending: bool) -> Csv {
        let key = file.position("count_point_id");
        let mut rank = std::collections::HashMap::new();
        let mut last = None;
        for row in &file.rows {
            let Value::Int(id) = row[key] else {
                panic!("a count point of {:?}", row[key]);
            };
            if last != Some(id) {
                let next = rank.len();
                assert!(
                    rank.insert(id, next).is_none(),
                    "count point {id} in two runs"
                );
                last = Some(id);
            }
        }
        let at = self
            .header
            .iter()
            .position(|h| h == "count_point_id")
            .unwrap();
        if ids_descending {
            self.rows.reverse();
        }
        self.rows
            .sort_by_key(|row| rank.get(&row[at].parse::<i64>().unwrap()).copied());
        self
    }

    /// The rows in the national Parquet files' order: by place (`by_place_as`) for records
    /// with places; others by year, then local authority, each of those the file has (a
    /// stable sort keeps the CSV's id order within them, as the server's ties are broken by
    /// id).
    pub fn sorted_as_national_parquet(self, file: &Parquet) -> Csv {
        match file.places {
            Some(_) => self.by_place_as(file, false),
            None => self.sorted_by_year_and_authority(),
        }
    }

    fn sorted_by_year_and_authority(mut self) -> Csv {
        let keys: Vec<usize> = ["year", "local_authority_id"]
            .iter()
            .filter_map(|k| self.header.iter().position(|h| h == k))
            .collect();
        // An empty cell is SQL's NULL, first in an ascending order: None sorts first.
        let key = |row: &Vec<String>| -> Vec<Option<i64>> {
            keys.iter().map(|&k| row[k].parse().ok()).collect()
        };
        self.rows.sort_by_key(key);
        self
    }
}

/// Whether a Parquet cell says what the CSV cell says: whole numbers equal, decimals equal to
/// the CSV's text read as a double, dates and text equal, and null exactly where the CSV
/// cell is empty.
fn same_cell(value: &Value, csv: &str) -> bool {
    match value {
        Value::Null => csv.is_empty(),
        Value::Int(i) => csv.parse::<i64>() == Ok(*i),
        Value::Float(f) => csv.parse::<f64>() == Ok(*f),
        Value::Date(t) | Value::Text(t) => !csv.is_empty() && t == csv,
    }
}

/// Asserts that the Parquet file has the CSV's columns in its order and its rows in its order,
/// cell for cell; `what` names the files in the message.
pub fn assert_same_rows(parquet: &Parquet, csv: &Csv, what: &str) {
    assert_eq!(parquet.names, csv.header, "{what}: the columns");
    assert_eq!(parquet.rows.len(), csv.rows.len(), "{what}: the rows");
    assert_places_are_the_coordinates(parquet, what);
    for (at, (got, want)) in parquet.rows.iter().zip(&csv.rows).enumerate() {
        for ((value, cell), name) in got.iter().zip(want).zip(&csv.header) {
            assert!(
                same_cell(value, cell),
                "{what}: row {at}, column {name}: Parquet has {value:?}, the CSV {cell:?}"
            );
        }
    }
}

/// Asserts that a file whose columns have a longitude and a latitude has each row's point in
/// its geometry and its covering box, null where either is null; and that any other has no
/// geometry.
pub fn assert_places_are_the_coordinates(parquet: &Parquet, what: &str) {
    let at = |name: &str| {
        parquet
            .names
            .iter()
            .position(|n| n.eq_ignore_ascii_case(name))
    };
    let (Some(x), Some(y)) = (at("longitude"), at("latitude")) else {
        assert!(
            parquet.places.is_none(),
            "{what}: a geometry without coordinates"
        );
        return;
    };
    let places = parquet
        .places
        .as_ref()
        .unwrap_or_else(|| panic!("{what}: no geometry"));
    for (row, place) in parquet.rows.iter().zip(places) {
        let want = match (&row[x], &row[y]) {
            (Value::Float(x), Value::Float(y)) => Some((*x, *y)),
            _ => None,
        };
        assert_eq!(place.point, want, "{what}: {row:?}");
        assert_eq!(
            place.bbox,
            want.map(|(x, y)| [x, y, x, y]),
            "{what}: {row:?}"
        );
    }
}

/// The body of a download that must be there.
pub fn download(server: &TestServer, target: &str) -> Vec<u8> {
    let reply = get(server, target);
    assert_eq!(reply.status, 200, "{target}: {}", reply.text());
    reply.body
}

/// The national files' stems (`dft_traffic_counts_aadf`), one per published dataset.
pub fn national_stems() -> Vec<&'static str> {
    roadtraffic_catalog::published()
        .map(|d| {
            d.national_file()
                .unwrap()
                .name
                .strip_suffix(".csv")
                .unwrap()
        })
        .collect()
}

/// Asserts that each national Parquet file of the server holds its national CSV's rows;
/// gives each file's stem and its count of rows.
pub fn assert_national_parquet_is_the_csv(server: &TestServer) -> Vec<(&'static str, usize)> {
    let compared = national_stems().into_iter().map(|stem| {
        let parquet = Parquet::read(&download(server, &format!("/downloads/{stem}.parquet")));
        let csv = Csv::read(&download(server, &format!("/downloads/{stem}.csv")));
        let csv = csv.sorted_as_national_parquet(&parquet);
        assert_same_rows(&parquet, &csv, &format!("{stem}.parquet against .csv"));
        (stem, csv.rows.len())
    });
    compared.collect()
}

/// Each row group's (min, max) year, in file order, checked to be its rows' least and
/// greatest year.
pub fn year_bounds(file: &Parquet) -> Vec<(i64, i64)> {
    let year = file.position("year");
    let mut rows = file.rows.iter();
    let groups = file.metadata.row_groups().iter().map(|group| {
        let bounds = match group.column(year).statistics() {
            Some(Statistics::Int32(s)) => (*s.min_opt().unwrap(), *s.max_opt().unwrap()),
            other => panic!("no INT32 statistics of the year: {other:?}"),
        };
        let years = (rows.by_ref().take(group.num_rows() as usize)).map(|r| match r[year] {
            Value::Int(y) => y,
            ref other => panic!("a year of {other:?}"),
        });
        let (min, max) = years.fold((i64::MAX, i64::MIN), |(lo, hi), y| (lo.min(y), hi.max(y)));
        assert_eq!((i64::from(bounds.0), i64::from(bounds.1)), (min, max));
        (min, max)
    });
    let bounds = groups.collect();
    assert!(rows.next().is_none(), "rows outside the row groups");
    bounds
}
