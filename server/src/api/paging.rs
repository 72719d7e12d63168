//! Which rows make a page, and the one query that reads them, fast at any depth:
//!
//! - **id range**: an unfiltered listing of a table whose ids are 1..N (ids follow the files'
//!   order): page N is `id BETWEEN a AND b`;
//! - **filter set**: a filtered listing seeks to the checkpoint at or before its page, from what
//!   one scan learnt of the filter set (its total, and the id of every 256th row), then skips
//!   fewer than 256 rows;
//! - **offset**: a sorted listing (or a table whose ids are not 1..N) walks the sort's index
//!   with LIMIT and OFFSET.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rusqlite::types::Value as SqlValue;

use super::envelope::Page;
use super::plan::Sql;
use super::request::{Condition, ListRequest};
use crate::error::ApiError;
use crate::release::Release;

/// What is learnt of a filter set by one scan of its index: how many rows match, and the id of
/// every [`CHECKPOINT_EVERY`]th of them in id order, so that any page of it starts with a seek
/// near its first row rather than an OFFSET over all the rows before it.
#[derive(Debug)]
pub struct FilterSet {
    pub total: i64,
    pub checkpoints: Vec<i64>,
}

pub const CHECKPOINT_EVERY: i64 = 256;

/// Filter sets are learnt once per release and kept; past the budget (`--filter-set-cache-mib`),
/// the oldest half of the sets is forgotten so memory stays bounded whatever the clients ask.
/// What a set is reckoned to cost besides its checkpoints (8 bytes each) and its key (kept
/// twice): its map entry, its place in the order, its allocation headers.
const SET_OVERHEAD_BYTES: usize = 128;

/// The filter sets learnt of one release.
pub struct FilterSets(Mutex<FilterSetCache>);

struct FilterSetCache {
    sets: HashMap<String, Arc<FilterSet>>,
    order: Vec<String>,
    bytes: usize,
    budget: usize,
}

/// The memory a set of this key holds in the cache.
fn cost(key: &str, set: &FilterSet) -> usize {
    SET_OVERHEAD_BYTES + 2 * key.len() + 8 * set.checkpoints.len()
}

impl FilterSets {
    /// An empty cache that holds at most about `budget` bytes.
    pub fn new(budget: usize) -> Self {
        FilterSets(Mutex::new(FilterSetCache {
            sets: HashMap::new(),
            order: Vec::new(),
            bytes: 0,
            budget,
        }))
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, FilterSetCache>, ApiError> {
        self.0
            .lock()
            .map_err(|_| ApiError::internal("the filter set cache's lock is poisoned"))
    }

    /// The bytes the learnt sets hold, as reckoned against the budget.
    pub fn bytes(&self) -> usize {
        self.lock().map_or(0, |cache| cache.bytes)
    }

    fn get(&self, key: &str) -> Result<Option<Arc<FilterSet>>, ApiError> {
        Ok(self.lock()?.sets.get(key).cloned())
    }

    fn remember(&self, key: String, set: FilterSet) -> Result<Arc<FilterSet>, ApiError> {
        let set = Arc::new(set);
        let mut cache = self.lock()?;
        let bytes = cost(&key, &set);
        while cache.bytes + bytes > cache.budget && !cache.order.is_empty() {
            let half = cache.order.len().div_ceil(2);
            let forget: Vec<String> = cache.order.drain(..half).collect();
            for k in forget {
                if let Some(old) = cache.sets.remove(&k) {
                    cache.bytes -= cost(&k, &old);
                }
            }
        }
        if bytes > cache.budget {
            return Ok(set); // used for this request, too big to keep
        }
        cache.bytes += bytes;
        if let Some(old) = cache.sets.insert(key.clone(), set.clone()) {
            cache.bytes -= cost(&key, &old);
        } else {
            cache.order.push(key);
        }
        Ok(set)
    }
}

/// One query and its arguments.
pub struct RowQuery {
    pub sql: String,
    pub args: Vec<SqlValue>,
}

impl ListRequest {
    /// Every row of an unpaginated listing.
    pub fn all_rows(&self, sql: &Sql) -> RowQuery {
        RowQuery {
            sql: sql.rows(&format!("{} ORDER BY {}", sql.where_sql(&[]), sql.order)),
            args: sql.args.clone(),
        }
    }

    /// The requested page of a paginated listing (its total counted), and the query of its
    /// rows; `None` past the last page.
    pub fn page_rows(
        &self,
        conn: &rusqlite::Connection,
        release: &Release,
        sql: &Sql,
    ) -> Result<(Page, Option<RowQuery>), ApiError> {
        let Some((number, size)) = self.page.clone() else {
            return Err(ApiError::internal("a page of an unpaginated listing"));
        };
        let (rows, dense) = release.rows(self.dataset.table);
        let set = self.filter_set(conn, release, sql)?;
        let page = Page {
            number,
            size,
            total: set.as_ref().map_or(rows, |s| s.total),
        };
        if page.range().is_none() {
            return Ok((page, None));
        }
        let query = match set {
            _ if !self.sort.is_empty() => offset_page(&page, sql),
            Some(set) => self.seek_checkpoint(&page, sql, &set),
            None if dense => id_range(&page, sql),
            None => offset_page(&page, sql),
        };
        Ok((page, Some(query)))
    }

