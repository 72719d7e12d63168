//! A listing request: its filters, sort, fields and page checked against the catalogue, then
//! answered from SQLite with rows written straight to JSON bytes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::types::Value as SqlValue;

use crate::envelope::{self, Page, PageNumber};
use crate::error::ApiError;
use crate::json;
use crate::query::{self, Param, Params};
use crate::release::{FilterSet, Release, CHECKPOINT_EVERY};
use roadtraffic_catalog::{Column, Dataset, Source, ValueType, COUNT_METHOD};

pub const DEFAULT_PAGE_SIZE: i64 = 250;

/// What a filter keeps.
#[derive(Debug, Clone)]
enum Condition {
    /// `column IN (values)`.
    In(&'static Column, Vec<SqlValue>),
    /// Matches nothing (`count_method=estimated` on raw counts).
    Nothing,
}

/// The parts of a request's SQL (see [`ListRequest::sql`]).
struct Sql {
    select: String,
    from: String,
    terms: Vec<String>,
    args: Vec<SqlValue>,
    /// The requested order, ties broken by id.
    order: String,
    /// Plain id order.
    id_order: String,
    joined: bool,
}

impl Sql {
    /// ` WHERE ...` of the filters and any extra terms (whose arguments follow the filters').
    fn where_sql(&self, extra: &[String]) -> String {
        let all: Vec<&str> = self.terms.iter().chain(extra).map(String::as_str).collect();
        if all.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", all.join(" AND "))
        }
    }
}

#[derive(Debug)]
pub struct ListRequest {
    pub dataset: &'static Dataset,
    conditions: Vec<Condition>,
    /// (column, descending)
    sort: Vec<(&'static Column, bool)>,
    fields: Vec<&'static Column>,
    /// (number, size) for paginated endpoints.
    page: Option<(PageNumber, i64)>,
}

fn text_param<'a>(name: &str, p: &'a Param) -> Result<&'a str, ApiError> {
    match p {
        Param::Text(t) => Ok(t),
        Param::Map(_) => Err(ApiError::BadRequest(format!(
            "The {name} parameter must be a single value or a comma-separated list."
        ))),
    }
}

fn list(value: &str) -> Vec<&str> {
    value
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .collect()
}

fn filter_value(column: &'static Column, raw: &str) -> Result<SqlValue, ApiError> {
    let bad = |what: &str| {
        ApiError::BadRequest(format!(
            "The value `{raw}` of filter `{}` is not {what}.",
            column.name
        ))
    };
    match column.ty {
        ValueType::Integer => raw
            .parse::<i64>()
            .map(SqlValue::Integer)
            .map_err(|_| bad("an integer")),
        ValueType::Number => raw
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .map(SqlValue::Real)
            .ok_or_else(|| bad("a number")),
        ValueType::Date => {
            let ok = raw.len() == 10
                && raw.bytes().enumerate().all(|(i, b)| {
                    if i == 4 || i == 7 {
                        b == b'-'
                    } else {
                        b.is_ascii_digit()
                    }
                });
            ok.then(|| SqlValue::Text(raw.to_string()))
                .ok_or_else(|| bad("a date (YYYY-MM-DD)"))
        }
        ValueType::Text => Ok(SqlValue::Text(raw.to_string())),
    }
}

/// `count_method`: `None` when it keeps every row.
fn count_method(d: &'static Dataset, values: &[&str]) -> Result<Option<Condition>, ApiError> {
    let mut methods = Vec::new();
    for v in values {
        match v.to_ascii_lowercase().as_str() {
            m @ ("counted" | "estimated") => methods.push(m.to_string()),
            _ => {
                return Err(ApiError::BadRequest(format!(
                    "The value `{v}` of filter `count_method` is not one of `counted, estimated`."
                )))
            }
        }
    }
    Ok(match d.column("estimation_method") {
        // Matched case-insensitively, as the column's collation is.
        Some(c) => Some(Condition::In(
            c,
            methods.into_iter().map(SqlValue::Text).collect(),
        )),
        // Raw counts are all manual counts.
        None if methods.iter().any(|m| m == "counted") => None,
        None => Some(Condition::Nothing),
    })
}

