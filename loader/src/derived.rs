//! What the loader makes besides the rows it reads: the tables derived from every file
//! (countries, regions, local authorities), the rows a dataset is completed with (count points
//! from their latest AADF row), and the values filled in once everything is read.

use std::path::Path;

use rusqlite::Connection;
use rustc_hash::FxHashMap;

use roadtraffic_catalog::{self as catalog, AreaField, Completion, Dataset, Derivation, Fill};

use crate::error::{InputError, LoadError};
use crate::report::LoadReport;
use crate::value::Value;

/// The bundled reference file: country ids, names and ONS codes.
const BUNDLED_COUNTRIES: &str = include_str!("../../data/countries.csv");

#[derive(Debug, serde::Deserialize)]
pub struct Country {
    pub id: i64,
    pub name: String,
    pub ons_code: String,
}

pub fn read_countries(path: Option<&Path>) -> Result<Vec<Country>, LoadError> {
    let text = match path {
        Some(p) => std::fs::read_to_string(p).map_err(|e| LoadError::io(p, e))?,
        None => BUNDLED_COUNTRIES.to_string(),
    };
    let name = path.map_or("bundled countries.csv".into(), |p| p.display().to_string());
    csv::Reader::from_reader(text.as_bytes())
        .deserialize()
        .collect::<Result<Vec<Country>, _>>()
        .map_err(|e| InputError::Countries(name, e.to_string()).into())
}

/// A value with the year of the row it came from: the most recent year wins.
#[derive(Debug, Default, Clone)]
struct Latest<T> {
    year: i64,
    value: Option<T>,
}

impl Latest<i64> {
    fn offer(&mut self, year: i64, value: Option<i64>) {
        if let Some(v) = value {
            if self.value.is_none() || year >= self.year {
                self.value = Some(v);
                self.year = year;
            }
        }
    }
}

impl Latest<String> {
    /// Allocates only when the value changes: most rows repeat the names already kept.
    fn offer_str(&mut self, year: i64, value: Option<&str>) {
        let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
            return;
        };
        if self.value.is_none() || year >= self.year {
            if self.value.as_deref() != Some(v) {
                self.value = Some(v.to_string());
            }
            self.year = year;
        }
    }
}

#[derive(Debug, Default)]
struct Area {
    name: Latest<String>,
    ons_code: Latest<String>,
    region_id: Latest<i64>,
}

/// Where a dataset's rows carry area ids, names and codes.
pub struct AreaPositions {
    year: Option<usize>,
    region_id: Option<usize>,
    la_id: Option<usize>,
    fields: FxHashMap<AreaField, usize>,
}

impl AreaPositions {
    pub fn new(d: &Dataset) -> Self {
        AreaPositions {
            year: d.position("year"),
            region_id: d.position("region_id"),
            la_id: d.position("local_authority_id"),
            fields: d
                .columns()
                .enumerate()
                .filter_map(|(i, c)| Some((c.area?, i)))
                .collect(),
        }
    }

    fn text<'r>(&self, row: &'r [Value], field: AreaField) -> Option<&'r str> {
        self.fields.get(&field).and_then(|&i| row[i].as_text())
    }
}

/// What every file says of each region and local authority.
#[derive(Default)]
pub struct Areas {
    regions: FxHashMap<i64, Area>,
    local_authorities: FxHashMap<i64, Area>,
}

fn int_at(row: &[Value], at: Option<usize>) -> Option<i64> {
    at.and_then(|i| row[i].as_int())
}

impl Areas {
    pub fn observe(&mut self, p: &AreaPositions, row: &[Value]) {
        let year = int_at(row, p.year).unwrap_or(0);
        let region_id = int_at(row, p.region_id);
        if let Some(id) = region_id {
            let r = self.regions.entry(id).or_default();
            r.name.offer_str(year, p.text(row, AreaField::RegionName));
            r.ons_code
                .offer_str(year, p.text(row, AreaField::RegionCode));
        }
        if let Some(id) = int_at(row, p.la_id) {
            let la = self.local_authorities.entry(id).or_default();
            la.name
                .offer_str(year, p.text(row, AreaField::LocalAuthorityName));
            la.ons_code
                .offer_str(year, p.text(row, AreaField::LocalAuthorityCode));
            la.region_id.offer(year, region_id);
        }
    }
}

