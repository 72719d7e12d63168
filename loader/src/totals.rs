//! The tables of totals of a dataset (`catalog::totals`), added up as its rows are written.
//! A GROUP BY over the finished table sorts every row: 26 s for the raw counts' tables at
//! full size, more than the rest of their load. Here each batch of rows, once inserted, goes
//! to a thread of its own (the `Counter`) that adds each row to its group's tally in memory
//! (thousands of groups): the reading thread and the SQLite thread each leave most of a core
//! idle at times, and a tally on either of them lengthened the load by seconds. The tallies
//! are written once the table is final. A dataset whose rows change after reading (completed,
//! filled in) is summed by SQL once final instead: those are the small ones.

use std::sync::mpsc;
use std::thread::JoinHandle;

use std::hash::Hasher;

use hashbrown::HashTable;
use rustc_hash::FxHasher;

use roadtraffic_catalog::{schema, totals, Dataset, Rollup};
use rusqlite::Connection;

use crate::error::LoadError;
use crate::national::Feed;
use crate::value::Value;

/// A group's key part: a row's value of a `by` column.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Part {
    Null,
    Int(i64),
    Text(compact_str::CompactString),
}

impl Part {
    fn of(v: &Value) -> Option<Part> {
        Some(match v {
            Value::Null => Part::Null,
            Value::Int(i) => Part::Int(*i),
            Value::Text(t) => Part::Text(t.clone()),
            // No column a table of totals is kept by holds decimals.
            Value::Real(_) => return None,
        })
    }

    fn is(&self, v: &Value) -> bool {
        match (self, v) {
            (Part::Null, Value::Null) => true,
            (Part::Int(a), Value::Int(b)) => a == b,
            (Part::Text(a), Value::Text(b)) => a == b,
            _ => false,
        }
    }
}

fn is_key_of(key: &[Part], by: &[usize], row: &[Value]) -> bool {
    key.iter().zip(by).all(|(part, &at)| part.is(&row[at]))
}

/// The hash of a row's values at `by`, as [`hash_key`] hashes the key they make; `None` for a
/// value no key holds.
fn hash_row(by: &[usize], row: &[Value]) -> Option<u64> {
    let mut h = FxHasher::default();
    for &at in by {
        match &row[at] {
            Value::Null => hash_part(&mut h, None, None),
            Value::Int(i) => hash_part(&mut h, Some(*i), None),
            Value::Text(t) => hash_part(&mut h, None, Some(t)),
            Value::Real(_) => return None,
        }
    }
    Some(h.finish())
}

fn hash_key(key: &[Part]) -> u64 {
    let mut h = FxHasher::default();
    for part in key {
        match part {
            Part::Null => hash_part(&mut h, None, None),
            Part::Int(i) => hash_part(&mut h, Some(*i), None),
            Part::Text(t) => hash_part(&mut h, None, Some(t)),
        }
    }
    h.finish()
}

/// One value into a key's hash: a whole number, text, or neither (null), told apart.
fn hash_part(h: &mut FxHasher, int: Option<i64>, text: Option<&str>) {
    match (int, text) {
        (Some(i), _) => {
            h.write_u8(1);
            h.write_i64(i);
        }
        (None, Some(t)) => {
            h.write_u8(2);
            h.write(t.as_bytes());
            h.write_u8(0xff);
        }
        (None, None) => h.write_u8(0),
    }
}

/// What a row adds to each measure of its groups, read once for all its tallies: its value to
/// the sum, 1 to the count, its value to the minimum and maximum; a null adds nothing (0, 0,
/// and values no minimum or maximum takes). A value is tallied only if it fits 32 bits, so a
/// sum of fewer than 2^32 of them cannot overflow 64 bits (a row with a larger one sends its
/// dataset's totals to SQL, which says when a sum overflows).
#[derive(Debug, Default)]
struct Adds {
    sum: Vec<i64>,
    count: Vec<u32>,
    min: Vec<i32>,
    max: Vec<i32>,
}