impl ListRequest {
    pub fn parse(
        d: &'static Dataset,
        params: &Params,
        max_page_size: i64,
    ) -> Result<Self, ApiError> {
        // filter[name]=v, and the bare name=v for names this endpoint filters on.
        let mut given: Vec<(&str, &Param)> = Vec::new();
        match query::get(params, "filter") {
            Some(Param::Map(m)) => given.extend(m.iter().map(|(k, v)| (k.as_str(), v))),
            Some(Param::Text(t)) if !t.is_empty() => {
                return Err(ApiError::BadRequest(
                    "Filters are given as filter[name]=value.".to_string(),
                ))
            }
            _ => {}
        }
        for (k, v) in params {
            if d.filters.contains(&k.as_str()) && !given.iter().any(|(g, _)| g == k) {
                given.push((k, v));
            }
        }
        let unknown: Vec<&str> = given
            .iter()
            .map(|(k, _)| *k)
            .filter(|k| !d.filters.contains(k))
            .collect();
        if !unknown.is_empty() {
            return Err(ApiError::BadRequest(format!(
                "Requested filter(s) `{}` are not allowed. Allowed filter(s) are `{}`.",
                unknown.join(", "),
                d.filters.join(", ")
            )));
        }
        let mut conditions = Vec::new();
        for (name, value) in given {
            let values = list(text_param(&format!("filter[{name}]"), value)?);
            if values.is_empty() {
                continue;
            }
            if name == COUNT_METHOD {
                conditions.extend(count_method(d, &values)?);
                continue;
            }
            let column = d
                .filter_column(name)
                .expect("filters are columns or count_method");
            let values = values
                .iter()
                .map(|v| filter_value(column, v))
                .collect::<Result<Vec<_>, _>>()?;
            conditions.push(Condition::In(column, values));
        }

        let sortable: Vec<&str> = d
            .filters
            .iter()
            .copied()
            .filter(|f| *f != COUNT_METHOD)
            .collect();
        let mut sort = Vec::new();
        if let Some(p) = query::get(params, "sort") {
            let mut unknown = Vec::new();
            for key in list(text_param("sort", p)?) {
                let (name, desc) = match key.strip_prefix('-') {
                    Some(n) => (n, true),
                    None => (key.strip_prefix('+').unwrap_or(key), false),
                };
                match d.filter_column(name).filter(|_| sortable.contains(&name)) {
                    Some(c) => sort.push((c, desc)),
                    None => unknown.push(name),
                }
            }
            if !unknown.is_empty() {
                return Err(ApiError::BadRequest(format!(
                    "Requested sort(s) `{}` is not allowed. Allowed sort(s) are `{}`.",
                    unknown.join(", "),
                    sortable.join(", ")
                )));
            }
        }

        let mut fields: Vec<&'static Column> = d.stored_columns().collect();
        if let Some(p) = query::get(params, "fields") {
            let wanted = match p {
                Param::Text(t) => list(t),
                // JSON:API's fields[type]=a,b: the type is this endpoint's.
                Param::Map(m) => match m.as_slice() {
                    [(_, Param::Text(t))] => list(t),
                    _ => {
                        return Err(ApiError::BadRequest(
                            "The fields parameter must be a comma-separated list.".into(),
                        ))
                    }
                },
            };
            if !wanted.is_empty() {
                let unknown: Vec<&str> = wanted
                    .iter()
                    .copied()
                    .filter(|w| !fields.iter().any(|c| c.name == *w))
                    .collect();
                if !unknown.is_empty() {
                    return Err(ApiError::BadRequest(format!(
                        "Requested field(s) `{}` are not allowed. Allowed field(s) are `{}`.",
                        unknown.join(", "),
                        fields.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
                    )));
                }
                fields.retain(|c| wanted.contains(&c.name));
            }
        }

        let page = if d.paginated {
            let page_map = match query::get(params, "page") {
                Some(Param::Map(m)) => m.as_slice(),
                _ => &[],
            };
            let number = requested_page(page_map)?;
            let size = page_size(page_map, max_page_size)?;
            Some((number, size))
        } else {
            None
        };
        Ok(ListRequest {
            dataset: d,
            conditions,
            sort,
            fields,
            page,
        })
    }

    /// How many rows the request may answer with (unpaginated lists are small).
    pub fn rows_asked(&self) -> i64 {
        self.page.as_ref().map_or(0, |(_, size)| *size)
    }

