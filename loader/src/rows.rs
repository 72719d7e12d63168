//! Reading the rows of one kind of file: each record's cells checked against their columns, the
//! row completed and checked as the catalogue declares, its key and id, then on to SQLite.

use roadtraffic_catalog::{Column, Dataset, Domain, Fill, Ids, Source};

use crate::cells::{Cells, RowProblem};
use crate::derived::{AreaPositions, Areas, Completions};
use crate::error::{FileRefusal, LoadError};
use crate::guard::StreamNotes;
use crate::input::{self, InputSource};
use crate::keys::{DuplicatePlaces, Keys};
use crate::options::LoadOptions;
use crate::places::{PlacePositions, PlaceSet};
use crate::recognise::{self, header_matches};
use crate::repeats::{Counts, Repeats};
use crate::report::{LoadReport, Problem, Progress, WarningKind};
use crate::runs::Runs;
use crate::value::{self, Value};
use crate::writer::{ToWriter, WriterLink, BATCH_ROWS};

/// Where the columns that the catalogue gives a behaviour sit in a dataset's rows.
struct RowLayout {
    id: usize,
    /// The column whose value is the id ([`Ids::Column`]).
    id_from: Option<usize>,
    /// Columns every row must have a value in: the key, and those declared filled.
    filled: Vec<(usize, &'static Column)>,
    /// Counts and totals: a negative one is kept, with a warning.
    counts: Vec<usize>,
    /// Hours: hour 0 is kept, with a warning.
    hours: Vec<usize>,
    /// (total, its parts).
    totals: Vec<(usize, Vec<usize>)>,
    /// (column, the column whose number 1..N gives its code, the codes).
    codes_of: Vec<(usize, usize, &'static [&'static str])>,
}

impl RowLayout {
    fn new(d: &Dataset) -> Self {
        let pos = |name: &str| d.position(name);
        let having = |keep: fn(&Column) -> bool| -> Vec<usize> {
            d.columns()
                .enumerate()
                .filter(|(_, c)| keep(c))
                .map(|(i, _)| i)
                .collect()
        };
        RowLayout {
            id: d
                .columns()
                .position(|c| c.source == Source::Id)
                .unwrap_or(0),
            id_from: d.id_column().and_then(pos),
            filled: d
                .columns()
                .enumerate()
                .filter(|(_, c)| c.filled || d.natural_key.contains(&c.name))
                .collect(),
            counts: having(|c| c.domain == Domain::Count),
            hours: having(|c| c.domain == Domain::Hour),
            totals: d
                .totals()
                .filter_map(|t| {
                    Some((
                        pos(t.total)?,
                        t.parts.iter().map(|p| pos(p)).collect::<Option<_>>()?,
                    ))
                })
                .collect(),
            codes_of: d
                .columns()
                .enumerate()
                .filter_map(|(i, c)| match c.fill {
                    Some(Fill::CodeOf { column, codes }) => Some((i, pos(column)?, codes)),
                    _ => None,
                })
                .collect(),
        }
    }

    /// Fills what a file leaves empty but another of the row's columns gives.
    fn fill(&self, row: &mut [Value]) {
        for &(at, from, codes) in &self.codes_of {
            if row[at] == Value::Null {
                let code = row[from]
                    .as_int()
                    .and_then(|i| usize::try_from(i - 1).ok())
                    .and_then(|i| codes.get(i));
                if let Some(code) = code {
                    row[at] = Value::Text((*code).into());
                }
            }
        }
    }

    fn missing_value(&self, row: &[Value]) -> Option<RowProblem> {
        self.filled
            .iter()
            .find(|(k, _)| row[*k] == Value::Null)
            .map(|(_, c)| {
                (
                    Some(c.name),
                    "no value, and every row needs one".to_string(),
                )
            })
    }

