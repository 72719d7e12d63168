//! Natural keys: packed into 64 bits and remembered, to find a row given twice; and where each
//! kept row came from, to name both places of a duplicate.

use rustc_hash::{FxHashMap, FxHashSet};

use roadtraffic_catalog::{Column, Dataset, ValueType};

use crate::error::LoadError;
use crate::report::{LoadReport, Problem};
use crate::value::{self, Value};

/// The natural keys of one dataset's rows, across all its files.
pub struct Keys {
    dataset: &'static Dataset,
    /// The key's columns, by position in a row.
    columns: Vec<(usize, &'static Column)>,
    seen: KeySet,
    /// Per text key component, its values seen so far (packed as small numbers).
    interned: Vec<FxHashMap<String, u64>>,
    places: Places,
    pending: Vec<PendingDuplicate>,
}

/// Why a row's key cannot be kept: the column and the reason.
pub type KeyProblem = (&'static str, String);

impl Keys {
    pub fn new(dataset: &'static Dataset, rows_estimate: usize) -> Self {
        let columns: Vec<(usize, &'static Column)> = dataset
            .natural_key
            .iter()
            .filter_map(|k| Some((dataset.position(k)?, dataset.column(k)?)))
            .collect();
        Keys {
            dataset,
            interned: vec![FxHashMap::default(); columns.len()],
            columns,
            seen: KeySet::new(dataset, rows_estimate),
            places: Places::default(),
            pending: Vec::new(),
        }
    }

    pub fn start_file(&mut self, name: String) {
        self.places.start_file(name);
    }

    /// Whether the row's key is new (then remembered, with the row's line); a key seen before
    /// is listed in the report as a duplicate.
    pub fn first_seen(
        &mut self,
        row: &[Value],
        place: (&str, u64),
        report: &mut LoadReport,
        keep_first: bool,
    ) -> Result<bool, KeyProblem> {
        let key = self.pack(row)?;
        if self.seen.insert(key) {
            self.places.push(place.1 as u32);
            return Ok(true);
        }
        if report.duplicate_unlisted(keep_first) {
            return Ok(false);
        }
        let listed_before = report.duplicates.len();
        let reason = format!(
            "duplicate {} ({})",
            self.dataset.natural_key.join(", "),
            self.values(row)
        );
        report.duplicate(Problem::new(place.0, place.1, None, reason), keep_first);
        if report.duplicates.len() > listed_before {
            self.pending.push(PendingDuplicate {
                listed: listed_before,
                key: self.columns.iter().map(|(k, _)| row[*k].clone()).collect(),
            });
        }
        Ok(false)
    }

    /// What is needed to name the first places of the duplicates, if there were any.
    pub fn finish(self) -> Option<DuplicatePlaces> {
        (!self.pending.is_empty()).then(|| DuplicatePlaces {
            dataset: self.dataset,
            pending: self.pending,
            places: self.places,
        })
    }

    /// Packs the natural key into 64 bits: the leading id gets 32 bits, a date 16 (days since
    /// 1950), other integers 12 (years, hours) and text codes 4 (interned).
    fn pack(&mut self, row: &[Value]) -> Result<u64, KeyProblem> {
        let mut key: u64 = 0;
        for (n, (k, column)) in self.columns.iter().enumerate() {
            let bits = key_bits(n, column);
            let v: Option<u64> = match (&row[*k], column.ty) {
                (Value::Int(v), ValueType::Integer) => u64::try_from(*v).ok(),
                (Value::Text(d), ValueType::Date) => {
                    value::day_number(d).and_then(|d| u64::try_from(d).ok())
                }
                (Value::Text(t), _) => Some(intern(&mut self.interned[n], t)),
                _ => None,
            };
            match v {
                Some(v) if v < (1u64 << bits) => key = (key << bits) | v,
                _ => {
                    let reason = format!("value '{}' is out of the range of a key", row[*k]);
                    return Err((column.name, reason));
                }
            }
        }
        Ok(key)
    }

    fn values(&self, row: &[Value]) -> String {
        self.columns
            .iter()
            .map(|(k, _)| row[*k].to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A text's small number among those seen so far.
fn intern(map: &mut FxHashMap<String, u64>, text: &str) -> u64 {
    if let Some(code) = map.get(text) {
        return *code;
    }
    let code = map.len() as u64;
    map.insert(text.to_string(), code);
    code
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
        match self.dataset.ids {
            // Ids are 1..N in reading order.
            roadtraffic_catalog::Ids::FileOrder => self.places.place((id - 1) as u32),
            roadtraffic_catalog::Ids::Column(_) => "an earlier row".to_string(),
        }
    }
}

/// Bits a natural key component takes in a packed key (see [`Keys::pack`]).
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

#[cfg(test)]
mod tests {
    use super::Places;

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
