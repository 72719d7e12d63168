//! A row as its JSON record: from SQLite straight to PHP-style JSON bytes, field by field, run
//! by run, or copied whole from the records the loader wrote; with its distance when `near` is
//! asked. What every JSON form of a listing writes for each row (`Reads::Json`).

use std::ops::RangeInclusive;

use roadtraffic_catalog::legacy::{retired_fields, RetiredFields};
use roadtraffic_catalog::record::{self, Decimals, RecordLayout, RunFragments, SplitLayout};
use rusqlite::types::ValueRef;

use crate::error::ApiError;
use crate::release::Release;
use crate::rows::{column_list, Plan, Rows, Sql, ThenJoin};
use crate::spatial;

/// The `distance_m` a record gains when `filter[near]` is asked (a deviation from the public
/// service, which has no such filter): read from the row's extras (see `Sql::extras`), the
/// distance from `near`'s centre on the grid, in metres to the decimetre.
pub struct Distance {
    /// Its place among the row's columns, counted from the last (0).
    from_end: usize,
}

impl Distance {
    /// The distance of the rows, if they ask `near`; `after` extras follow it.
    pub fn of(rows: &Rows, after: usize) -> Option<Distance> {
        Plan(rows).near().map(|_| Distance { from_end: after })
    }

    /// The distance of a row, in metres (`None` for a row without coordinates).
    pub fn read(&self, row: &rusqlite::Row) -> Result<Option<f64>, ApiError> {
        let at = row.as_ref().column_count() - 1 - self.from_end;
        Ok(row.get::<_, Option<f64>>(at)?.map(spatial::sql::metres))
    }

    /// Writes `,"distance_m":D` before the record's closing brace.
    pub fn append(&self, out: &mut Vec<u8>, row: &rusqlite::Row) -> Result<(), ApiError> {
        if out.last() != Some(&b'}') {
            return Err(ApiError::internal("a record does not end in }"));
        }
        out.pop();
        out.extend_from_slice(b",\"distance_m\":");
        match self.read(row)? {
            Some(d) => out.extend_from_slice(format!("{d}").as_bytes()),
            None => out.extend_from_slice(b"null"),
        }
        out.push(b'}');
        Ok(())
    }
}

/// How a row becomes its JSON record.
pub enum JsonRecord {
    /// Written field by field from the row's columns.
    Fields(RecordLayout),
    /// Written from the row's id and own values and its run's fragments, when the rows come
    /// run by run (see `record::SplitLayout`).
    Split(RunRecords),
    /// Copied whole from the record the loader wrote (`--rendered-records`), whose table is
    /// this: for requests of every field of today's records, on a file that has them.
    Rendered(String),
}

/// Records written from their id, their own values and their run (see `record::SplitLayout`):
/// the run of the row being written, looked up by id when a row falls outside it.
pub struct RunRecords {
    layout: SplitLayout,
    /// The table of the rows' own values.
    own_values: String,
    /// The run holding an id: `first_id`, `last_id`, then the run fields.
    lookup: String,
    run: Option<(RangeInclusive<i64>, RunFragments)>,
}

impl RunRecords {
    fn of(rows: &Rows, retired: Option<&RetiredFields>, decimals: Decimals) -> Option<Self> {
        let d = rows.dataset;
        let (runs, own_values) = (d.runs_table()?, d.own_values_table()?);
        if !Plan(rows).keeps_runs_together() {
            return None; // a run looked up per row would cost more than its columns
        }
        let layout = SplitLayout::new(d, &rows.fields, retired, decimals);
        if layout.run_fields().is_empty() {
            return None;
        }
        let lookup = format!(
            "SELECT first_id, last_id, {} FROM {runs} WHERE first_id <= ?1 ORDER BY first_id DESC LIMIT 1",
            column_list(layout.run_fields(), "")
        );
        Some(RunRecords {
            layout,
            own_values,
            lookup,
            run: None,
        })
    }