    /// Surprises that real releases contain: kept, and counted as warnings.
    fn warn_about(&self, row: &[Value], place: (&str, u64), report: &mut LoadReport) {
        let at = || format!("{}:{}", place.0, place.1);
        if self
            .counts
            .iter()
            .any(|&i| row[i].as_int().is_some_and(|v| v < 0))
        {
            report.warn(WarningKind::NegativeCount, &at(), None);
        }
        if self.hours.iter().any(|&h| row[h] == Value::Int(0)) {
            report.warn(WarningKind::HourZero, &at(), None);
        }
        for (total, parts) in &self.totals {
            let sum: Option<i64> = parts.iter().map(|&p| row[p].as_int()).sum();
            if let (Some(t), Some(s)) = (row[*total].as_int(), sum) {
                if t != s {
                    report.warn(WarningKind::TotalMismatch, &at(), None);
                    break;
                }
            }
        }
    }
}

/// Loads every file of one kind: ids, duplicate keys and bad rows are tracked across them.
pub struct TableLoader {
    dataset: &'static Dataset,
    skip_bad_rows: bool,
    keep_first: bool,
    max_record_bytes: u64,
    layout: RowLayout,
    area_pos: AreaPositions,
    place_pos: Option<PlacePositions>,
    cells: Cells,
    keys: Keys,
    runs: Runs,
    next_id: i64,
    rows: u64,
    files: usize,
    /// Values per row: every column of the dataset.
    width: usize,
    /// Rows read and kept, waiting to be sent to the SQLite thread, one after another; each
    /// row is read straight into it, and cut off again if it is not kept.
    batch: Vec<Value>,
    /// Rows read before, to count their repeats without reading them again.
    repeats: Repeats,
}

/// What the rows of every table feed besides their own table.
pub struct Sinks<'a> {
    pub link: &'a WriterLink,
    pub progress: &'a Progress,
    pub areas: &'a mut Areas,
    pub places: &'a mut PlaceSet,
    pub completions: &'a mut Completions,
    pub report: &'a mut LoadReport,
}

/// Rough bytes per row of a CSV file, to size the key set once rather than grow it.
const BYTES_PER_ROW: u64 = 150;

impl TableLoader {
    pub fn new(dataset: &'static Dataset, opts: &LoadOptions, bytes: u64) -> Self {
        TableLoader {
            dataset,
            skip_bad_rows: opts.skip_bad_rows,
            keep_first: opts.keep_first,
            max_record_bytes: opts.max_record_bytes,
            layout: RowLayout::new(dataset),
            area_pos: AreaPositions::new(dataset),
            place_pos: PlacePositions::new(dataset),
            cells: Cells::new(dataset),
            keys: Keys::new(dataset, (bytes / BYTES_PER_ROW) as usize),
            runs: Runs::new(dataset),
            next_id: 1,
            rows: 0,
            files: 0,
            width: dataset.columns().count(),
            batch: Vec::new(),
            repeats: Repeats::default(),
        }
    }

    /// Loads the rows of `source`, or of its bytes `already` read ahead.
    pub fn load_source(
        &mut self,
        source: &InputSource,
        already: Option<input::ReadAhead>,
        sinks: &mut Sinks,
    ) -> Result<(), LoadError> {
        let name = source.name();
        self.keys.start_file(name.clone());
        self.files += 1;
        input::with_reader(source, already, self.max_record_bytes, |reader| {
            let mut opened = recognise::read_header(source, reader)?;
            let mapping = self.map_columns(&name, &opened.headers, sinks.report);
            let fields = opened.headers.len();
            let mut record = csv::ByteRecord::new();
            self.repeats.start_source(&mapping);
            while read_record(&mut opened.rdr, &mut record, &name)? {
                let line = record.position().map_or(0, |p| p.line());
                if record.len() == 1 && record.get(0).is_some_and(|f| f.is_empty()) {
                    continue; // a blank line
                }
                if record.len() != fields {
                    if !sinks.report.reject_unlisted() {
                        let reason = format!(
                            "expected {fields} fields as in the header, found {}",
                            record.len()
                        );
                        sinks.report.reject(Problem::new(&name, line, None, reason));
                    }
                    continue;
                }
                if !self.repeats.again(&record, sinks.report, self.keep_first) {
                    let counts = Counts::of(sinks.report);
                    self.take_row(&record, &mapping, (&name, line), sinks)?;
                    self.repeats.taken(&record, counts.fate(sinks.report));
                }
                self.repeats.passed(&mut record);
                if self.batch.len() >= BATCH_ROWS * self.width {
                    let rows = (self.batch.len() / self.width) as u64;
                    self.flush(sinks.link)?;
                    sinks.progress.update(opened.rdr.position().byte(), rows);
                }
            }
            self.flush(sinks.link)?;
            sinks.progress.source_done(source.size);
            report_stream_notes(&name, &opened.notes.borrow(), sinks.report);
            Ok(())
        })
    }