impl Adds {
    /// The row's adds, false if a measure holds a value a tally does not take.
    fn read(&mut self, row: &[Value], positions: &[usize]) -> bool {
        self.sum.clear();
        self.count.clear();
        self.min.clear();
        self.max.clear();
        for &at in positions {
            let (sum, count, min, max) = match &row[at] {
                Value::Int(v) => match i32::try_from(*v) {
                    Ok(small) => (*v, 1, small, small),
                    Err(_) => return false,
                },
                Value::Null => (0, 0, i32::MAX, i32::MIN),
                _ => return false,
            };
            self.sum.push(sum);
            self.count.push(count);
            self.min.push(min);
            self.max.push(max);
        }
        true
    }
}

/// Each group's sum, count, minimum and maximum of each measure, `measures` per group, group
/// after group, an array each: 20 bytes a measure (a struct of four 64-bit numbers took 32:
/// there are millions of them at full size), and rows added without a branch.
#[derive(Debug, Default)]
struct Stats {
    sum: Vec<i64>,
    count: Vec<u32>,
    min: Vec<i32>,
    max: Vec<i32>,
}

impl Stats {
    fn push_group(&mut self, measures: usize) {
        let len = self.sum.len() + measures;
        self.sum.resize(len, 0);
        self.count.resize(len, 0);
        self.min.resize(len, i32::MAX);
        self.max.resize(len, i32::MIN);
    }

    /// Adds a row's measures to those from `at`.
    fn add(&mut self, at: usize, adds: &Adds) {
        let n = adds.sum.len();
        for (s, v) in self.sum[at..at + n].iter_mut().zip(&adds.sum) {
            *s += v;
        }
        for (c, v) in self.count[at..at + n].iter_mut().zip(&adds.count) {
            *c += v;
        }
        for (m, v) in self.min[at..at + n].iter_mut().zip(&adds.min) {
            *m = (*m).min(*v);
        }
        for (m, v) in self.max[at..at + n].iter_mut().zip(&adds.max) {
            *m = (*m).max(*v);
        }
    }

    /// Sum, count, min and max of the measure at `at` as the table holds them: null over no
    /// values.
    fn cells(&self, at: usize) -> [rusqlite::types::Value; 4] {
        use rusqlite::types::Value as Sql;
        let some = |v: i64| match self.count[at] {
            0 => Sql::Null,
            _ => Sql::Integer(v),
        };
        [
            some(self.sum[at]),
            Sql::Integer(i64::from(self.count[at])),
            some(i64::from(self.min[at])),
            some(i64::from(self.max[at])),
        ]
    }
}

/// One table of totals being added up.
struct Tally {
    table: String,
    /// Positions in a row of the `by` columns, and of the measures.
    by: Vec<usize>,
    measures: Vec<usize>,
    /// Each group's key, by its position.
    keys: Vec<Vec<Part>>,
    /// The positions, found by the hash of a row's values (`hash_row`): a row is looked up
    /// without making a key of it, which only a new group needs.
    groups: HashTable<usize>,
    records: Vec<i64>,
    stats: Stats,
    /// The group of the row before: consecutive rows share theirs more often than not.
    last: Option<usize>,
}

/// The tallies of one dataset's tables of totals (`tallies`: `None` once a row could not be
/// tallied; its tables are then summed by SQL, as for a dataset that is not final when read).
/// A table kept by columns that another keeps too (by region, where one is by local
/// authority) is not tallied but regrouped from that one's thousands of rows.
pub struct Tallies {
    tallies: Option<Vec<Tally>>,
    /// The rows added up (at most `u32::MAX`: see [`Adds`]).
    rows: u64,
    /// Where the measures are in a row, and the adds of the row being added.
    positions: Vec<usize>,
    adds: Adds,
    /// Each table made from another: its name, and the other's.
    regrouped: Vec<(String, String)>,
    /// Time spent adding rows up, for the log.
    spent: std::time::Duration,
}

