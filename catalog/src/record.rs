//! A dataset's JSON record as the public service writes it: the fields asked for, in record
//! order, each value straight from its SQLite column. The server writes records this way per
//! request, the fields a record shares with its run (see [`SplitLayout`]) once per run; the
//! loader, given `--rendered-records`, writes each record once with the same layout and keeps
//! its bytes in a table of their own (see [`rendered_table`]), which the server then copies
//! instead of writing the record field by field.

use crate::legacy::RetiredFields;
use crate::{json, Column, Dataset};

/// The bytes around a record's values.
pub struct RecordLayout {
    /// Each field's key, with what comes before it: `{"id":`, `,"year":`.
    keys: Vec<Vec<u8>>,
    /// What closes a record: `}`, after the retired fields if any.
    close: Vec<u8>,
}

impl RecordLayout {
    /// The layout of `fields`, with `retired` fields written as null when given (the 2019-2020
    /// records): right after the field they followed, or last when that field is not asked for,
    /// since the clients of that era select them by name whatever fields they asked for.
    pub fn new(fields: &[&'static Column], retired: Option<&RetiredFields>) -> Self {
        let mut keys: Vec<Vec<u8>> = fields
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut k = if i == 0 { b"{".to_vec() } else { b",".to_vec() };
                json::string(&mut k, c.name);
                k.push(b':');
                k
            })
            .collect();
        let mut close = Vec::new();
        if let Some(retired) = retired {
            let mut nulls = Vec::new();
            for name in retired.names {
                nulls.push(b',');
                json::string(&mut nulls, name);
                nulls.extend_from_slice(b":null");
            }
            if keys.is_empty() {
                nulls.remove(0); // the record is opened bare, with no field before these
            }
            let after = fields.iter().position(|c| c.name == retired.after);
            match after.and_then(|i| keys.get_mut(i + 1)) {
                Some(next) => drop(next.splice(0..0, nulls)),
                None => close = nulls,
            }
        }
        close.push(b'}');
        RecordLayout { keys, close }
    }

    /// Every field of today's records: the layout of rendered records.
    pub fn whole(dataset: &Dataset) -> Self {
        let fields: Vec<&'static Column> = dataset.stored_columns().collect();
        Self::new(&fields, None)
    }

    /// Writes a row whose columns are the layout's fields, in order.
    pub fn write(&self, out: &mut Vec<u8>, row: &rusqlite::Row) -> rusqlite::Result<()> {
        self.write_from(out, row, 0)
    }

    /// Writes a row whose columns from `first` on are the layout's fields, in order.
    fn write_from(
        &self,
        out: &mut Vec<u8>,
        row: &rusqlite::Row,
        first: usize,
    ) -> rusqlite::Result<()> {
        for (i, key) in self.keys.iter().enumerate() {
            out.extend_from_slice(key);
            json::value(out, row.get_ref(first + i)?);
        }
        self.close(out);
        Ok(())
    }

    /// Closes a record whose fields are written.
    fn close(&self, out: &mut Vec<u8>) {
        if self.keys.is_empty() {
            out.push(b'{');
        }
        out.extend_from_slice(&self.close);
    }

    /// What tells this layout apart from any other: kept beside rendered records, so that a
    /// server whose catalogue lays records out otherwise (a column added since the load) writes
    /// them from the columns instead of copying stale ones.
    pub fn tag(&self) -> String {
        let mut bytes = self.keys.concat();
        bytes.extend_from_slice(&self.close);
        // The record writer's own version: bump it when the bytes of a value change.
        bytes.extend_from_slice(b" php-json 1");
        format!(
            "{:016x}",
            crate::stable_hash(&String::from_utf8_lossy(&bytes))
        )
    }
}

