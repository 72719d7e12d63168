//! The about page: a list of sections, in [`page`].

use maud::{html, Markup};

use roadtraffic_catalog::changes::{ChangeReport, Revision};
use roadtraffic_catalog::schema::metadata;

use crate::html::{page_in, Section};
use crate::site::format;
use crate::site::overview::Overview;
use crate::site::pages::template::Context;

use super::query::{Field, Loaded, SourceFile};

pub fn page(ctx: &Context, loaded: &Loaded) -> Markup {
    let sections = [
        the_data(),
        licence(),
        disclaimer(),
        release_loaded(ctx.overview, loaded),
        what_changed(loaded.changes.as_ref(), &ctx.api_base),
    ];
    let body = html! {
        h1 { "About the data" }
        @for s in &sections { (s) }
    };
    page_in(ctx.frame, Section::About, "About the data", body)
}

fn the_data() -> Markup {
    html! {
        section aria-labelledby="what" {
            h2 #what { "What the data is" }
            p { "The Department for Transport counts traffic at tens of thousands of count points on Great Britain's roads. Trained enumerators count vehicles by type, hour by hour from 07:00 to 19:00, in each direction, on one weekday between March and October; those raw counts are turned into the annual average daily flow (AADF): the vehicles passing a point on an average day of the year. Where a road link was not counted in a year, its AADF is estimated from earlier counts or nearby links." }
            p { "From the AADF and the length of each road link come the traffic figures of local authorities, regions and Great Britain, in vehicle miles per year." }
            ul {
                li { strong { "AADF" } ": vehicles on an average day of the year, both directions (or one, by direction)." }
                li { strong { "Raw counts" } ": vehicles counted in one hour (7 is 07:00 to 08:00 … 18 is 18:00 to 19:00) in one direction on one count day." }
                li { strong { "Traffic" } ": vehicle miles travelled in a year; road lengths in kilometres and miles." }
            }
        }
    }
}

fn licence() -> Markup {
    html! {
        section aria-labelledby="licence" {
            h2 #licence { "Licence" }
            p {
                "The statistics are published by the Department for Transport under the "
                "Open Government Licence v3.0 ("
                code { "https://www.nationalarchives.gov.uk/doc/open-government-licence/version/3/" }
                "). Attribution: Department for Transport, road traffic statistics. This mirror serves them unchanged; the map's coastline is from Natural Earth (public domain)."
            }
        }
    }
}

fn disclaimer() -> Markup {
    html! {
        section aria-labelledby="disclaimer" {
            h2 #disclaimer { "Data disclaimer" }
            p { "Regional and national figures are robust and accredited official statistics. Estimates for single road links and small areas are less robust, as they are not always based on up-to-date counts. Figures whose estimation method is “Counted” are likely to be more accurate than those “Estimated”." }
        }
    }
}

/// The release loaded: the metadata table of the file, in words.
fn release_loaded(summary: &Overview, loaded: &Loaded) -> Markup {
    let value = |key| summary.metadata(key).unwrap_or("");
    html! {
        section aria-labelledby="release" {
            h2 #release { "The release loaded" }
            dl.details {
                dt { "Release" } dd { (value(metadata::RELEASE)) }
                dt { "Loaded at" } dd { (value(metadata::LOADED_AT)) }
                dt { "Loader version" } dd { (value(metadata::LOADER_VERSION)) }
                dt { "Schema version" } dd { (value(metadata::SCHEMA_VERSION)) }
                dt { "Count points on the map" }
                dd { (format::whole(summary.points.mapped as f64)) " of " (format::whole(summary.count_points as f64)) " (the others have no coordinates in Great Britain)" }
            }
            (sources(&loaded.sources))
            (row_counts(&loaded.row_counts))
        }
    }
}

