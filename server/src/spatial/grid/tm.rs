//! The National Grid's Transverse Mercator on an ellipsoid: the Ordnance Survey's series ("A
//! guide to coordinate systems in Great Britain", annex C). The same projection serves both
//! routes to the grid: on Airy 1830 it is the National Grid itself (OSGB36 latitude and
//! longitude to easting and northing), and on GRS80 it is OSTN15's ETRS89 grid, which the
//! OSTN15 shifts then move onto the National Grid.

use super::GridPoint;

/// An ellipsoid: semi-major and semi-minor axes (m) and first eccentricity squared.
pub(super) struct Ellipsoid {
    pub a: f64,
    pub b: f64,
    pub e2: f64,
}

impl Ellipsoid {
    /// The ellipsoid of axes `a` and `b`, e² following from them as the OS guide derives it.
    const fn from_axes(a: f64, b: f64) -> Ellipsoid {
        Ellipsoid {
            a,
            b,
            e2: 1.0 - (b * b) / (a * a),
        }
    }

    /// The third flattening n, which the meridional arc's series is written in.
    fn n(&self) -> f64 {
        (self.a - self.b) / (self.a + self.b)
    }
}

/// Airy 1830, OSGB36's ellipsoid, by the OS guide's a and b. PROJ takes EPSG's a and
/// 1/f = 299.3249646 instead (b = 6356256.9092), which puts its northings 0.23 mm south of
/// ours: kept, so that the guide's worked example holds to its millimetre.
pub(super) const AIRY: Ellipsoid = Ellipsoid::from_axes(6_377_563.396, 6_356_256.909);

/// GRS80, ETRS89's ellipsoid, by the axes the OS guide and OSTN15's user guide give (b to the
/// tenth of a millimetre): OS computed OSTN15's test outputs with these.
pub(super) const GRS80: Ellipsoid = Ellipsoid::from_axes(6_378_137.0, 6_356_752.314_1);

/// The National Grid's projection: scale on the central meridian, true origin (49N 2W) and
/// the false origin's offsets from it. OSTN15's ETRS89 grid uses the same numbers.
const F0: f64 = 0.999_601_271_7;
pub(super) const LAT0_DEG: f64 = 49.0;
pub(super) const LON0_DEG: f64 = -2.0;
pub(super) const E0: f64 = 400_000.0;
pub(super) const N0: f64 = -100_000.0;

/// The meridional arc (m, already scaled by F0) from the true origin's latitude to `phi`:
/// the OS guide's series (C3), which is what makes northings.
fn meridional_arc(ell: &Ellipsoid, phi: f64) -> f64 {
    let n = ell.n();
    let (n2, n3) = (n * n, n * n * n);
    let phi0 = LAT0_DEG.to_radians();
    let (d, s) = (phi - phi0, phi + phi0);
    let ma = (1.0 + n + 1.25 * n2 + 1.25 * n3) * d;
    let mb = (3.0 * n + 3.0 * n2 + 21.0 / 8.0 * n3) * d.sin() * s.cos();
    let mc = (15.0 / 8.0 * n2 + 15.0 / 8.0 * n3) * (2.0 * d).sin() * (2.0 * s).cos();
    let md = 35.0 / 24.0 * n3 * (3.0 * d).sin() * (3.0 * s).cos();
    ell.b * F0 * (ma - mb + mc - md)
}

/// The radii of curvature at `phi` (scaled by F0): ν across the meridian, ρ along it, and
/// η² = ν/ρ − 1, which every term of the series needs.
struct Radii {
    nu: f64,
    rho: f64,
    eta2: f64,
}

fn radii(ell: &Ellipsoid, phi: f64) -> Radii {
    let w = 1.0 - ell.e2 * phi.sin().powi(2);
    let nu = ell.a * F0 / w.sqrt();
    let rho = ell.a * F0 * (1.0 - ell.e2) / w.powf(1.5);
    Radii {
        nu,
        rho,
        eta2: nu / rho - 1.0,
    }
}