/// The smallest other rollup of `d` kept by every column `rollup` is kept by (its table).
fn finer(d: &Dataset, rollup: &Rollup) -> Option<String> {
    let covers = |other: &Rollup| {
        other.by.len() > rollup.by.len() && rollup.by.iter().all(|c| other.by.contains(c))
    };
    (d.rollup_tables())
        .filter(|(_, other)| covers(other))
        .min_by_key(|(_, other)| other.by.len())
        .map(|(table, _)| table)
}

impl Tallies {
    /// The tallies of a dataset whose rows are final as read and that keeps tables of
    /// totals; `None` for any other (summed by SQL once final).
    pub fn of_rows(d: &'static Dataset) -> Option<Tallies> {
        (!d.rollups.is_empty() && d.final_when_read()).then(|| Tallies::new(d))
    }

    fn new(d: &'static Dataset) -> Tallies {
        let position = |name: &str| d.position(name).expect("a column of the dataset");
        let measures: Vec<usize> = d.measure_columns().map(|c| position(c.name)).collect();
        let all_integers = d
            .measure_columns()
            .all(|c| c.ty == roadtraffic_catalog::ValueType::Integer);
        let regrouped: Vec<(String, String)> = (d.rollup_tables())
            .filter_map(|(table, rollup)| Some((table, finer(d, rollup)?)))
            .collect();
        let tallied = |table: &String| !regrouped.iter().any(|(t, _)| t == table);
        let tallies = (d.rollup_tables())
            .filter(|(table, _)| tallied(table))
            .map(|(table, rollup)| Tally {
                table,
                by: rollup.by.iter().map(|c| position(c)).collect(),
                measures: measures.clone(),
                keys: Vec::new(),
                groups: HashTable::new(),
                records: Vec::new(),
                stats: Stats::default(),
                last: None,
            })
            .collect();
        Tallies {
            tallies: all_integers.then_some(tallies),
            rows: 0,
            positions: measures,
            adds: Adds::default(),
            regrouped,
            spent: std::time::Duration::ZERO,
        }
    }

    /// Adds rows of `width` values each.
    pub fn add(&mut self, values: &[Value], width: usize) {
        let started = std::time::Instant::now();
        let Some(tallies) = &mut self.tallies else {
            return;
        };
        self.rows += (values.len() / width) as u64;
        let mut taken = self.rows <= u64::from(u32::MAX);
        for row in values.chunks(width) {
            taken = taken
                && self.adds.read(row, &self.positions)
                && tallies.iter_mut().all(|t| t.add(row, &self.adds));
            if !taken {
                self.tallies = None;
                break;
            }
        }
        self.spent += started.elapsed();
    }

    /// Writes each table's rows, or sums it by SQL where the rows could not all be tallied.
    pub fn write(self, conn: &Connection, d: &Dataset) -> Result<(), LoadError> {
        let spent = self.spent.as_secs_f64();
        log::info!("totals of {}: rows added up in {spent:.2} s", d.table);
        let Some(tallies) = self.tallies else {
            return fill_by_sql(conn, d);
        };
        for tally in tallies {
            tally.write(conn, d)?;
        }
        for (table, from) in &self.regrouped {
            let rollup = rollup_of(d, table);
            conn.execute_batch(&totals::regroup_rollup(d, table, rollup, from))?;
        }
        Ok(())
    }
}

impl Tally {
    /// Adds a row; false when it holds a value no tally takes.
    fn add(&mut self, row: &[Value], adds: &Adds) -> bool {
        let group = match self.last.filter(|&g| self.is_group_of(g, row)) {
            Some(g) => g,
            None => match self.find_or_add(row) {
                Some(g) => g,
                None => return false,
            },
        };
        self.last = Some(group);
        self.records[group] += 1;
        self.stats.add(group * self.measures.len(), adds);
        true
    }

