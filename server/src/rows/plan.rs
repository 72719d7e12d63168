//! The SQL of a request, planned from the catalogue. The big table is `r`; when the request
//! filters or sorts on run columns (see `Dataset::run_columns`), they are read from the runs
//! table `u`, each of whose rows stands for the id range `first_id..=last_id` of `r`. Runs are
//! scanned in first_id order and each range in id order, so `u.first_id, r.id` is id order
//! without a sort.

use std::ops::Deref;

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::{Column, Dataset, Source};

use super::params::{Condition, Range};
use super::Rows;
use crate::spatial::grid::GridPoint;
use crate::spatial::{sql, Area};

/// The parts of a request's SQL.
pub struct Sql {
    pub select: String,
    pub from: String,
    terms: Vec<String>,
    pub args: Vec<SqlValue>,
    /// The requested order, ties broken by id.
    pub order: String,
    /// Plain id order.
    pub id_order: String,
    /// The expressions of `order` and `id_order`, each selected (after `select`, before the
    /// extras) where the statement does not already: SQLite flattens a view of `UNION ALL` (a
    /// table read through layers, see `roadtraffic_releases::layer`) into an ordered query only
    /// when every ORDER BY term is a result column; otherwise it reads the whole view into a
    /// temporary table for each request.
    pub order_keys: Vec<String>,
    /// Whether `u`, the runs table, is joined.
    pub joined: bool,
    /// What each row is joined to (see [`Sql::page_of_rows`]); `select` then reads the ids.
    pub then_join: Option<ThenJoin>,
    /// Expressions selected after what the writer reads (a row's distance, its geometry),
    /// which the writers read from the end of the row.
    pub extras: Vec<String>,
}

/// A table of what the server writes for each row (own values, rendered records), keyed by
/// `id`, joined to the rows as `j`: LEFT joined, so that SQLite keeps the rows as its first
/// loop, and joined rather than looked up in a subquery of the select, which would open and
/// close a cursor per row.
pub struct ThenJoin {
    pub table: String,
    /// The column read from it.
    pub column: &'static str,
    /// Whether the row's id is read too, first.
    pub with_id: bool,
}

impl ThenJoin {
    fn select(&self, rows: &str) -> String {
        match self.with_id {
            true => format!("{rows}.id, j.{}", self.column),
            false => format!("j.{}", self.column),
        }
    }
}

impl Sql {
    /// The statement that reads every row `rest` picks (what follows the FROM clause: WHERE,
    /// ORDER BY), in that order.
    pub fn rows(&self, rest: &str) -> String {
        let extras: String = self.extras.iter().map(|e| format!(", {e}")).collect();
        match &self.then_join {
            None => format!(
                "SELECT {}{}{extras} FROM {}{rest}",
                self.select,
                self.keys_after(&self.select),
                self.from
            ),
            Some(j) => {
                let select = j.select("r");
                format!(
                    "SELECT {select}{}{extras} FROM {} LEFT JOIN {} j ON j.id = r.id{rest}",
                    self.keys_after(&select),
                    self.from,
                    j.table
                )
            }
        }
    }

    /// `, key` for each of [`Sql::order_keys`] that neither `select` nor the extras select.
    fn keys_after(&self, select: &str) -> String {
        (self.keys_unselected(select).iter())
            .map(|k| format!(", {k}"))
            .collect()
    }

    fn keys_unselected(&self, select: &str) -> Vec<&str> {
        let selected: Vec<&str> = (select.split(", "))
            .chain(self.extras.iter().map(String::as_str))
            .collect();
        (self.order_keys.iter())
            .map(String::as_str)
            .filter(|k| !selected.contains(k))
            .collect()
    }

    /// The position of the first extra in a row of [`Sql::rows`] or [`Sql::page_of_rows`] with
    /// no table joined: after the fields and the ORDER BY keys they do not select.
    pub fn extras_at(&self) -> usize {
        self.select.split(", ").count() + self.keys_unselected(&self.select).len()
    }

    /// The statement that reads the ids of the rows the filters pick, in id order (with the
    /// runs' first ids when joined, see [`Sql::order_keys`]).
    pub fn ids(&self) -> String {
        let first_ids = match self.joined {
            true => ", u.first_id",
            false => "",
        };
        format!(
            "SELECT r.id{first_ids} FROM {}{} ORDER BY {}",
            self.from,
            self.where_sql(&[]),
            self.id_order
        )
    }