    /// The filter set, canonical (order and letter case of text values do not matter), as
    /// the key of its cached total.
    fn total_key(&self) -> String {
        let mut parts: Vec<(&str, Vec<String>)> = self
            .conditions
            .iter()
            .map(|c| match c {
                Condition::Nothing => ("", Vec::new()),
                Condition::In(col, values) => {
                    let mut vs: Vec<String> = values
                        .iter()
                        .map(|v| match v {
                            SqlValue::Text(t) => t.to_ascii_lowercase(),
                            other => format!("{other:?}"),
                        })
                        .collect();
                    vs.sort();
                    vs.dedup();
                    (col.name, vs)
                }
            })
            .collect();
        parts.sort();
        // Debug quotes and escapes every value, so no value can pass for another filter set.
        format!("{} {:?}", self.dataset.table, parts)
    }

    /// Whether the request goes through the runs table: it filters or sorts on a run column.
    fn joins_runs(&self) -> bool {
        let d = self.dataset;
        let is_run = |c: &Column| d.run_columns.contains(&c.name);
        !d.run_columns.is_empty()
            && (self
                .conditions
                .iter()
                .any(|c| matches!(c, Condition::In(col, _) if is_run(col)))
                || self.sort.iter().any(|(c, _)| is_run(c)))
    }

    /// The SQL of the request, in parts. The big table is `r`; when the request filters or
    /// sorts on run columns, they are read from the runs table `u`, each of whose rows stands
    /// for the id range `first_id..=last_id` of `r`. Runs are scanned in first_id order and
    /// each range in id order, so `u.first_id, r.id` is id order without a sort.
    fn sql(&self) -> Sql {
        let d = self.dataset;
        let joined = self.joins_runs();
        let qualify = |c: &Column| {
            if joined && d.run_columns.contains(&c.name) {
                format!("u.{}", c.name)
            } else {
                format!("r.{}", c.name)
            }
        };
        let from = match d.runs_table() {
            Some(runs) if joined => format!(
                "{runs} u JOIN {} r ON r.id BETWEEN u.first_id AND u.last_id",
                d.table
            ),
            _ => format!("{} r", d.table),
        };
        let mut terms = Vec::new();
        let mut args = Vec::new();
        for c in &self.conditions {
            match c {
                Condition::Nothing => terms.push("0".to_string()),
                Condition::In(col, values) if values.len() == 1 => {
                    terms.push(format!("{} = ?", qualify(col)));
                    args.push(values[0].clone());
                }
                Condition::In(col, values) => {
                    terms.push(format!(
                        "{} IN ({})",
                        qualify(col),
                        vec!["?"; values.len()].join(",")
                    ));
                    args.extend(values.iter().cloned());
                }
            }
        }
        let id_order = |desc: bool| {
            let dir = if desc { " DESC" } else { "" };
            if joined {
                format!("u.first_id{dir}, r.id{dir}")
            } else {
                format!("r.id{dir}")
            }
        };
        // Keys up to the first id (ids are unique: nothing after one can matter); without an
        // id key, ties broken by id in the direction of the last key, so that one index scan,
        // forwards or backwards, gives the order.
        let until_id = self
            .sort
            .iter()
            .position(|(c, _)| c.source == Source::Id)
            .map_or(self.sort.len(), |i| i + 1);
        let sort = &self.sort[..until_id];
        let mut keys: Vec<String> = sort
            .iter()
            .filter(|(c, _)| c.source != Source::Id)
            .map(|(c, desc)| format!("{}{}", qualify(c), if *desc { " DESC" } else { "" }))
            .collect();
        let last_desc = sort.last().is_some_and(|(_, desc)| *desc);
        let all_runs = sort
            .iter()
            .all(|(c, _)| c.source == Source::Id || d.run_columns.contains(&c.name));
        keys.push(if all_runs {
            id_order(last_desc)
        } else {
            format!("r.id{}", if last_desc { " DESC" } else { "" })
        });
        Sql {
            select: self
                .fields
                .iter()
                .map(|c| format!("r.{}", c.name))
                .collect::<Vec<_>>()
                .join(", "),
            from,
            terms,
            args,
            order: keys.join(", "),
            id_order: id_order(false),
            joined,
        }
    }

