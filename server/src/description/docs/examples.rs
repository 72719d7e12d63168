//! What the docs page's examples are made of, read from the loaded file (the page's only SQL):
//! each dataset's first record, so that every example returns rows of the file it is shown
//! for. The templates make URLs of these values; they read nothing themselves.

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use roadtraffic_catalog::places::Places;
use roadtraffic_catalog::{Dataset, COUNT_METHOD, DATASETS, RAW_COUNTS};

use crate::error::ApiError;

/// The examples of every dataset, in the catalogue's order.
pub struct Examples {
    pub datasets: Vec<DatasetExamples>,
    /// The local authority of the first raw count: whose busiest hours a summary asks.
    pub busiest_area: Option<String>,
}

/// A dataset's first record, as its examples use it.
pub struct DatasetExamples {
    pub dataset: &'static Dataset,
    /// Its values of the dataset's first two filters that have one (but its id and
    /// `count_method`): a listing's example.
    pub filters: Vec<(&'static str, String)>,
    /// The longitude and latitude of the first record that has them, on a dataset with places:
    /// `filter[near]`'s example.
    pub place: Option<(String, String)>,
    /// Its natural key, each column's value: the revisions' example.
    pub key: Option<Vec<(&'static str, String)>>,
}

impl Examples {
    pub fn read(conn: &Connection) -> Result<Examples, ApiError> {
        let datasets = (DATASETS.iter())
            .map(|d| DatasetExamples::read(conn, d))
            .collect::<Result<_, _>>()?;
        let area = ["local_authority_id"];
        let first = first_values(conn, (RAW_COUNTS.table, "id"), &area, false)?;
        Ok(Examples {
            datasets,
            busiest_area: first.and_then(|values| values.into_iter().next().flatten()),
        })
    }

    /// The examples of `d`.
    pub fn of(&self, d: &Dataset) -> Option<&DatasetExamples> {
        self.datasets.iter().find(|e| std::ptr::eq(e.dataset, d))
    }
}

impl DatasetExamples {
    fn read(conn: &Connection, d: &'static Dataset) -> Result<DatasetExamples, ApiError> {
        let filters: Vec<&'static str> = (d.filters.iter().copied())
            .filter(|f| *f != "id" && *f != COUNT_METHOD && d.filter_column(f).is_some())
            .collect();
        let filter_values = first_values(conn, (d.table, "id"), &filters, false)?;
        let filter_values = filter_values.unwrap_or_default();
        let set = filters.into_iter().zip(filter_values);
        let place = match Places::of(d) {
            Some(places) => {
                // By id, the rowid of a dataset's table: a kept release may read the table
                // through a view, which has no rowid.
                let (table, order) = match places.in_runs {
                    true => (d.runs_table().unwrap_or_default(), "rowid"),
                    false => (d.table.to_string(), "id"),
                };
                let lon_lat = ["longitude", "latitude"];
                let lon_lat = first_values(conn, (&table, order), &lon_lat, true)?;
                lon_lat.and_then(|v| Some((v[0].clone()?, v[1].clone()?)))
            }
            None => None,
        };
        let key = first_values(conn, (d.table, "id"), d.natural_key, false)?;
        let key = key.and_then(|values| {
            let named = d.natural_key.iter().copied().zip(values);
            named.map(|(k, v)| Some((k, v?))).collect()
        });
        Ok(DatasetExamples {
            dataset: d,
            filters: set.filter_map(|(f, v)| Some((f, v?))).take(2).collect(),
            place,
            key,
        })
    }
}

/// The first record's values of `columns` in `table` by `order` (its ids, or its rowid for a
/// table without), as text (`None` for an empty one); with `all_set`, the first record whose
/// values are all set. `None` when there is no such record.
fn first_values(
    conn: &Connection,
    (table, order): (&str, &str),
    columns: &[&str],
    all_set: bool,
) -> Result<Option<Vec<Option<String>>>, ApiError> {
    if columns.is_empty() {
        return Ok(None);
    }
    let set: Vec<String> = columns.iter().map(|c| format!("{c} IS NOT NULL")).collect();
    let filter = match all_set {
        true => format!(" WHERE {}", set.join(" AND ")),
        false => String::new(),
    };
    let sql = format!(
        "SELECT {} FROM {table}{filter} ORDER BY {order} LIMIT 1",
        columns.join(", ")
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let text = |i: usize| -> rusqlite::Result<Option<String>> {
        Ok(match row.get_ref(i)? {
            ValueRef::Integer(v) => Some(v.to_string()),
            ValueRef::Real(v) => Some(v.to_string()),
            ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
            ValueRef::Null | ValueRef::Blob(_) => None,
        })
    };
    let values = (0..columns.len()).map(text).collect::<Result<_, _>>()?;
    Ok(Some(values))
}