    /// The statement that reads the rows of ids `?1` to `?2` in id order, unfiltered. With a
    /// table joined (own values, rendered records: a row for each row, under its id), the range
    /// is read from that table alone: one seek, then its rows in order, rather than each row of
    /// the dataset (a cold page's 250 rows, whose columns are not read) and a seek in the joined
    /// table for each. The caller checks that the range gave every row (`RowQuery::exactly`).
    pub fn id_range(&self) -> String {
        match &self.then_join {
            Some(j) if self.terms.is_empty() && self.extras.is_empty() && !self.joined => format!(
                "SELECT {} FROM {} j WHERE j.id BETWEEN ?1 AND ?2 ORDER BY j.id",
                j.select("j"),
                j.table
            ),
            _ => self.rows(" WHERE r.id BETWEEN ?1 AND ?2 ORDER BY r.id"),
        }
    }

    /// The statement that reads the page of rows `rest` picks (WHERE, ORDER BY, then LIMIT and
    /// OFFSET), in that order, joined to `then_join` once chosen: the rows skipped to reach the
    /// page are never looked up in it (which, on a sorted page deep in the raw counts, is
    /// millions of lookups). The order is kept: SQLite keeps a subquery's ORDER BY when it has
    /// a LIMIT, and the subquery is the join's first loop.
    pub fn page_of_rows(&self, rest: &str) -> String {
        let Some(j) = &self.then_join else {
            return self.rows(rest);
        };
        let inner: String = (self.extras.iter().enumerate())
            .map(|(i, e)| format!(", {e} AS extra{i}"))
            .collect();
        let outer: String = (0..self.extras.len())
            .map(|i| format!(", p.extra{i}"))
            .collect();
        let rows = format!(
            "SELECT {}{}{inner} FROM {}{rest}",
            self.select,
            self.keys_after(&self.select),
            self.from
        );
        format!(
            "SELECT {}{outer} FROM ({rows}) p LEFT JOIN {} j ON j.id = p.id",
            j.select("p"),
            j.table
        )
    }

    /// ` WHERE ...` of the filters and any extra terms (whose arguments follow the filters').
    pub fn where_sql(&self, extra: &[String]) -> String {
        let all: Vec<&str> = self.terms.iter().chain(extra).map(String::as_str).collect();
        if all.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", all.join(" AND "))
        }
    }
}

/// A request's plan: its SQL, and what the SQL's shape allows (the paging and the record
/// writers ask it).
pub struct Plan<'a>(pub &'a Rows);

impl Deref for Plan<'_> {
    type Target = Rows;

    fn deref(&self) -> &Rows {
        self.0
    }
}

