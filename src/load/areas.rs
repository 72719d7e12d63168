//! Derived tables: countries, regions and local authorities from the names and codes the data
//! files carry, and count points completed from the AADF rows.

use std::path::Path;

use rusqlite::Connection;
use rustc_hash::FxHashMap;

use super::report::LoadReport;
use super::value::Value;
use super::LoadError;
use crate::catalog::{self, Dataset};

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
        .map_err(|e| LoadError::Refused(format!("{name}: {e}")))
}

/// A value with the year of the row it came from: the most recent year wins.
#[derive(Debug, Default, Clone)]
struct Latest<T> {
    year: i64,
    value: Option<T>,
}

impl<T: PartialEq> Latest<T> {
    fn offer(&mut self, year: i64, value: Option<T>) {
        if let Some(v) = value {
            if self.value.is_none() || (year >= self.year && self.value.as_ref() != Some(&v)) {
                self.value = Some(v);
                self.year = year;
            } else if year > self.year {
                self.year = year;
            }
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
    region_name: Option<usize>,
    region_ons_code: Option<usize>,
    la_id: Option<usize>,
    la_name: Option<usize>,
    la_ons_code: Option<usize>,
}

impl AreaPositions {
    pub fn new(d: &Dataset) -> Self {
        let pos = |name: &str| d.columns().position(|c| c.name == name);
        AreaPositions {
            year: pos("year"),
            region_id: pos("region_id"),
            region_name: pos("region_name"),
            region_ons_code: pos("region_ons_code"),
            la_id: pos("local_authority_id"),
            la_name: pos("local_authority_name"),
            // The local authority traffic table calls its code ons_code.
            la_ons_code: pos("local_authority_code").or_else(|| pos("ons_code")),
        }
    }
}

#[derive(Default)]
pub struct Areas {
    regions: FxHashMap<i64, Area>,
    local_authorities: FxHashMap<i64, Area>,
}

fn text_at(row: &[Value], at: Option<usize>) -> Option<String> {
    at.and_then(|i| row[i].as_text())
        .map(|s| s.trim().to_string())
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
            r.name.offer(year, text_at(row, p.region_name));
            r.ons_code.offer(year, text_at(row, p.region_ons_code));
        }
        if let Some(id) = int_at(row, p.la_id) {
            let la = self.local_authorities.entry(id).or_default();
            la.name.offer(year, text_at(row, p.la_name));
            la.ons_code.offer(year, text_at(row, p.la_ons_code));
            la.region_id.offer(year, region_id);
        }
    }
}

/// The latest AADF row of each count point: its location, and its latest AADF year.
pub struct AadfPoints {
    points: FxHashMap<i64, (i64, Vec<Value>)>,
    /// For each stored count point column, its position in an AADF row.
    positions: Vec<Option<usize>>,
    count_point_id: usize,
    year: usize,
}

impl Default for AadfPoints {
    fn default() -> Self {
        let pos = |name: &str| catalog::AADF.columns().position(|c| c.name == name);
        AadfPoints {
            points: FxHashMap::default(),
            positions: catalog::COUNT_POINTS
                .stored_columns()
                .map(|c| match c.name {
                    "id" | "aadf_year" => None,
                    name => pos(name),
                })
                .collect(),
            count_point_id: pos("count_point_id").expect("AADF count_point_id"),
            year: pos("year").expect("AADF year"),
        }
    }
}

impl AadfPoints {
    pub fn observe(&mut self, aadf_row: &[Value]) {
        let (Some(cp), Some(year)) = (
            aadf_row[self.count_point_id].as_int(),
            aadf_row[self.year].as_int(),
        ) else {
            return;
        };
        let entry = self.points.entry(cp).or_insert((i64::MIN, Vec::new()));
        if year >= entry.0 {
            entry.0 = year;
            entry.1 = self
                .positions
                .iter()
                .map(|p| p.map_or(Value::Null, |i| aadf_row[i].clone()))
                .collect();
        }
    }
}

/// Sets each count point's aadf_year from the AADF rows, and adds the count points that only
/// the AADF rows know (all of them when no count points file was given).
pub fn complete_count_points(
    conn: &Connection,
    points: &AadfPoints,
    report: &mut LoadReport,
) -> Result<(), LoadError> {
    if points.points.is_empty() {
        return Ok(());
    }
    let cp = &catalog::COUNT_POINTS;
    let names: Vec<&str> = cp.stored_columns().map(|c| c.name).collect();
    conn.execute_batch("BEGIN")?;
    let mut update = conn.prepare("UPDATE count_points SET aadf_year = ?1 WHERE id = ?2")?;
    let mut insert = conn.prepare(&format!(
        "INSERT INTO count_points ({}) VALUES ({})",
        names.join(","),
        vec!["?"; names.len()].join(",")
    ))?;
    let mut ids: Vec<&i64> = points.points.keys().collect();
    ids.sort();
    let mut derived = 0u64;
    for id in ids {
        let (year, location) = &points.points[id];
        if update.execute((year, id))? == 0 {
            let mut row = location.clone();
            row[0] = Value::Int(*id);
            row[names
                .iter()
                .position(|n| *n == "aadf_year")
                .expect("aadf_year")] = Value::Int(*year);
            insert.execute(rusqlite::params_from_iter(row.iter()))?;
            derived += 1;
        }
    }
    drop((update, insert));
    conn.execute_batch("COMMIT")?;
    if derived > 0 {
        report.add_rows(cp.table, derived);
        report.note(format!(
            "{derived} count points derived from the AADF rows (latest year's location)"
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

pub fn write_derived(
    conn: &Connection,
    areas: &Areas,
    countries: &[Country],
    report: &mut LoadReport,
) -> Result<(), LoadError> {
    conn.execute_batch("BEGIN")?;
    let mut insert =
        conn.prepare("INSERT INTO countries (id, name, ons_code) VALUES (?1, ?2, ?3)")?;
    for c in countries {
        insert.execute((c.id, &c.name, &c.ons_code))?;
    }
    report.add_rows(catalog::COUNTRIES.table, countries.len() as u64);

    let mut insert = conn
        .prepare("INSERT INTO regions (id, name, ons_code, country_id) VALUES (?1, ?2, ?3, ?4)")?;
    let mut ids: Vec<&i64> = areas.regions.keys().collect();
    ids.sort();
    for id in &ids {
        let r = &areas.regions[id];
        let country = country_of(
            countries,
            r.name.value.as_deref(),
            r.ons_code.value.as_deref(),
        );
        insert.execute((id, &r.name.value, &r.ons_code.value, country))?;
    }
    report.add_rows(catalog::REGIONS.table, ids.len() as u64);

    let mut insert = conn.prepare(
        "INSERT INTO local_authorities (id, name, region_id, ita_id, ons_code) VALUES (?1, ?2, ?3, NULL, ?4)",
    )?;
    let mut ids: Vec<&i64> = areas.local_authorities.keys().collect();
    ids.sort();
    for id in &ids {
        let la = &areas.local_authorities[id];
        insert.execute((id, &la.name.value, la.region_id.value, &la.ons_code.value))?;
    }
    report.add_rows(catalog::LOCAL_AUTHORITIES.table, ids.len() as u64);
    drop(insert);
    // The local authority traffic files carry no region: take it from the other files.
    conn.execute_batch(
        "UPDATE local_authority_traffic SET region_id = \
           (SELECT region_id FROM local_authorities WHERE id = local_authority_traffic.local_authority_id) \
         WHERE region_id IS NULL;
         COMMIT",
    )?;
    Ok(())
}
