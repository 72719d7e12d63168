//! The tables of totals of a dataset (`catalog::totals`), added up as its rows are written.
//! A GROUP BY over the finished table sorts every row: 26 s for the raw counts' two tables at
//! full size, more than the rest of their load. Here each row adds to its group's tally in
//! memory (thousands of groups) on the SQLite thread, and the tallies are written once the
//! table is final. A dataset whose rows change after reading (completed, filled in) is summed
//! by SQL once final instead: those are the small ones.

use indexmap::IndexSet;
use rustc_hash::FxBuildHasher;

use roadtraffic_catalog::{schema, totals, Dataset};
use rusqlite::Connection;

use crate::error::LoadError;
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

/// What a group holds of one measure (32 bytes: there are millions of them at full size).
/// `min` and `max` mean something once `count` is above 0.
#[derive(Debug, Clone, Copy)]
struct Stat {
    sum: i64,
    count: i64,
    min: i64,
    max: i64,
}

impl Default for Stat {
    fn default() -> Self {
        Stat {
            sum: 0,
            count: 0,
            min: i64::MAX,
            max: i64::MIN,
        }
    }
}

impl Stat {
    /// Adds a value; false when the sum overflows 64 bits.
    fn add(&mut self, v: i64) -> bool {
        self.count += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        match self.sum.checked_add(v) {
            Some(sum) => {
                self.sum = sum;
                true
            }
            None => false,
        }
    }

    /// Sum, count, min and max as the table holds them: null over no values.
    fn cells(&self) -> [rusqlite::types::Value; 4] {
        use rusqlite::types::Value as Sql;
        let some = |v: i64| match self.count {
            0 => Sql::Null,
            _ => Sql::Integer(v),
        };
        [
            some(self.sum),
            Sql::Integer(self.count),
            some(self.min),
            some(self.max),
        ]
    }
}

/// One table of totals being added up.
struct Tally {
    table: String,
    /// Positions in a row of the `by` columns, and of the measures.
    by: Vec<usize>,
    measures: Vec<usize>,
    /// Each group's key, found by its position (kept once: there are a hundred thousand).
    keys: IndexSet<Vec<Part>, FxBuildHasher>,
    records: Vec<i64>,
    /// `measures.len()` per group, group after group.
    stats: Vec<Stat>,
    /// The group of the row before: consecutive rows share theirs more often than not.
    last: Option<usize>,
    /// A key reused for lookups, so that only a new group allocates.
    scratch: Vec<Part>,
    /// A sum overflowed 64 bits (only hostile files hold such counts): the table is left
    /// empty, as SQL's sum would fail, and summaries read the dataset's table.
    overflowed: bool,
}

/// The tallies of one dataset's tables of totals; `None` once a row could not be tallied
/// (then its tables are summed by SQL, as for a dataset that is not final when read).
pub struct Tallies(Option<Vec<Tally>>);

impl Tallies {
    pub fn new(d: &'static Dataset) -> Tallies {
        let position = |name: &str| d.position(name).expect("a column of the dataset");
        let measures: Vec<usize> = d.measure_columns().map(|c| position(c.name)).collect();
        let all_integers = d
            .measure_columns()
            .all(|c| c.ty == roadtraffic_catalog::ValueType::Integer);
        let tallies = (d.rollup_tables())
            .map(|(table, rollup)| Tally {
                table,
                by: rollup.by.iter().map(|c| position(c)).collect(),
                measures: measures.clone(),
                keys: IndexSet::default(),
                records: Vec::new(),
                stats: Vec::new(),
                last: None,
                scratch: Vec::new(),
                overflowed: false,
            })
            .collect();
        Tallies(all_integers.then_some(tallies))
    }

    /// Adds rows of `width` values each.
    pub fn add(&mut self, values: &[Value], width: usize) {
        let Some(tallies) = &mut self.0 else { return };
        for row in values.chunks(width) {
            if !tallies.iter_mut().all(|t| t.add(row)) {
                self.0 = None;
                return;
            }
        }
    }

    /// Writes each table's rows, or sums it by SQL where the rows could not all be tallied.
    pub fn write(self, conn: &Connection, d: &Dataset) -> Result<(), LoadError> {
        let Some(tallies) = self.0 else {
            return fill_by_sql(conn, d);
        };
        for tally in tallies {
            tally.write(conn, d)?;
        }
        Ok(())
    }
}

impl Tally {
    /// Adds a row; false when it holds a value no tally takes.
    fn add(&mut self, row: &[Value]) -> bool {
        let group = match self.last.filter(|&g| self.is_group_of(g, row)) {
            Some(g) => g,
            None => match self.find_or_add(row) {
                Some(g) => g,
                None => return false,
            },
        };
        self.last = Some(group);
        self.records[group] += 1;
        let stats = &mut self.stats[group * self.measures.len()..];
        for (stat, &at) in stats.iter_mut().zip(&self.measures) {
            match &row[at] {
                Value::Int(v) => self.overflowed |= !stat.add(*v),
                Value::Null => {}
                _ => return false,
            }
        }
        true
    }

    fn is_group_of(&self, group: usize, row: &[Value]) -> bool {
        let key = &self.keys[group];
        key.iter()
            .zip(&self.by)
            .all(|(part, &at)| part.is(&row[at]))
    }

    fn find_or_add(&mut self, row: &[Value]) -> Option<usize> {
        self.scratch.clear();
        for &at in &self.by {
            self.scratch.push(Part::of(&row[at])?);
        }
        if let Some(g) = self.keys.get_index_of(self.scratch.as_slice()) {
            return Some(g);
        }
        let (g, _) = self.keys.insert_full(self.scratch.clone());
        self.records.push(0);
        let stats = std::iter::repeat_n(Stat::default(), self.measures.len());
        self.stats.extend(stats);
        Some(g)
    }

    /// Fills its table, a row per group; where two groups differ only in the letter case of
    /// a code (which the table's collation joins, as a GROUP BY of the dataset does), through
    /// a table of parts regrouped by SQL.
    fn write(&self, conn: &Connection, d: &Dataset) -> Result<(), LoadError> {
        if self.overflowed {
            log::warn!(
                "{} left empty: its sums overflow 64-bit integers",
                self.table
            );
            return Ok(());
        }
        if !self.has_case_variants() {
            return self.write_parts(conn, &self.table);
        }
        let parts = format!("temp.{}_parts", self.table);
        let rollup = (d.rollup_tables())
            .find(|(table, _)| *table == self.table)
            .map(|(_, r)| r)
            .expect("a rollup of the dataset");
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
        let mut cells: Vec<rusqlite::types::Value> = Vec::with_capacity(width);
        for (g, key) in self.keys.iter().enumerate() {
            use rusqlite::types::Value as Sql;
            cells.clear();
            cells.extend(key.iter().map(|p| match p {
                Part::Null => Sql::Null,
                Part::Int(i) => Sql::Integer(*i),
                Part::Text(t) => Sql::Text(t.to_string()),
            }));
            cells.push(Sql::Integer(self.records[g]));
            for s in &self.stats[g * n..(g + 1) * n] {
                cells.extend(s.cells());
            }
            insert.execute(rusqlite::params_from_iter(cells.iter()))?;
        }
        Ok(())
    }
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
