//! Which rows make a page, and the one query that reads them, fast at any depth:
//!
//! - **id range**: an unfiltered listing of a table whose ids are 1..N (ids follow the files'
//!   order): page N is `id BETWEEN a AND b`;
//! - **filter set**: a filtered listing seeks to the checkpoint at or before its page, from what
//!   one scan learnt of the filter set (its total, and the id of every 256th row), then skips
//!   fewer than 256 rows; where the set is an area or a CQL2 filter decided by run columns,
//!   the runs it keeps (learnt with it when they are few, else found from the checkpoint)
//!   give the page's runs and its first and last ids, and only those rows are read;
//! - **nearest**: count points near a point, nearest first and nothing else asked, are found
//!   in the release's count points in memory (`spatial::nearest`), and only the page's are
//!   read, by id;
//! - **offset**: a sorted listing (or a table whose ids are not 1..N) walks the sort's index
//!   with LIMIT and OFFSET.

use std::sync::Arc;

use rusqlite::types::Value as SqlValue;

use super::filter_sets::{FilterSet, FilterSets, KeptRun, CHECKPOINT_EVERY, RUNS_KEPT};
use super::page::Page;
use super::params::Condition;
use super::plan::{Plan, Sql};
use super::{Reading, Rows};
use crate::error::ApiError;
use crate::release::Release;
use crate::spatial::nearest::CountPointGrid;
use crate::spatial::run_places::{RunIds, RunPlaces};
use crate::spatial::{Area, Crs};

/// One query and its arguments.
pub struct RowQuery {
    pub sql: String,
    pub args: Vec<SqlValue>,
    /// The rows the query must read, when the paging knows it: fewer, and the file is not
    /// what its row counts said (a record missing from a table read in place of the rows).
    pub exactly: Option<i64>,
}

impl RowQuery {
    /// Every row of an unpaginated listing.
    pub fn all(sql: &Sql) -> RowQuery {
        RowQuery {
            sql: sql.rows(&format!("{} ORDER BY {}", sql.where_sql(&[]), sql.order)),
            args: sql.args.clone(),
            exactly: None,
        }
    }
}

/// What was found of the rows asked for: every one, or a page or a window of them with how many
/// match in all.
#[derive(Debug, Clone)]
pub enum Found {
    All,
    Page(Page),
    Window { window: Window, matched: i64 },
}

/// A run of rows of a listing: `size` rows after the first `offset`.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub offset: i64,
    pub size: i64,
}

/// Finds a request's page in its release, learning and keeping its filter set when it has
/// one.
pub struct Pager<'a> {
    pub request: &'a Rows,
    pub release: &'a Release,
    /// Where filter sets are kept once learnt; without it, a page's set is learnt each time.
    pub filter_sets: Option<&'a FilterSets>,
}

