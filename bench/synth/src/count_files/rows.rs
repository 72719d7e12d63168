//! A row of the count point files, which gives each column its value: the count point's id and
//! location (encoded once per count point), the row's year, method, direction, date and hour,
//! and its counts. Neighbouring location or count columns are written as one run.

use roadtraffic_catalog::TOTALS;

use crate::calendar::{push_date, Date};
use crate::csv_file::{column_enum, Field, Record};
use crate::model::count_point::{CountPoint, LocationField, Method};
use crate::model::totals::Counts;
use crate::text::{push_i64, push_quoted, push_some_number, push_some_text, push_u64, Quote};
use crate::vehicles::{MODELLED_VEHICLES, NV};

/// Consecutive location fields, `first..=last` in [`LocationField`] order, written at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocationRun {
    first: LocationField,
    last: LocationField,
}

/// Consecutive counts, `first..=last` in [`Counts::get`] order, written at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountRun {
    first: usize,
    last: usize,
}

/// A row of one of the four count point files. What a file's rows do not hold (an AADF row's
/// hour) is None, and a column asking for it is written empty.
#[derive(Clone, Copy)]
pub struct CountRow<'a> {
    pub point: &'a CountPoint,
    pub location_text: &'a [u8],
    pub year: Option<u16>,
    pub latest_aadf_year: Option<u16>,
    pub method: Option<Method>,
    pub direction: Option<&'static str>,
    pub count_date: Option<Date>,
    pub hour: Option<u64>,
    pub counts: Option<&'a Counts>,
}

column_enum! {
    /// A value of a [`CountRow`] besides its location and counts.
    pub enum CountValue {
        CountPointId => "count_point_id",
        Year => "year",
        /// A count point's latest AADF year.
        LatestAadfYear => "aadf_year",
        EstimationMethod => "estimation_method",
        EstimationMethodDetailed => "estimation_method_detailed",
        DirectionOfTravel => "direction_of_travel",
        CountDate => "count_date",
        Hour => "hour",
    }
}

/// A value, or values written at once, of a [`CountRow`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountField {
    Value(CountValue),
    Location(LocationRun),
    Counts(CountRun),
}

impl Field for CountField {
    fn of_column(name: &str) -> Option<CountField> {
        let location = |field| LocationRun {
            first: field,
            last: field,
        };
        let count = || {
            let vehicle = MODELLED_VEHICLES.iter().position(|v| *v == name);
            let total = || TOTALS.iter().position(|t| t.total == name);
            let k = vehicle.or_else(|| total().map(|t| NV + t))?;
            Some(CountRun { first: k, last: k })
        };
        CountValue::of_column(name)
            .map(CountField::Value)
            .or_else(|| LocationField::of_column(name).map(|f| CountField::Location(location(f))))
            .or_else(|| count().map(CountField::Counts))
    }

    fn followed_by(self, next: CountField) -> Option<CountField> {
        match (self, next) {
            (CountField::Location(run), CountField::Location(after))
                if after.first as usize == run.last as usize + 1 =>
            {
                Some(CountField::Location(LocationRun {
                    first: run.first,
                    last: after.last,
                }))
            }
            (CountField::Counts(run), CountField::Counts(after)) if after.first == run.last + 1 => {
                Some(CountField::Counts(CountRun {
                    first: run.first,
                    last: after.last,
                }))
            }
            _ => None,
        }
    }
}

impl CountRow<'_> {
    fn push_value(&self, value: CountValue, quote: Quote, buf: &mut Vec<u8>) {
        let text = |buf: &mut Vec<u8>, s: Option<&str>| push_some_text(buf, s, quote);
        match value {
            CountValue::CountPointId => push_u64(buf, self.point.id.into()),
            CountValue::Year => push_some_number(buf, self.year.map(u64::from)),
            CountValue::LatestAadfYear => {
                push_some_number(buf, self.latest_aadf_year.map(u64::from))
            }
            CountValue::EstimationMethod => text(buf, self.method.map(Method::estimation_method)),
            CountValue::EstimationMethodDetailed => text(buf, self.method.map(Method::detailed)),
            CountValue::DirectionOfTravel => text(buf, self.direction),
            CountValue::CountDate => {
                if let Some(date) = self.count_date {
                    push_date(buf, date);
                }
            }
            CountValue::Hour => push_some_number(buf, self.hour),
        }
    }
}

