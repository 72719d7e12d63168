//! Reading the rows of one kind of file: header mapping, cell checks, natural keys, ids.

use std::cell::RefCell;
use std::io::Read;
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::areas::{AadfPoints, Areas};
use crate::guard::{self, StreamNotes};
use crate::input::{self, InputSource, SourceReader};
use crate::report::{self, LoadReport, Problem, Progress, WarningKind};
use crate::value::{self, Notes, Value};
use crate::{LoadError, LoadOptions, ToWriter, WriterLink, BATCH_ROWS};
use roadtraffic_catalog::{self as catalog, Column, Dataset, Source, ValueType};

/// A source opened for its rows: the parser past the header, the header's names, and what
/// the stream guard notes.
pub struct Opened<'r> {
    rdr: csv::Reader<Box<dyn Read + 'r>>,
    pub headers: Vec<String>,
    notes: Rc<RefCell<StreamNotes>>,
}

/// How far into a source the kind of file is sniffed from.
const SNIFFED_BYTES: u64 = 512;

/// Reads a source's header (after checking it is CSV at all) and gives back the parser
/// positioned on the first row. A header of tabs without commas is a tab-separated file (what
/// a spreadsheet's "Unicode text" export writes).
pub fn read_header<'r>(
    source: &InputSource,
    reader: SourceReader<'r>,
) -> Result<Opened<'r>, String> {
    let name = source.name();
    let mut head = Vec::with_capacity(SNIFFED_BYTES as usize);
    let mut stream = reader.reader;
    (&mut stream)
        .take(SNIFFED_BYTES)
        .read_to_end(&mut head)
        .map_err(|e| stream_error(&name, &csv::Error::from(e)))?;
    if let Some(what) = input::sniff_not_csv(&head) {
        return Err(format!("{name}: refused: this file is {what}"));
    }
    let first_line = &head[..memchr::memchr(b'\n', &head).unwrap_or(head.len())];
    let tabs = first_line.contains(&b'\t') && !first_line.contains(&b',');
    let chained: Box<dyn Read + 'r> = Box::new(std::io::Cursor::new(head).chain(stream));
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(if tabs { b'\t' } else { b',' })
        .buffer_capacity(1 << 20)
        .from_reader(chained);
    let mut record = csv::ByteRecord::new();
    match rdr.read_byte_record(&mut record) {
        Ok(true) => {}
        Ok(false) => return Err(format!("{name}: refused: the file is empty")),
        Err(e) => return Err(stream_error(&name, &e)),
    }
    let headers: Vec<String> = record
        .iter()
        .map(|h| input::normalise_header(&value::decode(h).0))
        .collect();
    if let Some((first, second)) = repeated(&headers) {
        return Err(format!(
            "{name}:1: refused: the header names {} twice (columns {} and {})",
            value::shown(&headers[first]),
            first + 1,
            second + 1
        ));
    }
    Ok(Opened {
        rdr,
        headers,
        notes: reader.notes,
    })
}

/// The first two positions of a header name given twice (empty names aside).
fn repeated(headers: &[String]) -> Option<(usize, usize)> {
    headers.iter().enumerate().find_map(|(i, h)| {
        let again = headers[i + 1..]
            .iter()
            .position(|g| g == h && !h.is_empty())?;
        Some((i, i + 1 + again))
    })
}

/// A read that failed, as `file:line: reason`.
fn stream_error(name: &str, e: &csv::Error) -> String {
    if let Some(long) = guard::record_too_long(e) {
        return format!("{name}:{}: {long}", long.line);
    }
    let line = e.position().map_or(0, |p| p.line());
    match e.kind() {
        csv::ErrorKind::Io(io) => format!("{name}:{line}: unreadable: {io}"),
        _ => format!("{name}:{line}: unreadable CSV: {e}"),
    }
}

/// Recognises the kind of every source; refuses the load naming every file it cannot take
/// (the first few, and how many more).
pub fn classify(
    sources: &[InputSource],
    max_record_bytes: u64,
) -> Result<Vec<&'static Dataset>, LoadError> {
    let mut kinds = Vec::new();
    let mut refusals = Vec::new();
    for source in sources {
        let kind = input::with_reader(source, max_record_bytes, |r| {
            Ok(read_header(source, r)
                .and_then(|opened| input::recognise(&source.name(), &opened.headers)))
        })?;
        match kind {
            Ok(k) => kinds.push(k),
            Err(message) => refusals.push(message),
        }
    }
    if refusals.is_empty() {
        return Ok(kinds);
    }
    let mut message = String::new();
    report::listed(&mut message, "Files refused", &refusals);
    Err(LoadError::Refused(message.trim_end().to_string()))
}