    /// Writes the record of a row: its id, then its own values if the layout reads them.
    fn write(
        &mut self,
        conn: &rusqlite::Connection,
        out: &mut Vec<u8>,
        row: &rusqlite::Row,
    ) -> Result<(), ApiError> {
        let id = row.get(0)?;
        let own_values = match self.layout.reads_own_values() {
            true => match row.get_ref(1)? {
                ValueRef::Blob(bytes) => bytes,
                _ => return Err(ApiError::internal(format!("row {id} has no own values"))),
            },
            false => &[],
        };
        let run = match self.run.take() {
            Some(run) if run.0.contains(&id) => run,
            old => self.look_up(conn, id, old.map(|(_, buffers)| buffers))?,
        };
        let written = self.layout.write(out, id, own_values, &run.1);
        self.run = Some(run);
        written.map_err(|_| ApiError::internal(format!("row {id}'s own values are short")))
    }

    /// The run holding `id`, its fragments written into `buffers` when given.
    fn look_up(
        &self,
        conn: &rusqlite::Connection,
        id: i64,
        buffers: Option<RunFragments>,
    ) -> Result<(RangeInclusive<i64>, RunFragments), ApiError> {
        let mut fragments = buffers.unwrap_or_default();
        let mut stmt = conn.prepare_cached(&self.lookup)?;
        let ids = stmt.query_row([id], |run| {
            self.layout.write_run(&mut fragments, run, 2)?;
            Ok(run.get::<_, i64>(0)?..=run.get::<_, i64>(1)?)
        })?;
        if !ids.contains(&id) {
            return Err(ApiError::internal(format!("row {id} is in no run")));
        }
        Ok((ids, fragments))
    }
}

impl JsonRecord {
    /// The records of `rows` in `release`, as today's listings write them or (`legacy`) with
    /// the fields of the 2019-2020 records too.
    pub fn of(rows: &Rows, release: &Release, legacy: bool) -> Self {
        Self::with_decimals(rows, release, legacy, Decimals::AsText)
    }

    /// [`JsonRecord::of`], the decimals the files give as text written as `decimals` says
    /// (the records the loader wrote have them as text: copied only then).
    pub fn with_decimals(rows: &Rows, release: &Release, legacy: bool, decimals: Decimals) -> Self {
        let d = rows.dataset;
        let every_field = rows.fields.len() == d.stored_columns().count();
        let as_rendered = !legacy && decimals == Decimals::AsText;
        if every_field && as_rendered && release.has_rendered_records(d) {
            return JsonRecord::Rendered(record::rendered_table(d));
        }
        let retired = retired_fields(d).filter(|_| legacy);
        let split = release
            .has_long_runs(d)
            .then(|| RunRecords::of(rows, retired, decimals));
        match split.flatten() {
            Some(split) => JsonRecord::Split(split),
            None => JsonRecord::Fields(RecordLayout::of(&rows.fields, retired, decimals)),
        }
    }

    /// The SQL of the rows, selecting what this writer reads: the fields; the id, then the
    /// row's own values if the layout reads them; or the rendered record.
    pub fn sql(&self, rows: &Rows) -> Sql {
        let mut sql = Plan(rows).sql();
        match self {
            JsonRecord::Fields(_) => {}
            JsonRecord::Split(split) => {
                sql.select = "r.id".to_string();
                if split.layout.reads_own_values() {
                    sql.then_join = Some(ThenJoin {
                        table: split.own_values.clone(),
                        column: "json",
                        with_id: true,
                    });
                }
            }
            JsonRecord::Rendered(table) => {
                sql.select = "r.id".to_string();
                sql.then_join = Some(ThenJoin {
                    table: table.clone(),
                    column: "record",
                    with_id: false,
                });
            }
        }
        sql
    }

    pub fn write(
        &mut self,
        conn: &rusqlite::Connection,
        out: &mut Vec<u8>,
        row: &rusqlite::Row,
    ) -> Result<(), ApiError> {
        match self {
            JsonRecord::Fields(layout) => layout.write(out, row)?,
            JsonRecord::Split(split) => split.write(conn, out, row)?,
            JsonRecord::Rendered(_) => match row.get_ref(0)? {
                ValueRef::Blob(record) | ValueRef::Text(record) => out.extend_from_slice(record),
                other => {
                    let why = format!("a rendered record is {:?}", other.data_type());
                    return Err(ApiError::internal(why));
                }
            },
        }
        Ok(())
    }
}
