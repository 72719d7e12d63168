//! WGS 84 longitude and latitude to and from the British National Grid (EPSG:27700), as PROJ
//! converts them when it has no grid files: the datum shift is the 7-parameter Helmert
//! transformation EPSG:1314 ("OSGB36 to WGS 84 (6)", Petroleum, about 2 m) between the WGS 84
//! and Airy 1830 ellipsoids through geocentric cartesian coordinates, and the projection is the
//! Ordnance Survey's Transverse Mercator ("A guide to coordinate systems in Great Britain",
//! annex C). OSTN15 would be better to about 0.1 m, but it is a grid file this mirror does not
//! ship; 2 m is finer than a map filter needs, and matching PROJ's fallback keeps our answers
//! within a millimetre of what a client computes with pyproj or GDAL offline.

/// A point on the British National Grid, metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridPoint {
    pub easting: f64,
    pub northing: f64,
}

/// The grid's area of use (EPSG:27700) in WGS 84: min lon, min lat, max lon, max lat.
pub const AREA_OF_USE: [f64; 4] = [-9.01, 49.75, 2.01, 61.01];

/// An ellipsoid as the cartesian conversion needs it: semi-major axis (m) and first
/// eccentricity squared.
struct Ellipsoid {
    a: f64,
    e2: f64,
}

/// WGS 84's inverse flattening; e² is derived from it as PROJ derives it (2f − f²).
const WGS84_RF: f64 = 298.257_223_563;
const WGS84: Ellipsoid = Ellipsoid {
    a: 6_378_137.0,
    e2: 2.0 / WGS84_RF - 1.0 / (WGS84_RF * WGS84_RF),
};

/// Airy 1830, OSGB36's ellipsoid, by the OS guide's a and b; e² follows from them. PROJ
/// takes EPSG's a and 1/f = 299.3249646 instead (b = 6356256.9092), which puts its northings
/// 0.23 mm south of ours: kept, so that the guide's worked example holds to its millimetre.
const AIRY_A: f64 = 6_377_563.396;
const AIRY_B: f64 = 6_356_256.909;
const AIRY: Ellipsoid = Ellipsoid {
    a: AIRY_A,
    e2: 1.0 - (AIRY_B * AIRY_B) / (AIRY_A * AIRY_A),
};

/// EPSG:1314, OSGB36 to WGS 84, position vector convention: translations (m), rotations
/// (arc-seconds), scale difference (ppm).
const HELMERT_T: [f64; 3] = [446.448, -125.157, 542.06];
const HELMERT_R_ARCSEC: [f64; 3] = [0.15, 0.247, 0.842];
const HELMERT_S_PPM: f64 = -20.489;

/// The National Grid's projection: scale on the central meridian, true origin (49N 2W) and
/// the false origin's offsets from it.
const F0: f64 = 0.999_601_271_7;
const LAT0_DEG: f64 = 49.0;
const LON0_DEG: f64 = -2.0;
const E0: f64 = 400_000.0;
const N0: f64 = -100_000.0;

/// WGS 84 longitude and latitude (degrees) on the grid.
pub fn to_grid(lon: f64, lat: f64) -> GridPoint {
    let wgs84 = to_cartesian(&WGS84, lat.to_radians(), lon.to_radians());
    let (phi, lambda) = to_geodetic(&AIRY, helmert_to_osgb36(wgs84));
    project(phi, lambda)
}

/// A grid point's WGS 84 longitude and latitude (degrees): the inverse of `to_grid` (iterate
/// the meridional arc as the OS guide does; invert the Helmert).
pub fn from_grid(p: GridPoint) -> (f64, f64) {
    let (phi, lambda) = unproject(p);
    let osgb36 = to_cartesian(&AIRY, phi, lambda);
    let (lat, lon) = to_geodetic(&WGS84, helmert_to_wgs84(osgb36));
    (lon.to_degrees(), lat.to_degrees())
}

/// Geocentric X, Y, Z (m) of a point on the ellipsoid's surface. Height is taken as zero on
/// both datums, as PROJ's pipeline does (it pushes the input height aside and restores it):
/// the grid is 2D, and a point's height would move it only by millimetres.
fn to_cartesian(ell: &Ellipsoid, phi: f64, lambda: f64) -> [f64; 3] {
    let (sin_phi, cos_phi) = phi.sin_cos();
    let nu = ell.a / (1.0 - ell.e2 * sin_phi * sin_phi).sqrt();
    [
        nu * cos_phi * lambda.cos(),
        nu * cos_phi * lambda.sin(),
        nu * (1.0 - ell.e2) * sin_phi,
    ]
}

