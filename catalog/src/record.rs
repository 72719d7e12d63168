//! A dataset's JSON record as the public service writes it: the fields asked for, in record
//! order, each value straight from its SQLite column. The server writes records this way per
//! request, the fields a record shares with its run (see [`SplitLayout`]) once per run; the
//! loader, given `--rendered-records`, writes each record once with the same layout and keeps
//! its bytes in a table of their own (see [`rendered_table`]), which the server then copies
//! instead of writing the record field by field.

use rusqlite::types::ValueRef;

use crate::legacy::RetiredFields;
use crate::{json, Column, Dataset, Source};

/// The record writer's own version: bump it when the bytes of a value change. JSON written at
/// load time names it (rendered records in their layout's tag, own values through the schema
/// version), so that a server whose writer differs never copies bytes of another writer.
pub const WRITER_VERSION: &str = "php-json 1";

/// How a record writes the decimals the files give as text (`Column::is_decimal_text`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decimals {
    /// As published, strings: the public service's records.
    AsText,
    /// As JSON numbers: OGC's features, whose clients type a property by its values.
    AsNumbers,
}

/// The bytes around a record's values.
pub struct RecordLayout {
    /// Each field's key, with what comes before it: `{"id":`, `,"year":`.
    keys: Vec<Vec<u8>>,
    /// What closes a record: `}`, after the retired fields if any.
    close: Vec<u8>,
    /// Whether each field is written as a number though kept as text; empty when none is.
    numbers: Vec<bool>,
}

impl RecordLayout {
    /// The layout of `fields`, with `retired` fields written as null when given (the 2019-2020
    /// records): right after the field they followed, or last when that field is not asked for,
    /// since the clients of that era select them by name whatever fields they asked for.
    pub fn new(fields: &[&'static Column], retired: Option<&RetiredFields>) -> Self {
        Self::of(fields, retired, Decimals::AsText)
    }

    /// [`RecordLayout::new`], its decimals kept as text written as `decimals` says.
    pub fn of(
        fields: &[&'static Column],
        retired: Option<&RetiredFields>,
        decimals: Decimals,
    ) -> Self {
        let numbers = match decimals {
            Decimals::AsText => Vec::new(),
            Decimals::AsNumbers => fields.iter().map(|c| c.is_decimal_text()).collect(),
        };
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
        RecordLayout {
            keys,
            close,
            numbers,
        }
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
            self.value(out, i, row.get_ref(first + i)?);
        }
        self.close(out);
        Ok(())
    }

    /// Whether the field at `i` is written as a number though kept as text.
    fn is_number(&self, i: usize) -> bool {
        self.numbers.get(i) == Some(&true)
    }

    /// Writes the value of the field at `i`.
    fn value(&self, out: &mut Vec<u8>, i: usize, v: ValueRef<'_>) {
        match self.is_number(i) {
            true => json::decimal(out, v),
            false => json::value(out, v),
        }
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
        if self.numbers.contains(&true) {
            bytes.extend_from_slice(b" numbers");
        }
        bytes.push(b' ');
        bytes.extend_from_slice(WRITER_VERSION.as_bytes());
        format!(
            "{:016x}",
            crate::stable_hash(&String::from_utf8_lossy(&bytes))
        )
    }
}

/// What ends each value of a row's own values but the last: a byte that JSON text never holds
/// raw (strings escape the control characters; numbers and literals have none).
const OWN_VALUE_END: u8 = 0x1f;

/// Writes a row's own values (see `Dataset::own_values`): the values of the dataset's own
/// value columns, in order, each as the JSON text the record writer would write for it, so that
/// a record written from them has the same bytes.
pub fn write_own_values<'v>(out: &mut Vec<u8>, values: impl Iterator<Item = ValueRef<'v>>) {
    for (i, value) in values.enumerate() {
        if i > 0 {
            out.push(OWN_VALUE_END);
        }
        json::value(out, value);
    }
}

/// A record whose fields come from three places: its id; its own values, kept as their JSON
/// text (see `Dataset::own_values`); and its run's row (see `Dataset::run_columns`), the
/// same for every record of the run. Each stretch of consecutive run fields is written once per
/// run, keys and values, as a fragment that every record of the run copies whole. A raw
/// count's record then reads two values from SQLite, not 32, and writes none of them.
pub struct SplitLayout {
    layout: RecordLayout,
    pieces: Vec<Piece>,
    /// Each fragment's fields: (position among the fields, column in the run's row).
    fragments: Vec<Vec<(usize, usize)>>,
    run_fields: Vec<&'static Column>,
    /// The bytes of a record's keys and close: with its values', what `write` reserves once.
    keys_len: usize,
}