/// For one [`Completion::LatestOf`]: the latest row of each key of the source dataset, by
/// year (its year and id).
struct LatestRows {
    completes: &'static Dataset,
    source: &'static Dataset,
    key: usize,
    year: usize,
    id: usize,
    rows: FxHashMap<i64, (i64, i64)>,
}

/// The rows that the catalogue's completions are made from, gathered while reading.
pub struct Completions(Vec<LatestRows>);

impl Default for Completions {
    fn default() -> Self {
        let latest = catalog::DATASETS.iter().filter_map(|d| match d.completion {
            Some(Completion::LatestOf { source, key, .. }) => Some(LatestRows {
                completes: d,
                source,
                key: source.position(key)?,
                year: source.position("year")?,
                id: source.position("id")?,
                rows: FxHashMap::default(),
            }),
            None => None,
        });
        Completions(latest.collect())
    }
}

impl Completions {
    /// Notes a row of `dataset` that completes another.
    pub fn observe(&mut self, dataset: &'static Dataset, row: &[Value]) {
        for l in self
            .0
            .iter_mut()
            .filter(|l| std::ptr::eq(l.source, dataset))
        {
            let (Some(key), Some(year), Some(id)) = (
                row[l.key].as_int(),
                row[l.year].as_int(),
                row[l.id].as_int(),
            ) else {
                continue;
            };
            let latest = l.rows.entry(key).or_insert((year, id));
            if year >= latest.0 {
                *latest = (year, id);
            }
        }
    }

    /// Completes each dataset: sets every row's latest year, and adds the rows only the source
    /// knows (all of them when no file of the dataset was given), as in their latest row.
    pub fn apply(&self, conn: &Connection, report: &mut LoadReport) -> Result<(), LoadError> {
        for l in self.0.iter().filter(|l| !l.rows.is_empty()) {
            complete(conn, l, report)?;
        }
        Ok(())
    }
}

fn complete(conn: &Connection, l: &LatestRows, report: &mut LoadReport) -> Result<(), LoadError> {
    let Some(Completion::LatestOf {
        key, latest_year, ..
    }) = l.completes.completion
    else {
        return Ok(());
    };
    let (table, source) = (l.completes.table, l.source.table);
    let names: Vec<&str> = l.completes.stored_columns().map(|c| c.name).collect();
    // The source's columns under this dataset's names: its id is the key, its latest year the
    // year.
    let id_column = l.completes.id_column().unwrap_or(key);
    let from: Vec<&str> = names
        .iter()
        .map(|n| match *n {
            n if n == latest_year => "year",
            "id" => id_column,
            other => other,
        })
        .collect();
    // By rowid when the key is the table's id: its indexes are built only after this, so any
    // other column would be a scan of the table per key.
    let key_column = if l.completes.id_column() == Some(key) {
        "id"
    } else {
        key
    };
    let mut update = conn.prepare(&format!(
        "UPDATE {table} SET {latest_year} = ?1 WHERE {key_column} = ?2"
    ))?;
    let mut insert = conn.prepare(&format!(
        "INSERT INTO {table} ({}) SELECT {} FROM {source} WHERE id = ?1",
        names.join(","),
        from.join(",")
    ))?;
    let mut keys: Vec<(&i64, &(i64, i64))> = l.rows.iter().collect();
    keys.sort();
    let mut added = 0u64;
    for (k, (year, id)) in keys {
        if update.execute((year, k))? == 0 {
            insert.execute([id])?;
            added += 1;
        }
    }
    if added > 0 {
        report.add_rows(table, added);
        report.note(format!(
            "{added} {} derived from the {} rows (latest year's location)",
            l.completes.title, l.source.title
        ));
    }
    Ok(())
}

/// The country of a region: by the first letter of its ONS code (E, S, W), else by its name
/// (Scotland and Wales are regions too), else England, the only country with several regions.
fn country_of(countries: &[Country], name: Option<&str>, ons: Option<&str>) -> Option<i64> {
    let by_ons = ons.and_then(|o| o.chars().next()).and_then(|first| {
        countries
            .iter()
            .find(|c| c.ons_code.starts_with(first))
            .map(|c| c.id)
    });
    let by_name = || {
        name.and_then(|n| countries.iter().find(|c| c.name.eq_ignore_ascii_case(n)))
            .map(|c| c.id)
    };
    let england = || {
        countries
            .iter()
            .find(|c| c.ons_code.starts_with('E'))
            .map(|c| c.id)
    };
    by_ons.or_else(by_name).or_else(england)
}