impl Pager<'_> {
    /// What the rows asked for are (all of them, or the page or window asked, its total
    /// counted), and the query that reads them; `None` past the last page.
    pub fn find(
        &self,
        conn: &rusqlite::Connection,
        sql: &Sql,
    ) -> Result<(Found, Option<RowQuery>), ApiError> {
        match &self.request.reading {
            Reading::All => Ok((Found::All, Some(RowQuery::all(sql)))),
            Reading::Page(number, size) => {
                let window = Window {
                    offset: (number.value() - 1).saturating_mul(*size),
                    size: *size,
                };
                let (total, rows) = self.window(conn, sql, window)?;
                let page = Page {
                    number: number.clone(),
                    size: *size,
                    total,
                };
                Ok((Found::Page(page), rows))
            }
            Reading::Window(window) => {
                let (matched, rows) = self.window(conn, sql, *window)?;
                let window = *window;
                Ok((Found::Window { window, matched }, rows))
            }
        }
    }

    /// The rows of `window` (whatever its offset: OGC's `offset` and `limit`), with how many
    /// rows the request matches; `None` when the window starts past the last.
    fn window(
        &self,
        conn: &rusqlite::Connection,
        sql: &Sql,
        window: Window,
    ) -> Result<(i64, Option<RowQuery>), ApiError> {
        if let Some(nearest) = self.nearest_count_points(conn, sql, window)? {
            return Ok(nearest);
        }
        let (rows, dense) = self.release.rows(self.request.dataset.table);
        let set = self.filter_set(conn, sql)?;
        let total = set.as_ref().map_or(rows, |s| s.total);
        if window.offset >= total {
            return Ok((total, None));
        }
        let plan = Plan(self.request);
        let query = match set {
            _ if plan.sorted() => offset_page(window, sql),
            Some(set) if sql.joined && plan.filters_only_runs() && self.scattered() => {
                self.window_of_runs(conn, window, sql, &set)?
            }
            Some(set) if !sql.joined && set.runs.is_some() => rows_of_ids(sql, window, &set),
            Some(set) => self.seek_checkpoint(window, sql, &set),
            None if dense => id_range(window, sql, rows),
            None => offset_page(window, sql),
        };
        Ok((total, Some(query)))
    }

    /// The window of a listing of count points that asks only for those near a point,
    /// nearest first, from the release's count points in memory (`spatial::nearest`): how
    /// many there are, and the query that reads the window's by id. `None` for any other
    /// listing.
    fn nearest_count_points(
        &self,
        conn: &rusqlite::Connection,
        sql: &Sql,
        window: Window,
    ) -> Result<Option<(i64, Option<RowQuery>)>, ApiError> {
        let [Condition::Within(places, Area::Near { centre, radius })] =
            self.request.conditions.as_slice()
        else {
            return Ok(None);
        };
        if !places.key_is_id() || !Plan(self.request).by_distance() {
            return Ok(None);
        }
        let grid = CountPointGrid::of(self.release, places.dataset, conn)?;
        let found = grid.within(centre, *radius);
        let total = i64::try_from(found.len()).unwrap_or(i64::MAX);
        if window.offset >= total {
            return Ok(Some((total, None)));
        }
        let ids: Vec<i64> = (found.iter())
            .skip(usize::try_from(window.offset).unwrap_or(usize::MAX))
            .take(usize::try_from(window.size).unwrap_or(usize::MAX))
            .map(|&(_, id)| id)
            .collect();
        let query = RowQuery {
            sql: sql.page_of_rows(&format!(
                " WHERE r.id IN (SELECT value FROM json_each(?)) ORDER BY {} LIMIT {}",
                sql.order, window.size
            )),
            args: vec![ids_as_json(&ids)],
            exactly: None,
        };
        Ok(Some((total, Some(query))))
    }

    /// What is known of the request's filter set: learnt once, then kept with the release.
    fn filter_set(
        &self,
        conn: &rusqlite::Connection,
        sql: &Sql,
    ) -> Result<Option<Arc<FilterSet>>, ApiError> {
        let conditions = &self.request.conditions;
        if conditions.is_empty() {
            return Ok(None);
        }
        if conditions.iter().any(|c| matches!(c, Condition::Nothing)) {
            let nothing = FilterSet {
                total: 0,
                checkpoints: Vec::new(),
                runs: None,
            };
            return Ok(Some(Arc::new(nothing)));
        }
        let Some(filter_sets) = self.filter_sets else {
            return self
                .learn_filter_set(conn, sql)
                .map(|set| Some(Arc::new(set)));
        };
        let key = Plan(self.request).total_key();
        if let Some(set) = filter_sets.get(&key)? {
            return Ok(Some(set));
        }
        let set = self.learn_filter_set(conn, sql)?;
        filter_sets.remember(key, set).map(Some)
    }

    /// Seeks to the checkpoint at or before the page's first row, then skips fewer than
    /// [`CHECKPOINT_EVERY`] rows.
    fn seek_checkpoint(&self, window: Window, sql: &Sql, set: &FilterSet) -> RowQuery {
        let offset = window.offset;
        let from_id = set.checkpoints[(offset / CHECKPOINT_EVERY) as usize];
        let mut seek = vec!["r.id >= ?".to_string()];
        if let (true, Some(runs)) = (sql.joined, self.request.dataset.runs_table()) {
            // Start at the run holding the checkpoint: a seek in the run index, not a walk
            // over every run before it.
            seek.push(format!(
                "u.first_id >= (SELECT max(first_id) FROM {runs} WHERE first_id <= ?)"
            ));
        }
        let mut args = sql.args.clone();
        args.extend(std::iter::repeat_n(SqlValue::Integer(from_id), seek.len()));
        RowQuery {
            sql: sql.page_of_rows(&format!(
                "{} ORDER BY {} LIMIT {} OFFSET {}",
                sql.where_sql(&seek),
                sql.id_order,
                window.size,
                offset % CHECKPOINT_EVERY
            )),
            args,
            exactly: None,
        }
    }

    /// Whether the rows kept may be scattered over the file: an area or a CQL2 filter, rather
    /// than equality on run columns, whose runs lie together in the files' order (a local
    /// authority's, a count point's), so that a seek from the checkpoint finds the page's rows
    /// in a few runs (reading the runs first costs those pages about a third more).
    fn scattered(&self) -> bool {
        let scattered = |c: &Condition| {
            matches!(
                c,
                Condition::Within(..) | Condition::Cql2(_) | Condition::InAreas(..)
            )
        };
        self.request.conditions.iter().any(scattered)
    }

    /// A window of a filter set decided by its runs alone (every filter on run columns, as a
    /// box or a count point on raw counts): the runs it keeps from its checkpoint on, in id
    /// order, give the window's first and last ids, and the rows are read between them. Read
    /// the usual way, SQLite finds the runs by a filter's index, joins every row of them and
    /// sorts them all before the LIMIT: 36,000 rows for a page of 1,000 in a 30 km box. When
    /// the set kept its runs, they are not even looked for: the page's runs are read by key.
    fn window_of_runs(
        &self,
        conn: &rusqlite::Connection,
        window: Window,
        sql: &Sql,
        set: &FilterSet,
    ) -> Result<RowQuery, ApiError> {
        if let Some(kept) = set.runs_of_window(window.offset, window.size) {
            return Ok(rows_of_runs(sql, window, kept));
        }
        let runs = self.request.dataset.runs_table().unwrap_or_default();
        let from_id = set.checkpoints[(window.offset / CHECKPOINT_EVERY) as usize];
        let query = format!(
            "SELECT u.first_id, u.last_id FROM {runs} u{} ORDER BY u.first_id",
            sql.where_sql(&["u.last_id >= ?".to_string()])
        );
        let mut args = sql.args.clone();
        args.push(SqlValue::Integer(from_id));
        let mut stmt = conn.prepare_cached(&query)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(args.iter()))?;
        let (mut skip, mut wanted) = (window.offset % CHECKPOINT_EVERY, window.size);
        let mut span: Option<((i64, i64), (i64, i64))> = None;
        while let Some(row) = rows.next()? {
            let (first, last): (i64, i64) = (row.get(0)?, row.get(1)?);
            let start = first.max(from_id) + skip;
            skip = (start - last - 1).max(0);
            if start > last {
                continue;
            }
            let end = last.min(start + wanted - 1);
            wanted -= end - start + 1;
            span = Some(match span {
                None => ((start, first), (end, first)),
                Some((low, _)) => (low, (end, first)),
            });
            if wanted == 0 {
                break;
            }
        }
        let Some(((low, first_run), (high, last_run))) = span else {
            return Ok(self.seek_checkpoint(window, sql, set));
        };
        let bounds = ["r.id BETWEEN ? AND ?", "u.first_id BETWEEN ? AND ?"].map(String::from);
        let mut args = sql.args.clone();
        args.extend([low, high, first_run, last_run].map(SqlValue::Integer));
        Ok(RowQuery {
            sql: sql.page_of_rows(&format!(
                "{} ORDER BY {} LIMIT {}",
                sql.where_sql(&bounds),
                sql.id_order,
                window.size
            )),
            args,
            exactly: None,
        })
    }

    /// Counts a filter set's rows and notes its checkpoints, in one scan of the ids (or, when
    /// every filter is on run columns, of the runs alone).
    fn learn_filter_set(
        &self,
        conn: &rusqlite::Connection,
        sql: &Sql,
    ) -> Result<FilterSet, ApiError> {
        match self.request.dataset.runs_table() {
            Some(runs) if sql.joined && Plan(self.request).filters_only_runs() => {
                let found = match self.runs_in_box(conn, &runs)? {
                    Some(found) => found,
                    None => runs_found(conn, &runs, sql)?,
                };
                // Runs are kept only where pages are read by them: an equality's runs lie
                // together, and its pages seek from a checkpoint (`window`).
                Ok(set_of_runs(found, self.scattered()))
            }
            _ => learn_from_rows(conn, sql, self.scattered() && !sql.joined),
        }
    }

    /// The runs of a listing that asks only for the rows in a WGS 84 box, where the
    /// coordinates are run columns (raw counts): from the release's runs in memory
    /// (`spatial::run_places`) rather than a read of each. `None` for any other listing.
    fn runs_in_box(
        &self,
        conn: &rusqlite::Connection,
        runs: &str,
    ) -> Result<Option<Vec<RunIds>>, ApiError> {
        let [Condition::Within(places, Area::Box { crs, min, max })] =
            self.request.conditions.as_slice()
        else {
            return Ok(None);
        };
        // Across the antimeridian, or on the grid: SQL's way.
        if !places.in_runs || *crs != Crs::Crs84 || min[0] > max[0] {
            return Ok(None);
        }
        let run_places = RunPlaces::of(self.release, runs, conn)?;
        Ok(run_places.map(|p| p.in_box(*min, *max)))
    }
}

