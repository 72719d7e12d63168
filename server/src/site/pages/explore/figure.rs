//! The chart of an answer, drawn from its rows: one number a row (the first measure, else the
//! count), as lines over the years (or hours) when the rows are by year, and by at most one
//! thing more (a line each), else as bars, one a row in the table's order.

use maud::{html, Markup};
use rusqlite::types::Value as SqlValue;

use roadtraffic_catalog::Domain;

use super::labels;
use crate::site::bars::{bar_chart, Bar, BarChart};
use crate::site::chart::{line_chart, LineChart, Series};
use crate::site::format;
use crate::site::pages::template::{year, Context};
use crate::totals::{Summary, SummaryCell, SummaryRows};

/// The chart's id on the page (its table's `data-for-chart`).
pub const ID: &str = "explore-chart";
/// Lines drawn at most: more are bars (a legend of more is unreadable).
const MOST_LINES: usize = 8;
/// Bars drawn at most: the first rows in the table's order.
pub const MOST_BARS: usize = 30;

/// What the chart draws: which column of the rows, and how.
pub struct Plot {
    /// The output column drawn.
    pub column: usize,
    pub kind: ChartKind,
}

pub enum ChartKind {
    /// A line per value of the second group (or one line), over the first.
    Lines {
        by_hour: bool,
        split: bool,
    },
    Bars,
    /// Nothing grouped: one row, no chart.
    Nothing,
}

impl Plot {
    pub fn of(question: &Summary, rows: &SummaryRows) -> Plot {
        let groups = labels::keys(question);
        let column = groups + usize::from(!question.measures.is_empty());
        let kind = match question.group_by.first() {
            // By area: a bar an area (and group), labelled by its id and name.
            _ if question.by_area.is_some() => ChartKind::Bars,
            None => ChartKind::Nothing,
            Some(c) if matches!(c.domain, Domain::Year | Domain::Hour) && groups <= 2 => {
                let lines = Plot::series_keys(rows, groups == 2);
                let xs = Plot::xs(rows);
                match lines.len() <= MOST_LINES && xs.len() >= 2 {
                    true => ChartKind::Lines {
                        by_hour: c.domain == Domain::Hour,
                        split: groups == 2,
                    },
                    false => ChartKind::Bars,
                }
            }
            Some(_) => ChartKind::Bars,
        };
        Plot { column, kind }
    }

    /// The x of a row on a line chart (its first key), and its line's key.
    pub fn point(&self, rows: &SummaryRows, row: &[SummaryCell]) -> Option<(i64, String)> {
        let ChartKind::Lines { split, .. } = self.kind else {
            return None;
        };
        let x = match row.first() {
            Some(SummaryCell::Value(SqlValue::Integer(x))) => *x,
            _ => return None,
        };
        Some((x, series_key(rows, row, split)))
    }

    fn series_keys(rows: &SummaryRows, split: bool) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for row in &rows.rows {
            let key = series_key(rows, row, split);
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys
    }

    fn xs(rows: &SummaryRows) -> Vec<i64> {
        let mut xs: Vec<i64> = (rows.rows.iter())
            .filter_map(|r| match r.first() {
                Some(SummaryCell::Value(SqlValue::Integer(x))) => Some(*x),
                _ => None,
            })
            .collect();
        xs.sort_unstable();
        xs.dedup();
        xs
    }
}

/// A row's line: the value of its second key, or the column drawn when there is one line.
fn series_key(rows: &SummaryRows, row: &[SummaryCell], split: bool) -> String {
    match (split, row.get(1)) {
        (true, Some(SummaryCell::Value(v))) => super::question::filter_text(v),
        _ => rows.names.last().cloned().unwrap_or_default(),
    }
}

/// A cell's number, for the chart.
pub fn number(cell: &SummaryCell) -> Option<f64> {
    match cell {
        SummaryCell::Value(SqlValue::Integer(n)) => Some(*n as f64),
        SummaryCell::Value(SqlValue::Real(f)) => Some(*f),
        SummaryCell::Decimal(d) => d.parse().ok(),
        SummaryCell::Value(_) => None,
    }
}

/// The chart, or a line saying why there is none.
pub fn draw(ctx: &Context, plot: &Plot, question: &Summary, rows: &SummaryRows) -> Markup {
    let drawn = labels::output(question, &rows.names[plot.column]);
    let by = labels::groups(question);
    let title = format!("{drawn} by {}", by.join(", "));
    match plot.kind {
        ChartKind::Nothing => html! { p.hint { "Group the records by a column to draw a chart." } },
        ChartKind::Lines { by_hour, split } => {
            lines(ctx, plot, question, rows, (title, &drawn), (by_hour, split))
        }
        ChartKind::Bars => bars(ctx, plot, labels::keys(question), rows, (title, drawn)),
    }
}

fn lines(
    ctx: &Context,
    plot: &Plot,
    question: &Summary,
    rows: &SummaryRows,
    (title, drawn): (String, &str),
    (by_hour, split): (bool, bool),
) -> Markup {
    let xs = Plot::xs(rows);
    let mut series: Vec<Series> = Vec::new();
    for row in &rows.rows {
        let Some((x, key)) = plot.point(rows, row) else {
            continue;
        };
        let at = xs.iter().position(|v| *v == x).unwrap_or(0);
        let index = match series.iter().position(|s| s.key == key) {
            Some(i) => i,
            None => {
                let label = match (split, row.get(1)) {
                    (true, Some(SummaryCell::Value(v))) => {
                        labels::key(ctx, question.group_by[1].name, v).0
                    }
                    _ => drawn.to_string(),
                };
                series.push(Series {
                    key,
                    label,
                    values: vec![None; xs.len()],
                });
                series.len() - 1
            }
        };
        series[index].values[at] = number(&row[plot.column]);
    }
    let x_label = if by_hour { format::hour } else { year };
    line_chart(&LineChart {
        id: ID,
        title,
        y_label: drawn,
        xs,
        x_label,
        x_tick: if by_hour { hour_tick } else { year },
        series,
    })
}

fn hour_tick(h: i64) -> String {
    format!("{h:02}:00")
}

/// The first rows as bars, each named by its keys.
fn bars(
    ctx: &Context,
    plot: &Plot,
    groups: usize,
    rows: &SummaryRows,
    (title, drawn): (String, String),
) -> Markup {
    let bars = (rows.rows.iter().take(MOST_BARS))
        .map(|row| {
            let keys: Vec<String> = (rows.names.iter().zip(row).take(groups))
                .map(|(name, cell)| match cell {
                    SummaryCell::Value(v) => labels::key(ctx, name, v).0,
                    SummaryCell::Decimal(d) => d.clone(),
                })
                .collect();
            Bar {
                label: keys.join(", "),
                value: number(&row[plot.column]).unwrap_or(0.0),
            }
        })
        .collect();
    bar_chart(&BarChart {
        id: ID,
        title,
        measure: drawn,
        bars,
    })
}