    /// Reads a record into the batch as a row, and keeps it there if it is kept.
    fn take_row(
        &mut self,
        record: &csv::ByteRecord,
        mapping: &[Option<usize>],
        place: (&str, u64),
        sinks: &mut Sinks,
    ) -> Result<(), LoadError> {
        let mut batch = std::mem::take(&mut self.batch);
        if batch.capacity() == 0 {
            batch = sinks.link.empty_batch()?;
        }
        let start = batch.len();
        match self.read_row(record, mapping, place, sinks.report, &mut batch) {
            Ok(()) if self.accept(&mut batch[start..], place, sinks) => {}
            Ok(()) => batch.truncate(start),
            Err((column, reason)) => {
                batch.truncate(start);
                sinks
                    .report
                    .reject(Problem::new(place.0, place.1, column, reason));
            }
        }
        self.batch = batch;
        Ok(())
    }

    /// Where each of the dataset's columns is in the file (None: not there), noting the
    /// columns the file has that no record takes and the record columns it lacks.
    fn map_columns(
        &self,
        name: &str,
        headers: &[String],
        report: &mut LoadReport,
    ) -> Vec<Option<usize>> {
        let columns: Vec<&Column> = self.dataset.columns().collect();
        let ignored: Vec<String> = headers
            .iter()
            .filter(|h| !columns.iter().any(|c| header_matches(c, h)))
            .map(|h| value::shown(h))
            .collect();
        if !ignored.is_empty() {
            report.warn(WarningKind::IgnoredColumns, name, Some(list_cut(&ignored)));
        }
        let mapping: Vec<Option<usize>> = columns
            .iter()
            .map(|c| headers.iter().position(|h| header_matches(c, h)))
            .collect();
        for (c, m) in columns.iter().zip(&mapping) {
            if m.is_none() && matches!(c.source, Source::Csv(_)) && c.stored {
                report.warn(WarningKind::MissingColumn, name, Some(c.name.to_string()));
            }
        }
        mapping
    }

    /// A record's cells, parsed and checked against their columns, pushed onto `batch` as a
    /// row, completed and checked; or why it cannot be kept.
    fn read_row(
        &mut self,
        record: &csv::ByteRecord,
        mapping: &[Option<usize>],
        place: (&str, u64),
        report: &mut LoadReport,
        batch: &mut Vec<Value>,
    ) -> Result<(), RowProblem> {
        for (at, (c, m)) in self.dataset.columns().zip(mapping).enumerate() {
            batch.push(match m {
                Some(i) => self.cells.value(at, c, &record[*i], place, report)?,
                None => Value::Null,
            });
        }
        let start = batch.len() - self.width;
        let row = &mut batch[start..];
        self.layout.fill(row);
        match self.layout.missing_value(row) {
            Some(problem) => Err(problem),
            None => Ok(()),
        }
    }