impl Plan<'_> {
    /// The filter set, canonical (order and letter case of text values do not matter), as
    /// the key of its cached total.
    pub fn total_key(&self) -> String {
        conditions_key(self.dataset, &self.conditions)
    }

    pub fn is_run(&self, c: &Column) -> bool {
        self.dataset.run_columns.contains(&c.name)
    }

    /// Whether the request goes through the runs table: it filters or sorts on a run column.
    fn joins_runs(&self) -> bool {
        let filters_runs = self.conditions.iter().any(|c| match c {
            Condition::In(col, _) => self.is_run(col),
            Condition::Within(places, _) => places.in_runs,
            Condition::Range(range) => range.columns.iter().any(|c| self.is_run(c)),
            Condition::Cql2(f) => f.columns().iter().any(|c| self.is_run(c)),
            Condition::InAreas(col, _) => self.is_run(col),
            Condition::Nothing => false,
        });
        filters_runs || self.sort.iter().any(|(c, _)| self.is_run(c))
    }

    /// Whether every filter is on a run column, so the runs alone give the filter set.
    pub fn filters_only_runs(&self) -> bool {
        self.conditions.iter().all(|c| match c {
            Condition::In(col, _) => self.is_run(col),
            Condition::Within(places, _) => places.in_runs,
            Condition::Range(range) => range.columns.iter().all(|c| self.is_run(c)),
            Condition::Cql2(f) => f.columns().iter().all(|c| self.is_run(c)),
            Condition::InAreas(col, _) => self.is_run(col),
            Condition::Nothing => false,
        })
    }

    /// The centre of `filter[near]`, if asked.
    pub fn near(&self) -> Option<&GridPoint> {
        self.conditions.iter().find_map(|c| match c {
            Condition::Within(_, Area::Near { centre, .. }) => Some(centre),
            _ => None,
        })
    }

    /// Whether the rows come nearest first: `near` is asked and no sort.
    pub fn by_distance(&self) -> bool {
        self.sort.is_empty() && self.near().is_some()
    }

    /// Whether the rows come in another order than by id.
    pub fn sorted(&self) -> bool {
        !self.sort.is_empty() || self.by_distance()
    }

    /// The SQL of the request, in parts.
    pub fn sql(&self) -> Sql {
        let d = self.dataset;
        let joined = self.joins_runs();
        let from = match d.runs_table() {
            Some(runs) if joined => format!(
                "{runs} u JOIN {} r ON r.id BETWEEN u.first_id AND u.last_id",
                d.table
            ),
            _ => format!("{} r", d.table),
        };
        let (terms, args) = self.terms(joined);
        let column = |name: &str| self.column_named(name, joined);
        let distance = self.near().map(|c| sql::distance_squared(c, &column));
        let (order, id_order) = (self.order(joined), id_order(joined, false));
        let mut order_keys: Vec<String> = Vec::new();
        for (key, _) in order.iter().chain(&id_order) {
            if !order_keys.contains(key) {
                order_keys.push(key.clone());
            }
        }
        Sql {
            select: column_list(&self.fields, "r."),
            from,
            terms,
            args,
            order: order_by(&order),
            id_order: order_by(&id_order),
            order_keys,
            joined,
            then_join: None,
            extras: distance.into_iter().collect(),
        }
    }

    /// A column by name as the query names it (the id, and any column, from `r` unless a run
    /// column read from the runs).
    pub fn column_named(&self, name: &str, joined: bool) -> String {
        match self.dataset.column(name) {
            Some(c) => self.qualified(c, joined),
            None => format!("r.{name}"),
        }
    }

    /// A column as the query names it: from the runs table when joined and a run column.
    fn qualified(&self, c: &Column, joined: bool) -> String {
        if joined && self.is_run(c) {
            format!("u.{}", c.name)
        } else {
            format!("r.{}", c.name)
        }
    }

    /// The WHERE terms of the filters, and their arguments.
    fn terms(&self, joined: bool) -> (Vec<String>, Vec<SqlValue>) {
        let (mut terms, mut args) = (Vec::new(), Vec::new());
        for c in &self.conditions {
            match c {
                Condition::Nothing => terms.push("0".to_string()),
                Condition::Within(places, area) => {
                    let column = |name: &str| self.column_named(name, joined);
                    terms.push(sql::term(places, area, &column, &mut args));
                }
                Condition::In(col, values) if values.len() == 1 => {
                    terms.push(format!("{} = ?", self.qualified(col, joined)));
                    args.push(values[0].clone());
                }
                Condition::In(col, values) => {
                    let marks = vec!["?"; values.len()].join(",");
                    terms.push(format!("{} IN ({marks})", self.qualified(col, joined)));
                    args.extend(values.iter().cloned());
                }
                Condition::Cql2(f) => {
                    terms.push(f.term(&|c| self.qualified(c, joined), &mut args));
                }
                Condition::InAreas(col, areas) => {
                    let column = self.qualified(col, joined);
                    terms.push(format!("{column} IN (SELECT value FROM json_each(?))"));
                    args.push(SqlValue::Text(areas.count_points.to_string()));
                }
                Condition::Range(range) => {
                    let columns: Vec<String> = (range.columns.iter())
                        .map(|c| self.qualified(c, joined))
                        .collect();
                    terms.extend(range_term(range, &columns, &mut args));
                }
            }
        }
        (terms, args)
    }

    /// The sort's keys up to the first id: ids are unique, nothing after one can matter.
    fn sort_until_id(&self) -> &[(&'static Column, bool)] {
        let until_id = self
            .sort
            .iter()
            .position(|(c, _)| c.source == Source::Id)
            .map_or(self.sort.len(), |i| i + 1);
        &self.sort[..until_id]
    }

    /// Whether the rows come run by run: sorted by id or by run columns only.
    pub fn keeps_runs_together(&self) -> bool {
        !self.by_distance()
            && self
                .sort_until_id()
                .iter()
                .all(|(c, _)| c.source == Source::Id || self.is_run(c))
    }

    /// The ORDER BY's keys, each with whether it is descending: the sort's keys up to the first
    /// id; ties broken by id in the direction of the last key, so that one index scan, forwards
    /// or backwards, gives the order.
    fn order(&self, joined: bool) -> Vec<(String, bool)> {
        if let (true, Some(centre)) = (self.by_distance(), self.near()) {
            let column = |name: &str| self.column_named(name, joined);
            let distance = sql::distance_squared(centre, &column);
            return vec![(distance, false), ("r.id".to_string(), false)];
        }
        let sort = self.sort_until_id();
        let mut keys: Vec<(String, bool)> = sort
            .iter()
            .filter(|(c, _)| c.source != Source::Id)
            .map(|(c, desc)| (self.qualified(c, joined), *desc))
            .collect();
        let last_desc = sort.last().is_some_and(|(_, desc)| *desc);
        keys.extend(if self.keeps_runs_together() {
            id_order(joined, last_desc)
        } else {
            vec![("r.id".to_string(), last_desc)]
        });
        keys
    }
}

