//! An area asked of a listing: a box (in WGS 84 longitude/latitude, or on the British National
//! Grid) or the points within a radius of a place, checked so that anything wrong is a message
//! that says which part.

use super::grid::{self, GridPoint, AREA_OF_USE};

/// The coordinate reference systems the mirror speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crs {
    /// WGS 84 longitude, latitude (OGC's CRS84; RFC 7946's only one).
    Crs84,
    /// British National Grid easting, northing (EPSG:27700): the files' own.
    BritishNationalGrid,
}

impl Crs {
    pub const CRS84_URI: &'static str = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";
    pub const BNG_URI: &'static str = "http://www.opengis.net/def/crs/EPSG/0/27700";

    pub fn uri(self) -> &'static str {
        match self {
            Crs::Crs84 => Self::CRS84_URI,
            Crs::BritishNationalGrid => Self::BNG_URI,
        }
    }

    /// The CRS a URI names (with or without `https`, as clients write it), if one of ours.
    pub fn from_uri(uri: &str) -> Option<Crs> {
        let uri = uri.trim().replacen("https://", "http://", 1);
        match uri.as_str() {
            Self::CRS84_URI => Some(Crs::Crs84),
            Self::BNG_URI => Some(Crs::BritishNationalGrid),
            _ => None,
        }
    }
}

/// The largest radius `near` takes: a circle of it holds a few thousand count points, and its
/// rows sorted by distance stay within the query time limit.
pub const MAX_RADIUS_M: f64 = 100_000.0;

/// The extent of the grid's easting and northing (EPSG:27700's bounds, generously).
const GRID_EXTENT: [f64; 4] = [-100_000.0, -100_000.0, 900_000.0, 1_400_000.0];

/// An area of the map.
#[derive(Debug, Clone, PartialEq)]
pub enum Area {
    /// `min` and `max` corners, in `crs`'s axis order (x then y).
    Box {
        crs: Crs,
        min: [f64; 2],
        max: [f64; 2],
    },
    /// Within `radius` metres of a point on the grid.
    Near { centre: GridPoint, radius: f64 },
}

/// A message for the client, naming the parameter and the part of it that is wrong.
pub type Refusal = String;

impl Area {
    /// `minLon,minLat,maxLon,maxLat` (WGS 84), as `filter[bbox]` takes it: a box that must
    /// overlap the grid's area of use.
    pub fn parse_bbox(name: &str, text: &str) -> Result<Area, Refusal> {
        let area = checked_box(name, text, Crs::Crs84, false, "minLon,minLat,maxLon,maxLat")?;
        let Area::Box { min, max, .. } = &area else {
            unreachable!("parse_box makes a box")
        };
        let [w, s, e, n] = AREA_OF_USE;
        if max[0] < w || min[0] > e || max[1] < s || min[1] > n {
            return Err(format!(
                "{name} `{text}` is outside the British National Grid's area \
                 ({w},{s},{e},{n}): no count point can be in it."
            ));
        }
        Ok(area)
    }

    /// Four numbers `minX,minY,maxX,maxY` in `crs`, each axis in order (a six-number box's
    /// heights are not ours to filter on, so it is refused).
    pub fn parse_box(name: &str, text: &str, crs: Crs) -> Result<Area, Refusal> {
        checked_box(name, text, crs, false, "minX,minY,maxX,maxY")
    }

    /// OGC API - Features' `bbox` in `crs`: as [`Area::parse_box`], but in WGS 84 a minimum
    /// longitude above the maximum is a box across the antimeridian (from minX east to 180,
    /// then from -180 to maxX), as the standard allows (its example: New Zealand's waters).
    /// Nothing else is asked of the box: one that holds no count point simply matches none.
    pub fn parse_ogc_box(name: &str, text: &str, crs: Crs) -> Result<Area, Refusal> {
        checked_box(name, text, crs, crs == Crs::Crs84, "minX,minY,maxX,maxY")
    }

    /// `lon,lat,radius_m`, as `filter[near]` takes it: a point in the grid's area of use and a
    /// radius above 0 and at most [`MAX_RADIUS_M`]. The point goes on the grid by OSTN15, or by
    /// the Helmert at sea beyond OSTN15's shifts ([`grid::to_grid`]); one outside the area of
    /// use is nowhere near a count point, and refused.
    pub fn parse_near(name: &str, text: &str) -> Result<Area, Refusal> {
        let [lon, lat, radius] = numbers::<3>(name, text, "lon,lat,radius_m")?;
        let [w, s, e, n] = AREA_OF_USE;
        if !(w..=e).contains(&lon) || !(s..=n).contains(&lat) {
            return Err(format!(
                "{name} `{text}`: the point ({}, {}) is outside the British National \
                 Grid's area (longitude {w} to {e}, latitude {s} to {n}).",
                sent(text, 0),
                sent(text, 1)
            ));
        }
        if radius <= 0.0 || radius > MAX_RADIUS_M {
            return Err(format!(
                "{name} `{text}`: the radius must be above 0 and at most {MAX_RADIUS_M} metres, \
                 not {}.",
                sent(text, 2)
            ));
        }
        Ok(Area::Near {
            centre: grid::to_grid(lon, lat),
            radius,
        })
    }

    /// The area as text that names it exactly (the key of its filter set).
    pub fn key(&self) -> String {
        match self {
            Area::Box { crs, min, max } => format!("box {crs:?} {min:?} {max:?}"),
            Area::Near { centre, radius } => {
                format!("near {:?} {:?} {radius:?}", centre.easting, centre.northing)
            }
        }
    }
}

