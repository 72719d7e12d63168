//! Rows that fare as a row read before. A repeat of a duplicate or unreadable row is counted as
//! that one was, after a comparison of bytes rather than a parse and a key: a file of one row
//! repeated a million times (a hostile zip) or a zip of one member repeated 60,000 times (1.8 GB
//! of duplicates, 30 s when each row was parsed) costs a comparison a row.
//!
//! A row of the same bytes and fields, under the same columns, reads to the same values: a
//! duplicate's key was seen, so it is seen still; an unreadable row is unreadable again.

use std::borrow::Cow;

use crate::report::LoadReport;

/// What became of a row, when a row of the same bytes must fare the same whatever follows: one
/// more duplicate, or one more unreadable row, and nothing else (no warning, no row kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Duplicate,
    Unreadable,
}

/// The report's counts, before a row is taken, to learn its [`Fate`].
pub struct Counts {
    rejected: u64,
    duplicates: u64,
    warnings: u64,
}

impl Counts {
    pub fn of(report: &LoadReport) -> Counts {
        Counts {
            rejected: report.rejected_count,
            duplicates: report.duplicate_count,
            warnings: report.warnings.iter().map(|w| w.count).sum(),
        }
    }

    /// The fate of the row taken since, if it is one a repeat of it shares.
    pub fn fate(&self, report: &LoadReport) -> Option<Fate> {
        let now = Counts::of(report);
        match (
            now.rejected - self.rejected,
            now.duplicates - self.duplicates,
            now.warnings - self.warnings,
        ) {
            (0, 1, 0) => Some(Fate::Duplicate),
            (1, 0, 0) => Some(Fate::Unreadable),
            _ => None,
        }
    }
}

/// A record kept to compare with, and its fate.
type Remembered = Option<(csv::ByteRecord, Fate)>;

/// The records a source's rows are compared with, at most this many and this many bytes of a
/// source: enough for a table of every local authority, bounded whatever the files hold.
const MOST_ROWS: usize = 1 << 16;
const MOST_BYTES: usize = 16 << 20;

/// What one table remembers of the rows it read: the record before and its fate, and the
/// records with a fate of the source read before (under the same columns), by their place among
/// its records.
#[derive(Default)]
pub struct Repeats {
    before: csv::ByteRecord,
    before_fate: Option<Fate>,
    earlier: Vec<Remembered>,
    current: Vec<Remembered>,
    current_bytes: usize,
    current_mapping: Vec<Option<usize>>,
    /// The place among its source's records of the record being read.
    place: usize,
}

impl Repeats {
    /// A source begins, its fields read into the columns `mapping` gives: its records are
    /// compared with the last source's if that one's were read alike.
    pub fn start_source(&mut self, mapping: &[Option<usize>]) {
        let last = std::mem::take(&mut self.current);
        self.earlier = match self.current_mapping == mapping {
            true => last,
            false => Vec::new(),
        };
        self.current_mapping = mapping.to_vec();
        self.current_bytes = 0;
        self.before_fate = None;
        self.place = 0;
    }

    /// Counts `record` as a record of the same bytes read before was counted (the record before,
    /// or the one at its place in the source before), if its fate is one a repeat shares and the
    /// report lists no more of them (nothing to word); false if the record is to be taken.
    pub fn again(
        &mut self,
        record: &csv::ByteRecord,
        report: &mut LoadReport,
        keep_first: bool,
    ) -> bool {
        let as_earlier = match self.earlier.get(self.place) {
            Some(Some((earlier, fate))) if same(record, earlier) => Some(*fate),
            _ => None,
        };
        let as_before = self.before_fate.filter(|_| same(record, &self.before));
        let Some(fate) = as_before.or(as_earlier) else {
            return false;
        };
        let counted = match fate {
            Fate::Duplicate => report.duplicate_unlisted(keep_first),
            Fate::Unreadable => report.reject_unlisted(),
        };
        if counted {
            // The earlier source's record moves on to this one's, with no copy.
            let moved = as_earlier.and_then(|_| self.earlier[self.place].take());
            let record = moved.map_or(Cow::Borrowed(record), |(r, _)| Cow::Owned(r));
            self.remember(Some(fate), record);
        }
        counted
    }

    /// The record just taken (read, checked and keyed), and its fate, if a repeat shares it.
    pub fn taken(&mut self, record: &csv::ByteRecord, fate: Option<Fate>) {
        self.remember(fate, Cow::Borrowed(record));
    }

    /// The record read is done with: it becomes the record before, and `record` is free for the
    /// next one.
    pub fn passed(&mut self, record: &mut csv::ByteRecord) {
        std::mem::swap(record, &mut self.before);
    }

    /// The record at this place had `fate`: kept (copied only then) if it has one and there is
    /// room, for the next source's record at this place.
    fn remember(&mut self, fate: Option<Fate>, record: Cow<'_, csv::ByteRecord>) {
        self.before_fate = fate;
        self.place += 1;
        let bytes = match fate {
            Some(_) => record.as_slice().len() + 8 * record.len(),
            None => 0,
        };
        if self.current.len() >= MOST_ROWS || self.current_bytes + bytes > MOST_BYTES {
            return;
        }
        self.current_bytes += bytes;
        self.current
            .push(fate.map(|fate| (record.into_owned(), fate)));
    }
}

/// Whether two records have the same bytes in the same fields.
fn same(a: &csv::ByteRecord, b: &csv::ByteRecord) -> bool {
    a.as_slice() == b.as_slice()
        && a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| a.len() == b.len())
}