/// A record whose fields come from two rows: its own, and its run's (see
/// `Dataset::run_columns`), which are the same for every record of the run. Each stretch of
/// consecutive run fields is written once per run, keys and values, as a fragment that every
/// record of the run copies whole: a raw count then reads 16 values from its row, not 32.
pub struct SplitLayout {
    layout: RecordLayout,
    pieces: Vec<Piece>,
    /// Each fragment's fields: (position among the fields, column in the run's row).
    fragments: Vec<Vec<(usize, usize)>>,
    row_fields: Vec<&'static Column>,
    run_fields: Vec<&'static Column>,
}

enum Piece {
    /// The field at this position among the fields, from this column of the record's row.
    Own { field: usize, column: usize },
    /// The run's fragment of this index.
    Run(usize),
}

/// A run's fragments, written by [`SplitLayout::write_run`]: fragment `k` is
/// `bytes[ends[k - 1]..ends[k]]`.
#[derive(Default)]
pub struct RunFragments {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl RunFragments {
    fn get(&self, k: usize) -> &[u8] {
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        &self.bytes[start..self.ends[k]]
    }
}

impl SplitLayout {
    /// The layout of `fields` (and `retired`, as in [`RecordLayout::new`]) with those for which
    /// `from_run` holds read from the run.
    pub fn new(
        fields: &[&'static Column],
        retired: Option<&RetiredFields>,
        from_run: impl Fn(&Column) -> bool,
    ) -> Self {
        let mut split = SplitLayout {
            layout: RecordLayout::new(fields, retired),
            pieces: Vec::new(),
            fragments: Vec::new(),
            row_fields: Vec::new(),
            run_fields: Vec::new(),
        };
        for (field, &c) in fields.iter().enumerate() {
            if !from_run(c) {
                let column = split.row_fields.len();
                split.pieces.push(Piece::Own { field, column });
                split.row_fields.push(c);
                continue;
            }
            if !matches!(split.pieces.last(), Some(Piece::Run(_))) {
                split.pieces.push(Piece::Run(split.fragments.len()));
                split.fragments.push(Vec::new());
            }
            if let Some(fragment) = split.fragments.last_mut() {
                fragment.push((field, split.run_fields.len()));
            }
            split.run_fields.push(c);
        }
        split
    }

    /// The fields read from a record's own row, in the order `write` reads them.
    pub fn row_fields(&self) -> &[&'static Column] {
        &self.row_fields
    }

    /// The fields read from the run's row, in the order `write_run` reads them.
    pub fn run_fields(&self) -> &[&'static Column] {
        &self.run_fields
    }

    /// Writes a run's fragments from its row, whose run fields start at column `first`.
    pub fn write_run(
        &self,
        out: &mut RunFragments,
        run: &rusqlite::Row,
        first: usize,
    ) -> rusqlite::Result<()> {
        out.bytes.clear();
        out.ends.clear();
        for fragment in &self.fragments {
            for &(field, column) in fragment {
                out.bytes.extend_from_slice(&self.layout.keys[field]);
                json::value(&mut out.bytes, run.get_ref(first + column)?);
            }
            out.ends.push(out.bytes.len());
        }
        Ok(())
    }

    /// Writes a record from its row, whose own fields start at column `first`, and its run's
    /// fragments.
    pub fn write(
        &self,
        out: &mut Vec<u8>,
        row: &rusqlite::Row,
        first: usize,
        run: &RunFragments,
    ) -> rusqlite::Result<()> {
        for piece in &self.pieces {
            match *piece {
                Piece::Own { field, column } => {
                    out.extend_from_slice(&self.layout.keys[field]);
                    json::value(out, row.get_ref(first + column)?);
                }
                Piece::Run(k) => out.extend_from_slice(run.get(k)),
            }
        }
        self.layout.close(out);
        Ok(())
    }
}

/// The table of a dataset's rendered records: `id` (the row's) and `record` (its JSON bytes).
pub fn rendered_table(dataset: &Dataset) -> String {
    format!("{}_records", dataset.table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{legacy::retired_fields, AADF, COUNT_POINTS};

    fn opening(layout: &RecordLayout) -> String {
        String::from_utf8(layout.keys.concat()).unwrap() + &String::from_utf8_lossy(&layout.close)
    }

    #[test]
    fn retired_fields_follow_theirs_or_close_the_record() {
        let fields: Vec<&'static Column> = ["id", "link_length_miles", "pedal_cycles"]
            .iter()
            .map(|n| AADF.column(n).unwrap())
            .collect();
        let legacy = RecordLayout::new(&fields, retired_fields(&AADF));
        assert_eq!(
            opening(&legacy),
            r#"{"id":,"link_length_miles":,"sequence":null,"ramp":null,"pedal_cycles":}"#
        );
        let legacy = RecordLayout::new(&fields[..1], retired_fields(&AADF));
        assert_eq!(opening(&legacy), r#"{"id":,"sequence":null,"ramp":null}"#);
        let bare = RecordLayout::new(&[], retired_fields(&AADF));
        assert_eq!(opening(&bare), r#""sequence":null,"ramp":null}"#);
    }

    /// A record written by [`SplitLayout`], from its own row and its run's fragments, as
    /// [`RecordLayout`] writes it from one row: whichever fields come from the run, first,
    /// last or between retired fields, and with values that need escaping.
    #[test]
    fn split_records_are_the_records() {
        let values = [
            ("id", "7"),
            ("count_point_id", "42"),
            ("year", "2019"),
            ("link_length_miles", "'1.2'"),
            ("pedal_cycles", "NULL"),
            ("road_name", "'A1/M \"x\" Môn'"),
        ];
        let value = |c: &&Column| values.iter().find(|(n, _)| *n == c.name).unwrap().1;
        let select = |columns: &[&Column], before: &str| -> String {
            let mut list: Vec<&str> = columns.iter().map(value).collect();
            list.insert(0, before);
            format!("SELECT {}", list.join(", "))
        };
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let fields: Vec<&'static Column> = values
            .iter()
            .map(|(n, _)| AADF.column(n).unwrap())
            .collect();
        let from_run_sets: [&[&str]; 4] = [
            &["count_point_id", "link_length_miles", "road_name"],
            &["id", "year", "pedal_cycles"],
            &[
                "id",
                "count_point_id",
                "year",
                "link_length_miles",
                "pedal_cycles",
                "road_name",
            ],
            &[],
        ];
        for retired in [None, retired_fields(&AADF)] {
            for count in [0, 1, 4, fields.len()] {
                let fields = &fields[..count];
                let whole = RecordLayout::new(fields, retired);
                let expected = conn
                    .query_row(&select(fields, "0"), [], |row| {
                        let mut out = Vec::new();
                        whole.write_from(&mut out, row, 1).map(|()| out)
                    })
                    .unwrap();
                for from_run in from_run_sets {
                    let split = SplitLayout::new(fields, retired, |c| from_run.contains(&c.name));
                    let mut fragments = RunFragments::default();
                    conn.query_row(&select(split.run_fields(), "0, 0"), [], |run| {
                        split.write_run(&mut fragments, run, 2)
                    })
                    .unwrap();
                    let got = conn
                        .query_row(&select(split.row_fields(), "7"), [], |row| {
                            let mut out = Vec::new();
                            split.write(&mut out, row, 1, &fragments).map(|()| out)
                        })
                        .unwrap();
                    let shown = String::from_utf8_lossy(&expected);
                    assert_eq!(got, expected, "{shown}, from the run: {from_run:?}");
                }
            }
        }
    }

    #[test]
    fn tags_differ_with_the_fields() {
        let whole = RecordLayout::whole(&AADF);
        assert_eq!(whole.tag(), RecordLayout::whole(&AADF).tag());
        assert_ne!(whole.tag(), RecordLayout::whole(&COUNT_POINTS).tag());
        let fewer: Vec<&'static Column> = AADF.stored_columns().skip(1).collect();
        assert_ne!(whole.tag(), RecordLayout::new(&fewer, None).tag());
    }
}