    /// Runs the request, writing the JSON body (an envelope, or a bare array for the
    /// unpaginated endpoints). Full chunks of [`CHUNK_BYTES`] go to `flush` as they fill, so a
    /// page of any size is written in bounded memory; the last, partial chunk is returned.
    /// `path` is the absolute URL of the endpoint; `params` the request's own.
    pub fn run(
        &self,
        release: &Release,
        path: &str,
        params: &Params,
        time_limit: Duration,
        flush: &mut dyn FnMut(Vec<u8>) -> Result<(), ApiError>,
    ) -> Result<Vec<u8>, ApiError> {
        let conn = release.pool.get()?;
        // The limit is on time spent in SQLite: time waiting for the client to take a chunk
        // pushes the deadline back.
        let started = Instant::now();
        let allowed = Arc::new(AtomicU64::new(time_limit.as_nanos() as u64));
        let limit = allowed.clone();
        conn.progress_handler(
            10_000,
            Some(move || started.elapsed().as_nanos() as u64 > limit.load(Ordering::Relaxed)),
        )?;
        let mut timed_flush = |chunk: Vec<u8>| {
            let waiting = Instant::now();
            let result = flush(chunk);
            allowed.fetch_add(waiting.elapsed().as_nanos() as u64, Ordering::Relaxed);
            result
        };
        let mut body = Body {
            buf: Vec::with_capacity(self.rows_asked().clamp(1, 1400) as usize * 800),
            flush: &mut timed_flush,
        };
        let result = self.run_on(&conn, release, path, params, &mut body);
        // The connection goes back to the pool without the handler, whatever happened.
        conn.progress_handler(0, None::<fn() -> bool>)?;
        result.map(|()| body.buf)
    }

    fn run_on(
        &self,
        conn: &rusqlite::Connection,
        release: &Release,
        path: &str,
        params: &Params,
        body: &mut Body,
    ) -> Result<(), ApiError> {
        let sql = self.sql();
        let Some((number, size)) = self.page.clone() else {
            let query = format!(
                "SELECT {} FROM {}{} ORDER BY {}",
                sql.select,
                sql.from,
                sql.where_sql(&[]),
                sql.order
            );
            return self.write_rows(conn, &query, &sql.args, body);
        };
        let (rows, dense) = release.rows(self.dataset.table);
        let set = if self.conditions.is_empty() {
            None
        } else if self
            .conditions
            .iter()
            .any(|c| matches!(c, Condition::Nothing))
        {
            Some(Arc::new(FilterSet {
                total: 0,
                checkpoints: Vec::new(),
            }))
        } else {
            let key = self.total_key();
            Some(match release.filter_set(&key) {
                Some(set) => set,
                None => release.remember_filter_set(key, self.learn_filter_set(conn, &sql)?),
            })
        };
        let page = Page {
            number,
            size,
            total: set.as_ref().map_or(rows, |s| s.total),
        };
        envelope::write_head(&mut body.buf, &page);
        if page.range().is_none() {
            body.buf.extend_from_slice(b"[]");
        } else if !self.sort.is_empty() {
            self.write_offset_page(conn, &page, &sql, body)?;
        } else if let Some(set) = set {
            // Seek to the checkpoint at or before the page's first row, then skip fewer than
            // CHECKPOINT_EVERY rows.
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
            let query = format!(
                "SELECT {} FROM {}{} ORDER BY {} LIMIT {size} OFFSET {}",
                sql.select,
                sql.from,
                sql.where_sql(&seek),
                sql.id_order,
                offset % CHECKPOINT_EVERY
            );
            let mut args = sql.args.clone();
            args.extend(std::iter::repeat_n(SqlValue::Integer(from_id), seek.len()));
            self.write_rows(conn, &query, &args, body)?;
        } else if dense {
            // Ids are 1..N in file order: page N is an id range, as fast at any depth.
            let query = format!(
                "SELECT {} FROM {} WHERE r.id BETWEEN ?1 AND ?2 ORDER BY r.id",
                sql.select, sql.from
            );
            let first = page.offset() + 1;
            let args = [
                SqlValue::Integer(first),
                SqlValue::Integer(first.saturating_add(size - 1)),
            ];
            self.write_rows(conn, &query, &args, body)?;
        } else {
            self.write_offset_page(conn, &page, &sql, body)?;
        }
        envelope::write_tail(&mut body.buf, &page, path, params);
        Ok(())
    }

