//! A listing request: its filters, sort, fields and page checked against the catalogue, then
//! answered from SQLite with rows written straight to JSON bytes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::types::Value as SqlValue;

use super::envelope::{self, Page};
use super::error::ApiError;
use super::json;
use super::query::{self, Param, Params};
use super::release::{FilterSet, Release, CHECKPOINT_EVERY};
use crate::catalog::{Column, Dataset, Source, ValueType, COUNT_METHOD};

pub const DEFAULT_PAGE_SIZE: i64 = 250;

/// What a filter keeps.
#[derive(Debug, Clone)]
enum Condition {
    /// `column IN (values)`.
    In(&'static Column, Vec<SqlValue>),
    /// Matches nothing (`count_method=estimated` on raw counts).
    Nothing,
}

#[derive(Debug)]
pub struct ListRequest {
    pub dataset: &'static Dataset,
    conditions: Vec<Condition>,
    /// (column, descending)
    sort: Vec<(&'static Column, bool)>,
    fields: Vec<&'static Column>,
    /// (number, size) for paginated endpoints.
    page: Option<(i64, i64)>,
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
            let number = page_number(page_map, "number", i64::MAX, 1)?;
            let size = page_number(page_map, "size", max_page_size, DEFAULT_PAGE_SIZE)?;
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

    /// The filter set, canonical (order and letter case of text values do not matter), as
    /// the key of its cached total.
    fn total_key(&self) -> String {
        let mut parts: Vec<String> = self
            .conditions
            .iter()
            .map(|c| match c {
                Condition::Nothing => "nothing".to_string(),
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
                    format!("{}={}", col.name, vs.join("\u{1}"))
                }
            })
            .collect();
        parts.sort();
        format!("{}?{}", self.dataset.table, parts.join("&"))
    }

    fn where_clause(&self) -> (String, Vec<SqlValue>) {
        let mut sql = Vec::new();
        let mut args = Vec::new();
        for c in &self.conditions {
            match c {
                Condition::Nothing => sql.push("0".to_string()),
                Condition::In(col, values) if values.len() == 1 => {
                    sql.push(format!("{} = ?", col.name));
                    args.push(values[0].clone());
                }
                Condition::In(col, values) => {
                    sql.push(format!(
                        "{} IN ({})",
                        col.name,
                        vec!["?"; values.len()].join(",")
                    ));
                    args.extend(values.iter().cloned());
                }
            }
        }
        if sql.is_empty() {
            (String::new(), args)
        } else {
            (format!(" WHERE {}", sql.join(" AND ")), args)
        }
    }

    /// `ORDER BY`: the sort keys, ties broken by id in the direction of the last key (so one
    /// index scan, forwards or backwards, gives the order).
    fn order_clause(&self) -> String {
        let mut keys: Vec<String> = self
            .sort
            .iter()
            .filter(|(c, _)| c.source != Source::Id)
            .map(|(c, desc)| format!("{}{}", c.name, if *desc { " DESC" } else { "" }))
            .collect();
        let id_desc = self.sort.last().is_some_and(|(_, desc)| *desc);
        keys.push(if id_desc {
            "id DESC".into()
        } else {
            "id".into()
        });
        format!(" ORDER BY {}", keys.join(", "))
    }