/// Latitude and longitude (radians) on `ell` to the grid: the OS guide's Transverse Mercator
/// series (C3, terms I to VI). On Airy, within 0.3 mm of PROJ's exact `tmerc` across Great
/// Britain, and 1.4 mm at the area of use's far western edge, at sea.
pub(super) fn project(ell: &Ellipsoid, phi: f64, lambda: f64) -> GridPoint {
    let Radii { nu, rho, eta2 } = radii(ell, phi);
    let (sin, cos, tan2) = (phi.sin(), phi.cos(), phi.tan().powi(2));
    let i = meridional_arc(ell, phi) + N0;
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
fn footpoint_latitude(ell: &Ellipsoid, northing: f64) -> f64 {
    let mut phi = LAT0_DEG.to_radians();
    let mut gap = northing - N0;
    for _ in 0..100 {
        phi += gap / (ell.a * F0);
        gap = northing - N0 - meridional_arc(ell, phi);
        if gap.abs() < 1e-5 {
            break;
        }
    }
    phi
}

/// A grid point's latitude and longitude (radians) on `ell`: the OS guide's inverse series,
/// then two steps that make it the inverse of `project`. The two series are truncated
/// differently: alone, the inverse strays from `project` by half a millimetre at Scilly,
/// four degrees off the central meridian (where `project` is within 0.3 mm of PROJ), and by
/// 5 mm at St Kilda, six and a half degrees off. Each step leaves a tenth of the gap at most
/// (below), so two leave a few micrometres at Scilly and 0.05 mm at St Kilda: a round trip
/// through OSTN15 comes back within 1e-9 degrees.
pub(super) fn unproject(ell: &Ellipsoid, p: GridPoint) -> (f64, f64) {
    let (mut lat, mut lon) = inverse_series(ell, p);
    for _ in 0..2 {
        let Radii { nu, rho, .. } = radii(ell, lat);
        let q = project(ell, lat, lon);
        // Grid metres back to radians by the radii of curvature, leaving out the grid's
        // convergence (5.6 degrees at St Kilda) and point scale: up to a tenth of each step,
        // which the next takes up.
        lat -= (q.northing - p.northing) / rho;
        lon -= (q.easting - p.easting) / (nu * lat.cos());
    }
    (lat, lon)
}

/// The OS guide's inverse series (C4, terms VII to XIIA) about the footpoint latitude.
fn inverse_series(ell: &Ellipsoid, p: GridPoint) -> (f64, f64) {
    let phi = footpoint_latitude(ell, p.northing);
    let Radii { nu, rho, eta2 } = radii(ell, phi);
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

    fn dms(d: f64, m: f64, s: f64) -> f64 {
        (d + m / 60.0 + s / 3600.0).to_radians()
    }

    /// The OS guide's worked example (annex C): OSGB36 52°39'27.2531"N 1°43'4.5177"E is
    /// E 651409.903 N 313177.270, both ways, to the guide's millimetre and 0.0001".
    #[test]
    fn os_guide_worked_example() {
        let (phi, lambda) = (dms(52.0, 39.0, 27.2531), dms(1.0, 43.0, 4.5177));
        let p = project(&AIRY, phi, lambda);
        assert!((p.easting - 651_409.903).abs() < 0.0005, "{p:?}");
        assert!((p.northing - 313_177.270).abs() < 0.0005, "{p:?}");
        let (lat, lon) = unproject(
            &AIRY,
            GridPoint {
                easting: 651_409.903,
                northing: 313_177.270,
            },
        );
        let arcsec = (0.0001 / 3600.0_f64).to_radians();
        assert!(
            (lat - phi).abs() < arcsec && (lon - lambda).abs() < arcsec,
            "{lat} {lon}"
        );
    }

    /// The true origin is where the false origin's offsets say, on either ellipsoid.
    #[test]
    fn true_origin_is_e400000_n_minus_100000() {
        for ell in [&AIRY, &GRS80] {
            let p = project(ell, LAT0_DEG.to_radians(), LON0_DEG.to_radians());
            assert!(
                (p.easting - E0).abs() < 1e-9 && (p.northing - N0).abs() < 1e-9,
                "{p:?}"
            );
        }
    }
}
