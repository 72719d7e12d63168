//! A set of areas and its coordinates: what the other modules read, store and assign.

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