/// The WHERE term of a range over `columns` (as the query names them), its arguments pushed in
/// the order of their marks; `None` when it keeps every row. A range over several columns also
/// bounds the first alone, which its index can seek (a row value compares across tables, the
/// runs' count date and the row's hour, where no index can).
fn range_term(range: &Range, columns: &[String], args: &mut Vec<SqlValue>) -> Option<String> {
    let row = match columns {
        [one] => one.clone(),
        _ => format!("({})", columns.join(", ")),
    };
    let marks = match columns.len() {
        1 => "?".to_string(),
        n => format!("({})", vec!["?"; n].join(", ")),
    };
    let mut bounds = Vec::new();
    for (bound, op) in [(&range.low, ">="), (&range.high, "<=")] {
        let Some(values) = bound else { continue };
        if columns.len() > 1 {
            bounds.push(format!("{} {op} ?", columns[0]));
            args.push(values[0].clone());
        }
        bounds.push(format!("{row} {op} {marks}"));
        args.extend(values.iter().cloned());
    }
    if bounds.is_empty() {
        return None;
    }
    let within = bounds.join(" AND ");
    Some(match range.or_null {
        true => format!("({within} OR {} IS NULL)", columns[0]),
        false => within,
    })
}

/// Conditions on a dataset's rows in one canonical form: the same rows, the same text, whatever
/// the order of the conditions or of a list's values, their repetitions or the letter case of
/// text (which filters ignore).
pub fn conditions_key(d: &Dataset, conditions: &[Condition]) -> String {
    let mut parts: Vec<(&str, Vec<String>)> = (conditions.iter())
        .map(|c| match c {
            Condition::Nothing => ("", Vec::new()),
            Condition::Within(_, area) => ("~area", vec![area.key()]),
            Condition::Range(range) => ("~range", vec![range.key()]),
            Condition::Cql2(f) => ("~cql2", vec![f.key().to_string()]),
            Condition::InAreas(_, areas) => ("~in areas", vec![areas.key()]),
            Condition::In(col, values) => {
                let mut vs: Vec<String> = (values.iter())
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
    format!("{} {:?}", d.table, parts)
}

/// Columns as a SELECT lists them, each after `prefix` (a table's alias and its dot, or
/// nothing).
pub fn column_list(columns: &[&Column], prefix: &str) -> String {
    let names: Vec<String> = columns
        .iter()
        .map(|c| format!("{prefix}{}", c.name))
        .collect();
    names.join(", ")
}

fn direction(desc: bool) -> &'static str {
    if desc {
        " DESC"
    } else {
        ""
    }
}

/// Id order: through the runs when they are joined.
fn id_order(joined: bool, desc: bool) -> Vec<(String, bool)> {
    let id = ("r.id".to_string(), desc);
    match joined {
        true => vec![("u.first_id".to_string(), desc), id],
        false => vec![id],
    }
}

/// An ORDER BY clause's text (without the words) of its keys.
fn order_by(keys: &[(String, bool)]) -> String {
    let terms: Vec<String> = (keys.iter())
        .map(|(key, desc)| format!("{key}{}", direction(*desc)))
        .collect();
    terms.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sql(terms: &[&str], then_join: Option<ThenJoin>) -> Sql {
        Sql {
            select: "r.id".into(),
            from: "raw_counts r".into(),
            terms: terms.iter().map(|t| t.to_string()).collect(),
            args: Vec::new(),
            order: "r.id".into(),
            id_order: "r.id".into(),
            order_keys: vec!["r.id".into()],
            joined: false,
            then_join,
            extras: Vec::new(),
        }
    }

    fn own_values() -> Option<ThenJoin> {
        Some(ThenJoin {
            table: "raw_counts_own_values".into(),
            column: "json",
            with_id: true,
        })
    }

    /// An unfiltered id range is read from the joined table alone, which has a row for each
    /// row; anything that narrows the rows reads them, then their joined rows.
    #[test]
    fn an_id_range_reads_the_joined_table_alone_when_nothing_else_is_asked() {
        assert_eq!(
            sql(&[], own_values()).id_range(),
            "SELECT j.id, j.json FROM raw_counts_own_values j WHERE j.id BETWEEN ?1 AND ?2 ORDER BY j.id"
        );
        let filtered = sql(&["r.hour = ?"], own_values()).id_range();
        assert!(filtered.starts_with("SELECT r.id, j.json FROM raw_counts r LEFT JOIN"));
        let mut near = sql(&[], own_values());
        near.extras.push("d".into());
        assert!(near.id_range().contains("FROM raw_counts r LEFT JOIN"));
        assert_eq!(
            sql(&[], None).id_range(),
            "SELECT r.id FROM raw_counts r WHERE r.id BETWEEN ?1 AND ?2 ORDER BY r.id"
        );
    }
}

/// A kept release reads a layered table through a view of `UNION ALL` (see
/// `roadtraffic_releases::layer`): its pages must be planned on each layer's indexes, as the
/// table's are, not by reading the whole view into a temporary table for each request (300
/// ms and more a page at full size).
#[cfg(test)]
mod layered_tests {
    use rusqlite::Connection;

    use roadtraffic_catalog::{schema, AADF};
    use roadtraffic_releases::layer;

    use super::super::{Reading, Rows};
    use super::*;

    /// An older release (`main`: its runs, and its `aadf` as a layer) over a newer one's
    /// table (`newer`), which revises one row.
    fn layered() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        let mut ddl = vec![schema::create_table(&AADF)];
        ddl.extend(schema::create_runs_table(&AADF));
        ddl.extend(schema::create_indexes(&AADF));
        conn.execute_batch(&ddl.join(";\n")).unwrap();
        conn.execute_batch(
            "INSERT INTO aadf (id, count_point_id, year, all_motor_vehicles) VALUES
                 (1, 10, 2015, 5), (2, 11, 2015, 6), (3, 10, 2016, 7);
             INSERT INTO aadf_runs VALUES (1, 2, 2015), (3, 3, 2016);
             ATTACH ':memory:' AS newer;",
        )
        .unwrap();
        let newer = ddl
            .iter()
            .map(|s| on_schema(s, "newer"))
            .collect::<Vec<_>>();
        conn.execute_batch(&newer.join(";\n")).unwrap();
        conn.execute_batch(
            "INSERT INTO newer.aadf SELECT * FROM main.aadf;
             UPDATE newer.aadf SET all_motor_vehicles = 8 WHERE id = 2;
             ANALYZE;",
        )
        .unwrap();
        assert!(layer::write_layer(&conn, "main", "newer", "aadf").unwrap());
        conn.execute_batch(&layer::view_sql("aadf", &["main".into()], "newer"))
            .unwrap();
        conn
    }

    /// A `CREATE TABLE` or `CREATE INDEX` of the catalogue made in `schema`.
    fn on_schema(sql: &str, schema: &str) -> String {
        (sql.replacen("CREATE TABLE ", &format!("CREATE TABLE {schema}."), 1)).replacen(
            "CREATE INDEX ",
            &format!("CREATE INDEX {schema}."),
            1,
        )
    }

    fn plan(conditions: Vec<Condition>, sort: &[&str], fields: &[&str]) -> Sql {
        let column = |name: &&str| AADF.column(name).unwrap();
        let rows = Rows {
            dataset: &AADF,
            conditions,
            sort: sort.iter().map(|c| (column(c), false)).collect(),
            fields: fields.iter().map(column).collect(),
            reading: Reading::All,
        };
        Plan(&rows).sql()
    }

    fn query_plan(conn: &Connection, sql: &str, args: &[SqlValue]) -> Vec<String> {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let details = stmt.query_map(rusqlite::params_from_iter(args), |r| r.get(3));
        details.unwrap().map(Result::unwrap).collect()
    }

    #[test]
    fn a_layered_tables_pages_and_filter_sets_are_read_through_the_layers_indexes() {
        let conn = layered();
        let year = AADF.column("year").unwrap();
        let in_2015 = || vec![Condition::In(year, vec![SqlValue::Integer(2015)])];
        let cases = [
            plan(in_2015(), &[], &["id", "count_point_id"]),
            plan(Vec::new(), &["year"], &["count_point_id"]),
            plan(in_2015(), &["all_motor_vehicles"], &["count_point_id"]),
            plan(Vec::new(), &["count_point_id"], &["year"]),
        ];
        for sql in &cases {
            let page = format!(
                "{} ORDER BY {} LIMIT 2 OFFSET 1",
                sql.where_sql(&[]),
                sql.order
            );
            for statement in [sql.page_of_rows(&page), sql.ids()] {
                let steps = query_plan(&conn, &statement, &sql.args);
                assert!(
                    steps.iter().any(|s| s.starts_with("MERGE (UNION ALL)"))
                        && !(steps.iter())
                            .any(|s| s.starts_with("CO-ROUTINE") || s.starts_with("MATERIALIZE")),
                    "{statement}: {steps:?}"
                );
            }
        }
    }
}
