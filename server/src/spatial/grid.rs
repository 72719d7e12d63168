//! WGS 84 longitude and latitude to and from the British National Grid (EPSG:27700) by OSTN15,
//! the Ordnance Survey's definitive transformation (`ostn15`): a count point asked for by the
//! longitude and latitude of DfT's count points file lands on its easting and northing (within
//! a millimetre for most, and half a metre for all: the grid's are whole metres). OSTN15's
//! shifts cover a rectangle 700 km by 1250 km from the grid's false origin: Great Britain and
//! the sea around it. The rest of EPSG:27700's area of use, at sea on its southern and western
//! edges (the Channel south of Cornwall, the Atlantic west of Scilly and of St Kilda), where no
//! road is, falls back to the Helmert transformation EPSG:1314 (`helmert`), as PROJ does
//! without grid files: about 2 m off, so a radius reaching land from there is off by as much.
//! A point outside the area of use is refused before it gets here (`area`).

mod helmert;
mod ostn15;
mod tm;

/// A point on the British National Grid, metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridPoint {
    pub easting: f64,
    pub northing: f64,
}

/// The grid's area of use (EPSG:27700) in WGS 84: min lon, min lat, max lon, max lat.
pub const AREA_OF_USE: [f64; 4] = [-9.01, 49.75, 2.01, 61.01];

/// WGS 84 longitude and latitude (degrees) on the grid: by OSTN15 where its shifts reach,
/// else by the Helmert.
pub fn to_grid(lon: f64, lat: f64) -> GridPoint {
    ostn15::to_grid(lon, lat).unwrap_or_else(|| helmert::to_grid(lon, lat))
}

/// A grid point's WGS 84 longitude and latitude (degrees): the inverse of `to_grid`, by the
/// same transformation wherever `to_grid` would use it (their coverage differs only within
/// metres of the shifts' edge, at sea).
pub fn from_grid(p: GridPoint) -> (f64, f64) {
    ostn15::from_grid(p).unwrap_or_else(|| helmert::from_grid(p))
}