/// What changed since the file this one replaced; the same report as JSON at the API's
/// `/releases/latest/changes`.
fn what_changed(report: Option<&ChangeReport>, api_base: &str) -> Markup {
    html! {
        section aria-labelledby="changes" {
            h2 #changes { "What changed with this release" }
            @match report {
                None => p { "This file replaced no earlier one when it was loaded, so there is nothing to compare it with." },
                Some(r) => {
                    p {
                        "Compared with the file it replaced (release " (r.before.release.as_deref().unwrap_or("without a label"))
                        ", loaded " (r.before.loaded_at.as_deref().unwrap_or("at an unknown time")) "): "
                        (format::whole(r.count_points.new as f64)) " count points new, "
                        (format::whole(r.count_points.retired as f64)) " retired; years "
                        (year_span(&r.years_before)) " before, " (year_span(&r.years_after)) " now. "
                        a href=(format!("{api_base}/releases/latest/changes")) { "The whole report as JSON" } "."
                    }
                    (changes_by_table(r))
                    (largest_revisions(r))
                }
            }
        }
    }
}

fn year_span(years: &[i64]) -> String {
    match (years.first(), years.last()) {
        (Some(first), Some(last)) if first != last => format!("{first}–{last}"),
        (Some(only), _) => only.to_string(),
        _ => "none".into(),
    }
}

fn changes_by_table(r: &ChangeReport) -> Markup {
    let n = |v: u64| format::whole(v as f64);
    html! {
        table {
            caption { "Rows per table, matched by each table's natural key" }
            thead { tr { th scope="col" { "Table" } th scope="col" { "Before" } th scope="col" { "Now" } th scope="col" { "Added" } th scope="col" { "Removed" } th scope="col" { "Changed" } } }
            tbody {
                @for t in &r.tables {
                    tr { th scope="row" { (t.table) } td { (n(t.rows_before)) } td { (n(t.rows_after)) } td { (n(t.added)) } td { (n(t.removed)) } td { (n(t.changed)) } }
                }
            }
        }
    }
}

fn largest_revisions(r: &ChangeReport) -> Markup {
    let revisions: Vec<_> = r
        .tables
        .iter()
        .flat_map(|t| {
            t.largest_revisions
                .iter()
                .map(move |v| (t.table.as_str(), v))
        })
        .collect();
    let key = |v: &Revision| {
        v.key
            .iter()
            .map(|(k, x)| format!("{k} {x}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    html! {
        @if !revisions.is_empty() {
            table {
                caption { "The largest revisions of past years' all motor vehicles" }
                thead { tr { th scope="col" { "Table" } th scope="col" { "Row" } th scope="col" { "Before" } th scope="col" { "Now" } th scope="col" { "Change" } } }
                tbody {
                    @for (table, v) in &revisions {
                        tr { td { (table) } td { (key(v)) } td { (format::whole(v.before as f64)) } td { (format::whole(v.after as f64)) } td { (format::whole(v.change as f64)) } }
                    }
                }
            }
        }
    }
}

fn sources(sources: &[SourceFile]) -> Markup {
    let text = |f: &Option<Field>| match f {
        Some(Field::Text(t)) => t.clone(),
        Some(Field::Number(n)) => format::whole(*n),
        None => String::new(),
    };
    html! {
        div.table-scroll tabindex="0" role="region" aria-label="Source files (table)" {
            table.sources {
                caption { "Source files" }
                thead { tr { th scope="col" { "File" } th scope="col" { "Bytes" } th scope="col" { "SHA-256" } } }
                tbody {
                    @for s in sources {
                        tr {
                            th scope="row" { (text(&s.file)) }
                            td.num { (text(&s.bytes)) }
                            td { code.hash { (text(&s.sha256)) } }
                        }
                    }
                }
            }
        }
    }
}

fn row_counts(counts: &[(String, Option<f64>)]) -> Markup {
    html! {
        div.table-scroll tabindex="0" role="region" aria-label="Rows per table (table)" {
            table {
                caption { "Rows per table" }
                thead { tr { th scope="col" { "Table" } th scope="col" { "Rows" } } }
                tbody {
                    @for (table, n) in counts {
                        tr { th scope="row" { code { (table) } } td.num { (n.map(format::whole).unwrap_or_default()) } }
                    }
                }
            }
        }
    }
}