    /// What is known of the request's filter set: learnt once, then kept with the release.
    fn filter_set(
        &self,
        conn: &rusqlite::Connection,
        release: &Release,
        sql: &Sql,
    ) -> Result<Option<Arc<FilterSet>>, ApiError> {
        if self.conditions.is_empty() {
            return Ok(None);
        }
        if self
            .conditions
            .iter()
            .any(|c| matches!(c, Condition::Nothing))
        {
            let nothing = FilterSet {
                total: 0,
                checkpoints: Vec::new(),
            };
            return Ok(Some(Arc::new(nothing)));
        }
        let key = self.total_key();
        if let Some(set) = release.filter_sets.get(&key)? {
            return Ok(Some(set));
        }
        let set = self.learn_filter_set(conn, sql)?;
        release.filter_sets.remember(key, set).map(Some)
    }

    /// Seeks to the checkpoint at or before the page's first row, then skips fewer than
    /// [`CHECKPOINT_EVERY`] rows.
    fn seek_checkpoint(&self, page: &Page, sql: &Sql, set: &FilterSet) -> RowQuery {
        let offset = page.offset();
        let from_id = set.checkpoints[(offset / CHECKPOINT_EVERY) as usize];
        let mut seek = vec!["r.id >= ?".to_string()];
        if let (true, Some(runs)) = (sql.joined, self.dataset.runs_table()) {
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
                page.size,
                offset % CHECKPOINT_EVERY
            )),
            args,
        }
    }

    /// Counts a filter set's rows and notes its checkpoints, in one scan of the ids (or, when
    /// every filter is on run columns, of the runs alone).
    fn learn_filter_set(
        &self,
        conn: &rusqlite::Connection,
        sql: &Sql,
    ) -> Result<FilterSet, ApiError> {
        match self.dataset.runs_table() {
            Some(runs) if sql.joined && self.filters_only_runs() => {
                learn_from_runs(conn, &runs, sql)
            }
            _ => learn_from_rows(conn, sql),
        }
    }
}

/// A filter set from the runs it keeps: each run is an id range.
fn learn_from_runs(
    conn: &rusqlite::Connection,
    runs: &str,
    sql: &Sql,
) -> Result<FilterSet, ApiError> {
    let query = format!(
        "SELECT u.first_id, u.last_id FROM {runs} u{} ORDER BY u.first_id",
        sql.where_sql(&[])
    );
    let mut stmt = conn.prepare_cached(&query)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(sql.args.iter()))?;
    let (mut total, mut checkpoints) = (0i64, Vec::new());
    while let Some(row) = rows.next()? {
        let (first, last): (i64, i64) = (row.get(0)?, row.get(1)?);
        // The checkpoints that fall in this run: positions total..total+len.
        let mut next = (total + CHECKPOINT_EVERY - 1) / CHECKPOINT_EVERY * CHECKPOINT_EVERY;
        while next < total + (last - first + 1) {
            checkpoints.push(first + (next - total));
            next += CHECKPOINT_EVERY;
        }
        total += last - first + 1;
    }
    Ok(FilterSet { total, checkpoints })
}

/// A filter set from one scan of the ids of its rows.
fn learn_from_rows(conn: &rusqlite::Connection, sql: &Sql) -> Result<FilterSet, ApiError> {
    let query = format!(
        "SELECT r.id FROM {}{} ORDER BY {}",
        sql.from,
        sql.where_sql(&[]),
        sql.id_order
    );
    let mut stmt = conn.prepare_cached(&query)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(sql.args.iter()))?;
    let (mut total, mut checkpoints) = (0i64, Vec::new());
    while let Some(row) = rows.next()? {
        if total % CHECKPOINT_EVERY == 0 {
            checkpoints.push(row.get::<_, i64>(0)?);
        }
        total += 1;
    }
    checkpoints.shrink_to_fit();
    Ok(FilterSet { total, checkpoints })
}

/// Ids are 1..N in file order: page N is an id range, as fast at any depth.
fn id_range(page: &Page, sql: &Sql) -> RowQuery {
    let first = page.offset() + 1;
    RowQuery {
        sql: sql.rows(" WHERE r.id BETWEEN ?1 AND ?2 ORDER BY r.id"),
        args: vec![
            SqlValue::Integer(first),
            SqlValue::Integer(first.saturating_add(page.size - 1)),
        ],
    }
}

/// A sorted page (or one of a table whose ids are not 1..N): LIMIT and OFFSET in the order of
/// the sort's index.
fn offset_page(page: &Page, sql: &Sql) -> RowQuery {
    RowQuery {
        sql: sql.page_of_rows(&format!(
            "{} ORDER BY {} LIMIT {} OFFSET {}",
            sql.where_sql(&[]),
            sql.order,
            page.size,
            page.offset()
        )),
        args: sql.args.clone(),
    }
}