/// Where the columns the loader treats specially sit in a dataset's rows.
struct Positions {
    id: usize,
    count_point_id: Option<usize>,
    hour: Option<usize>,
    road_category: Option<usize>,
    road_category_id: Option<usize>,
    key: Vec<(usize, &'static Column)>,
    /// Columns every row must have a value in: the key, and those declared filled.
    filled: Vec<(usize, &'static Column)>,
    runs: Vec<usize>,
    counts: Vec<usize>,
    /// (total, its parts): totals that usually equal the sum of their parts.
    totals: Vec<(usize, Vec<usize>)>,
}

const HGV_PARTS: [&str; 6] = [
    "hgvs_2_rigid_axle",
    "hgvs_3_rigid_axle",
    "hgvs_4_or_more_rigid_axle",
    "hgvs_3_or_4_articulated_axle",
    "hgvs_5_articulated_axle",
    "hgvs_6_articulated_axle",
];
const MOTOR_PARTS: [&str; 5] = [
    "two_wheeled_motor_vehicles",
    "cars_and_taxis",
    "buses_and_coaches",
    "lgvs",
    "all_hgvs",
];

impl Positions {
    fn new(d: &Dataset) -> Self {
        let pos = |name: &str| d.columns().position(|c| c.name == name);
        let parts = |names: &[&str]| names.iter().map(|n| pos(n)).collect::<Option<Vec<usize>>>();
        let mut totals = Vec::new();
        for (total, names) in [
            ("all_hgvs", &HGV_PARTS[..]),
            ("all_motor_vehicles", &MOTOR_PARTS[..]),
        ] {
            if let (Some(t), Some(p)) = (pos(total), parts(names)) {
                totals.push((t, p));
            }
        }
        let counts = catalog::AADF
            .columns()
            .skip_while(|c| c.name != "pedal_cycles")
            .take_while(|c| c.stored)
            .filter_map(|c| pos(c.name))
            .collect();
        let located = |name: &&str| {
            let at = pos(name).expect("catalogue column");
            (at, d.columns().nth(at).expect("column"))
        };
        Positions {
            id: pos("id").expect("every dataset has an id"),
            count_point_id: pos("count_point_id"),
            hour: pos("hour"),
            road_category: pos("road_category"),
            road_category_id: pos("road_category_id"),
            key: d.natural_key.iter().map(located).collect(),
            filled: d
                .columns()
                .enumerate()
                .filter(|(_, c)| c.filled || d.natural_key.contains(&c.name))
                .collect(),
            runs: d.run_columns.iter().map(|n| located(n).0).collect(),
            counts,
            totals,
        }
    }
}

/// A duplicate listed in the report whose first place is looked up once the rows are in.
pub struct PendingDuplicate {
    /// Index into the report's listed duplicates.
    listed: usize,
    key: Vec<Value>,
}

/// Where each kept row came from, by ordinal (0-based, in reading order), kept sparsely: a
/// row's line is the previous row's plus one except at the jumps noted (a new file, a skipped
/// row, a record over several lines), so it costs nothing per row of a regular file.
#[derive(Default)]
struct Places {
    /// First ordinal of each file, and its name.
    files: Vec<(u32, String)>,
    /// (ordinal, line) where the line is not the previous row's plus one.
    jumps: Vec<(u32, u32)>,
    rows: u32,
    last_line: Option<u32>,
}

impl Places {
    fn start_file(&mut self, name: String) {
        self.files.push((self.rows, name));
        self.last_line = None;
    }

    fn push(&mut self, line: u32) {
        if self.last_line.map(|l| l + 1) != Some(line) {
            self.jumps.push((self.rows, line));
        }
        self.last_line = Some(line);
        self.rows += 1;
    }

    /// `file:line` of the row of this ordinal.
    fn place(&self, ordinal: u32) -> String {
        let file = self
            .files
            .partition_point(|(first, _)| *first <= ordinal)
            .checked_sub(1);
        let file = file.map_or("?", |i| self.files[i].1.as_str());
        match self
            .jumps
            .partition_point(|(first, _)| *first <= ordinal)
            .checked_sub(1)
        {
            Some(i) => format!("{file}:{}", self.jumps[i].1 + (ordinal - self.jumps[i].0)),
            None => file.to_string(),
        }
    }
}

/// What is needed, after the rows are in, to name where a duplicate's key was first seen.
pub struct DuplicatePlaces {
    dataset: &'static Dataset,
    pending: Vec<PendingDuplicate>,
    places: Places,
}

impl DuplicatePlaces {
    /// Looks up the first row of each pending key (one scan) and completes its message.
    pub fn resolve(
        self,
        conn: &rusqlite::Connection,
        report: &mut LoadReport,
    ) -> Result<(), LoadError> {
        let d = self.dataset;
        let keys = d.natural_key.join(", ");
        let one = format!("({})", vec!["?"; d.natural_key.len()].join(", "));
        let sql = format!(
            "SELECT min(id), {keys} FROM {} WHERE ({keys}) IN (VALUES {}) GROUP BY {keys}",
            d.table,
            vec![one; self.pending.len()].join(", ")
        );
        let args: Vec<&Value> = self.pending.iter().flat_map(|p| p.key.iter()).collect();
        let mut stmt = conn.prepare(&sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(args))?;
        let mut first: Vec<(i64, Vec<rusqlite::types::Value>)> = Vec::new();
        while let Some(row) = rows.next()? {
            let values = (1..=d.natural_key.len())
                .map(|i| row.get::<_, rusqlite::types::Value>(i))
                .collect::<Result<_, _>>()?;
            first.push((row.get(0)?, values));
        }
        for p in &self.pending {
            let wanted: Vec<rusqlite::types::Value> =
                p.key.iter().map(Value::to_sql_value).collect();
            let place = first
                .iter()
                .find(|(_, k)| *k == wanted)
                .map_or("an earlier row".to_string(), |(id, _)| {
                    self.place_of_id(*id)
                });
            if let Some(listed) = report.duplicates.get_mut(p.listed) {
                listed.reason.push_str(&format!(" first seen at {place}"));
            }
        }
        Ok(())
    }

    fn place_of_id(&self, id: i64) -> String {
        // Ids are 1..N in reading order, but for count points (id = count_point_id).
        if self.dataset.table == catalog::COUNT_POINTS.table {
            return "an earlier row".to_string();
        }
        self.places.place((id - 1) as u32)
    }
}

/// Bits a natural key component takes in a packed key (see [`TableLoader::check_key`]).
fn key_bits(position: usize, column: &Column) -> u32 {
    match column.ty {
        ValueType::Integer if position == 0 => 32,
        ValueType::Integer => 12,
        ValueType::Date => 16,
        ValueType::Text | ValueType::Number => 4,
    }
}

/// The packed natural keys seen so far. Where a key begins with run columns (a raw count's
/// count point and count date) and the rest packs into 16 bits (hour and direction), keys are
/// kept per group: a few bytes a row instead of nine, so the raw counts' set stays small.
enum KeySet {
    Flat(FxHashSet<u64>),
    Grouped {
        groups: FxHashMap<u64, Vec<u16>>,
        sub_bits: u32,
    },
}

impl KeySet {
    fn new(d: &Dataset, rows_estimate: usize) -> Self {
        let columns: Vec<&Column> = d.natural_key.iter().filter_map(|k| d.column(k)).collect();
        let split = columns
            .iter()
            .take_while(|c| d.run_columns.contains(&c.name))
            .count();
        let sub_bits: u32 = columns
            .iter()
            .enumerate()
            .skip(split)
            .map(|(i, c)| key_bits(i, c))
            .sum();
        if split == 0 || split == columns.len() || sub_bits > 16 {
            return KeySet::Flat(FxHashSet::with_capacity_and_hasher(
                rows_estimate,
                Default::default(),
            ));
        }
        KeySet::Grouped {
            groups: FxHashMap::with_capacity_and_hasher(rows_estimate / 16, Default::default()),
            sub_bits,
        }
    }

    /// Remembers the key; false if it was already there.
    fn insert(&mut self, key: u64) -> bool {
        match self {
            KeySet::Flat(set) => set.insert(key),
            KeySet::Grouped { groups, sub_bits } => {
                let sub = (key & ((1 << *sub_bits) - 1)) as u16;
                let seen = groups.entry(key >> *sub_bits).or_default();
                // A group holds one count day's hours and directions: a few dozen at most.
                if seen.contains(&sub) {
                    false
                } else {
                    seen.push(sub);
                    true
                }
            }
        }
    }
}

/// The run of rows being read: first and last id, and the run columns' values.
struct Run {
    first_id: i64,
    last_id: i64,
    values: Vec<Value>,
}

/// Loads every file of one kind: ids, duplicate keys and bad rows are tracked across them.
pub struct TableLoader {
    dataset: &'static Dataset,
    skip_bad_rows: bool,
    keep_first: bool,
    max_record_bytes: u64,
    pos: Positions,
    area_pos: crate::areas::AreaPositions,
    next_id: i64,
    keys: KeySet,
    /// Per text key component, its values seen so far (packed as small numbers).
    interned: Vec<FxHashMap<String, u64>>,
    /// Where each kept row came from, to name the first place of a duplicate.
    places: Places,
    pending: Vec<PendingDuplicate>,
    rows: u64,
    /// Values per row: every column of the dataset.
    width: usize,
    /// Rows read and kept, waiting to be sent to the SQLite thread, one after another; each
    /// row is read straight into it, and cut off again if it is not kept.
    batch: Vec<Value>,
    run: Option<Run>,
    runs: Vec<Vec<Value>>,
    /// Each column's last cell as read and its value, when it had nothing to report.
    last_cells: Vec<Option<(Vec<u8>, Value)>>,
}

/// What the rows of every table feed besides their own table.
pub struct Sinks<'a> {
    pub link: &'a WriterLink,
    pub progress: &'a Progress,
    pub areas: &'a mut Areas,
    pub aadf_points: &'a mut AadfPoints,
    pub report: &'a mut LoadReport,
}

/// Why a row is unreadable: the column, if one is to blame, and the reason.
type RowProblem = (Option<&'static str>, String);

/// Rough bytes per row of a CSV file, to size the key set once rather than grow it.
const BYTES_PER_ROW: u64 = 150;

impl TableLoader {
    pub fn new(dataset: &'static Dataset, opts: &LoadOptions, bytes: u64) -> Self {
        let pos = Positions::new(dataset);
        TableLoader {
            dataset,
            skip_bad_rows: opts.skip_bad_rows,
            keep_first: opts.keep_first,
            max_record_bytes: opts.max_record_bytes,
            interned: vec![FxHashMap::default(); pos.key.len()],
            pos,
            area_pos: crate::areas::AreaPositions::new(dataset),
            next_id: 1,
            keys: KeySet::new(dataset, (bytes / BYTES_PER_ROW) as usize),
            places: Places::default(),
            pending: Vec::new(),
            rows: 0,
            width: dataset.columns().count(),
            batch: Vec::new(),
            run: None,
            runs: Vec::new(),
            last_cells: vec![None; dataset.columns().count()],
        }
    }

    /// A cell's value. Text cells (names, codes, coordinates) are the costly ones to check;
    /// when one's bytes are those of the column's last cell (a raw count file repeats a count
    /// point's location on each of its 24 rows), the last value is taken again.
    fn cell(
        &mut self,
        at: usize,
        c: &Column,
        raw: &[u8],
        place: (&str, u64),
        report: &mut LoadReport,
    ) -> Result<Value, RowProblem> {
        let remembered = c.ty == ValueType::Text;
        if let Some((bytes, v)) = &self.last_cells[at] {
            if bytes.as_slice() == raw {
                return Ok(v.clone());
            }
        }
        let (v, notes) = value::parse(raw, c, self.dataset.integers_strict)
            .map_err(|bad| (Some(c.name), bad.to_string()))?;
        if notes.any() {
            note_cell(report, place.0, place.1, c, &v, notes);
            self.last_cells[at] = None;
        } else if remembered {
            let last = self.last_cells[at].get_or_insert_with(|| (Vec::new(), Value::Null));
            last.0.clear();
            last.0.extend_from_slice(raw);
            last.1 = v.clone();
        }
        Ok(v)
    }

    pub fn load_source(
        &mut self,
        source: &InputSource,
        sinks: &mut Sinks,
    ) -> Result<(), LoadError> {
        let name = source.name();
        self.places.start_file(name.clone());
        input::with_reader(source, self.max_record_bytes, |reader| {
            let mut opened = read_header(source, reader).map_err(LoadError::Refused)?;
            let mapping = self.map_columns(&name, &opened.headers, sinks.report);
            let mut record = csv::ByteRecord::new();
            loop {
                match opened.rdr.read_byte_record(&mut record) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => return Err(LoadError::Refused(stream_error(&name, &e))),
                }
                let line = record.position().map_or(0, |p| p.line());
                if record.len() == 1 && record.get(0).is_some_and(|f| f.is_empty()) {
                    continue; // a blank line
                }
                let mut batch = std::mem::take(&mut self.batch);
                if batch.capacity() == 0 {
                    batch = sinks.link.empty_batch()?;
                }
                let start = batch.len();
                let fields = opened.headers.len();
                let read = self.read_row(
                    &record,
                    &mapping,
                    fields,
                    (&name, line),
                    sinks.report,
                    &mut batch,
                );
                match read {
                    Ok(()) if self.accept(&mut batch[start..], &name, line, sinks) => {}
                    Ok(()) => batch.truncate(start),
                    Err((column, reason)) => {
                        batch.truncate(start);
                        sinks
                            .report
                            .reject(Problem::new(&name, line, column, reason));
                    }
                }
                self.batch = batch;
                if self.batch.len() >= BATCH_ROWS * self.width {
                    let rows = (self.batch.len() / self.width) as u64;
                    self.flush(sinks.link)?;
                    sinks.progress.update(opened.rdr.position().byte(), rows);
                }
            }
            self.flush(sinks.link)?;
            sinks.progress.source_done(source);
            report_stream_notes(&name, &opened.notes.borrow(), sinks.report);
            Ok(())
        })
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
            .filter(|h| !columns.iter().any(|c| input::header_matches(c, h)))
            .map(|h| value::shown(h))
            .collect();
        if !ignored.is_empty() {
            report.warn(WarningKind::IgnoredColumns, name, Some(list_cut(&ignored)));
        }
        let mapping: Vec<Option<usize>> = columns
            .iter()
            .map(|c| headers.iter().position(|h| input::header_matches(c, h)))
            .collect();
        for (c, m) in columns.iter().zip(&mapping) {
            if m.is_none() && matches!(c.source, Source::Csv(_)) && c.stored {
                report.warn(WarningKind::MissingColumn, name, Some(c.name.to_string()));
            }
        }
        mapping
    }

    /// A record's cells, parsed and checked against their columns: the row to keep, or why
    /// it cannot be kept.
    fn read_row(
        &mut self,
        record: &csv::ByteRecord,
        mapping: &[Option<usize>],
        fields: usize,
        place: (&str, u64),
        report: &mut LoadReport,
        batch: &mut Vec<Value>,
    ) -> Result<(), RowProblem> {
        if record.len() != fields {
            let found = record.len();
            return Err((
                None,
                format!("expected {fields} fields as in the header, found {found}"),
            ));
        }
        for (at, (c, m)) in self.dataset.columns().zip(mapping).enumerate() {
            batch.push(match m {
                Some(i) => self.cell(at, c, &record[*i], place, report)?,
                None => Value::Null,
            });
        }
        let start = batch.len() - self.width;
        let row = &mut batch[start..];
        self.fix_row(row);
        match self.check_row(row) {
            Some(problem) => Err(problem),
            None => Ok(()),
        }
    }

    /// Takes a readable row: checks its key and gives it its id. False if it is not to be
    /// inserted (a duplicate, or the load is bound to fail).
    fn accept(&mut self, row: &mut [Value], name: &str, line: u64, sinks: &mut Sinks) -> bool {
        let report = &mut *sinks.report;
        let key = match self.check_key(row) {
            Ok(key) => key,
            Err((column, reason)) => {
                report.reject(Problem::new(name, line, Some(column), reason));
                return false;
            }
        };
        if !self.keys.insert(key) {
            self.note_duplicate(row, name, line, report);
            return false;
        }
        self.places.push(line as u32);
        self.warn_about(row, name, line, report);
        let id = match self.pos.count_point_id {
            // Count points keep their published id (the API shows id = count_point_id).
            Some(cp) if self.dataset.table == catalog::COUNT_POINTS.table => {
                row[cp].as_int().unwrap_or(0)
            }
            _ => {
                let id = self.next_id;
                self.next_id += 1;
                id
            }
        };
        row[self.pos.id] = Value::Int(id);
        sinks.areas.observe(&self.area_pos, row);
        if self.dataset.table == catalog::AADF.table {
            sinks.aadf_points.observe(row);
        }
        self.rows += 1;
        // Once the load is bound to fail, rows are only checked, not inserted.
        let kept = report.is_clean(self.skip_bad_rows, self.keep_first);
        if kept {
            self.extend_run(id, row);
        }
        kept
    }

    fn note_duplicate(&mut self, row: &[Value], name: &str, line: u64, report: &mut LoadReport) {
        let listed_before = report.duplicates.len();
        let reason = format!(
            "duplicate {} ({})",
            self.dataset.natural_key.join(", "),
            self.key_values(row)
        );
        report.duplicate(Problem::new(name, line, None, reason), self.keep_first);
        if report.duplicates.len() > listed_before {
            self.pending.push(PendingDuplicate {
                listed: listed_before,
                key: self.pos.key.iter().map(|(k, _)| row[*k].clone()).collect(),
            });
        }
    }

    /// Extends the current run of rows with this one, or closes it and starts another.
    fn extend_run(&mut self, id: i64, row: &[Value]) {
        if self.pos.runs.is_empty() {
            return;
        }
        if let Some(run) = &mut self.run {
            if run.last_id + 1 == id
                && self
                    .pos
                    .runs
                    .iter()
                    .zip(&run.values)
                    .all(|(&i, v)| row[i] == *v)
            {
                run.last_id = id;
                return;
            }
        }
        let values = self.pos.runs.iter().map(|&i| row[i].clone()).collect();
        if let Some(done) = self.run.replace(Run {
            first_id: id,
            last_id: id,
            values,
        }) {
            self.runs.push(
                [
                    vec![Value::Int(done.first_id), Value::Int(done.last_id)],
                    done.values,
                ]
                .concat(),
            );
        }
    }

    fn flush(&mut self, link: &WriterLink) -> Result<(), LoadError> {
        if !self.batch.is_empty() {
            let values = std::mem::take(&mut self.batch);
            link.send(ToWriter::Rows {
                table: self.dataset,
                values,
            })?;
        }
        if self.runs.len() >= BATCH_ROWS {
            let runs = std::mem::take(&mut self.runs);
            link.send(ToWriter::Runs {
                table: self.dataset,
                runs,
            })?;
        }
        Ok(())
    }

    /// Sends the last run, counts the rows, and hands over what is needed to name the first
    /// places of duplicates, if there were any.
    pub fn finish(
        mut self,
        link: &WriterLink,
        report: &mut LoadReport,
    ) -> Result<Option<DuplicatePlaces>, LoadError> {
        if let Some(done) = self.run.take() {
            self.runs.push(
                [
                    vec![Value::Int(done.first_id), Value::Int(done.last_id)],
                    done.values,
                ]
                .concat(),
            );
        }
        if !self.runs.is_empty() {
            let runs = std::mem::take(&mut self.runs);
            link.send(ToWriter::Runs {
                table: self.dataset,
                runs,
            })?;
        }
        if !self.places.files.is_empty() {
            report.add_rows(self.dataset.table, self.rows);
            log::info!("{}: {} rows", self.dataset.table, self.rows);
        }
        Ok((!self.pending.is_empty()).then(|| DuplicatePlaces {
            dataset: self.dataset,
            pending: self.pending,
            places: self.places,
        }))
    }

    /// Dataset-specific completions: the regional road type table may give its road category
    /// only as an id 1..6.
    fn fix_row(&self, row: &mut [Value]) {
        if let (Some(cat), Some(cat_id)) = (self.pos.road_category, self.pos.road_category_id) {
            if row[cat] == Value::Null {
                if let Some(code) = row[cat_id]
                    .as_int()
                    .and_then(|i| usize::try_from(i - 1).ok())
                    .and_then(|i| catalog::ROAD_CATEGORY_CODES.get(i))
                {
                    row[cat] = Value::Text((*code).into());
                }
            }
        }
    }

    fn check_row(&self, row: &[Value]) -> Option<RowProblem> {
        self.pos
            .filled
            .iter()
            .find(|(k, _)| row[*k] == Value::Null)
            .map(|(_, c)| {
                (
                    Some(c.name),
                    "no value, and every row needs one".to_string(),
                )
            })
    }

    /// Packs the natural key into 64 bits: the leading id gets 32 bits, a date 16 (days since
    /// 1960), other integers 12 (years, hours) and text codes 4 (interned).
    fn check_key(&mut self, row: &[Value]) -> Result<u64, (&'static str, String)> {
        let mut key: u64 = 0;
        for (n, (k, column)) in self.pos.key.iter().enumerate() {
            let bits = key_bits(n, column);
            let v: Option<u64> = match (&row[*k], column.ty) {
                (Value::Int(v), ValueType::Integer) => u64::try_from(*v).ok(),
                (Value::Text(d), ValueType::Date) => {
                    value::day_number(d).and_then(|d| u64::try_from(d).ok())
                }
                (Value::Text(t), _) => {
                    let map = &mut self.interned[n];
                    let code = match map.get(t.as_str()) {
                        Some(code) => *code,
                        None => {
                            let code = map.len() as u64;
                            map.insert(t.to_string(), code);
                            code
                        }
                    };
                    Some(code)
                }
                _ => None,
            };
            match v {
                Some(v) if v < (1u64 << bits) => key = (key << bits) | v,
                _ => {
                    return Err((
                        column.name,
                        format!("value '{}' is out of the range of a key", row[*k]),
                    ))
                }
            }
        }
        Ok(key)
    }

    fn key_values(&self, row: &[Value]) -> String {
        self.pos
            .key
            .iter()
            .map(|(k, _)| row[*k].to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Surprises that real releases contain: kept, and counted as warnings.
    fn warn_about(&self, row: &[Value], name: &str, line: u64, report: &mut LoadReport) {
        let place = || format!("{name}:{line}");
        if self
            .pos
            .counts
            .iter()
            .any(|&i| row[i].as_int().is_some_and(|v| v < 0))
        {
            report.warn(WarningKind::NegativeCount, &place(), None);
        }
        if self.pos.hour.is_some_and(|h| row[h] == Value::Int(0)) {
            report.warn(WarningKind::HourZero, &place(), None);
        }
        for (total, parts) in &self.pos.totals {
            let sum: Option<i64> = parts.iter().map(|&p| row[p].as_int()).sum();
            if let (Some(t), Some(s)) = (row[*total].as_int(), sum) {
                if t != s {
                    report.warn(WarningKind::TotalMismatch, &place(), None);
                    break;
                }
            }
        }
    }
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

/// Warnings for the surprises in a cell that is kept.
fn note_cell(report: &mut LoadReport, name: &str, line: u64, c: &Column, v: &Value, notes: Notes) {
    let place = format!("{name}:{line}");
    let shown = || v.as_text().map_or_else(String::new, value::shown);
    if notes.not_utf8 {
        report.warn(
            WarningKind::NotUtf8,
            &place,
            Some(format!("{}: read as '{}'", c.name, shown())),
        );
    }
    if notes.quote {
        report.warn(
            WarningKind::QuoteInField,
            &place,
            Some(format!("{}: '{}'", c.name, shown())),
        );
    }
    if let (true, catalog::Domain::Code(codes)) = (notes.unknown_code, c.domain) {
        let detail = format!(
            "{}: '{}' is not one of {}",
            c.name,
            shown(),
            codes.join(", ")
        );
        report.warn(WarningKind::UnknownCode, &place, Some(detail));
    }
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

#[cfg(test)]
mod tests {
    use crate::Places;

    #[test]
    fn places_are_kept_sparsely_and_found_exactly() {
        let mut p = Places::default();
        p.start_file("a.csv".into());
        for line in [2, 3, 4, 6, 7] {
            p.push(line); // line 5 was a skipped row
        }
        p.start_file("b.csv".into());
        for line in [2, 3, 5, 6] {
            p.push(line); // a record over lines 3-4
        }
        assert_eq!(p.jumps.len(), 4);
        let all: Vec<String> = (0..9).map(|o| p.place(o)).collect();
        assert_eq!(
            all,
            [
                "a.csv:2", "a.csv:3", "a.csv:4", "a.csv:6", "a.csv:7", "b.csv:2", "b.csv:3",
                "b.csv:5", "b.csv:6"
            ]
        );
    }
}