    fn is_group_of(&self, group: usize, row: &[Value]) -> bool {
        is_key_of(&self.keys[group], &self.by, row)
    }

    fn find_or_add(&mut self, row: &[Value]) -> Option<usize> {
        let hash = hash_row(&self.by, row)?;
        let (keys, by) = (&self.keys, &self.by);
        if let Some(&g) = self.groups.find(hash, |&g| is_key_of(&keys[g], by, row)) {
            return Some(g);
        }
        let key: Vec<Part> = by
            .iter()
            .map(|&at| Part::of(&row[at]))
            .collect::<Option<_>>()?;
        let g = keys.len();
        self.groups.insert_unique(hash, g, |&i| hash_key(&keys[i]));
        self.keys.push(key);
        self.records.push(0);
        self.stats.push_group(self.measures.len());
        Some(g)
    }

    /// Fills its table, a row per group; where two groups differ only in the letter case of
    /// a code (which the table's collation joins, as a GROUP BY of the dataset does), through
    /// a table of parts regrouped by SQL.
    fn write(&self, conn: &Connection, d: &Dataset) -> Result<(), LoadError> {
        if !self.has_case_variants() {
            return self.write_parts(conn, &self.table);
        }
        let parts = format!("temp.{}_parts", self.table);
        let rollup = rollup_of(d, &self.table);
        conn.execute_batch(&schema::create_rollup_table(d, &parts, rollup))?;
        self.write_parts(conn, &parts)?;
        conn.execute_batch(&totals::regroup_rollup(d, &self.table, rollup, &parts))?;
        conn.execute_batch(&format!("DROP TABLE {parts}"))?;
        Ok(())
    }

    /// Whether two groups' keys differ only in letter case.
    fn has_case_variants(&self) -> bool {
        let mut folded = rustc_hash::FxHashSet::default();
        let fold = |part: &Part| match part {
            Part::Text(t) if t.bytes().any(|b| b.is_ascii_uppercase()) => {
                Part::Text(t.to_ascii_lowercase())
            }
            other => other.clone(),
        };
        let cased = |key: &Vec<Part>| key.iter().any(|p| matches!(p, Part::Text(_)));
        (self.keys.iter().filter(|k| cased(k)))
            .any(|key| !folded.insert(key.iter().map(fold).collect::<Vec<_>>()))
    }

    /// Inserts a row per group into `parts`: its key, its records, each measure's sum,
    /// count, min, max.
    fn write_parts(&self, conn: &Connection, parts: &str) -> Result<(), LoadError> {
        let width = self.by.len() + 1 + self.measures.len() * totals::STATS.len();
        let marks = vec!["?"; width].join(", ");
        let sql = format!("INSERT INTO {parts} VALUES ({marks})");
        let mut insert = conn.prepare(&sql)?;
        let n = self.measures.len();
        for (g, key) in self.keys.iter().enumerate() {
            // Bound in place: no row of owned cells (a copy of each name) per group.
            for (i, part) in key.iter().enumerate() {
                match part {
                    Part::Null => insert.raw_bind_parameter(i + 1, rusqlite::types::Null)?,
                    Part::Int(v) => insert.raw_bind_parameter(i + 1, v)?,
                    Part::Text(t) => insert.raw_bind_parameter(i + 1, t.as_str())?,
                }
            }
            insert.raw_bind_parameter(key.len() + 1, self.records[g])?;
            for (m, at) in (g * n..(g + 1) * n).enumerate() {
                let first = key.len() + 2 + m * totals::STATS.len();
                for (j, cell) in self.stats.cells(at).into_iter().enumerate() {
                    insert.raw_bind_parameter(first + j, cell)?;
                }
            }
            insert.raw_execute()?;
        }
        Ok(())
    }
}

/// What the SQLite thread hands the counter.
enum ToCounter {
    /// Rows inserted: added up, then the buffer given back as a spare.
    Rows {
        table: &'static Dataset,
        values: Vec<Value>,
    },
    /// Every row of the table was handed over: its tallies, answered on `reply`.
    Done {
        table: &'static Dataset,
        reply: mpsc::Sender<Option<Tallies>>,
    },
}

