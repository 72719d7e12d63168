//! Derived tables: countries, regions and local authorities from the names and codes the data
//! files carry, and count points completed from the AADF rows.

use std::path::Path;

use rusqlite::Connection;
use rustc_hash::FxHashMap;

use crate::report::LoadReport;
use crate::value::Value;
use crate::LoadError;
use roadtraffic_catalog::{self as catalog, Dataset};

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

fn text_at(row: &[Value], at: Option<usize>) -> Option<&str> {
    at.and_then(|i| row[i].as_text())
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
            r.name.offer_str(year, text_at(row, p.region_name));
            r.ons_code.offer_str(year, text_at(row, p.region_ons_code));
        }
        if let Some(id) = int_at(row, p.la_id) {
            let la = self.local_authorities.entry(id).or_default();
            la.name.offer_str(year, text_at(row, p.la_name));
            la.ons_code.offer_str(year, text_at(row, p.la_ons_code));
            la.region_id.offer(year, region_id);
        }
    }
}

/// The latest AADF row of each count point: its year, and its id to copy the location from.
pub struct AadfPoints {
    points: FxHashMap<i64, (i64, i64)>,
    id: usize,
    count_point_id: usize,
    year: usize,
}

impl Default for AadfPoints {
    fn default() -> Self {
        let pos = |name: &str| {
            catalog::AADF
                .columns()
                .position(|c| c.name == name)
                .expect("AADF column")
        };
        AadfPoints {
            points: FxHashMap::default(),
            id: pos("id"),
            count_point_id: pos("count_point_id"),
            year: pos("year"),
        }
    }
}

impl AadfPoints {
    pub fn observe(&mut self, aadf_row: &[Value]) {
        let (Some(cp), Some(year), Some(id)) = (
            aadf_row[self.count_point_id].as_int(),
            aadf_row[self.year].as_int(),
            aadf_row[self.id].as_int(),
        ) else {
            return;
        };
        let latest = self.points.entry(cp).or_insert((year, id));
        if year >= latest.0 {
            *latest = (year, id);
        }
    }
}

/// Sets each count point's aadf_year from the AADF rows, and adds the count points that only
/// the AADF rows know (all of them when no count points file was given), located as in their
/// latest AADF row.
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
    let from_aadf: Vec<&str> = names
        .iter()
        .map(|n| match *n {
            "id" => "count_point_id",
            "aadf_year" => "year",
            other => other,
        })
        .collect();
    let mut update = conn.prepare("UPDATE count_points SET aadf_year = ?1 WHERE id = ?2")?;
    let mut insert = conn.prepare(&format!(
        "INSERT INTO count_points ({}) SELECT {} FROM aadf WHERE id = ?1",
        names.join(","),
        from_aadf.join(",")
    ))?;
    let mut ids: Vec<(&i64, &(i64, i64))> = points.points.iter().collect();
    ids.sort();
    let mut derived = 0u64;
    for (cp_id, (year, aadf_id)) in ids {
        if update.execute((year, cp_id))? == 0 {
            insert.execute([aadf_id])?;
            derived += 1;
        }
    }
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
         WHERE region_id IS NULL",
    )?;
    Ok(())
}