/// A box of four numbers in `crs`, each within the CRS's bounds and each axis in order, but
/// the longitudes of a box across the antimeridian where `may_wrap`; `shape` names the four
/// numbers in messages.
fn checked_box(
    name: &str,
    text: &str,
    crs: Crs,
    may_wrap: bool,
    shape: &str,
) -> Result<Area, Refusal> {
    let [x0, y0, x1, y1] = numbers::<4>(name, text, shape)?;
    let (names, bounds) = match crs {
        Crs::Crs84 => (["longitude", "latitude"], [-180.0, -90.0, 180.0, 90.0]),
        Crs::BritishNationalGrid => (["easting", "northing"], GRID_EXTENT),
    };
    for (axis, (lo, hi)) in [(x0, x1), (y0, y1)].into_iter().enumerate() {
        let what = names[axis];
        let (min, max) = (bounds[axis], bounds[axis + 2]);
        if !(min..=max).contains(&lo) || !(min..=max).contains(&hi) {
            return Err(format!(
                "{name} `{text}`: each {what} must be from {min} to {max}."
            ));
        }
        if lo > hi && !(may_wrap && axis == 0) {
            return Err(format!(
                "{name} `{text}`: the minimum {what} ({}) is above the maximum ({}).",
                sent(text, axis),
                sent(text, axis + 2)
            ));
        }
    }
    Ok(Area::Box {
        crs,
        min: [x0, y0],
        max: [x1, y1],
    })
}

/// The `i`th comma-separated number of `text` as it was sent: a message quotes it so, not as
/// the number it was read as (`1e-300`, not three hundred zeros).
fn sent(text: &str, i: usize) -> &str {
    text.split(',').nth(i).map_or("", str::trim)
}

/// Exactly `N` comma-separated finite numbers, or a message naming the part that is not one.
fn numbers<const N: usize>(name: &str, text: &str, shape: &str) -> Result<[f64; N], Refusal> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != N {
        return Err(format!(
            "{name} must be {N} comma-separated numbers ({shape}), not `{text}`."
        ));
    }
    let mut out = [0.0; N];
    for (i, part) in parts.iter().enumerate() {
        // Plain decimals only: Rust would read `inf`, `NaN` and `1e400` (infinite) as numbers.
        let plain = !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
        out[i] = part
            .parse::<f64>()
            .ok()
            .filter(|v| plain && v.is_finite())
            .ok_or_else(|| {
                let which = shape.split(',').nth(i).unwrap_or("a value");
                format!("{name} `{text}`: {which} `{part}` is not a number.")
            })?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(result: Result<Area, Refusal>) -> String {
        result.expect_err("refused")
    }

    #[test]
    fn messages_quote_numbers_as_sent() {
        let m = refused(Area::parse_bbox("filter[bbox]", "1e-300,52,-1,53"));
        assert!(
            m.contains("minimum longitude (1e-300) is above the maximum (-1)"),
            "{m}"
        );
        let m = refused(Area::parse_near("filter[near]", "-1,52,-1e-300"));
        assert!(m.contains("not -1e-300."), "{m}");
    }

    #[test]
    fn a_box_is_four_numbers_in_order_inside_the_grid() {
        let b = Area::parse_bbox("filter[bbox]", "-2.1,52.4, -1.8,52.6").unwrap();
        assert_eq!(
            b,
            Area::Box {
                crs: Crs::Crs84,
                min: [-2.1, 52.4],
                max: [-1.8, 52.6]
            }
        );
        assert!(refused(Area::parse_bbox("filter[bbox]", "1,2,3")).contains("4 comma-separated"));
        assert!(refused(Area::parse_bbox("filter[bbox]", "-2,x,-1,53")).contains("minLat `x`"));
        assert!(refused(Area::parse_bbox("filter[bbox]", "-2,NaN,-1,53")).contains("NaN"));
        assert!(refused(Area::parse_bbox("filter[bbox]", "-2,inf,-1,53")).contains("inf"));
        assert!(refused(Area::parse_bbox("filter[bbox]", "-1,52,-2,53")).contains("above"));
        assert!(refused(Area::parse_bbox("filter[bbox]", "-2,52,-1,95")).contains("latitude"));
        assert!(refused(Area::parse_bbox("filter[bbox]", "10,40,11,41")).contains("outside"));
        // Touching the area of use is inside it.
        assert!(Area::parse_bbox("b", "2.01,61.01,3,62").is_ok());
    }

    #[test]
    fn near_is_a_point_in_the_grid_and_a_capped_radius() {
        let Area::Near { centre, radius } = Area::parse_near("n", "-1.5,52.5,1000").unwrap() else {
            panic!("near")
        };
        assert_eq!(radius, 1000.0);
        assert!((centre.easting - 434_000.0).abs() < 2_000.0, "{centre:?}");
        assert!(refused(Area::parse_near("n", "-1.5,52.5,0")).contains("radius"));
        assert!(refused(Area::parse_near("n", "-1.5,52.5,100001")).contains("radius"));
        assert!(refused(Area::parse_near("n", "20,52.5,10")).contains("outside"));
        // West of OSTN15's shifts but in the area of use: put on the grid by the Helmert.
        assert!(Area::parse_near("n", "-9.0,57.0,1000").is_ok());
        assert!(refused(Area::parse_near("n", "-1.5,52.5")).contains("3 comma-separated"));
    }

    #[test]
    fn crs_uris_are_read_as_clients_write_them() {
        assert_eq!(Crs::from_uri(Crs::BNG_URI), Some(Crs::BritishNationalGrid));
        let https = "https://www.opengis.net/def/crs/OGC/1.3/CRS84";
        assert_eq!(Crs::from_uri(https), Some(Crs::Crs84));
        assert_eq!(Crs::from_uri("EPSG:4326"), None);
    }
}
