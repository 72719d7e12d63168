//! The writers of the four count point files (AADF, AADF by direction, raw counts, count
//! points): which rows each has, in which order, from the model.

pub mod rows;

use roadtraffic_catalog::dates::days_in_month;

use crate::calendar::{weekday, Date};
use crate::csv_file::CsvFile;
use crate::dmath;
use crate::error::SynthError;
use crate::model::count_point::{CountPoint, Method};
use crate::model::Model;
use crate::rng::{Rng, KEY_RAW};
use crate::vehicles::NV;
use rows::{CountField, CountRow};

/// The AADF and AADF by direction files, year by year.
pub fn write_aadf(
    model: &Model,
    aadf: &mut CsvFile<CountField>,
    by_direction: &mut CsvFile<CountField>,
) -> Result<(), SynthError> {
    for year in model.years.0..=model.years.1 {
        for cp in &model.cps {
            let Some(method) = cp.method(year) else {
                continue;
            };
            let counts = model.aadf(cp, year);
            let row = CountRow {
                year: Some(year),
                method: Some(method),
                counts: Some(&counts),
                ..CountRow::of(cp, &model.location_text)
            };
            aadf.write(&row)?;
            let directions = model.aadf_by_direction(cp, year, counts);
            for (direction, counts) in cp.directions.iter().zip(&directions) {
                by_direction.write(&CountRow {
                    direction: Some(direction),
                    counts: Some(counts),
                    ..row
                })?;
            }
        }
    }
    Ok(())
}

/// The raw counts file, count point by count point.
pub fn write_raw(model: &Model, out: &mut CsvFile<CountField>) -> Result<(), SynthError> {
    for cp in &model.cps {
        for year in model.years.0..=model.years.1 {
            if cp.method(year) == Some(Method::Manual) {
                write_count_day(model, out, cp, year)?;
            }
        }
    }
    Ok(())
}

/// The rows of a manual count: twelve hours of each direction, on one weekday of the year,
/// whose day adds up to about the year's AADF by direction.
fn write_count_day(
    model: &Model,
    out: &mut CsvFile<CountField>,
    cp: &CountPoint,
    year: u16,
) -> Result<(), SynthError> {
    let split = model.dir_parts(cp, year);
    let mut r = Rng::keyed(model.seed, cp.id as u64, year as u64, KEY_RAW);
    let date = count_date(&mut r, year);
    let day_factor = 0.8 * dmath::exp(0.08 * r.normal());
    let shapes = &model.shapes[cp.class];
    for (direction, dir_parts) in cp.directions.iter().zip(&split) {
        let shape = r.pick(shapes);
        let mut day = [0f64; NV];
        for (x, part) in day.iter_mut().zip(dir_parts) {
            *x = *part as f64 * day_factor * dmath::exp(0.05 * r.normal());
        }
        for (hour, hour_shape) in (7..).zip(shape) {
            let mut vehicles = [0i64; NV];
            for k in 0..NV {
                vehicles[k] = r.round_stoch(day[k] * hour_shape[k]);
            }
            let counts = model.totals.counts(vehicles, &mut r, 0.0);
            out.write(&CountRow {
                year: Some(year),
                direction: Some(direction),
                count_date: Some(date),
                hour: Some(hour),
                counts: Some(&counts),
                ..CountRow::of(cp, &model.location_text)
            })?;
        }
    }
    Ok(())
}

/// The count points file, by id.
pub fn write_count_points(model: &Model, out: &mut CsvFile<CountField>) -> Result<(), SynthError> {
    for cp in &model.cps {
        out.write(&CountRow {
            latest_aadf_year: Some(cp.last_year()),
            ..CountRow::of(cp, &model.location_text)
        })?;
    }
    Ok(())
}

/// The day of a manual count: a weekday from March to October (from September in 2020, when
/// manual counts stopped in the spring).
fn count_date(r: &mut Rng, year: u16) -> Date {
    const MONTHS: [i64; 14] = [3, 4, 4, 5, 5, 5, 6, 6, 6, 7, 9, 9, 10, 10];
    let y = year as i64;
    loop {
        let m = if year == 2020 {
            r.range(9, 10)
        } else {
            *r.pick(&MONTHS)
        };
        let d = r.range(1, days_in_month(y, m));
        if weekday(y, m, d) < 5 {
            return Date {
                year: y,
                month: m,
                day: d,
            };
        }
    }
}
