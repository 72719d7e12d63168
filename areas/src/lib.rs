//! Areas: any boundary file (wards, constituencies, a council's own zones) as a set of areas
//! the mirror can filter and add up by. Shared by the loader (which reads, checks and stores a
//! set, and assigns a release's count points when it loads one) and the server (which reads
//! the sets back and assigns the count points of any release it serves): one rule of
//! membership, so both always agree.
//!
//! - `read`: a boundary file (GeoJSON, lon/lat or a declared EPSG:27700, or a GeoPackage
//!   layer) to an [`AreaSet`], every fault a [`BoundaryError`] naming the feature;
//! - `store`: the set in the mirror's SQLite file (`area_sets`, `areas`,
//!   `area_count_points`), written, listed, read and dropped;
//! - `membership`: which count points each area holds (contains or touches: a point on a
//!   shared edge is in both), exactly, in the set's own coordinates;
//! - `totals`: each AADF table's totals by set, area and year, kept beside the set.

pub mod membership;
pub mod read;
pub mod store;
pub mod totals;

pub use membership::{Membership, Place};
pub use read::{read_boundaries, BoundaryError, Fields};
pub use store::SetInfo;

/// The coordinates a set's boundaries are given in, and its count points judged in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetCrs {
    /// RFC 7946 longitude, latitude (WGS 84): count points by their longitude and latitude.
    Crs84,
    /// British National Grid (EPSG:27700): count points by their own easting and northing.
    BritishNationalGrid,
}

impl SetCrs {
    /// As stored in `area_sets.crs`.
    pub fn code(self) -> &'static str {
        match self {
            SetCrs::Crs84 => "OGC:CRS84",
            SetCrs::BritishNationalGrid => "EPSG:27700",
        }
    }

    pub fn from_code(code: &str) -> Option<SetCrs> {
        match code {
            "OGC:CRS84" => Some(SetCrs::Crs84),
            "EPSG:27700" => Some(SetCrs::BritishNationalGrid),
            _ => None,
        }
    }
}

/// One area: its id and name (text, as the file gives them) and its boundary, in the set's
/// coordinates (x then y: longitude, latitude or easting, northing).
#[derive(Debug, Clone, PartialEq)]
pub struct Area {
    pub id: String,
    pub name: String,
    pub geometry: geo::MultiPolygon<f64>,
}

/// A set of areas as read from one boundary file: what `areas add` stores under a name.
#[derive(Debug, Clone, PartialEq)]
pub struct AreaSet {
    /// The set's name (`areas add NAME`): `[a-z0-9_]{1,64}`, starting with a letter.
    pub name: String,
    /// The boundary file's name (its last path component), as given.
    pub source: String,
    /// SHA-256 of the boundary file's bytes, lower-case hex.
    pub sha256: String,
    pub crs: SetCrs,
    /// In the file's order.
    pub areas: Vec<Area>,
}

impl Area {
    /// Its bounds in its set's CRS, `[min_x, min_y, max_x, max_y]`.
    pub fn bounds(&self) -> [f64; 4] {
        use geo::BoundingRect;
        match self.geometry.bounding_rect() {
            Some(r) => [r.min().x, r.min().y, r.max().x, r.max().y],
            None => [f64::NAN; 4],
        }
    }
}

/// Whether the file has the table `name`.
pub(crate) fn table_exists(conn: &rusqlite::Connection, name: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [name],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}
