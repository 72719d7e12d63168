//! The downloads page: every national file (CSV and zip) with its rows, how the per-area split
//! files are named (with links for each region and local authority), and the CSV and NDJSON
//! forms of the API's listings.

use maud::{html, Markup};

use roadtraffic_catalog::{Dataset, DATASETS, LOCAL_AUTHORITIES, REGIONS};

use crate::error::ApiError;
use crate::release::Release;

/// Ids and names of an area table, ordered by name.
fn areas(conn: &rusqlite::Connection, table: &str) -> Result<Vec<(i64, String)>, ApiError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT id, coalesce(name, '') FROM {table} ORDER BY name, id"
    ))?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn national_row(d: &Dataset, release: &Release) -> Markup {
    let Some(file) = d.national_file() else {
        return html! {};
    };
    let stem = file.name.trim_end_matches(".csv");
    let (rows, _) = release.rows(d.table);
    html! {
        tr {
            td { (d.title) }
            td { a href={ "/downloads/" (file.name) } { (file.name) } }
            td { a href={ "/downloads/" (stem) ".zip" } { (stem) ".zip" } }
            td class="number" { (rows) }
        }
    }
}

/// Links to the split files of one area of each dataset split by `by`.
fn split_links(by: &str, id: i64) -> Markup {
    html! {
        @for d in DATASETS {
            @if let Some(splits) = d.national_file().and_then(|f| f.splits).filter(|s| s.by.contains(&by)) {
                a href={ "/downloads/" (splits.folder) "/" (by) "/" (splits.stem) "_" (by) "_" (id) ".csv" } { (splits.folder) }
                " "
            }
        }
    }
}

fn area_table(title: &str, by: &str, rows: &[(i64, String)]) -> Markup {
    html! {
        table {
            caption { (title) }
            thead { tr { th scope="col" { "Id" } th scope="col" { "Name" } th scope="col" { "Files" } } }
            tbody { @for (id, name) in rows { tr { td class="number" { (id) } td { (name) } td { (split_links(by, *id)) } } } }
        }
    }
}

/// The page's content (the caller puts it in the site's layout).
pub fn page(release: &Release, base_path: &str) -> Result<Markup, ApiError> {
    let conn = release.pool.get()?;
    let regions = areas(&conn, REGIONS.table)?;
    let local_authorities = areas(&conn, LOCAL_AUTHORITIES.table)?;
    Ok(html! {
        h1 { "Downloads" }
        p { "Every dataset of the release loaded here, whole, as the Department for Transport publishes it (current national headers), as CSV or zipped CSV. Data: Department for Transport, road traffic statistics, Open Government Licence v3.0." }
        table {
            caption { "National files" }
            thead { tr { th scope="col" { "Dataset" } th scope="col" { "CSV" } th scope="col" { "Zip" } th scope="col" { "Rows" } } }
            tbody { @for d in DATASETS { (national_row(d, release)) } }
        }
        h2 { "One area's files" }
        p { "At DfT's paths: " code { "/downloads/aadf/local_authority_id/dft_aadf_local_authority_id_129.csv" } ", and likewise " code { "aadfbydirection" } ", " code { "rawcount" } ", " code { "countpoints" } " (by " code { "local_authority_id" } " or " code { "region_id" } "; AADF also by " code { "count_point_id" } ") and " code { "traffic" } " (by " code { "local_authority_id" } "): the split files' columns (lower case, no ONS codes, no road category)." }
        h2 { "Any listing, whole" }
        p { "Every API listing is also served whole, with the same filters, sort and fields, as CSV or NDJSON: add " code { ".csv" } " or " code { ".ndjson" } " to its path, e.g. "
            a href={ (base_path) "/raw-counts.csv?filter%5Blocal_authority_id%5D=" (local_authorities.first().map_or(0, |a| a.0)) "&sort=-year" } { code { (base_path) "/raw-counts.csv?filter[local_authority_id]=…&sort=-year" } } "." }
        (area_table("Regions", "region_id", &regions))
        (area_table("Local authorities", "local_authority_id", &local_authorities))
    })
}