enum Piece {
    /// The id, at this position among the fields.
    Id(usize),
    /// The field at this position among the fields, from this index of the own values.
    Own { field: usize, value: usize },
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

/// Own values that end before a field a record needs: the file is not what its loader wrote.
#[derive(Debug)]
pub struct ShortOwnValues;

impl SplitLayout {
    /// The layout of `fields` of the dataset (and `retired`, as in [`RecordLayout::new`]),
    /// its decimals kept as text written as `decimals` says.
    pub fn new(
        d: &Dataset,
        fields: &[&'static Column],
        retired: Option<&RetiredFields>,
        decimals: Decimals,
    ) -> Self {
        let own: Vec<&'static Column> = d.own_value_columns().collect();
        let layout = RecordLayout::of(fields, retired, decimals);
        Self::with(layout, fields, |c| d.run_columns.contains(&c.name), &own)
    }

    /// The record `layout` of `fields`, with those for which `from_run` holds read from the
    /// run, and the others but the id from own values of the columns `own`.
    fn with(
        layout: RecordLayout,
        fields: &[&'static Column],
        from_run: impl Fn(&Column) -> bool,
        own: &[&'static Column],
    ) -> Self {
        let mut split = SplitLayout {
            layout,
            pieces: Vec::new(),
            fragments: Vec::new(),
            run_fields: Vec::new(),
            keys_len: 0,
        };
        let keys = split.layout.keys.iter().map(Vec::len).sum::<usize>();
        split.keys_len = keys + split.layout.close.len();
        for (field, &c) in fields.iter().enumerate() {
            if c.source == Source::Id {
                split.pieces.push(Piece::Id(field));
                continue;
            }
            if !from_run(c) {
                let value = own.iter().position(|o| o.name == c.name);
                let value = value.expect("a field outside the run is an own value");
                split.pieces.push(Piece::Own { field, value });
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

    /// Whether a record reads its own values (else only its id and its run).
    pub fn reads_own_values(&self) -> bool {
        self.pieces.iter().any(|p| matches!(p, Piece::Own { .. }))
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
                (self.layout).value(&mut out.bytes, field, run.get_ref(first + column)?);
            }
            out.ends.push(out.bytes.len());
        }
        Ok(())
    }

    /// Writes a record from its id, its own values (as `write_own_values` wrote them) and its
    /// run's fragments.
    pub fn write(
        &self,
        out: &mut Vec<u8>,
        id: i64,
        own_values: &[u8],
        run: &RunFragments,
    ) -> Result<(), ShortOwnValues> {
        // The id's digits at most, besides: no copy below grows the buffer.
        out.reserve(self.keys_len + own_values.len() + run.bytes.len() + 20);
        let mut values = own_values.split(|&b| b == OWN_VALUE_END);
        let mut next_value = 0;
        for piece in &self.pieces {
            match *piece {
                Piece::Id(field) => {
                    out.extend_from_slice(&self.layout.keys[field]);
                    json::int(out, id);
                }
                Piece::Own { field, value } => {
                    out.extend_from_slice(&self.layout.keys[field]);
                    // Fields come in record order, as the values do.
                    let bytes = values.nth(value - next_value).ok_or(ShortOwnValues)?;
                    next_value = value + 1;
                    // A decimal kept as text is a JSON string of its digits (no escapes).
                    if let (true, Some(text)) = (self.layout.is_number(field), quoted(bytes)) {
                        json::decimal_text(out, text);
                    // Most are a few digits: pushed, they cost less than a call to memcpy.
                    } else if bytes.len() <= 4 {
                        bytes.iter().for_each(|&b| out.push(b));
                    } else {
                        out.extend_from_slice(bytes);
                    }
                }
                Piece::Run(k) => out.extend_from_slice(run.get(k)),
            }
        }
        self.layout.close(out);
        Ok(())
    }
}

/// The text of a JSON string with nothing escaped in it, as a decimal's is written.
fn quoted(json: &[u8]) -> Option<&[u8]> {
    json.strip_prefix(b"\"")?.strip_suffix(b"\"")
}

/// The table of a dataset's rendered records: `id` (the row's) and `record` (its JSON bytes).
pub fn rendered_table(dataset: &Dataset) -> String {
    format!("{}_records", dataset.table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{legacy::retired_fields, AADF, COUNT_POINTS, RAW_COUNTS};

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

    /// Every kind of record: today's or with the retired fields, its decimals as text or as
    /// numbers.
    fn kinds() -> Vec<(Option<&'static RetiredFields>, Decimals)> {
        let decimals = [Decimals::AsText, Decimals::AsNumbers];
        let retired = [None, retired_fields(&AADF)];
        (retired.into_iter())
            .flat_map(|r| decimals.map(|d| (r, d)))
            .collect()
    }

    /// A record written by [`SplitLayout`], from its id, its own values and its run's
    /// fragments, as [`RecordLayout`] writes it from one row: whichever fields come from the
    /// run, first, last or between retired fields, whichever own values are skipped, with
    /// values that need escaping, and a decimal kept as text (from the run or its own values)
    /// written as a number.
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
        let all: Vec<&'static Column> = values
            .iter()
            .map(|(n, _)| AADF.column(n).unwrap())
            .collect();
        let from_run_sets: [&[&str]; 4] = [
            &["count_point_id", "link_length_miles", "road_name"],
            &["year", "pedal_cycles"],
            &[
                "count_point_id",
                "year",
                "link_length_miles",
                "pedal_cycles",
                "road_name",
            ],
            &[],
        ];
        let pick = |positions: &[usize]| positions.iter().map(|&i| all[i]).collect::<Vec<_>>();
        let field_sets = [
            pick(&[]),
            pick(&[0]),
            pick(&[0, 1, 2, 3]),
            pick(&[0, 1, 2, 3, 4, 5]),
            pick(&[0, 2, 4]),
            pick(&[1, 3, 5]),
        ];
        for (retired, decimals) in kinds() {
            for fields in &field_sets {
                let whole = RecordLayout::of(fields, retired, decimals);
                let expected = conn
                    .query_row(&select(fields, "0"), [], |row| {
                        let mut out = Vec::new();
                        whole.write_from(&mut out, row, 1).map(|()| out)
                    })
                    .unwrap();
                for from_run in from_run_sets {
                    let is_run = |c: &Column| from_run.contains(&c.name);
                    let own: Vec<&'static Column> = all
                        .iter()
                        .filter(|c| c.source != Source::Id && !is_run(c))
                        .copied()
                        .collect();
                    let layout = RecordLayout::of(fields, retired, decimals);
                    let split = SplitLayout::with(layout, fields, is_run, &own);
                    let mut fragments = RunFragments::default();
                    conn.query_row(&select(split.run_fields(), "0, 0"), [], |run| {
                        split.write_run(&mut fragments, run, 2)
                    })
                    .unwrap();
                    let own_values = conn
                        .query_row(&select(&own, "0"), [], |row| {
                            let mut out = Vec::new();
                            let values = (1..=own.len()).map(|i| row.get_ref_unwrap(i));
                            write_own_values(&mut out, values);
                            Ok(out)
                        })
                        .unwrap();
                    let mut got = Vec::new();
                    split.write(&mut got, 7, &own_values, &fragments).unwrap();
                    let shown = String::from_utf8_lossy(&expected);
                    assert_eq!(got, expected, "{shown}, from the run: {from_run:?}");
                }
            }
        }
    }

    /// Own values that lack a value a record needs are an error, not a shorter record.
    #[test]
    fn short_own_values_are_an_error() {
        let fields: Vec<&'static Column> = RAW_COUNTS.stored_columns().collect();
        let split = SplitLayout::new(&RAW_COUNTS, &fields, None, Decimals::AsText);
        let own = RAW_COUNTS.own_value_columns().count();
        let values = |n: usize| vec![&b"1"[..]; n].join(&OWN_VALUE_END);
        let mut out = Vec::new();
        let run = RunFragments {
            bytes: Vec::new(),
            ends: vec![0; split.fragments.len()],
        };
        assert!(split.write(&mut out, 7, &values(own), &run).is_ok());
        assert!(split.write(&mut out, 7, &values(own - 1), &run).is_err());
    }

    /// With decimals as numbers, the decimals kept as text (and only those) are numbers.
    #[test]
    fn decimals_as_numbers_are_numbers() {
        let fields: Vec<&'static Column> = ["id", "road_name", "latitude", "link_length_km"]
            .iter()
            .map(|n| AADF.column(n).unwrap())
            .collect();
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let write = |decimals| {
            let layout = RecordLayout::of(&fields, None, decimals);
            let sql = "SELECT 7, '51.5', '53.39597741', ''";
            let mut out = Vec::new();
            conn.query_row(sql, [], |row| layout.write(&mut out, row))
                .unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            write(Decimals::AsText),
            r#"{"id":7,"road_name":"51.5","latitude":"53.39597741","link_length_km":""}"#
        );
        assert_eq!(
            write(Decimals::AsNumbers),
            r#"{"id":7,"road_name":"51.5","latitude":53.39597741,"link_length_km":null}"#
        );
        let numbers = RecordLayout::of(&fields, None, Decimals::AsNumbers);
        assert_ne!(numbers.tag(), RecordLayout::new(&fields, None).tag());
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