    /// Counts a filter set's rows and notes its checkpoints, in one scan of the ids (or, when
    /// every filter is on run columns, of the runs alone).
    fn learn_filter_set(
        &self,
        conn: &rusqlite::Connection,
        sql: &Sql,
    ) -> Result<FilterSet, ApiError> {
        let d = self.dataset;
        let only_runs = self
            .conditions
            .iter()
            .all(|c| matches!(c, Condition::In(col, _) if d.run_columns.contains(&col.name)));
        if let (true, true, Some(runs)) = (sql.joined, only_runs, d.runs_table()) {
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
            return Ok(FilterSet { total, checkpoints });
        }
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

    /// A sorted page (or one of a table whose ids are not 1..N): LIMIT and OFFSET in the
    /// order of the sort's index.
    fn write_offset_page(
        &self,
        conn: &rusqlite::Connection,
        page: &Page,
        sql: &Sql,
        body: &mut Body,
    ) -> Result<(), ApiError> {
        let query = format!(
            "SELECT {} FROM {}{} ORDER BY {} LIMIT {} OFFSET {}",
            sql.select,
            sql.from,
            sql.where_sql(&[]),
            sql.order,
            page.size,
            page.offset()
        );
        self.write_rows(conn, &query, &sql.args, body)
    }

    fn write_rows(
        &self,
        conn: &rusqlite::Connection,
        sql: &str,
        args: &[SqlValue],
        body: &mut Body,
    ) -> Result<(), ApiError> {
        let keys: Vec<Vec<u8>> = self
            .fields
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut k = if i == 0 { b"{".to_vec() } else { b",".to_vec() };
                json::string(&mut k, c.name);
                k.push(b':');
                k
            })
            .collect();
        let mut stmt = conn.prepare_cached(sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(args.iter()))?;
        body.buf.push(b'[');
        let mut first = true;
        while let Some(row) = rows.next()? {
            let out = &mut body.buf;
            if !first {
                out.push(b',');
            }
            first = false;
            for (i, key) in keys.iter().enumerate() {
                out.extend_from_slice(key);
                json::value(out, row.get_ref(i)?);
            }
            if keys.is_empty() {
                out.push(b'{');
            }
            out.push(b'}');
            body.flush_if_full()?;
        }
        body.buf.push(b']');
        Ok(())
    }
}

/// Bodies are handed on in chunks of about this many bytes: a body that fits in one (pages of
/// up to ~1,400 rows) is sent whole with its length, a bigger one is streamed chunk by chunk.
pub const CHUNK_BYTES: usize = 1 << 20;

/// A response body being written: full chunks go to `flush`.
struct Body<'a> {
    buf: Vec<u8>,
    flush: &'a mut dyn FnMut(Vec<u8>) -> Result<(), ApiError>,
}

impl Body<'_> {
    fn flush_if_full(&mut self) -> Result<(), ApiError> {
        if self.buf.len() >= CHUNK_BYTES {
            let chunk =
                std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK_BYTES + 64 * 1024));
            (self.flush)(chunk)?;
        }
        Ok(())
    }
}

/// The text of `page[key]`, if given and not empty.
fn page_param<'a>(page: &'a [(String, Param)], key: &str) -> Result<Option<&'a str>, ApiError> {
    match page.iter().find(|(k, _)| k == key) {
        Some((_, p)) => Ok(Some(text_param(&format!("page[{key}]"), p)?).filter(|t| !t.is_empty())),
        None => Ok(None),
    }
}

/// `page[number]`: 1 when absent; any positive integer, however large (a page past the last
/// is empty, as any other).
fn requested_page(page: &[(String, Param)]) -> Result<PageNumber, ApiError> {
    let Some(text) = page_param(page, "number")? else {
        return Ok(PageNumber::Small(1));
    };
    let digits = text.strip_prefix('+').unwrap_or(text);
    digits
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| PageNumber::from_digits(digits))
        .flatten()
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "page[number] must be a positive integer, not `{text}`."
            ))
        })
}

/// `page[size]`: [`DEFAULT_PAGE_SIZE`] when absent; otherwise a whole number from 1 to `max`.
fn page_size(page: &[(String, Param)], max: i64) -> Result<i64, ApiError> {
    let Some(text) = page_param(page, "size")? else {
        return Ok(DEFAULT_PAGE_SIZE);
    };
    text.parse::<i64>()
        .ok()
        .filter(|n| text.bytes().all(|b| b.is_ascii_digit()) && (1..=max).contains(n))
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "page[size] must be an integer from 1 to {max}, not `{text}`."
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use roadtraffic_catalog::DATASETS;

    proptest::proptest! {
        /// Any parameters give a request or a 400 that says what is wrong, on every endpoint.
        #[test]
        fn any_parameters_give_a_request_or_a_400(query in "[a-z_\\[\\]=&,%0-9.-]{0,150}") {
            let params = query::parse(&query);
            for d in DATASETS {
                match ListRequest::parse(d, &params, 100_000) {
                    Ok(_) => {}
                    Err(ApiError::BadRequest(message)) => proptest::prop_assert!(!message.is_empty()),
                    Err(other) => proptest::prop_assert!(false, "{other:?} for {query}"),
                }
            }
        }
    }
}
