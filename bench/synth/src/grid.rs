//! British National Grid (OSGB36 Transverse Mercator) <-> WGS84 latitude/longitude, from
//! [`crate::dmath`] so that every machine computes the same 8 decimals.

use crate::dmath::{atan2, cos, sin, sincos, PI};

const AIRY_A: f64 = 6_377_563.396;
const AIRY_B: f64 = 6_356_256.909;
const F0: f64 = 0.999_601_271_7;
const LAT0: f64 = 49.0 * PI / 180.0;
const LON0: f64 = -2.0 * PI / 180.0;
const N0: f64 = -100_000.0;
const E0: f64 = 400_000.0;
const WGS_A: f64 = 6_378_137.0;
const WGS_B: f64 = 6_356_752.314_245;

fn meridional_arc(lat: f64) -> f64 {
    let n = (AIRY_A - AIRY_B) / (AIRY_A + AIRY_B);
    let (n2, n3) = (n * n, n * n * n);
    let d = lat - LAT0;
    let s = lat + LAT0;
    let ma = (1.0 + n + 1.25 * n2 + 1.25 * n3) * d;
    let mb = (3.0 * n + 3.0 * n2 + 2.625 * n3) * sin(d) * cos(s);
    let mc = (1.875 * n2 + 1.875 * n3) * sin(2.0 * d) * cos(2.0 * s);
    let md = (35.0 / 24.0) * n3 * sin(3.0 * d) * cos(3.0 * s);
    AIRY_B * F0 * (ma - mb + mc - md)
}

/// OSGB36 easting/northing -> OSGB36 latitude/longitude (radians).
fn en_to_osgb(e: f64, n: f64) -> (f64, f64) {
    let e2 = 1.0 - (AIRY_B * AIRY_B) / (AIRY_A * AIRY_A);
    let mut lat = LAT0;
    let mut m = 0.0;
    for _ in 0..100 {
        lat += (n - N0 - m) / (AIRY_A * F0);
        m = meridional_arc(lat);
        if (n - N0 - m).abs() < 1e-5 {
            break;
        }
    }
    let (s, c) = sincos(lat);
    let t = s / c;
    let nu = AIRY_A * F0 / (1.0 - e2 * s * s).sqrt();
    let w = 1.0 - e2 * s * s;
    let rho = AIRY_A * F0 * (1.0 - e2) / (w * w.sqrt());
    let eta2 = nu / rho - 1.0;
    let (t2, t4, t6) = (t * t, t * t * t * t, t * t * t * t * t * t);
    let sec = 1.0 / c;
    let nu3 = nu * nu * nu;
    let nu5 = nu3 * nu * nu;
    let nu7 = nu5 * nu * nu;
    let vii = t / (2.0 * rho * nu);
    let viii = t / (24.0 * rho * nu3) * (5.0 + 3.0 * t2 + eta2 - 9.0 * t2 * eta2);
    let ix = t / (720.0 * rho * nu5) * (61.0 + 90.0 * t2 + 45.0 * t4);
    let x = sec / nu;
    let xi = sec / (6.0 * nu3) * (nu / rho + 2.0 * t2);
    let xii = sec / (120.0 * nu5) * (5.0 + 28.0 * t2 + 24.0 * t4);
    let xiia = sec / (5040.0 * nu7) * (61.0 + 662.0 * t2 + 1320.0 * t4 + 720.0 * t6);
    let de = e - E0;
    let (de2, de3) = (de * de, de * de * de);
    let (de4, de5) = (de3 * de, de3 * de2);
    let (de6, de7) = (de3 * de3, de3 * de3 * de);
    let lat2 = lat - vii * de2 + viii * de4 - ix * de6;
    let lon2 = LON0 + x * de - xi * de3 + xii * de5 - xiia * de7;
    (lat2, lon2)
}

