//! Facets run: per column, one statement counting its values under the filters, each from its
//! own smallest source, largest count first, ties by value, one past the size to know whether
//! the list was cut.

use rusqlite::types::Value as SqlValue;
use rusqlite::Connection;

use roadtraffic_catalog::json;

use std::collections::HashMap;
use std::sync::Arc;

use super::by_area::{AreaSource, AREA};
use super::question::Facets;
use super::read_from::{each_row, ReadFrom, Rollups};
use crate::error::ApiError;
use crate::rows::AreaGrouping;
use roadtraffic_catalog::totals::key_value;

/// One column's values and counts.
pub struct Facet {
    pub column: &'static str,
    pub values: Vec<(SqlValue, i64)>,
    pub truncated: bool,
    /// For the areas' facet: each area's name, by id, written beside it as `area_name`.
    pub names: Option<Arc<HashMap<String, String>>>,
}

impl Facets {
    /// Counts each column's values, in the order asked.
    pub fn run(&self, conn: &Connection, rollups: &Rollups) -> Result<Vec<Facet>, ApiError> {
        let mut out = Vec::with_capacity(self.columns.len() + 1);
        if let Some(grouping) = &self.by_area {
            out.push(self.areas(conn, grouping)?);
        }
        for column in &self.columns {
            let source = ReadFrom::choose(
                self.dataset,
                &self.conditions,
                std::slice::from_ref(column),
                &[],
                rollups,
            );
            let (from, args) = source.filtered(self.dataset, &self.conditions);
            let grouped = source.column(column);
            let sql = format!(
                "SELECT {} AS v, {} AS n FROM {from} GROUP BY {grouped} ORDER BY n DESC, {grouped} LIMIT {}",
                key_value(column, &grouped),
                source.records(),
                self.size + 1
            );
            let (values, truncated) = self.counted(conn, &sql, &args)?;
            log::debug!(
                "{} facet {}: {}",
                self.dataset.table,
                column.name,
                source.name()
            );
            out.push(Facet {
                column: column.name,
                values,
                truncated,
                names: None,
            });
        }
        Ok(out)
    }

    /// The values and counts a facet's statement gives (one past the size asked), and
    /// whether there were more.
    fn counted(
        &self,
        conn: &Connection,
        sql: &str,
        args: &[SqlValue],
    ) -> Result<(Vec<(SqlValue, i64)>, bool), ApiError> {
        let mut values = Vec::new();
        each_row(conn, sql, args, |r| {
            values.push((r.get(0)?, r.get(1)?));
            Ok(())
        })?;
        let truncated = values.len() > self.size;
        values.truncate(self.size);
        Ok((values, truncated))
    }

    /// The areas' facet: how many records each area of the set holds (`by_area`).
    fn areas(&self, conn: &Connection, grouping: &AreaGrouping) -> Result<Facet, ApiError> {
        let d = self.dataset;
        let source = AreaSource::choose(d, &self.conditions, (grouping, &[]), &[]);
        let (from, args) = source.filtered(d, &self.conditions, grouping);
        let sql = format!(
            "SELECT {} AS v, {} AS n FROM {from} GROUP BY v ORDER BY n DESC, v LIMIT {}",
            source.area,
            source.read.records(),
            self.size + 1
        );
        let (values, truncated) = self.counted(conn, &sql, &args)?;
        log::debug!("{} facet {AREA}: {}", d.table, source.name());
        Ok(Facet {
            column: AREA,
            values,
            truncated,
            names: Some(grouping.names.clone()),
        })
    }
}

/// `{"facets":{"year":{"values":[{"value":2019,"count":1200},...],"truncated":false},...}}`
pub fn write_json(facets: &[Facet]) -> Vec<u8> {
    let mut out = b"{\"facets\":{".to_vec();
    for (i, facet) in facets.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json::string(&mut out, facet.column);
        out.extend_from_slice(b":{\"values\":[");
        for (j, (value, count)) in facet.values.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"value\":");
            json::value(&mut out, value.into());
            if let (Some(names), SqlValue::Text(id)) = (&facet.names, value) {
                out.extend_from_slice(b",\"area_name\":");
                match names.get(id) {
                    Some(name) => json::string(&mut out, name),
                    None => out.extend_from_slice(b"null"),
                }
            }
            out.extend_from_slice(b",\"count\":");
            json::int(&mut out, *count);
            out.push(b'}');
        }
        out.extend_from_slice(b"],\"truncated\":");
        out.extend_from_slice(if facet.truncated { b"true" } else { b"false" });
        out.push(b'}');
    }
    out.extend_from_slice(b"}}");
    out
}
