//! The features of a page on a map: their points over the coast of Great Britain (the site's
//! outline, `assets/gb-outline.json`), drawn by the server as SVG, so that the page needs no
//! script and asks for nothing more (the site's own map is drawn by its script on a canvas,
//! from every count point of the file; this one shows the page's features alone). The view
//! fits the points and the land is clipped to it, so that a page of one town is drawn as
//! finely as a page of the whole country. Colours come from the stylesheet (`.feature-map`),
//! as the pages' CSP forbids inline styles; a text alternative says what the map shows, and
//! the table below it lists every feature with its point.

use std::fmt::Write as _;
use std::sync::OnceLock;

use maud::{html, Markup};
use serde_json::Value;

use crate::assets;
use crate::spatial::grid::{from_grid, GridPoint};
use crate::spatial::Crs;

/// The map's size in its own units (the stylesheet scales it to the page's width).
const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 480.0;

/// The least a map shows, in degrees of latitude (about 11 km): a page whose features are all
/// at one place still shows where that is.
const LEAST_SPAN: f64 = 0.1;

/// The margin around the points, as a share of their span.
const MARGIN: f64 = 0.1;

/// A feature's point: its id as the page shows it, and its WGS 84 longitude and latitude.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub id: String,
    pub lon: f64,
    pub lat: f64,
}

/// The points of a page's features (GeoJSON, their coordinates in `crs`): those that have one.
pub fn points(features: &[Value], crs: Crs) -> Vec<Point> {
    let point = |f: &Value| {
        let xy = f["geometry"]["coordinates"].as_array()?;
        let (x, y) = (xy.first()?.as_f64()?, xy.get(1)?.as_f64()?);
        let (lon, lat) = match crs {
            Crs::Crs84 => (x, y),
            Crs::BritishNationalGrid => from_grid(GridPoint {
                easting: x,
                northing: y,
            }),
        };
        Some(Point {
            id: f["id"].to_string(),
            lon,
            lat,
        })
    };
    features.iter().filter_map(point).collect()
}

/// The map of `points`, the page's `features` counted for its text alternative; `None` when no
/// feature has a point.
pub fn map(points: &[Point], features: usize) -> Option<Markup> {
    let view = View::around(points)?;
    let land = land_path(&view);
    let [west, south, east, north] = view.bounds().map(|v| (v * 1e3).round() / 1e3);
    let without = features.saturating_sub(points.len());
    Some(html! {
        div.feature-map {
            svg viewBox=(format!("0 0 {WIDTH} {HEIGHT}")) role="img" aria-labelledby="feature-map-title feature-map-desc" {
                title id="feature-map-title" { "Map of the features on this page" }
                desc id="feature-map-desc" {
                    (points.len()) " of the " (features) " features on this page drawn as points over the coast of Great Britain, from longitude " (west) " to " (east) " and latitude " (south) " to " (north) "."
                    @if without == 1 { " 1 has no point." }
                    @if without > 1 { " " (without) " have no point." }
                    " The table below lists each feature and its point."
                }
                path.land d=(land) {}
                @for p in points {
                    @let (x, y) = view.at(p.lon, p.lat);
                    circle cx=(x) cy=(y) r="5" data-id=(p.id) data-lon=(p.lon) data-lat=(p.lat) {
                        title { "Feature " (p.id) ": " (p.lon) ", " (p.lat) }
                    }
                }
            }
        }
    })
}

/// What the map shows: a box of longitudes and latitudes, as wide as the map is on a plane
/// whose longitudes are shortened by the cosine of its middle latitude.
#[derive(Debug, Clone, Copy, PartialEq)]
struct View {
    /// Its middle, in degrees.
    lon: f64,
    lat: f64,
    /// Its height in degrees of latitude, and the cosine that shortens a degree of longitude.
    span: f64,
    cos: f64,
}

