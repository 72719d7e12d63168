//! WGS 84 to and from the National Grid as PROJ converts them when it has no grid files: the
//! datum shift is the 7-parameter Helmert transformation EPSG:1314 ("OSGB36 to WGS 84 (6)",
//! Petroleum, about 2 m) between the WGS 84 and Airy 1830 ellipsoids through geocentric
//! cartesian coordinates, then the National Grid's projection on Airy. The grid's fallback
//! where OSTN15 has no shifts: matching PROJ's own fallback there keeps our answers within a
//! millimetre of what a client computes with pyproj or GDAL offline.

use super::tm::{self, Ellipsoid, AIRY};
use super::GridPoint;

/// WGS 84's inverse flattening; e² is derived from it as PROJ derives it (2f − f²).
const WGS84_RF: f64 = 298.257_223_563;
const WGS84: Ellipsoid = Ellipsoid {
    a: 6_378_137.0,
    b: 6_378_137.0 * (1.0 - 1.0 / WGS84_RF),
    e2: 2.0 / WGS84_RF - 1.0 / (WGS84_RF * WGS84_RF),
};

/// EPSG:1314, OSGB36 to WGS 84, position vector convention: translations (m), rotations
/// (arc-seconds), scale difference (ppm).
const HELMERT_T: [f64; 3] = [446.448, -125.157, 542.06];
const HELMERT_R_ARCSEC: [f64; 3] = [0.15, 0.247, 0.842];
const HELMERT_S_PPM: f64 = -20.489;

/// WGS 84 longitude and latitude (degrees) on the grid.
pub(super) fn to_grid(lon: f64, lat: f64) -> GridPoint {
    let wgs84 = to_cartesian(&WGS84, lat.to_radians(), lon.to_radians());
    let (phi, lambda) = to_geodetic(&AIRY, helmert_to_osgb36(wgs84));
    tm::project(&AIRY, phi, lambda)
}

/// A grid point's WGS 84 longitude and latitude (degrees): the inverse of `to_grid` (iterate
/// the meridional arc as the OS guide does; invert the Helmert).
pub(super) fn from_grid(p: GridPoint) -> (f64, f64) {
    let (phi, lambda) = tm::unproject(&AIRY, p);
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
            let (back, err) = super::super::round_trip_error(p, from_grid, to_grid);
            assert!(
                err < 0.001,
                "{name}: {p:?} came back as {back:?}, {err} m off"
            );
        }
    }
}