/// OSGB36 latitude/longitude (radians) -> OSGB36 easting/northing.
fn osgb_to_en(lat: f64, lon: f64) -> (f64, f64) {
    let e2 = 1.0 - (AIRY_B * AIRY_B) / (AIRY_A * AIRY_A);
    let (s, c) = sincos(lat);
    let t = s / c;
    let t2 = t * t;
    let nu = AIRY_A * F0 / (1.0 - e2 * s * s).sqrt();
    let w = 1.0 - e2 * s * s;
    let rho = AIRY_A * F0 * (1.0 - e2) / (w * w.sqrt());
    let eta2 = nu / rho - 1.0;
    let m = meridional_arc(lat);
    let c3 = c * c * c;
    let c5 = c3 * c * c;
    let i = m + N0;
    let ii = nu / 2.0 * s * c;
    let iii = nu / 24.0 * s * c3 * (5.0 - t2 + 9.0 * eta2);
    let iiia = nu / 720.0 * s * c5 * (61.0 - 58.0 * t2 + t2 * t2);
    let iv = nu * c;
    let v = nu / 6.0 * c3 * (nu / rho - t2);
    let vi = nu / 120.0 * c5 * (5.0 - 18.0 * t2 + t2 * t2 + 14.0 * eta2 - 58.0 * t2 * eta2);
    let dl = lon - LON0;
    let (dl2, dl3) = (dl * dl, dl * dl * dl);
    let n = i + ii * dl2 + iii * dl2 * dl2 + iiia * dl3 * dl3;
    let e = E0 + iv * dl + v * dl3 + vi * dl3 * dl2;
    (e, n)
}

fn to_cartesian(lat: f64, lon: f64, a: f64, b: f64) -> (f64, f64, f64) {
    let e2 = 1.0 - (b * b) / (a * a);
    let (s, c) = sincos(lat);
    let (sl, cl) = sincos(lon);
    let nu = a / (1.0 - e2 * s * s).sqrt();
    (nu * c * cl, nu * c * sl, (1.0 - e2) * nu * s)
}

fn from_cartesian(x: f64, y: f64, z: f64, a: f64, b: f64) -> (f64, f64) {
    let e2 = 1.0 - (b * b) / (a * a);
    let p = (x * x + y * y).sqrt();
    let mut lat = atan2(z, p * (1.0 - e2));
    for _ in 0..10 {
        let s = sin(lat);
        let nu = a / (1.0 - e2 * s * s).sqrt();
        lat = atan2(z + e2 * nu * s, p);
    }
    (lat, atan2(y, x))
}

/// Seven-parameter Helmert transform; `dir` = 1.0 for OSGB36 -> WGS84, -1.0 for back.
fn helmert(p: (f64, f64, f64), dir: f64) -> (f64, f64, f64) {
    let sec = PI / 180.0 / 3600.0;
    let (tx, ty, tz) = (446.448 * dir, -125.157 * dir, 542.060 * dir);
    let s = -20.4894e-6 * dir;
    let (rx, ry, rz) = (0.1502 * sec * dir, 0.2470 * sec * dir, 0.8421 * sec * dir);
    let (x, y, z) = p;
    (
        tx + x * (1.0 + s) - y * rz + z * ry,
        ty + x * rz + y * (1.0 + s) - z * rx,
        tz - x * ry + y * rx + z * (1.0 + s),
    )
}

/// Easting/northing (m) -> WGS84 latitude/longitude (degrees).
pub fn en_to_latlon(e: f64, n: f64) -> (f64, f64) {
    let (lat, lon) = en_to_osgb(e, n);
    let c = helmert(to_cartesian(lat, lon, AIRY_A, AIRY_B), 1.0);
    let (lat, lon) = from_cartesian(c.0, c.1, c.2, WGS_A, WGS_B);
    (lat * 180.0 / PI, lon * 180.0 / PI)
}

/// WGS84 latitude/longitude (degrees) -> easting/northing (m).
pub fn latlon_to_en(lat: f64, lon: f64) -> (f64, f64) {
    let c = to_cartesian(lat * PI / 180.0, lon * PI / 180.0, WGS_A, WGS_B);
    let c = helmert(c, -1.0);
    let (lat, lon) = from_cartesian(c.0, c.1, c.2, AIRY_A, AIRY_B);
    osgb_to_en(lat, lon)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_transform_matches_published_points() {
        // published: 531750,165000 -> 51.36878592,-0.10870544 ; 519000,297900 -> 52.565923,-0.24577093
        let (lat, lon) = en_to_latlon(531750.0, 165000.0);
        assert!(
            (lat - 51.36878592).abs() < 1e-4 && (lon + 0.10870544).abs() < 1e-4,
            "{lat} {lon}"
        );
        let (lat, lon) = en_to_latlon(519000.0, 297900.0);
        assert!(
            (lat - 52.565923).abs() < 1e-4 && (lon + 0.24577093).abs() < 1e-4,
            "{lat} {lon}"
        );
        let (e, n) = latlon_to_en(lat, lon);
        assert!(
            (e - 519000.0).abs() < 1.0 && (n - 297900.0).abs() < 1.0,
            "{e} {n}"
        );
    }
}
