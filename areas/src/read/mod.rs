//! A boundary file read and checked: GeoJSON (RFC 7946, or with a legacy `crs` member naming
//! EPSG:27700) or a GeoPackage layer.
//!
//! Each format's reader (`geojson`, `geopackage`) gives its features as the file has them (id
//! and name as text, rings as their positions, unclosed ones included); `check` then refuses the
//! first fault, naming the feature, and makes the areas. A file is judged by its first bytes: a
//! SQLite database is a GeoPackage, anything else must be GeoJSON.

mod check;
mod geojson;
mod geopackage;

use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::{AreaSet, SetCrs};

/// The largest boundary file read (the wards of Great Britain take 5.4 MB).
pub const MAX_FILE_BYTES: u64 = 512 * 1024 * 1024;
/// The most features a set may have (the wards: 7,979).
pub const MAX_FEATURES: usize = 100_000;
/// The most positions all the rings of a set may have together.
pub const MAX_VERTICES: usize = 20_000_000;

/// Which properties give each feature its id and name (`--id-field`, `--name-field`), and
/// which layer of a GeoPackage is read (`--layer`).
#[derive(Debug, Clone, Default)]
pub struct Fields {
    /// Default: `code`, then `id`, then the feature's own `id`.
    pub id: Option<String>,
    /// Default: `name`; else the id.
    pub name: Option<String>,
    /// A GeoPackage's feature layer (table); needed only when it has several.
    pub layer: Option<String>,
}

/// Why a boundary file is refused: the feature (by its index in the file, and its id when it
/// has one) and the fault.
#[derive(Debug, thiserror::Error)]
#[error("{where_}{fault}")]
pub struct BoundaryError {
    pub where_: String,
    pub fault: String,
}

impl BoundaryError {
    /// A fault of the whole file.
    pub(crate) fn file(fault: impl Into<String>) -> Self {
        BoundaryError {
            where_: String::new(),
            fault: fault.into(),
        }
    }

    /// A fault of the feature at `index` (0-based, in the file's order).
    pub(crate) fn feature(index: usize, id: Option<&str>, fault: impl Into<String>) -> Self {
        let id = id.map(|id| format!(" (id {id:?})")).unwrap_or_default();
        BoundaryError {
            where_: format!("feature {index}{id}: "),
            fault: fault.into(),
        }
    }
}

/// A feature's rings as the file gives them: polygons, each its exterior ring then its holes,
/// each ring its positions (x, y).
pub(crate) type Rings = Vec<Vec<Vec<[f64; 2]>>>;

/// A feature as read, before it is checked.
#[derive(Debug, Clone)]
pub(crate) struct RawFeature {
    pub id: Option<String>,
    pub name: Option<String>,
    /// Its polygons, or why it has none a set can hold (a point, a line, no geometry).
    pub rings: Result<Rings, String>,
}

/// A format reader's answer: the coordinates' CRS and the features.
pub(crate) type Features = (SetCrs, Vec<RawFeature>);

/// Reads `path` as the set `name`, checked; the first fault found refuses the whole file.
pub fn read_boundaries(path: &Path, name: &str, fields: &Fields) -> Result<AreaSet, BoundaryError> {
    let bytes = read_capped(path)?;
    let sha256 = hex(&Sha256::digest(&bytes));
    let (crs, features) = if bytes.starts_with(b"SQLite format 3\0") {
        geopackage::read(path, fields)?
    } else {
        if fields.layer.is_some() {
            return Err(BoundaryError::file(
                "--layer names a GeoPackage's layer, and this file is not a GeoPackage",
            ));
        }
        geojson::read(&bytes, fields)?
    };
    drop(bytes);
    let areas = check::areas(features, crs, fields)?;
    Ok(AreaSet {
        name: name.to_string(),
        source: path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        sha256,
        crs,
        areas,
    })
}

/// The file's bytes, refused past [`MAX_FILE_BYTES`] before they are read (and while they are,
/// should it grow).
fn read_capped(path: &Path) -> Result<Vec<u8>, BoundaryError> {
    let io = |e: std::io::Error| BoundaryError::file(format!("cannot be read: {e}"));
    let file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(BoundaryError::file("not a regular file"));
    }
    let too_big = || {
        BoundaryError::file(format!(
            "larger than the {} MiB a boundary file may be",
            MAX_FILE_BYTES >> 20
        ))
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_big());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_big());
    }
    Ok(bytes)
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A property's value as an id or a name: text as it is, a number as its text; `None` when
/// absent or null; an error for anything else.
pub(crate) fn property_text(value: Option<&serde_json::Value>) -> Result<Option<String>, String> {
    match value {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
        Some(serde_json::Value::Number(n)) => Ok(Some(n.to_string())),
        Some(other) => Err(format!("is {}, not text or a number", kind_of(other))),
    }
}

fn kind_of(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Bool(_) => "true or false",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
        _ => "a value",
    }
}

/// The CRS a name declares (a GeoJSON `crs` member's, a GeoPackage's `organization:id`):
/// lon/lat (CRS84, EPSG:4326) or the British National Grid (EPSG:27700), in any of the forms
/// OGC and EPSG write them; `None` for any other.
pub(crate) fn crs_named(name: &str) -> Option<SetCrs> {
    let name = name.trim().to_ascii_lowercase();
    let tail = name.rsplit([':', '/']).next().unwrap_or_default();
    let ogc = [
        "urn:ogc:def:crs:ogc:",
        "ogc:",
        "http://www.opengis.net/def/crs/ogc/",
    ];
    let https_ogc = "https://www.opengis.net/def/crs/ogc/";
    let epsg = [
        "urn:ogc:def:crs:epsg:",
        "epsg:",
        "http://www.opengis.net/def/crs/epsg/",
        "https://www.opengis.net/def/crs/epsg/",
    ];
    let is_ogc =
        name == "crs84" || ogc.iter().any(|p| name.starts_with(p)) || name.starts_with(https_ogc);
    if is_ogc {
        return (tail == "crs84").then_some(SetCrs::Crs84);
    }
    if !epsg.iter().any(|p| name.starts_with(p)) {
        return None;
    }
    match tail {
        "4326" => Some(SetCrs::Crs84),
        "27700" => Some(SetCrs::BritishNationalGrid),
        _ => None,
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod crs_tests {
    use super::*;

    #[test]
    fn crs_names_in_every_form() {
        for grid in [
            "urn:ogc:def:crs:EPSG::27700",
            "EPSG:27700",
            "http://www.opengis.net/def/crs/EPSG/0/27700",
            "https://www.opengis.net/def/crs/EPSG/0/27700",
            "urn:ogc:def:crs:EPSG:6.3:27700",
        ] {
            assert_eq!(crs_named(grid), Some(SetCrs::BritishNationalGrid), "{grid}");
        }
        for lonlat in [
            "urn:ogc:def:crs:OGC:1.3:CRS84",
            "urn:ogc:def:crs:OGC::CRS84",
            "OGC:CRS84",
            "EPSG:4326",
            "urn:ogc:def:crs:EPSG::4326",
            "http://www.opengis.net/def/crs/OGC/1.3/CRS84",
        ] {
            assert_eq!(crs_named(lonlat), Some(SetCrs::Crs84), "{lonlat}");
        }
        for other in [
            "EPSG:3857",
            "urn:ogc:def:crs:EPSG::2157",
            "27700",
            "ESRI:27700",
            "",
        ] {
            assert_eq!(crs_named(other), None, "{other}");
        }
    }
}
