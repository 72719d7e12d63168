//! The checks every boundary file passes, whatever its format: ids present and unique, every
//! ring closed with at least four positions, finite coordinates inside Great Britain's grid,
//! valid polygons (geo's `Validation`: no self-intersection, holes inside their exterior,
//! parts of a multipolygon not overlapping), and the caps. The first fault refuses the file.

use std::collections::HashMap;

use geo::{Coord, LineString, MultiPolygon, Polygon, Validation};

use super::{BoundaryError, Fields, RawFeature, MAX_FEATURES, MAX_VERTICES};
use crate::{Area, SetCrs};

/// Where a set's coordinates may be, `[min_x, min_y, max_x, max_y]`: Great Britain with a
/// margin (the grid's area of use in longitude and latitude; the grid's own extent in metres).
pub const LON_LAT_BOUNDS: [f64; 4] = [-9.01, 49.7, 2.1, 61.1];
pub const GRID_BOUNDS: [f64; 4] = [-100_000.0, -100_000.0, 900_000.0, 1_400_000.0];

pub(crate) fn too_many(features: usize) -> BoundaryError {
    BoundaryError::file(format!(
        "{features} features: a set may have at most {MAX_FEATURES}"
    ))
}

/// The areas of checked features.
pub(crate) fn areas(
    features: Vec<RawFeature>,
    crs: SetCrs,
    fields: &Fields,
) -> Result<Vec<Area>, BoundaryError> {
    if features.is_empty() {
        return Err(BoundaryError::file("it has no features"));
    }
    if features.len() > MAX_FEATURES {
        return Err(too_many(features.len()));
    }
    let bounds = match crs {
        SetCrs::Crs84 => LON_LAT_BOUNDS,
        SetCrs::BritishNationalGrid => GRID_BOUNDS,
    };
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(features.len());
    let mut vertices = 0usize;
    let mut areas = Vec::with_capacity(features.len());
    for (index, f) in features.into_iter().enumerate() {
        let Some(id) = f.id.filter(|id| !id.is_empty()) else {
            let from = match &fields.id {
                Some(field) => format!("its property {field:?} is missing or empty"),
                None => "no \"code\" or \"id\" property, nor an id of its own".into(),
            };
            return Err(BoundaryError::feature(
                index,
                None,
                format!("it has no id ({from})"),
            ));
        };
        let fault = |why: String| BoundaryError::feature(index, Some(&id), why);
        if let Some(first) = seen.insert(id.clone(), index) {
            return Err(fault(format!("its id repeats feature {first}'s")));
        }
        let rings = f.rings.map_err(fault)?;
        vertices += rings.iter().flatten().map(Vec::len).sum::<usize>();
        if vertices > MAX_VERTICES {
            return Err(fault(format!(
                "the set passes {MAX_VERTICES} positions, the most a set may have"
            )));
        }
        let geometry = multipolygon(rings, bounds).map_err(fault)?;
        let name = f
            .name
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| id.clone());
        areas.push(Area { id, name, geometry });
    }
    Ok(areas)
}

/// The rings as a valid multipolygon, or the first fault.
fn multipolygon(rings: super::Rings, bounds: [f64; 4]) -> Result<MultiPolygon<f64>, String> {
    if rings.is_empty() {
        return Err("its geometry is empty".into());
    }
    let several = rings.len() > 1;
    let mut polygons = Vec::with_capacity(rings.len());
    for (p, polygon) in rings.into_iter().enumerate() {
        let mut lines = Vec::with_capacity(polygon.len());
        if polygon.is_empty() {
            return Err(format!("{} has no rings", part(several, p)));
        }
        for (r, ring) in polygon.into_iter().enumerate() {
            let role = match r {
                0 => "exterior ring".to_string(),
                h => format!("hole {h}"),
            };
            let at = format!("{}'s {role}", part(several, p));
            lines.push(ring_line(ring, bounds).map_err(|why| format!("{at} {why}"))?);
        }
        let exterior = lines.remove(0);
        polygons.push(Polygon::new(exterior, lines));
    }
    let geometry = MultiPolygon(polygons);
    geometry
        .check_validation()
        .map_err(|e| format!("not a valid polygon: {e}"))?;
    Ok(geometry)
}

fn part(several: bool, p: usize) -> String {
    match several {
        true => format!("polygon {p}"),
        false => "the polygon".to_string(),
    }
}

/// A ring as a closed line, checked: at least four positions, the last the first, each finite
/// and within bounds.
fn ring_line(ring: Vec<[f64; 2]>, bounds: [f64; 4]) -> Result<LineString<f64>, String> {
    if ring.len() < 4 {
        return Err(format!(
            "has {} positions: a ring needs at least 4 (the last repeating the first)",
            ring.len()
        ));
    }
    for (i, [x, y]) in ring.iter().enumerate() {
        if !x.is_finite() || !y.is_finite() {
            return Err(format!(
                "has a coordinate that is not a number at position {i}"
            ));
        }
        let [min_x, min_y, max_x, max_y] = bounds;
        if !(min_x..=max_x).contains(x) || !(min_y..=max_y).contains(y) {
            return Err(format!(
                "has position {i} at ({x}, {y}), outside Great Britain's grid \
                 ({min_x}..{max_x}, {min_y}..{max_y})"
            ));
        }
    }
    if ring.first() != ring.last() {
        return Err("is not closed: its last position is not its first".into());
    }
    Ok(LineString(
        ring.into_iter().map(|[x, y]| Coord { x, y }).collect(),
    ))
}
