//! OSTN15, the Ordnance Survey's definitive transformation between ETRS89 and the National
//! Grid, as its user guide ("Transformations and OSGM15 user guide", OS Net) defines it: an
//! ETRS89 latitude and longitude is projected on GRS80 with the National Grid's constants, and
//! the result is moved onto the National Grid by shifts interpolated bilinearly between the
//! four nodes around it of OS's 1 km grid of shifts. The shifts are OS's own data file, as the
//! `ostn15_phf` crate carries it; nothing of it is written here.
//!
//! WGS 84 is taken as ETRS89, as OS's converters and PROJ do (EPSG's ETRS89 to WGS 84 is a
//! null transformation): the two frames drift apart by about 2.5 cm a year, but longitudes
//! and latitudes from a GPS, a web map or DfT's own files are all given in that convention.

use ostn15_phf::ostn15_lookup;

use super::tm::{self, GRS80};
use super::GridPoint;

/// The grid of shifts: 701 columns by 1251 rows of nodes 1 km apart, from ETRS89 easting and
/// northing (0, 0) to (700 km, 1250 km). OS numbers the nodes row by row from 1.
const COLUMNS: i32 = 701;
const ROWS: i32 = 1251;
const SPACING: f64 = 1000.0;

/// The reverse iteration stops once an estimate moves less than this (m), the user guide's
/// 0.1 mm; the shifts change by centimetres a kilometre, so that takes two or three steps.
const SETTLED: f64 = 1e-4;

/// WGS 84 longitude and latitude (degrees) on the National Grid, or `None` where the point is
/// outside the grid of shifts.
pub(super) fn to_grid(lon: f64, lat: f64) -> Option<GridPoint> {
    let etrs89 = tm::project(&GRS80, lat.to_radians(), lon.to_radians());
    let [de, dn] = shifts(etrs89)?;
    Some(GridPoint {
        easting: etrs89.easting + de,
        northing: etrs89.northing + dn,
    })
}

/// A National Grid point's WGS 84 longitude and latitude (degrees), or `None` where it is
/// outside the grid of shifts. The shifts are indexed by ETRS89 coordinates, which are what is
/// sought, so the user guide's iteration finds them: take the shifts at the current estimate,
/// subtract them from the grid point, repeat until the estimate settles.
pub(super) fn from_grid(p: GridPoint) -> Option<(f64, f64)> {
    let mut etrs89 = p;
    // A cap that a finite point never reaches; it stops a loop, not a search.
    for _ in 0..10 {
        let [de, dn] = shifts(etrs89)?;
        let next = GridPoint {
            easting: p.easting - de,
            northing: p.northing - dn,
        };
        let moved = (next.easting - etrs89.easting)
            .abs()
            .max((next.northing - etrs89.northing).abs());
        etrs89 = next;
        if moved < SETTLED {
            break;
        }
    }
    let (phi, lambda) = tm::unproject(&GRS80, etrs89);
    Some((lambda.to_degrees(), phi.to_degrees()))
}

/// The easting and northing shifts (m) at an ETRS89 grid point: the four nodes of its cell,
/// weighted by how near the point is to each. `None` outside the grid, and for a point on its
/// east or north edge, whose cell would need nodes beyond it; a non-finite point is outside.
fn shifts(p: GridPoint) -> Option<[f64; 2]> {
    let (x, y) = (p.easting / SPACING, p.northing / SPACING);
    let (column, row) = (x.floor(), y.floor());
    let inside = |v: f64, nodes: i32| (0.0..f64::from(nodes - 1)).contains(&v);
    // Checked before the look-up: a column off either side would wrap into the row beside it.
    if !inside(column, COLUMNS) || !inside(row, ROWS) {
        return None;
    }
    let (t, u) = (x - column, y - row);
    let (column, row) = (column as i32, row as i32);
    let node = |dc: i32, dr: i32| ostn15_lookup(&((row + dr) * COLUMNS + column + dc + 1));
    let corners = [
        (node(0, 0)?, (1.0 - t) * (1.0 - u)),
        (node(1, 0)?, t * (1.0 - u)),
        (node(1, 1)?, t * u),
        (node(0, 1)?, (1.0 - t) * u),
    ];
    let de = corners.iter().map(|((de, _, _), w)| w * de).sum();
    let dn = corners.iter().map(|((_, dn, _), w)| w * dn).sum();
    Some([de, dn])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shifts at a node are the data file's own: the ostn15_phf crate's documented example,
    /// node (651, 313) near Caister, ETRS89 easting and northing 651307.003, 313255.686.
    #[test]
    fn a_node_gives_the_data_files_shifts() {
        let at_node = shifts(GridPoint {
            easting: 651_000.0,
            northing: 313_000.0,
        });
        assert_eq!(at_node, Some([102.787, -78.242]));
    }

    #[test]
    fn outside_the_grid_there_are_no_shifts() {
        for (e, n) in [
            (-0.001, 5_000.0),
            (5_000.0, -0.001),
            (700_000.0, 5_000.0),
            (5_000.0, 1_250_000.0),
            (f64::NAN, 5_000.0),
            (f64::INFINITY, 5_000.0),
        ] {
            let p = GridPoint {
                easting: e,
                northing: n,
            };
            assert_eq!(shifts(p), None, "{p:?}");
        }
        let corner = GridPoint {
            easting: 699_999.999,
            northing: 1_249_999.999,
        };
        assert!(shifts(corner).is_some());
    }
}