/// The rows of a window from its runs as the filter set kept them (their first ids, and the
/// window's first and last row ids): the runs by their key, then their rows by id, with no
/// filter evaluated again and nothing sorted.
fn rows_of_runs(sql: &Sql, window: Window, (firsts, low, high): (Vec<i64>, i64, i64)) -> RowQuery {
    RowQuery {
        sql: sql.page_of_rows(&format!(
            " WHERE u.first_id IN (SELECT value FROM json_each(?)) AND r.id BETWEEN ? AND ? \
             ORDER BY {} LIMIT {}",
            sql.id_order, window.size
        )),
        args: vec![
            ids_as_json(&firsts),
            SqlValue::Integer(low),
            SqlValue::Integer(high),
        ],
        exactly: None,
    }
}

/// Ids as one argument, a JSON array, for `IN (SELECT value FROM json_each(?))`: one statement,
/// prepared once, for any number of them.
fn ids_as_json(ids: &[i64]) -> SqlValue {
    SqlValue::Text(serde_json::to_string(ids).unwrap_or_default())
}

/// The runs a filter set decided by run columns keeps, in id order. They are sorted here, not
/// by SQLite: found by a filter's index they come in its order, and SQLite's sorter cost a
/// 30 km box's learning an eighth of its time. At most every run of a table is held at once
/// (16 bytes each: 220,000 in a full-size raw counts file).
fn runs_found(conn: &rusqlite::Connection, runs: &str, sql: &Sql) -> Result<Vec<RunIds>, ApiError> {
    let query = format!(
        "SELECT u.first_id, u.last_id FROM {runs} u{}",
        sql.where_sql(&[])
    );
    let mut stmt = conn.prepare_cached(&query)?;
    let found = stmt.query_map(rusqlite::params_from_iter(sql.args.iter()), |row| {
        Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?))
    })?;
    let mut found = found.collect::<Result<Vec<_>, _>>()?;
    found.sort_unstable();
    Ok(found)
}