impl<'a> CountRow<'a> {
    /// A row that holds a count point's id and location (encoded in `location_text`), and
    /// nothing else yet.
    pub fn of(point: &'a CountPoint, location_text: &'a [u8]) -> CountRow<'a> {
        CountRow {
            point,
            location_text,
            year: None,
            latest_aadf_year: None,
            method: None,
            direction: None,
            count_date: None,
            hour: None,
            counts: None,
        }
    }
}

impl Record for CountRow<'_> {
    type Field = CountField;

    fn push(&self, field: CountField, quote: Quote, buf: &mut Vec<u8>) {
        match field {
            CountField::Value(value) => self.push_value(value, quote, buf),
            CountField::Location(run) => {
                let first = self.point.location[run.first as usize];
                let last = self.point.location[run.last as usize];
                let encoded = &self.location_text[first.start..last.end];
                // a run is only joined where quoting as needed (its cells are encoded so)
                if quote == Quote::Always && !first.quoted {
                    push_quoted(buf, encoded);
                } else {
                    buf.extend_from_slice(encoded);
                }
            }
            CountField::Counts(run) => {
                for k in run.first..=run.last {
                    if k > run.first {
                        buf.push(b',');
                    }
                    if let Some(counts) = self.counts {
                        push_i64(buf, counts.get(k));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use roadtraffic_catalog::{
        Column, AADF, AADF_BY_DIRECTION, COUNT_POINTS, RAW_COUNTS, VEHICLES,
    };

    use super::*;
    use crate::csv_file::{national_columns, CsvFile};
    use crate::model::count_point::{EncodedCell, LOCATION_FIELDS};
    use crate::model::totals::TotalsRule;
    use crate::rng::Rng;
    use crate::road_class::CLASS_A;

    #[test]
    fn a_column_without_a_value_is_written_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("with_a_new_vehicle.csv");
        // a vehicle class the generator does not model, as it would be added to the catalogue
        let lgvs = AADF.column("lgvs").unwrap();
        let new_vehicle = Column {
            name: "e_scooters",
            published: "e_scooters",
            ..*lgvs
        };
        let count_point_id = AADF.column("count_point_id").unwrap();
        let columns = [count_point_id]
            .into_iter()
            .chain(VEHICLES)
            .chain([&new_vehicle]);
        let mut file = CsvFile::with_columns(&path, columns, false).unwrap();
        let point = CountPoint {
            id: 7,
            location: [EncodedCell::default(); LOCATION_FIELDS],
            class: CLASS_A,
            first_year: 2024,
            methods: vec![Method::Manual],
            directions: &["C"],
            dir_share: 0.5,
            base: [0.0; NV],
            slope: 0.0,
        };
        let vehicles = std::array::from_fn(|k| k as i64 + 1);
        let counts =
            TotalsRule::from_catalogue().counts(vehicles, &mut Rng::keyed(0, 0, 0, 0), 0.0);
        let without_counts = CountRow::of(&point, &[]);
        file.write(&CountRow {
            counts: Some(&counts),
            ..without_counts
        })
        .unwrap();
        file.write(&without_counts).unwrap();
        file.finish().unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = written.lines().collect();
        assert!(lines[0].starts_with("count_point_id,pedal_cycles,"));
        assert!(lines[0].ends_with(",all_HGVs,all_motor_vehicles,e_scooters"));
        assert_eq!(lines[1], "7,1,2,3,4,5,6,7,8,9,10,11,51,65,");
        assert_eq!(lines[2], format!("7{}", ",".repeat(14)));
    }

    #[test]
    fn every_count_column_of_the_catalogue_has_a_value() {
        for dataset in [&AADF, &AADF_BY_DIRECTION, &RAW_COUNTS, &COUNT_POINTS] {
            for column in national_columns(dataset) {
                assert!(
                    CountField::of_column(column.name).is_some(),
                    "{}.{}",
                    dataset.table,
                    column.name
                );
            }
        }
    }
}
