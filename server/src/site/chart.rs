//! Line charts drawn on the server as SVG: readable with scripts off, no library to ship, and
//! the numbers a chart holds are those of the table beside it (each point carries its series,
//! x and value as data attributes, and a `<title>` that browsers show on hover). Colours and
//! dash patterns come from the stylesheet (`.series-N`), as the CSP forbids inline styles.

use maud::{html, Markup, PreEscaped};

pub struct Series {
    /// The column or code the series shows (`data-series`).
    pub key: String,
    pub label: String,
    pub values: Vec<Option<f64>>,
}

pub struct LineChart<'a> {
    /// Unique on the page: the SVG's title and description are named after it.
    pub id: &'a str,
    pub title: String,
    pub y_label: &'a str,
    pub xs: Vec<i64>,
    pub x_label: fn(i64) -> String,
    /// An x as the axis shows it (shorter than `x_label`, where that is long).
    pub x_tick: fn(i64) -> String,
    pub series: Vec<Series>,
}

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 300.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 36.0;

/// A rounded top for the y axis and its step: ticks at 0, step, 2 step ... top.
pub(super) fn y_axis(max: f64) -> (f64, f64) {
    if max <= 0.0 || !max.is_finite() {
        return (1.0, 0.25);
    }
    let rough = max / 4.0;
    let magnitude = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= rough)
        .unwrap_or(10.0 * magnitude);
    ((max / step).ceil() * step, step)
}

/// A tick's value, short: `350k`, `1.2m`, `3.4bn`.
pub(super) fn compact(v: f64) -> String {
    let (scaled, unit) = match v.abs() {
        a if a >= 1e9 => (v / 1e9, "bn"),
        a if a >= 1e6 => (v / 1e6, "m"),
        a if a >= 1e3 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let text = format!("{scaled:.1}");
    format!("{}{unit}", text.trim_end_matches(".0"))
}

pub fn line_chart(chart: &LineChart) -> Markup {
    let max = chart
        .series
        .iter()
        .flat_map(|s| s.values.iter().flatten())
        .fold(0.0f64, |m, v| m.max(*v));
    let (top, step) = y_axis(max);
    let (first, last) = (
        chart.xs.first().copied().unwrap_or(0),
        chart.xs.last().copied().unwrap_or(0),
    );
    let span = (last - first).max(1) as f64;
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let x_at = |x: i64| {
        if first == last {
            LEFT + plot_w / 2.0
        } else {
            LEFT + (x - first) as f64 / span * plot_w
        }
    };
    let y_at = |v: f64| TOP + plot_h - v.max(0.0) / top * plot_h;
    let ticks = (0..=((top / step).round() as i64)).map(|i| i as f64 * step);
    // At most ~12 labels along x, whatever the number of points.
    let every = chart.xs.len().div_ceil(12).max(1);
    let title_id = format!("{}-title", chart.id);
    let desc_id = format!("{}-desc", chart.id);
    html! {
        figure.chart {
            // On a phone the chart is wider than the screen: a keyboard must reach its
            // scroll too (WCAG 2.1.1; axe's scrollable-region-focusable).
            div.chart-scroll tabindex="0" role="region" aria-label=(format!("{} (chart)", chart.title)) { svg viewBox=(format!("0 0 {WIDTH} {HEIGHT}")) role="img"
                aria-labelledby=(format!("{title_id} {desc_id}")) data-chart=(chart.id) {
                title id=(title_id) { (chart.title) }
                desc id=(desc_id) { (chart.y_label) ". The same figures are in the table below the chart." }
                g.grid {
                    @for t in ticks {
                        line x1=(LEFT) x2=(WIDTH - RIGHT) y1=(y_at(t)) y2=(y_at(t)) {}
                        text.y-tick x=(LEFT - 6.0) y=(y_at(t) + 4.0) text-anchor="end" { (compact(t)) }
                    }
                }
                g.x-axis {
                    line x1=(LEFT) x2=(WIDTH - RIGHT) y1=(TOP + plot_h) y2=(TOP + plot_h) {}
                    @for (i, x) in chart.xs.iter().enumerate() {
                        @if i % every == 0 || i + 1 == chart.xs.len() {
                            text x=(x_at(*x)) y=(HEIGHT - BOTTOM + 18.0) text-anchor="middle" { ((chart.x_tick)(*x)) }
                        }
                    }
                }
                @for (n, s) in chart.series.iter().enumerate() {
                    g class=(format!("series series-{}", n % 8)) data-series=(s.key) {
                        path d=(PreEscaped(path(&chart.xs, &s.values, &x_at, &y_at))) {}
                        @for (x, v) in chart.xs.iter().zip(&s.values) {
                            @if let Some(v) = v {
                                circle cx=(x_at(*x)) cy=(y_at(*v)) r="3.5" data-x=(x) data-value=(v) {
                                    title { (s.label) ", " ((chart.x_label)(*x)) ": " (crate::site::format::whole(*v)) }
                                }
                            }
                        }
                    }
                }
            } }
            figcaption {
                ul.legend {
                    @for (n, s) in chart.series.iter().enumerate() {
                        li { span class=(format!("swatch series-{}", n % 8)) aria-hidden="true" {} (s.label) }
                    }
                }
            }
        }
    }
}

/// The SVG path through the points of a series, broken where a value is missing.
fn path(
    xs: &[i64],
    values: &[Option<f64>],
    x_at: &dyn Fn(i64) -> f64,
    y_at: &dyn Fn(f64) -> f64,
) -> String {
    let mut d = String::new();
    let mut pen_down = false;
    for (x, v) in xs.iter().zip(values) {
        match v {
            Some(v) => {
                let op = if pen_down { 'L' } else { 'M' };
                d.push_str(&format!("{op}{:.1} {:.1}", x_at(*x), y_at(*v)));
                pen_down = true;
            }
            None => pen_down = false,
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_round_up_to_a_readable_step() {
        assert_eq!(y_axis(52_290.0), (60_000.0, 20_000.0));
        assert_eq!(y_axis(9.0), (10.0, 2.5));
        assert_eq!(y_axis(0.0), (1.0, 0.25));
        assert_eq!(compact(2_500_000_000.0), "2.5bn");
        assert_eq!(compact(20_000.0), "20k");
        assert_eq!(compact(0.0), "0");
    }

    #[test]
    fn a_missing_value_breaks_the_line() {
        let d = path(
            &[1, 2, 3],
            &[Some(1.0), None, Some(2.0)],
            &|x| x as f64,
            &|v| v,
        );
        assert_eq!(d, "M1.0 1.0M3.0 2.0");
    }

    #[test]
    fn every_point_carries_its_number() {
        let chart = line_chart(&LineChart {
            id: "c",
            title: "<b>".into(),
            y_label: "AADF",
            xs: vec![2019, 2020],
            x_label: |x| x.to_string(),
            x_tick: |x| x.to_string(),
            series: vec![Series {
                key: "cars_and_taxis".into(),
                label: "Cars".into(),
                values: vec![Some(10.0), Some(12.0)],
            }],
        })
        .into_string();
        assert!(
            chart.contains(r#"data-x="2020" data-value="12""#),
            "{chart}"
        );
        assert!(chart.contains("&lt;b&gt;") && !chart.contains("<b>"));
    }
}