/// Latitude and longitude (radians) of geocentric X, Y, Z, the height dropped. Bowring's
/// closed form, as PROJ's `cart` uses: within micrometres of the OS guide's iteration for any
/// point near the surface, and no loop.
fn to_geodetic(ell: &Ellipsoid, [x, y, z]: [f64; 3]) -> (f64, f64) {
    let b = ell.a * (1.0 - ell.e2).sqrt();
    let second_e2 = ell.e2 / (1.0 - ell.e2);
    let p = x.hypot(y);
    let (sin_t, cos_t) = (z * ell.a).atan2(p * b).sin_cos();
    let phi = (z + second_e2 * b * sin_t.powi(3)).atan2(p - ell.e2 * ell.a * cos_t.powi(3));
    (phi, y.atan2(x))
}

/// EPSG:1314's rotation matrix in the position vector convention, linearised (small angles)
/// as the published parameters were fitted and as PROJ applies them by default.
fn helmert_rotation() -> [[f64; 3]; 3] {
    let [rx, ry, rz] = HELMERT_R_ARCSEC.map(|s| (s / 3600.0).to_radians());
    [[1.0, -rz, ry], [rz, 1.0, -rx], [-ry, rx, 1.0]]
}

fn helmert_scale() -> f64 {
    1.0 + HELMERT_S_PPM * 1e-6
}

/// EPSG:1314 forward: OSGB36 cartesian to WGS 84 cartesian, scale times rotation plus shift.
fn helmert_to_wgs84(v: [f64; 3]) -> [f64; 3] {
    let (r, s) = (helmert_rotation(), helmert_scale());
    std::array::from_fn(|i| s * (r[i][0] * v[0] + r[i][1] * v[1] + r[i][2] * v[2]) + HELMERT_T[i])
}

/// EPSG:1314 reversed: unshift, unscale, then the transposed rotation. The transpose is not
/// the exact inverse of a linearised rotation (it differs by about 0.1 mm), but it is PROJ's
/// inverse, and matching PROJ is the point.
fn helmert_to_osgb36(v: [f64; 3]) -> [f64; 3] {
    let (r, s) = (helmert_rotation(), helmert_scale());
    let u: [f64; 3] = std::array::from_fn(|i| (v[i] - HELMERT_T[i]) / s);
    std::array::from_fn(|i| r[0][i] * u[0] + r[1][i] * u[1] + r[2][i] * u[2])
}

/// Airy's third flattening n, which the meridional arc's series is written in.
fn airy_n() -> f64 {
    (AIRY_A - AIRY_B) / (AIRY_A + AIRY_B)
}

/// The meridional arc (m, already scaled by F0) from the true origin's latitude to `phi`:
/// the OS guide's series (C3), which is what makes northings.
fn meridional_arc(phi: f64) -> f64 {
    let n = airy_n();
    let (n2, n3) = (n * n, n * n * n);
    let phi0 = LAT0_DEG.to_radians();
    let (d, s) = (phi - phi0, phi + phi0);
    let ma = (1.0 + n + 1.25 * n2 + 1.25 * n3) * d;
    let mb = (3.0 * n + 3.0 * n2 + 21.0 / 8.0 * n3) * d.sin() * s.cos();
    let mc = (15.0 / 8.0 * n2 + 15.0 / 8.0 * n3) * (2.0 * d).sin() * (2.0 * s).cos();
    let md = 35.0 / 24.0 * n3 * (3.0 * d).sin() * (3.0 * s).cos();
    AIRY_B * F0 * (ma - mb + mc - md)
}

/// The radii of curvature at `phi` (scaled by F0): ν across the meridian, ρ along it, and
/// η² = ν/ρ − 1, which every term of the series needs.
struct Radii {
    nu: f64,
    rho: f64,
    eta2: f64,
}

fn radii(phi: f64) -> Radii {
    let w = 1.0 - AIRY.e2 * phi.sin().powi(2);
    let nu = AIRY_A * F0 / w.sqrt();
    let rho = AIRY_A * F0 * (1.0 - AIRY.e2) / w.powf(1.5);
    Radii {
        nu,
        rho,
        eta2: nu / rho - 1.0,
    }
}

