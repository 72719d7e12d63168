//! The places of the count data, gathered while the rows are read and written into the spatial
//! index once every row is in (see `roadtraffic_catalog::places`). Gathered here rather than
//! found afterwards with `SELECT DISTINCT` over the big tables: that sort cost the load about
//! a tenth of its time, where a look at each row as it passes costs a few nanoseconds (rows of
//! one count point mostly follow one another, and a row at the place before it is passed over).

use std::collections::HashSet;

use compact_str::CompactString;
use rusqlite::Connection;

use roadtraffic_catalog::places::{
    Places, EASTING, INSERT_PLACE, LATITUDE, LONGITUDE, NORTHING, NOWHERE, PLACE_KEY,
};
use roadtraffic_catalog::Dataset;

use crate::error::LoadError;
use crate::value::Value;

/// A count point at one position, as its rows give it (the coordinates' text as read).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Place {
    count_point: i64,
    longitude: Option<CompactString>,
    latitude: Option<CompactString>,
    easting: Option<i64>,
    northing: Option<i64>,
}

/// Where a dataset's rows hold a place.
#[derive(Debug, Clone, Copy)]
pub struct PlacePositions {
    count_point: usize,
    longitude: usize,
    latitude: usize,
    easting: usize,
    northing: usize,
}

impl PlacePositions {
    /// The positions of a dataset with places.
    pub fn new(d: &'static Dataset) -> Option<Self> {
        Places::of(d)?;
        Some(PlacePositions {
            count_point: d.position(PLACE_KEY)?,
            longitude: d.position(LONGITUDE)?,
            latitude: d.position(LATITUDE)?,
            easting: d.position(EASTING)?,
            northing: d.position(NORTHING)?,
        })
    }

    /// Whether a row is at `place`, compared without making a place of it.
    fn is_at(&self, row: &[Value], place: &Place) -> bool {
        row[self.count_point].as_int() == Some(place.count_point)
            && row[self.easting].as_int() == place.easting
            && row[self.northing].as_int() == place.northing
            && row[self.longitude].as_text() == place.longitude.as_deref()
            && row[self.latitude].as_text() == place.latitude.as_deref()
    }

    /// A row's place, if it has a count point and any coordinates.
    fn place(&self, row: &[Value]) -> Option<Place> {
        let text = |at: usize| row[at].as_text().map(CompactString::from);
        let place = Place {
            count_point: row[self.count_point].as_int()?,
            longitude: text(self.longitude),
            latitude: text(self.latitude),
            easting: row[self.easting].as_int(),
            northing: row[self.northing].as_int(),
        };
        let located = (place.longitude.is_some() && place.latitude.is_some())
            || (place.easting.is_some() && place.northing.is_some());
        located.then_some(place)
    }
}

/// Every distinct place of every dataset read.
#[derive(Default)]
pub struct PlaceSet {
    last: Option<Place>,
    all: HashSet<Place, rustc_hash::FxBuildHasher>,
}

impl PlaceSet {
    pub fn observe(&mut self, positions: &PlacePositions, row: &[Value]) {
        if self.last.as_ref().is_some_and(|p| positions.is_at(row, p)) {
            return;
        }
        let Some(place) = positions.place(row) else {
            return;
        };
        if !self.all.contains(&place) {
            self.all.insert(place.clone());
        }
        self.last = Some(place);
    }

    /// Fills the index. A pair of coordinates a place lacks (or whose text is no number) puts
    /// it [`NOWHERE`] in those dimensions.
    pub fn write(&self, conn: &Connection) -> Result<(), LoadError> {
        let mut insert = conn.prepare(INSERT_PLACE)?;
        let decimal = |t: &Option<CompactString>| t.as_deref()?.trim().parse::<f64>().ok();
        for p in &self.all {
            let (lon, lat) = match (decimal(&p.longitude), decimal(&p.latitude)) {
                (Some(lon), Some(lat)) => (lon, lat),
                _ => (NOWHERE, NOWHERE),
            };
            let (e, n) = match (p.easting, p.northing) {
                (Some(e), Some(n)) => (e as f64, n as f64),
                _ => (NOWHERE, NOWHERE),
            };
            insert.execute(rusqlite::params![lon, lat, e, n, p.count_point])?;
        }
        log::info!("places: {}", self.all.len());
        Ok(())
    }
}