/// The thread that adds rows up for the tables of totals, beside the SQLite thread.
pub struct Counter {
    tx: mpsc::SyncSender<ToCounter>,
    _thread: JoinHandle<()>,
}

impl Counter {
    /// Starts it: each batch's buffer goes on to the national files' thread once added up,
    /// or back to `spare`.
    pub fn start(
        spare: mpsc::SyncSender<Vec<Value>>,
        capacity: usize,
        national: Option<Feed>,
    ) -> Counter {
        let (tx, rx) = mpsc::sync_channel(capacity);
        let thread = std::thread::spawn(move || count_all(rx, spare, national));
        Counter {
            tx,
            _thread: thread,
        }
    }

    /// Hands over a batch of `table`'s rows, once inserted.
    pub fn rows(&self, table: &'static Dataset, values: Vec<Value>) -> Result<(), LoadError> {
        let message = ToCounter::Rows { table, values };
        self.tx.send(message).map_err(|_| LoadError::WriterStopped)
    }

    /// The tallies of a table whose rows were all handed over, once added up; `None` where it
    /// keeps none (or a row could not be tallied: it is then summed by SQL).
    pub fn done(&self, table: &'static Dataset) -> Result<Option<Tallies>, LoadError> {
        let (reply, answer) = mpsc::channel();
        let message = ToCounter::Done { table, reply };
        self.tx
            .send(message)
            .map_err(|_| LoadError::WriterStopped)?;
        answer.recv().map_err(|_| LoadError::WriterStopped)
    }
}

/// The counter's work: every batch added to its table's tallies, in the order inserted.
fn count_all(
    batches: mpsc::Receiver<ToCounter>,
    spare: mpsc::SyncSender<Vec<Value>>,
    national: Option<Feed>,
) {
    let mut tallies: Vec<(&str, Tallies)> = Vec::new();
    for message in batches {
        match message {
            ToCounter::Rows { table, mut values } => {
                let at = match tallies.iter().position(|(t, _)| *t == table.table) {
                    Some(at) => Some(at),
                    None => Tallies::of_rows(table).map(|t| {
                        tallies.push((table.table, t));
                        tallies.len() - 1
                    }),
                };
                if let Some(at) = at {
                    tallies[at].1.add(&values, table.columns().count());
                }
                match &national {
                    Some(national) => national.take(table, values, &spare),
                    None => {
                        values.clear();
                        let _ = spare.send(values);
                    }
                }
            }
            ToCounter::Done { table, reply } => {
                if let Some(national) = &national {
                    national.finished(table);
                }
                let at = tallies.iter().position(|(t, _)| *t == table.table);
                let _ = reply.send(at.map(|i| tallies.swap_remove(i).1));
            }
        }
    }
}

/// The rollup of `d` kept in `table`.
fn rollup_of<'d>(d: &'d Dataset, table: &str) -> &'d Rollup {
    (d.rollup_tables())
        .find(|(t, _)| t == table)
        .map(|(_, r)| r)
        .expect("a rollup of the dataset")
}

/// Fills the dataset's tables of totals from its final table. One whose sums overflow 64-bit
/// integers is left empty, as a tally's.
pub fn fill_by_sql(conn: &Connection, d: &Dataset) -> Result<(), LoadError> {
    for (table, rollup) in d.rollup_tables() {
        let fill = totals::fill_rollup(d, &table, rollup);
        conn.execute_batch("SAVEPOINT rollup")?;
        match conn.execute_batch(&fill) {
            Ok(()) => conn.execute_batch("RELEASE rollup")?,
            Err(e) if e.to_string().contains("integer overflow") => {
                log::warn!("{table} left empty: its sums overflow 64-bit integers");
                conn.execute_batch("ROLLBACK TO rollup; RELEASE rollup")?;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}