/// How far `p` comes back after a round trip through `from` and `to`, in metres (the larger of
/// its easting's and northing's errors), and where it came back: for the tests of either
/// transformation.
#[cfg(test)]
fn round_trip_error(
    p: GridPoint,
    from: fn(GridPoint) -> (f64, f64),
    to: fn(f64, f64) -> GridPoint,
) -> (GridPoint, f64) {
    let (lon, lat) = from(p);
    let back = to(lon, lat);
    let err = (back.easting - p.easting)
        .abs()
        .max((back.northing - p.northing).abs());
    (back, err)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OS's OSTN15 test points, from the OSTN15 developer pack published on OS Net
    /// ("OSTN15_OSGM15_TestInput_ETRStoOSGB.txt" and "OSTN15_OSGM15_TestOutput_ETRStoOSGB.txt";
    /// the lonlat_bng crate carries both in its test_inputs): ETRS89 latitude and longitude
    /// in, OSGB36 easting and northing out. A spread of them: Scilly (TP01), London (TP09),
    /// the Midlands (TP12), the Isle of Man (TP21), Glasgow (TP26), St Kilda at the grid's far
    /// west (TP31), Lewis (TP33), Fair Isle (TP38) and Shetland (TP40).
    #[rustfmt::skip]
    const OS_ETRS_TO_OSGB: [(&str, f64, f64, f64, f64); 9] = [
        ("TP01", 49.92226394, -6.29977752, 91492.146, 11318.804),
        ("TP09", 51.48936565, -0.119925572, 530624.974, 178388.464),
        ("TP12", 52.25529382, -2.154586144, 389544.19, 261912.153),
        ("TP21", 54.08666318, -4.634521682, 227778.33, 468847.388),
        ("TP26", 55.85399953, -4.296490163, 256340.925, 664697.269),
        ("TP31", 57.81351838, -8.578544561, 9587.909, 899448.996),
        ("TP33", 58.51560361, -6.260914555, 151968.652, 966483.78),
        ("TP38", 59.53470794, -1.625169661, 421300.525, 1072147.239),
        ("TP40", 60.13308092, -2.073828228, 395999.668, 1138728.951),
    ];

    /// The same pack's reverse test ("OSTN15_OSGM15_TestInput_OSGBtoETRS.txt" and
    /// "OSTN15_OSGM15_TestOutput_OSGBtoETRS.txt"): OSGB36 easting and northing in, ETRS89
    /// latitude and longitude out (to 8 decimals, OS's rounding).
    #[rustfmt::skip]
    const OS_OSGB_TO_ETRS: [(&str, f64, f64, f64, f64); 9] = [
        ("TP01", 91492.146, 11318.804, 49.92226394, -6.29977752),
        ("TP09", 530624.974, 178388.464, 51.48936565, -0.11992557),
        ("TP12", 389544.19, 261912.153, 52.25529382, -2.15458614),
        ("TP21", 227778.33, 468847.388, 54.08666318, -4.63452168),
        ("TP26", 256340.925, 664697.269, 55.85399953, -4.29649016),
        ("TP31", 9587.906, 899449.0, 57.81351838, -8.57854456),
        ("TP33", 151968.652, 966483.78, 58.51560361, -6.26091456),
        ("TP38", 421300.525, 1072147.239, 59.53470794, -1.62516966),
        ("TP40", 395999.668, 1138728.951, 60.13308092, -2.07382823),
    ];

    /// Within a millimetre: OS rounds its outputs to the millimetre, and its inputs to 8
    /// decimals of a degree, which alone is up to 0.56 mm of northing.
    #[test]
    fn to_grid_gives_os_test_outputs_within_a_millimetre() {
        for (name, lat, lon, e, n) in OS_ETRS_TO_OSGB {
            let p = to_grid(lon, lat);
            let err = (p.easting - e).abs().max((p.northing - n).abs());
            assert!(err < 0.001, "{name}: {p:?} is {err} m from OS's ({e}, {n})");
        }
    }

    /// Within 1e-8 degrees (a millimetre at most): OS rounds to 8 decimals, and its inverse
    /// series is not quite the inverse of its forward one, where ours is made to be
    /// (`tm::unproject`). Far off the central meridian that is more: at St Kilda (TP31) OS's
    /// own two tests disagree by 3 mm east and 4 mm north (ETRS89 to OSGB36 gives 9587.909,
    /// 899448.996; OSGB36 9587.906, 899449.000 comes back to the same ETRS89 point), so
    /// there ours is within 6e-8 degrees, 3 mm.
    #[test]
    fn from_grid_gives_os_test_outputs_within_1e_8_degrees() {
        for (name, e, n, lat, lon) in OS_OSGB_TO_ETRS {
            let (got_lon, got_lat) = from_grid(GridPoint {
                easting: e,
                northing: n,
            });
            let err = (got_lon - lon).abs().max((got_lat - lat).abs());
            let tolerance = if name == "TP31" { 6e-8 } else { 1e-8 };
            assert!(
                err < tolerance,
                "{name}: ({got_lon}, {got_lat}) is {err} deg from OS's"
            );
        }
    }

    /// Both ways are one transformation: a longitude and latitude come back within 1e-9
    /// degrees (a tenth of a millimetre), a grid point within a tenth of a millimetre.
    #[test]
    fn round_trips_come_back() {
        for (name, lat, lon, e, n) in OS_ETRS_TO_OSGB {
            let (back_lon, back_lat) = from_grid(to_grid(lon, lat));
            let err = (back_lon - lon).abs().max((back_lat - lat).abs());
            assert!(
                err < 1e-9,
                "{name}: ({back_lon}, {back_lat}) is {err} deg off"
            );
            let p = GridPoint {
                easting: e,
                northing: n,
            };
            let (back, err) = round_trip_error(p, from_grid, to_grid);
            assert!(
                err < 1e-4,
                "{name}: {p:?} came back as {back:?}, {err} m off"
            );
        }
    }

    /// Off OSTN15's shifts but in the area of use, the Helmert answers, both ways: west of
    /// St Kilda, the Channel south of the Lizard, and the area of use's south-west corner.
    #[test]
    fn off_the_shifts_the_helmert_answers() {
        for (lon, lat) in [(-9.0, 57.0), (-5.2, 49.8), (-9.01, 49.75)] {
            assert_eq!(ostn15::to_grid(lon, lat), None);
            let p = to_grid(lon, lat);
            assert_eq!(p, helmert::to_grid(lon, lat));
            assert_eq!(from_grid(p), helmert::from_grid(p));
        }
    }

    /// Where both apply, the Helmert is within a few metres of OSTN15 (EPSG quotes 2 m), so
    /// the fallback's edge moves a distance by no more than that.
    #[test]
    fn the_helmert_is_within_a_few_metres_of_ostn15() {
        for (name, lat, lon, _, _) in OS_ETRS_TO_OSGB {
            let (a, b) = (to_grid(lon, lat), helmert::to_grid(lon, lat));
            let gap = (a.easting - b.easting).hypot(a.northing - b.northing);
            assert!(gap < 5.0, "{name}: {gap} m");
        }
    }

    #[test]
    fn the_area_of_use_lands_on_the_grid_in_range() {
        let [w, s, e, n] = AREA_OF_USE;
        for (lon, lat) in [(w, s), (e, s), (w, n), (e, n)] {
            let p = to_grid(lon, lat);
            assert!((-200_000.0..800_000.0).contains(&p.easting), "{p:?}");
            assert!((-100_000.0..1_300_000.0).contains(&p.northing), "{p:?}");
        }
    }
}