    /// Takes a readable row: checks its key and gives it its id. False if it is not to be
    /// inserted (a duplicate, or the load is bound to fail).
    fn accept(&mut self, row: &mut [Value], place: (&str, u64), sinks: &mut Sinks) -> bool {
        let report = &mut *sinks.report;
        match self.keys.first_seen(row, place, report, self.keep_first) {
            Ok(true) => {}
            Ok(false) => return false,
            Err((column, reason)) => {
                report.reject(Problem::new(place.0, place.1, Some(column), reason));
                return false;
            }
        }
        self.layout.warn_about(row, place, report);
        let id = match (self.dataset.ids, self.layout.id_from) {
            (Ids::Column(_), Some(from)) => row[from].as_int().unwrap_or(0),
            _ => {
                self.next_id += 1;
                self.next_id - 1
            }
        };
        row[self.layout.id] = Value::Int(id);
        sinks.areas.observe(&self.area_pos, row);
        if let Some(positions) = &self.place_pos {
            sinks.places.observe(positions, row);
        }
        sinks.completions.observe(self.dataset, row);
        self.rows += 1;
        // Once the load is bound to fail, rows are only checked, not inserted.
        let kept = report.is_clean(self.skip_bad_rows, self.keep_first);
        if kept {
            self.runs.extend(id, row);
        }
        kept
    }

    fn flush(&mut self, link: &WriterLink) -> Result<(), LoadError> {
        if !self.batch.is_empty() {
            let values = std::mem::take(&mut self.batch);
            link.send(ToWriter::Rows {
                table: self.dataset,
                values,
            })?;
        }
        if let Some(runs) = self.runs.take(BATCH_ROWS) {
            link.send(ToWriter::Runs {
                table: self.dataset,
                runs,
            })?;
        }
        Ok(())
    }

    /// Gives this loader the batch buffer the loader of the table before ended with.
    pub fn with_buffer(mut self, buffer: Vec<Value>) -> Self {
        debug_assert!(buffer.is_empty());
        self.batch = buffer;
        self
    }

    /// The batch buffer this loader holds, empty, once its last rows were flushed: it holds one
    /// while the rows since the last flush were all refused (every row, once the load is bound
    /// to fail), and one of the few buffers dropped with each table would leave the reader
    /// waiting for ever for a buffer (seven tables after an early refusal did).
    pub fn take_buffer(&mut self) -> Vec<Value> {
        debug_assert!(self.batch.is_empty());
        std::mem::take(&mut self.batch)
    }

    /// Sends the last run, counts the rows, and hands over what is needed to name the first
    /// places of duplicates, if there were any.
    pub fn finish(
        mut self,
        link: &WriterLink,
        report: &mut LoadReport,
    ) -> Result<Option<DuplicatePlaces>, LoadError> {
        if let Some(runs) = self.runs.finish() {
            link.send(ToWriter::Runs {
                table: self.dataset,
                runs,
            })?;
        }
        if self.files > 0 {
            report.add_rows(self.dataset.table, self.rows);
            log::info!("{}: {} rows", self.dataset.table, self.rows);
        }
        Ok(self.keys.finish())
    }
}

/// The next record, false at the end of the file.
fn read_record<R: std::io::Read>(
    rdr: &mut csv::Reader<R>,
    record: &mut csv::ByteRecord,
    name: &str,
) -> Result<bool, FileRefusal> {
    rdr.read_byte_record(record)
        .map_err(|e| recognise::stream_error(name, &e))
}

/// A list of names, the first ten and how many more.
fn list_cut(names: &[String]) -> String {
    let mut out = names
        .iter()
        .take(10)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > 10 {
        out.push_str(&format!(" and {} more", names.len() - 10));
    }
    out
}

/// Warnings for what the stream guard saw in a whole file.
fn report_stream_notes(name: &str, notes: &StreamNotes, report: &mut LoadReport) {
    for line in &notes.text_after_quote {
        report.warn(WarningKind::TextAfterQuote, &format!("{name}:{line}"), None);
    }
    let unlisted = notes.text_after_quote_count - notes.text_after_quote.len() as u64;
    for _ in 0..unlisted {
        report.warn(WarningKind::TextAfterQuote, name, None);
    }
    if let Some(line) = notes.unterminated_last_line {
        report.warn(WarningKind::NoFinalLineEnd, &format!("{name}:{line}"), None);
    }
}