/// Inserts rows into a derived table, its stored columns in order.
fn insert_rows(
    conn: &Connection,
    d: &Dataset,
    rows: impl Iterator<Item = Vec<rusqlite::types::Value>>,
    report: &mut LoadReport,
) -> Result<(), LoadError> {
    let names: Vec<&str> = d.stored_columns().map(|c| c.name).collect();
    let marks = vec!["?"; names.len()].join(",");
    let mut insert = conn.prepare(&format!(
        "INSERT INTO {} ({}) VALUES ({marks})",
        d.table,
        names.join(",")
    ))?;
    let mut n = 0u64;
    for row in rows {
        insert.execute(rusqlite::params_from_iter(row))?;
        n += 1;
    }
    report.add_rows(d.table, n);
    Ok(())
}

/// The rows of a derived table, in its columns' order, sorted by id.
fn derived_rows(
    derivation: Derivation,
    areas: &Areas,
    countries: &[Country],
) -> Vec<Vec<rusqlite::types::Value>> {
    use rusqlite::types::Value as V;
    let text = |t: &Option<String>| t.clone().map_or(V::Null, V::Text);
    let int = |i: Option<i64>| i.map_or(V::Null, V::Integer);
    fn sorted(m: &FxHashMap<i64, Area>) -> Vec<(i64, &Area)> {
        let mut ids: Vec<(i64, &Area)> = m.iter().map(|(id, a)| (*id, a)).collect();
        ids.sort_by_key(|(id, _)| *id);
        ids
    }
    match derivation {
        Derivation::Countries => countries
            .iter()
            .map(|c| {
                vec![
                    V::Integer(c.id),
                    V::Text(c.name.clone()),
                    V::Text(c.ons_code.clone()),
                ]
            })
            .collect(),
        Derivation::Regions => sorted(&areas.regions)
            .into_iter()
            .map(|(id, r)| {
                let country = country_of(
                    countries,
                    r.name.value.as_deref(),
                    r.ons_code.value.as_deref(),
                );
                vec![
                    V::Integer(id),
                    text(&r.name.value),
                    text(&r.ons_code.value),
                    int(country),
                ]
            })
            .collect(),
        // No published CSV gives a local authority's ITA: ita_id stays null.
        Derivation::LocalAuthorities => sorted(&areas.local_authorities)
            .into_iter()
            .map(|(id, la)| {
                vec![
                    V::Integer(id),
                    text(&la.name.value),
                    int(la.region_id.value),
                    V::Null,
                    text(&la.ons_code.value),
                ]
            })
            .collect(),
    }
}

/// Writes the derived tables, then fills what was waiting for them.
pub fn write_derived(
    conn: &Connection,
    areas: &Areas,
    countries: &[Country],
    report: &mut LoadReport,
) -> Result<(), LoadError> {
    for d in catalog::DATASETS {
        if let Some(derivation) = d.derivation() {
            let rows = derived_rows(derivation, areas, countries);
            insert_rows(conn, d, rows.into_iter(), report)?;
        }
    }
    fill_regions(conn)
}

/// Columns declared [`Fill::RegionOfLocalAuthority`]: a file that gives no region (the local
/// authority traffic files) gets its local authority's, from the other files.
fn fill_regions(conn: &Connection) -> Result<(), LoadError> {
    let local_authorities = catalog::DATASETS
        .iter()
        .find(|d| d.derivation() == Some(Derivation::LocalAuthorities))
        .map_or("local_authorities", |d| d.table);
    for d in catalog::DATASETS {
        for c in d
            .columns()
            .filter(|c| c.fill == Some(Fill::RegionOfLocalAuthority))
        {
            conn.execute_batch(&format!(
                "UPDATE {t} SET {c} = (SELECT region_id FROM {local_authorities} \
                 WHERE id = {t}.local_authority_id) WHERE {c} IS NULL",
                t = d.table,
                c = c.name
            ))?;
        }
    }
    Ok(())
}