    fn select_list(&self) -> String {
        self.fields
            .iter()
            .map(|c| c.name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Runs the request: the JSON body (an envelope, or a bare array for the unpaginated
    /// endpoints). `path` is the absolute URL of the endpoint; `params` the request's own.
    pub fn run(
        &self,
        release: &Release,
        path: &str,
        params: &Params,
        time_limit: Duration,
    ) -> Result<Vec<u8>, ApiError> {
        let conn = release.pool.get()?;
        let deadline = Instant::now() + time_limit;
        conn.progress_handler(10_000, Some(move || Instant::now() > deadline))?;
        let result = self.run_on(&conn, release, path, params);
        conn.progress_handler(0, None::<fn() -> bool>)?;
        result
    }

    fn run_on(
        &self,
        conn: &rusqlite::Connection,
        release: &Release,
        path: &str,
        params: &Params,
    ) -> Result<Vec<u8>, ApiError> {
        let table = self.dataset.table;
        let (where_sql, args) = self.where_clause();
        let Some((number, size)) = self.page else {
            let sql = format!(
                "SELECT {} FROM {table}{where_sql}{}",
                self.select_list(),
                self.order_clause()
            );
            let mut out = Vec::with_capacity(4096);
            self.write_rows(conn, &sql, &args, &mut out)?;
            return Ok(out);
        };
        let (rows, dense) = release.rows(table);
        if self.conditions.is_empty() {
            let page = Page {
                number,
                size,
                total: rows,
            };
            let mut data = Vec::new();
            if page.range().is_none() {
                data.extend_from_slice(b"[]");
            } else if self.sort.is_empty() && dense {
                // Ids are 1..N in file order: page N is an id range, as fast at any depth.
                let sql = format!(
                    "SELECT {} FROM {table} WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
                    self.select_list()
                );
                let first = page.offset() + 1;
                let args = [
                    SqlValue::Integer(first),
                    SqlValue::Integer(first.saturating_add(size - 1)),
                ];
                self.write_rows(conn, &sql, &args, &mut data)?;
            } else {
                self.write_offset_page(conn, page, "", &[], &mut data)?;
            }
            return Ok(self.envelope(page, path, params, &data));
        }
        let set = if self
            .conditions
            .iter()
            .any(|c| matches!(c, Condition::Nothing))
        {
            Arc::new(FilterSet {
                total: 0,
                checkpoints: Vec::new(),
            })
        } else {
            let key = self.total_key();
            match release.filter_set(&key) {
                Some(set) => set,
                None => release
                    .remember_filter_set(key, self.learn_filter_set(conn, &where_sql, &args)?),
            }
        };
        let page = Page {
            number,
            size,
            total: set.total,
        };
        let mut data = Vec::new();
        if page.range().is_none() {
            data.extend_from_slice(b"[]");
        } else if self.sort.is_empty() {
            // Seek to the checkpoint at or before the page's first row, then skip fewer than
            // CHECKPOINT_EVERY rows.
            let offset = page.offset();
            let from_id = set.checkpoints[(offset / CHECKPOINT_EVERY) as usize];
            let sql = format!(
                "SELECT {} FROM {table}{where_sql} AND id >= ? ORDER BY id LIMIT {size} OFFSET {}",
                self.select_list(),
                offset % CHECKPOINT_EVERY
            );
            let mut args = args.clone();
            args.push(SqlValue::Integer(from_id));
            self.write_rows(conn, &sql, &args, &mut data)?;
        } else {
            self.write_offset_page(conn, page, &where_sql, &args, &mut data)?;
        }
        Ok(self.envelope(page, path, params, &data))
    }

    /// Counts a filter set's rows and notes its checkpoints, in one scan of the ids.
    fn learn_filter_set(
        &self,
        conn: &rusqlite::Connection,
        where_sql: &str,
        args: &[SqlValue],
    ) -> Result<FilterSet, ApiError> {
        let sql = format!(
            "SELECT id FROM {}{where_sql} ORDER BY id",
            self.dataset.table
        );
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(args.iter()))?;
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

    /// A sorted page: LIMIT and OFFSET over the sort's index.
    fn write_offset_page(
        &self,
        conn: &rusqlite::Connection,
        page: Page,
        where_sql: &str,
        args: &[SqlValue],
        data: &mut Vec<u8>,
    ) -> Result<(), ApiError> {
        let sql = format!(
            "SELECT {} FROM {}{where_sql}{} LIMIT {} OFFSET {}",
            self.select_list(),
            self.dataset.table,
            self.order_clause(),
            page.size,
            page.offset()
        );
        self.write_rows(conn, &sql, args, data)
    }

    fn envelope(&self, page: Page, path: &str, params: &Params, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(data.len() + 2048);
        envelope::write(&mut out, page, path, params, data);
        out
    }

    fn write_rows(
        &self,
        conn: &rusqlite::Connection,
        sql: &str,
        args: &[SqlValue],
        out: &mut Vec<u8>,
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
        out.push(b'[');
        let mut first = true;
        while let Some(row) = rows.next()? {
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
        }
        out.push(b']');
        Ok(())
    }
}

/// `page[number]` / `page[size]`: absent or empty gives the default; otherwise a whole number
/// from 1 to `max`.
fn page_number(
    page: &[(String, Param)],
    key: &str,
    max: i64,
    default: i64,
) -> Result<i64, ApiError> {
    let Some((_, p)) = page.iter().find(|(k, _)| k == key) else {
        return Ok(default);
    };
    let text = text_param(&format!("page[{key}]"), p)?;
    if text.is_empty() {
        return Ok(default);
    }
    let bad = || {
        ApiError::BadRequest(if max == i64::MAX {
            format!("page[{key}] must be a positive integer, not `{text}`.")
        } else {
            format!("page[{key}] must be an integer from 1 to {max}, not `{text}`.")
        })
    };
    let n: i64 = if text.bytes().all(|b| b.is_ascii_digit()) {
        text.parse().map_err(|_| bad())?
    } else {
        return Err(bad());
    };
    if n < 1 || n > max {
        return Err(bad());
    }
    Ok(n)
}