/// OSGB36 latitude and longitude (radians) on the grid: the OS guide's Transverse Mercator
/// series (C3, terms I to VI). Within 0.3 mm of PROJ's exact `tmerc` across Great Britain,
/// and 1.4 mm at the area of use's far western edge, at sea.
fn project(phi: f64, lambda: f64) -> GridPoint {
    let Radii { nu, rho, eta2 } = radii(phi);
    let (sin, cos, tan2) = (phi.sin(), phi.cos(), phi.tan().powi(2));
    let i = meridional_arc(phi) + N0;
    let ii = nu / 2.0 * sin * cos;
    let iii = nu / 24.0 * sin * cos.powi(3) * (5.0 - tan2 + 9.0 * eta2);
    let iiia = nu / 720.0 * sin * cos.powi(5) * (61.0 - 58.0 * tan2 + tan2 * tan2);
    let iv = nu * cos;
    let v = nu / 6.0 * cos.powi(3) * (nu / rho - tan2);
    let vi = nu / 120.0
        * cos.powi(5)
        * (5.0 - 18.0 * tan2 + tan2 * tan2 + 14.0 * eta2 - 58.0 * tan2 * eta2);
    let l = lambda - LON0_DEG.to_radians();
    GridPoint {
        easting: E0 + iv * l + v * l.powi(3) + vi * l.powi(5),
        northing: i + ii * l.powi(2) + iii * l.powi(4) + iiia * l.powi(6),
    }
}

/// The latitude whose meridional arc is `northing`'s (φ′ in the OS guide): iterated until
/// the arc is within 0.01 mm, as the guide says. Each step is the arc's shortfall over the
/// radius, so it converges in a handful of steps; the cap only stops a non-finite input.
fn footpoint_latitude(northing: f64) -> f64 {
    let mut phi = LAT0_DEG.to_radians();
    let mut gap = northing - N0;
    for _ in 0..100 {
        phi += gap / (AIRY_A * F0);
        gap = northing - N0 - meridional_arc(phi);
        if gap.abs() < 1e-5 {
            break;
        }
    }
    phi
}

/// A grid point's OSGB36 latitude and longitude (radians): the OS guide's inverse series,
/// then one step that makes it the inverse of `project` to a few hundredths of a millimetre.
/// The two series are truncated differently: alone, the inverse strays from `project` by
/// 0.7 mm at Scilly, four degrees off the central meridian, where `project` is within 0.3 mm
/// of PROJ; the step brings `from_grid` within that 0.3 mm of PROJ too.
fn unproject(p: GridPoint) -> (f64, f64) {
    let (lat, lon) = inverse_series(p);
    let Radii { nu, rho, .. } = radii(lat);
    let q = project(lat, lon);
    // Grid metres back to radians by the radii of curvature; the grid's convergence and
    // point scale (a few per cent of a sub-millimetre step) are below what matters here.
    let lat = lat - (q.northing - p.northing) / rho;
    (lat, lon - (q.easting - p.easting) / (nu * lat.cos()))
}