impl View {
    /// The view of `points` with a margin, at least [`LEAST_SPAN`] high; `None` for none.
    fn around(points: &[Point]) -> Option<View> {
        let first = points.first()?;
        let mut b = [first.lon, first.lat, first.lon, first.lat];
        for p in points {
            b = [
                b[0].min(p.lon),
                b[1].min(p.lat),
                b[2].max(p.lon),
                b[3].max(p.lat),
            ];
        }
        let (lon, lat) = ((b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0);
        let cos = lat.to_radians().cos().max(0.05);
        let wide = (b[2] - b[0]) * cos * HEIGHT / WIDTH;
        let span = (b[3] - b[1]).max(wide) * (1.0 + 2.0 * MARGIN);
        Some(View {
            lon,
            lat,
            span: span.max(LEAST_SPAN),
            cos,
        })
    }

    /// Its west, south, east and north edges.
    fn bounds(&self) -> [f64; 4] {
        let half_width = self.span * WIDTH / HEIGHT / self.cos / 2.0;
        let half_height = self.span / 2.0;
        [
            self.lon - half_width,
            self.lat - half_height,
            self.lon + half_width,
            self.lat + half_height,
        ]
    }

    /// Where a longitude and latitude are on the map, to a tenth of its unit.
    fn at(&self, lon: f64, lat: f64) -> (f64, f64) {
        let scale = HEIGHT / self.span;
        let x = WIDTH / 2.0 + (lon - self.lon) * self.cos * scale;
        let y = HEIGHT / 2.0 - (lat - self.lat) * scale;
        ((x * 10.0).round() / 10.0, (y * 10.0).round() / 10.0)
    }
}

/// The land in view, as an SVG path: each ring of the outline clipped to a little more than
/// the view (its cut edges out of sight), in whole units of the map (a pixel, about), each
/// point after the first relative to the one before and none within a unit of it, so that a
/// path of the whole country and one of a town are both a few kilobytes.
fn land_path(view: &View) -> String {
    let [w, s, e, n] = view.bounds();
    let (dx, dy) = ((e - w) * 0.02, (n - s) * 0.02);
    let edges = [w - dx, s - dy, e + dx, n + dy];
    let mut d = String::new();
    for ring in outline() {
        let clipped = clip(ring, edges);
        let mut at: Vec<(i64, i64)> = clipped
            .iter()
            .map(|&[lon, lat]| view.at(lon, lat))
            .map(|(x, y)| (x.round() as i64, y.round() as i64))
            .collect();
        at.dedup_by(|b, a| (b.0 - a.0).abs() + (b.1 - a.1).abs() < 2);
        let Some(((x0, y0), rest)) = at.split_first().filter(|(_, rest)| rest.len() >= 2) else {
            continue;
        };
        let _ = write!(d, "M{x0} {y0}l");
        let mut last = (*x0, *y0);
        for &(x, y) in rest {
            let _ = write!(d, "{} {} ", x - last.0, y - last.1);
            last = (x, y);
        }
        d.pop();
        d.push('z');
    }
    d
}

/// The outline's rings, in degrees: decoded once from the site's asset (whole thousandths of a
/// degree, each point after a ring's first relative to the one before).
fn outline() -> &'static [Vec<[f64; 2]>] {
    static RINGS: OnceLock<Vec<Vec<[f64; 2]>>> = OnceLock::new();
    RINGS.get_or_init(|| {
        let asset = assets::named(assets::OUTLINE).map_or(&b"{}"[..], |a| a.bytes);
        let json: Value = serde_json::from_slice(asset).unwrap_or_default();
        let scale = json["scale"].as_f64().unwrap_or(1000.0);
        let rings = json["rings"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        (rings.iter())
            .map(|flat| {
                let numbers: Vec<f64> = (flat.as_array().into_iter().flatten())
                    .filter_map(Value::as_f64)
                    .collect();
                let (mut x, mut y) = (0.0, 0.0);
                (numbers.chunks_exact(2))
                    .map(|d| {
                        (x, y) = (x + d[0], y + d[1]);
                        [x / scale, y / scale]
                    })
                    .collect()
            })
            .collect()
    })
}

/// A ring clipped to a box (west, south, east, north): one Sutherland-Hodgman pass an edge.
fn clip(ring: &[[f64; 2]], [w, s, e, n]: [f64; 4]) -> Vec<[f64; 2]> {
    let edges: [(usize, f64, bool); 4] = [(0, w, true), (0, e, false), (1, s, true), (1, n, false)];
    let mut points = ring.to_vec();
    for (axis, limit, above) in edges {
        let inside = |p: &[f64; 2]| (p[axis] >= limit) == above || p[axis] == limit;
        let mut out = Vec::with_capacity(points.len());
        for (i, p) in points.iter().enumerate() {
            let q = points[(i + points.len() - 1) % points.len()];
            let cross = |a: [f64; 2], b: [f64; 2]| {
                let t = (limit - a[axis]) / (b[axis] - a[axis]);
                let mut c = [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])];
                c[axis] = limit;
                c
            };
            match (inside(p), inside(&q)) {
                (true, true) => out.push(*p),
                (true, false) => out.extend([cross(q, *p), *p]),
                (false, true) => out.push(cross(q, *p)),
                (false, false) => {}
            }
        }
        points = out;
        if points.is_empty() {
            break;
        }
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(id: i64, lon: f64, lat: f64) -> Point {
        Point {
            id: id.to_string(),
            lon,
            lat,
        }
    }

