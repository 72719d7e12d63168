//! Bar charts drawn on the server as SVG, one horizontal bar a row, for numbers by something
//! that is not a span of years (areas, road categories, combinations): as the line charts
//! (`chart`), readable with scripts off, each bar carrying its value as a data attribute and a
//! `<title>`, its colour from the stylesheet (the CSP forbids inline styles).

use maud::{html, Markup};

use super::chart::{compact, y_axis};
use super::format;

pub struct BarChart<'a> {
    /// Unique on the page: the SVG's title and description are named after it.
    pub id: &'a str,
    pub title: String,
    /// What the bars measure, for the description.
    pub measure: String,
    pub bars: Vec<Bar>,
}

pub struct Bar {
    pub label: String,
    pub value: f64,
}

const WIDTH: f64 = 720.0;
/// The room for the bars' labels, left of the axis.
const LABELS: f64 = 290.0;
/// The room for the value written after the longest bar.
const RIGHT: f64 = 80.0;
const TOP: f64 = 24.0;
const ROW: f64 = 26.0;
const BAR: f64 = 18.0;
/// A label longer than this is cut (its whole text is the bar's title).
const LABEL_CHARS: usize = 40;

pub fn bar_chart(chart: &BarChart) -> Markup {
    let max = (chart.bars.iter()).fold(0.0f64, |m, b| m.max(b.value));
    let (top, step) = y_axis(max);
    let plot_w = WIDTH - LABELS - RIGHT;
    let height = TOP + ROW * chart.bars.len() as f64 + 8.0;
    let x_at = |v: f64| LABELS + v.max(0.0) / top * plot_w;
    let ticks = (0..=((top / step).round() as i64)).map(|i| i as f64 * step);
    let (title_id, desc_id) = (format!("{}-title", chart.id), format!("{}-desc", chart.id));
    html! {
        figure.chart {
            // As the line charts: wider than a phone, its scroll reached from the keyboard.
            div.chart-scroll tabindex="0" role="region" aria-label=(format!("{} (chart)", chart.title)) {
                svg.bars viewBox=(format!("0 0 {WIDTH} {height}")) role="img"
                    aria-labelledby=(format!("{title_id} {desc_id}")) data-chart=(chart.id) {
                    title id=(title_id) { (chart.title) }
                    desc id=(desc_id) { (chart.measure) ", one bar a row. The same figures are in the table below the chart." }
                    g.grid {
                        @for t in ticks {
                            line x1=(x_at(t)) x2=(x_at(t)) y1=(TOP - 4.0) y2=(height - 8.0) {}
                            text.y-tick x=(x_at(t)) y=(TOP - 8.0) text-anchor="middle" { (compact(t)) }
                        }
                    }
                    @for (i, bar) in chart.bars.iter().enumerate() {
                        @let y = TOP + ROW * i as f64 + (ROW - BAR) / 2.0;
                        g.bar data-row=(i) data-value=(bar.value) {
                            title { (bar.label) ": " (format::decimal(bar.value, 3)) }
                            text.bar-label x=(LABELS - 8.0) y=(y + BAR - 5.0) text-anchor="end" { (cut(&bar.label)) }
                            rect x=(LABELS) y=(y) width=(x_at(bar.value) - LABELS) height=(BAR) {}
                            text.bar-value x=(x_at(bar.value) + 6.0) y=(y + BAR - 5.0) { (format::decimal(bar.value, 3)) }
                        }
                    }
                }
            }
        }
    }
}

/// A label short enough for the room left of the bars.
fn cut(label: &str) -> String {
    match label.chars().count() > LABEL_CHARS {
        true => format!(
            "{}…",
            label.chars().take(LABEL_CHARS - 1).collect::<String>()
        ),
        false => label.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bar_carries_its_number_and_its_whole_label() {
        let long = "A very long name of a local authority, and a road";
        let svg = bar_chart(&BarChart {
            id: "b",
            title: "<t>".into(),
            measure: "Sum".into(),
            bars: vec![
                Bar {
                    label: long.into(),
                    value: 1234.5,
                },
                Bar {
                    label: "B".into(),
                    value: 0.0,
                },
            ],
        })
        .into_string();
        assert!(svg.contains(r#"data-row="0" data-value="1234.5""#), "{svg}");
        assert!(
            svg.contains(&format!("<title>{long}: 1,234.5</title>")),
            "{svg}"
        );
        assert!(
            svg.contains("A very long name of a local authority, …"),
            "{svg}"
        );
        assert!(svg.contains("&lt;t&gt;") && !svg.contains("<t>"));
    }
}
