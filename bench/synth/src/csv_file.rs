//! The writer of a dataset's national file. What a file is comes from the catalogue: its name,
//! its columns in order, their published headers and how its text is quoted. A row is written by
//! walking the file's columns and asking the generated record for each column's value by name
//! (resolved once per file); a column the generator makes no value for, such as a vehicle class
//! added to the catalogue, is written empty.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use roadtraffic_catalog::{Column, Dataset, NationalFile, ValueType};

use crate::error::{io_err, SynthError};
use crate::report::FileSummary;
use crate::text::{push_text, Quote};

/// An enum of values a generated record holds, each named after the catalogue column it fills,
/// with `ALL` (every variant and its column, in order) and `of_column` (the variant of a column).
macro_rules! column_enum {
    (
        $(#[$doc:meta])*
        $vis:vis enum $name:ident { $($(#[$variant_doc:meta])* $variant:ident => $column:literal,)* }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $($(#[$variant_doc])* $variant,)*
        }

        impl $name {
            pub const ALL: &'static [($name, &'static str)] = &[$(($name::$variant, $column),)*];

            pub fn of_column(name: &str) -> Option<$name> {
                Self::ALL
                    .iter()
                    .find(|(_, column)| *column == name)
                    .map(|(variant, _)| *variant)
            }
        }
    };
}
pub(crate) use column_enum;

/// One of the values a generated record holds, named after the catalogue column it fills.
pub trait Field: Copy {
    /// The field that fills the column of this catalogue name, if the generator makes one.
    fn of_column(name: &str) -> Option<Self>;

    /// This field and the one of the next column as one field, where the record can write both
    /// (and the comma between them) at once, quoted as needed.
    fn followed_by(self, _next: Self) -> Option<Self> {
        None
    }
}

/// A generated row of a file, which gives its values to the file's columns by field.
pub trait Record {
    type Field: Field;
    /// Write the value of `field` (nothing where this row has none), its text quoted as `quote`.
    fn push(&self, field: Self::Field, quote: Quote, buf: &mut Vec<u8>);
}

/// A column of a file, resolved once: the field that fills it (None: it is written empty) and
/// how its text is quoted.
struct PlannedColumn<F> {
    field: Option<F>,
    quote: Quote,
}

/// The national file of a dataset the generator writes (every one it writes is published).
pub fn national_file(dataset: &'static Dataset) -> &'static NationalFile {
    dataset
        .national_file()
        .expect("the generator writes only published datasets")
}

/// The columns of a dataset's national file, in order.
pub fn national_columns(dataset: &'static Dataset) -> impl Iterator<Item = &'static Column> {
    national_file(dataset).columns().into_iter().map(|name| {
        dataset
            .column(name)
            .expect("a national file names columns of its dataset (a catalogue test checks it)")
    })
}

/// How a file quotes a column: a file that quotes all text quotes the columns the catalogue
/// types as text (numbers and dates are bare).
fn column_quote(quote_all_text: bool, column: &Column) -> Quote {
    if quote_all_text && column.ty == ValueType::Text {
        Quote::Always
    } else {
        Quote::AsNeeded
    }
}

/// A dataset's national file being written: rows are built in `buf` and flushed now and then.
pub struct CsvFile<F> {
    path: PathBuf,
    w: BufWriter<File>,
    buf: Vec<u8>,
    rows: u64,
    bytes: u64,
    /// The file's columns in order, resolved once so that a cell costs one match on its field.
    columns: Vec<PlannedColumn<F>>,
}

impl<F: Field> CsvFile<F> {
    /// Create the national file of `dataset` in `dir`, with its header of published names.
    pub fn create(dir: &Path, dataset: &'static Dataset) -> Result<Self, SynthError> {
        let file = national_file(dataset);
        let columns = national_columns(dataset);
        Self::with_columns(&dir.join(file.name), columns, file.quote_all_text)
    }

    /// Create a file of these columns and write its header.
    pub fn with_columns<'c>(
        path: &Path,
        columns: impl Iterator<Item = &'c Column>,
        quote_all_text: bool,
    ) -> Result<Self, SynthError> {
        let path = path.to_path_buf();
        let f = File::create(&path).map_err(io_err(&path))?;
        let mut out = CsvFile {
            path,
            w: BufWriter::with_capacity(1 << 20, f),
            buf: Vec::with_capacity(1024),
            rows: 0,
            bytes: 0,
            columns: Vec::new(),
        };
        let header_quote = if quote_all_text {
            Quote::Always
        } else {
            Quote::AsNeeded
        };
        for (i, column) in columns.enumerate() {
            if i > 0 {
                out.buf.push(b',');
            }
            push_text(&mut out.buf, column.published.as_bytes(), header_quote);
            out.plan(
                F::of_column(column.name),
                column_quote(quote_all_text, column),
            );
        }
        out.buf.push(b'\n');
        out.flush_buf()?;
        Ok(out)
    }

    /// Add the next column to the plan, joined to the one before where the record writes both
    /// at once (see [`Field::followed_by`]).
    fn plan(&mut self, field: Option<F>, quote: Quote) {
        if let (Some(before), Some(field)) = (self.columns.last_mut(), field) {
            let as_needed = before.quote == Quote::AsNeeded && quote == Quote::AsNeeded;
            let joined = before.field.and_then(|b| b.followed_by(field));
            if let (true, Some(joined)) = (as_needed, joined) {
                before.field = Some(joined);
                return;
            }
        }
        self.columns.push(PlannedColumn { field, quote });
    }

    /// Write a row: each column's value as the record gives it.
    pub fn write<R: Record<Field = F>>(&mut self, record: &R) -> Result<(), SynthError> {
        for (i, column) in self.columns.iter().enumerate() {
            if i > 0 {
                self.buf.push(b',');
            }
            if let Some(field) = column.field {
                record.push(field, column.quote, &mut self.buf);
            }
        }
        self.buf.push(b'\n');
        self.rows += 1;
        if self.buf.len() >= 64 * 1024 {
            self.flush_buf()?;
        }
        Ok(())
    }
}

impl<F> CsvFile<F> {
    fn flush_buf(&mut self) -> Result<(), SynthError> {
        self.w.write_all(&self.buf).map_err(io_err(&self.path))?;
        self.bytes += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }

    pub fn finish(mut self) -> Result<FileSummary, SynthError> {
        self.flush_buf()?;
        self.w.flush().map_err(io_err(&self.path))?;
        let file_name = self
            .path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(FileSummary {
            file_name,
            rows: self.rows,
            bytes: self.bytes,
        })
    }
}
