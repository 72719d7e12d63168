//! Runs of consecutive rows that share their run columns (see `Dataset::run_columns`): kept
//! once per run, with the run's id range, in the table's `<table>_runs`.

use roadtraffic_catalog::Dataset;

use crate::value::Value;

/// The run of rows being read: first and last id, and the run columns' values.
struct Run {
    first_id: i64,
    last_id: i64,
    values: Vec<Value>,
}

pub struct Runs {
    /// The run columns' positions in a row.
    columns: Vec<usize>,
    current: Option<Run>,
    /// Finished runs: first_id, last_id, then the run columns.
    done: Vec<Vec<Value>>,
}

impl Runs {
    pub fn new(d: &Dataset) -> Self {
        Runs {
            columns: d.run_columns.iter().filter_map(|c| d.position(c)).collect(),
            current: None,
            done: Vec::new(),
        }
    }

    /// Extends the current run with the row of this id, or closes it and starts another.
    pub fn extend(&mut self, id: i64, row: &[Value]) {
        if self.columns.is_empty() {
            return;
        }
        if let Some(run) = &mut self.current {
            let same = self
                .columns
                .iter()
                .zip(&run.values)
                .all(|(&i, v)| row[i] == *v);
            if run.last_id + 1 == id && same {
                run.last_id = id;
                return;
            }
        }
        let values = self.columns.iter().map(|&i| row[i].clone()).collect();
        let next = Run {
            first_id: id,
            last_id: id,
            values,
        };
        if let Some(run) = self.current.replace(next) {
            self.close(run);
        }
    }

    fn close(&mut self, run: Run) {
        let mut row = vec![Value::Int(run.first_id), Value::Int(run.last_id)];
        row.extend(run.values);
        self.done.push(row);
    }

    /// The finished runs, once there are at least `at_least` of them.
    pub fn take(&mut self, at_least: usize) -> Option<Vec<Vec<Value>>> {
        (!self.done.is_empty() && self.done.len() >= at_least)
            .then(|| std::mem::take(&mut self.done))
    }

    /// Every run, the current one closed.
    pub fn finish(&mut self) -> Option<Vec<Vec<Value>>> {
        if let Some(run) = self.current.take() {
            self.close(run);
        }
        self.take(1)
    }
}