/// A filter set from the runs it keeps, in id order: each run is an id range. The runs are
/// kept with it when `keep_runs` and they are at most [`RUNS_KEPT`].
fn set_of_runs(found: Vec<RunIds>, keep_runs: bool) -> FilterSet {
    let (mut total, mut checkpoints) = (0i64, Vec::new());
    let keep_runs = keep_runs && found.len() <= RUNS_KEPT;
    let mut kept = Vec::with_capacity(if keep_runs { found.len() } else { 0 });
    for (first, last) in found {
        // The checkpoints that fall in this run: positions total..total+len.
        let mut next = (total + CHECKPOINT_EVERY - 1) / CHECKPOINT_EVERY * CHECKPOINT_EVERY;
        while next < total + (last - first + 1) {
            checkpoints.push(first + (next - total));
            next += CHECKPOINT_EVERY;
        }
        if keep_runs {
            kept.push(KeptRun {
                first_id: first,
                last_id: last,
                position: total,
            });
        }
        total += last - first + 1;
    }
    FilterSet {
        total,
        checkpoints,
        runs: keep_runs.then_some(kept),
    }
}

/// The rows of a window from the ids the filter set kept: each a seek by id, with no filter
/// evaluated again. Scattered rows (an area's count points over every year) read by a
/// filter's index and sorted for each page cost 5 ms a page; by id, a fraction.
fn rows_of_ids(sql: &Sql, window: Window, set: &FilterSet) -> RowQuery {
    let ids = set
        .ids_of_window(window.offset, window.size)
        .unwrap_or_default();
    RowQuery {
        sql: sql.page_of_rows(&format!(
            " WHERE r.id IN (SELECT value FROM json_each(?)) ORDER BY {} LIMIT {}",
            sql.id_order, window.size
        )),
        args: vec![ids_as_json(&ids)],
        exactly: None,
    }
}