/// The OS guide's inverse series (C4, terms VII to XIIA) about the footpoint latitude.
fn inverse_series(p: GridPoint) -> (f64, f64) {
    let phi = footpoint_latitude(p.northing);
    let Radii { nu, rho, eta2 } = radii(phi);
    let (sec, tan) = (1.0 / phi.cos(), phi.tan());
    let (t2, t4) = (tan * tan, tan.powi(4));
    let vii = tan / (2.0 * rho * nu);
    let viii = tan / (24.0 * rho * nu.powi(3)) * (5.0 + 3.0 * t2 + eta2 - 9.0 * t2 * eta2);
    let ix = tan / (720.0 * rho * nu.powi(5)) * (61.0 + 90.0 * t2 + 45.0 * t4);
    let x = sec / nu;
    let xi = sec / (6.0 * nu.powi(3)) * (nu / rho + 2.0 * t2);
    let xii = sec / (120.0 * nu.powi(5)) * (5.0 + 28.0 * t2 + 24.0 * t4);
    let xiia = sec / (5040.0 * nu.powi(7)) * (61.0 + 662.0 * t2 + 1320.0 * t4 + 720.0 * t2 * t4);
    let d = p.easting - E0;
    let lat = phi - vii * d.powi(2) + viii * d.powi(4) - ix * d.powi(6);
    let lon = LON0_DEG.to_radians() + x * d - xi * d.powi(3) + xii * d.powi(5) - xiia * d.powi(7);
    (lat, lon)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pyproj 3.7.2 (PROJ 9.5.1) with no grid files: `Transformer.from_crs(4326, 27700,
    /// always_xy=True)` gives these, and so does its best available operation, "axis order
    /// change (2D) + Inverse of OSGB36 to WGS 84 (6) + British National Grid" (EPSG:1314).
    /// Each row: name, WGS 84 lon and lat, PROJ's easting and northing for them, and PROJ's
    /// inverse of that easting and northing (not quite the input: PROJ's own round trip is
    /// off by about 1e-8 degrees, the heights dropped between datums). The central meridian's
    /// point is at WGS 84 -2.0015 because the datum shift moves -2 about 98 m east.
    #[rustfmt::skip]
    const PYPROJ: [(&str, f64, f64, f64, f64, f64, f64); 12] = [
        ("lizard", -5.202, 49.9597, 170440.11587992116, 11527.681847011627, -5.2019999912070585, 49.95969999411442),
        ("lowestoft", 1.7628, 52.4817, 655593.6595133948, 293743.83203191747, 1.7628000138096587, 52.481699996133294),
        ("dover", 1.3132, 51.1279, 631922.0808223549, 141733.6095642017, 1.313200012807987, 51.12789999516418),
        ("shetland", -1.3, 60.8, 438199.0402882639, 1213211.0831255866, -1.2999999847387507, 60.800000003764104),
        ("scilly", -6.3, 49.9, 91329.12526354851, 8845.071560989687, -6.299999992025215, 49.89999999404272),
        ("belfast", -5.9301, 54.5973, 146241.48087716804, 529559.8743779197, -5.930099990129088, 54.59729999838365),
        ("london", -0.1276, 51.5072, 530043.1949814068, 180358.20862000342, -0.12759998749567045, 51.507199995395474),
        ("edinburgh", -3.1883, 55.9533, 325897.218139444, 674001.2016097571, -3.18829998737561, 55.953299999518805),
        ("central_meridian", -2.0015, 54.0, 399999.31915808946, 455996.5045639562, -2.0014999872572097, 53.999999997544606),
        ("cape_wrath", -4.9988, 58.6255, 225975.7614110795, 974735.1023885387, -4.998799988285984, 58.62550000239264),
        ("lands_end", -5.7148, 50.0686, 134271.18441327126, 25333.077872538386, -5.71479999152739, 50.068599994187636),
        ("butt_of_lewis", -6.2614, 58.5156, 151939.23243956035, 966482.1422398288, -6.261399989553858, 58.51560000244211),
    ];

    #[test]
    fn to_grid_matches_proj_within_a_centimetre() {
        for (name, lon, lat, e, n, _, _) in PYPROJ {
            let p = to_grid(lon, lat);
            let err = (p.easting - e).abs().max((p.northing - n).abs());
            assert!(
                err < 0.01,
                "{name}: {p:?} is {err} m from PROJ's ({e}, {n})"
            );
        }
    }

    #[test]
    fn from_grid_matches_proj_within_1e_8_degrees() {
        for (name, _, _, e, n, lon, lat) in PYPROJ {
            let (got_lon, got_lat) = from_grid(GridPoint {
                easting: e,
                northing: n,
            });
            let err = (got_lon - lon).abs().max((got_lat - lat).abs());
            assert!(
                err < 1e-8,
                "{name}: ({got_lon}, {got_lat}) is {err} deg from PROJ's"
            );
        }
    }

    /// Each coordinate comes back within a millimetre. Not closer, and the distance reaches
    /// 1.04 mm: both ends put the point at height zero on their own ellipsoid, as PROJ does,
    /// and the two ellipsoids' normals differ by a few arc-seconds, so the tens of metres
    /// between the surfaces tilt into a millimetre sideways. PROJ's own round trip on these
    /// points is 1.05 mm.
    #[test]
    fn round_trip_is_within_a_millimetre() {
        for (name, _, _, e, n, _, _) in PYPROJ {
            let p = GridPoint {
                easting: e,
                northing: n,
            };
            let (lon, lat) = from_grid(p);
            let back = to_grid(lon, lat);
            let err = (back.easting - e).abs().max((back.northing - n).abs());
            assert!(
                err < 0.001,
                "{name}: {p:?} came back as {back:?}, {err} m off"
            );
        }
    }

    fn dms(d: f64, m: f64, s: f64) -> f64 {
        (d + m / 60.0 + s / 3600.0).to_radians()
    }

    /// The OS guide's worked example (annex C): OSGB36 52°39'27.2531"N 1°43'4.5177"E is
    /// E 651409.903 N 313177.270, both ways, to the guide's millimetre and 0.0001".
    #[test]
    fn os_guide_worked_example() {
        let (phi, lambda) = (dms(52.0, 39.0, 27.2531), dms(1.0, 43.0, 4.5177));
        let p = project(phi, lambda);
        assert!((p.easting - 651_409.903).abs() < 0.0005, "{p:?}");
        assert!((p.northing - 313_177.270).abs() < 0.0005, "{p:?}");
        let (lat, lon) = unproject(GridPoint {
            easting: 651_409.903,
            northing: 313_177.270,
        });
        let arcsec = (0.0001 / 3600.0_f64).to_radians();
        assert!(
            (lat - phi).abs() < arcsec && (lon - lambda).abs() < arcsec,
            "{lat} {lon}"
        );
    }

    /// The true origin is where the false origin's offsets say.
    #[test]
    fn true_origin_is_e400000_n_minus_100000() {
        let p = project(LAT0_DEG.to_radians(), LON0_DEG.to_radians());
        assert!(
            (p.easting - E0).abs() < 1e-9 && (p.northing - N0).abs() < 1e-9,
            "{p:?}"
        );
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
