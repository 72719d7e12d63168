//! What the Explore page reads: the summary of its question, answered by the API's own totals
//! engine on the page's connection (under the query time limit), and the values its filter
//! fields suggest.

use std::sync::{Arc, OnceLock};

use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::Dataset;

use super::question::{datasets, filter_text};
use crate::error::ApiError;
use crate::release::Release;
use crate::site::View;
use crate::totals::{Facets, ReadFrom, Rollups, Summary, SummaryRows};

/// The answer to a checked question, as the API's summary gives it.
pub fn answer(view: &View, question: &Summary) -> Result<SummaryRows, ApiError> {
    let rollups = Rollups::of(view.release)?;
    question.run(view.conn, &rollups)
}

/// The rows a question reads of its dataset's table: none when a table of totals or the runs
/// answer it (what the heavy permit is asked for, as the API asks).
pub fn rows_read(release: &Release, question: &Summary) -> Result<i64, ApiError> {
    let rollups = Rollups::of(release)?;
    Ok(match question.source(&rollups).reads_rows() {
        true => release.rows(question.dataset.table).0,
        false => 0,
    })
}

/// A column's values read from a table of this size or less are suggested whatever answers
/// them; from a larger one, only when a table of totals does (thousands of rows, not
/// millions).
const SMALL_TABLE: i64 = 50_000;
/// A column with more values than this suggests none (a partial list would mislead).
const MOST_VALUES: usize = 500;

/// The values of each filterable column of a dataset that are quick to list: `(column,
/// values)`. Learnt for a dataset on its first Explore page in a release, then kept with the
/// release (each dataset's own: a page reads only its own dataset's).
pub struct Hints(Vec<(&'static str, Vec<String>)>);

/// Each paginated dataset's hints, by its place among them, once learnt.
struct Known(Vec<OnceLock<Arc<Hints>>>);

impl Hints {
    pub fn of(release: &Release, d: &'static Dataset) -> Result<Arc<Hints>, ApiError> {
        let known = release.kept.get_or_make(|| {
            Ok::<_, ApiError>(Known(datasets().map(|_| OnceLock::new()).collect()))
        })?;
        let at = datasets().position(|k| std::ptr::eq(k, d));
        let Some(slot) = at.and_then(|i| known.0.get(i)) else {
            return Ok(Arc::new(Hints(Vec::new())));
        };
        if let Some(hints) = slot.get() {
            return Ok(hints.clone());
        }
        // Two first pages at once may both read them: the same values, one kept.
        let hints = Arc::new(Hints::read(release, d)?);
        Ok(slot.get_or_init(|| hints).clone())
    }

    /// The values of `column`, in order (none when not quick to list).
    pub fn values(&self, column: &str) -> &[String] {
        let found = self.0.iter().find(|(c, _)| *c == column);
        found.map_or(&[], |(_, values)| values.as_slice())
    }

    fn read(release: &Release, d: &'static Dataset) -> Result<Hints, ApiError> {
        let rollups = Rollups::of(release)?;
        let conn = release.connection()?;
        let small = release.rows(d.table).0 <= SMALL_TABLE;
        let mut hints = Vec::new();
        for column in d.facet_columns() {
            let one = std::slice::from_ref(&column);
            let source = ReadFrom::choose(d, &[], one, &[], &rollups);
            if !small && !matches!(source, ReadFrom::Rollup(_)) {
                continue;
            }
            let facets = Facets {
                dataset: d,
                conditions: Vec::new(),
                columns: vec![column],
                by_area: None,
                size: MOST_VALUES,
            };
            let Some(facet) = facets.run(&conn, &rollups)?.pop() else {
                continue;
            };
            if !facet.truncated {
                let values = sorted(facet.values.into_iter().map(|(v, _)| v).collect());
                hints.push((column.name, values));
            }
        }
        Ok(Hints(hints))
    }
}

/// Values in their order (numbers as numbers), as text; no empty value.
fn sorted(mut values: Vec<SqlValue>) -> Vec<String> {
    values.sort_by(|a, b| match (a, b) {
        (SqlValue::Integer(a), SqlValue::Integer(b)) => a.cmp(b),
        (SqlValue::Text(a), SqlValue::Text(b)) => a.cmp(b),
        _ => filter_text(a).cmp(&filter_text(b)),
    });
    values
        .iter()
        .map(filter_text)
        .filter(|t| !t.is_empty())
        .collect()
}