    #[test]
    fn the_view_holds_every_point_with_a_margin() {
        let points = [point(1, -3.2, 51.4), point(2, -2.9, 51.7)];
        let view = View::around(&points).unwrap();
        for p in &points {
            let (x, y) = view.at(p.lon, p.lat);
            assert!((20.0..WIDTH - 20.0).contains(&x), "{x}");
            assert!((20.0..HEIGHT - 20.0).contains(&y), "{y}");
        }
        // North is up, east is right.
        let (a, b) = (view.at(-3.2, 51.4), view.at(-2.9, 51.7));
        assert!(a.0 < b.0 && a.1 > b.1);
        // One point: a view of the least span around it, in the middle.
        let one = View::around(&points[..1]).unwrap();
        assert_eq!(one.span, LEAST_SPAN);
        assert_eq!(one.at(-3.2, 51.4), (WIDTH / 2.0, HEIGHT / 2.0));
        assert_eq!(View::around(&[]), None);
    }

    #[test]
    fn a_ring_is_clipped_to_the_box() {
        let square = [[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]];
        let clipped = clip(&square, [1.0, 1.0, 2.0, 5.0]);
        assert!(
            clipped.iter().all(|p| (1.0..=2.0).contains(&p[0])),
            "{clipped:?}"
        );
        assert!(
            clipped.iter().all(|p| (1.0..=4.0).contains(&p[1])),
            "{clipped:?}"
        );
        assert!(clip(&square, [5.0, 5.0, 6.0, 6.0]).is_empty());
    }

    #[test]
    fn the_land_is_drawn_small_at_any_scale() {
        let outline = outline();
        assert!(outline.len() > 10, "the outline is read");
        let country = View::around(&[point(1, -5.5, 50.1), point(2, 1.7, 58.6)]).unwrap();
        let town = View::around(&[point(1, -3.2, 51.45), point(2, -3.1, 51.5)]).unwrap();
        let sea = View::around(&[point(1, -20.0, 45.0)]).unwrap();
        let (country, town) = (land_path(&country), land_path(&town));
        assert!(
            country.starts_with('M') && country.len() < 40_000,
            "{}",
            country.len()
        );
        assert!(!town.is_empty() && town.len() < 8_000, "{}", town.len());
        assert_eq!(land_path(&sea), "");
    }

    #[test]
    fn points_on_the_grid_are_mapped_in_wgs_84() {
        let feature = serde_json::json!({"id": 7, "geometry": {"type": "Point", "coordinates": [328570, 187000]}});
        let none = serde_json::json!({"id": 8, "geometry": null});
        let found = points(&[feature, none], Crs::BritishNationalGrid);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id, "7");
        assert!((found[0].lon + 3.0322).abs() < 1e-3 && (found[0].lat - 51.5773).abs() < 1e-3);
        let map = map(&found, 2).unwrap().into_string();
        assert!(map.contains("1 of the 2 features") && map.contains("1 has no point"));
        assert!(map.contains("data-id=\"7\""), "{map}");
    }
}