/// A filter set from one scan of the ids of its rows; with `keep_runs` (rows that may be
/// scattered), their ids too, as runs of consecutive ids, when there are at most
/// [`RUNS_KEPT`] runs.
fn learn_from_rows(
    conn: &rusqlite::Connection,
    sql: &Sql,
    keep_runs: bool,
) -> Result<FilterSet, ApiError> {
    let mut stmt = conn.prepare_cached(&sql.ids())?;
    let mut rows = stmt.query(rusqlite::params_from_iter(sql.args.iter()))?;
    let (mut total, mut checkpoints) = (0i64, Vec::new());
    let mut runs: Option<Vec<KeptRun>> = keep_runs.then(Vec::new);
    while let Some(row) = rows.next()? {
        let id = row.get::<_, i64>(0)?;
        if total % CHECKPOINT_EVERY == 0 {
            checkpoints.push(id);
        }
        if let Some(kept) = runs.as_mut() {
            match kept.last_mut() {
                Some(run) if run.last_id + 1 == id => run.last_id = id,
                _ => kept.push(KeptRun {
                    first_id: id,
                    last_id: id,
                    position: total,
                }),
            }
            if kept.len() > RUNS_KEPT {
                runs = None;
            }
        }
        total += 1;
    }
    checkpoints.shrink_to_fit();
    Ok(FilterSet {
        total,
        checkpoints,
        runs,
    })
}

/// Ids are 1..N in file order: page N is an id range, as fast at any depth.
fn id_range(window: Window, sql: &Sql, rows: i64) -> RowQuery {
    let first = window.offset + 1;
    RowQuery {
        sql: sql.id_range(),
        args: vec![
            SqlValue::Integer(first),
            SqlValue::Integer(first.saturating_add(window.size - 1)),
        ],
        exactly: Some(window.size.min(rows - window.offset)),
    }
}

/// A sorted page (or one of a table whose ids are not 1..N): LIMIT and OFFSET in the order of
/// the sort's index.
fn offset_page(window: Window, sql: &Sql) -> RowQuery {
    RowQuery {
        sql: sql.page_of_rows(&format!(
            "{} ORDER BY {} LIMIT {} OFFSET {}",
            sql.where_sql(&[]),
            sql.order,
            window.size,
            window.offset
        )),
        args: sql.args.clone(),
        exactly: None,
    }
}
