//! The downloads page drawn: every national file (CSV, zip and Parquet) with its rows, how to
//! query the Parquet files in place (DuckDB, pandas and pyarrow, polars, Spark), how the
//! per-area split files are named (with links for each region and local authority, as
//! `query` read them), and the whole forms of the API's listings. No SQL here.

use maud::{html, Markup};

use roadtraffic_catalog::{Dataset, DATASETS};

use super::query::AreaLists;
use crate::release::Release;

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
            td { a href={ "/downloads/" (stem) ".parquet" } { (stem) ".parquet" } }
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
        div.table-scroll tabindex="0" role="region" aria-label={ (title) " (table)" } {
            table {
                caption { (title) }
                thead { tr { th scope="col" { "Id" } th scope="col" { "Name" } th scope="col" { "Files" } } }
                tbody { @for (id, name) in rows { tr { td class="number" { (id) } td { (name) } td { (split_links(by, *id)) } } } }
            }
        }
    }
}

/// How to query the Parquet files where they are, from the mirror at `origin`.
fn in_place(origin: &str) -> Markup {
    let aadf = format!("{origin}/downloads/dft_traffic_counts_aadf.parquet");
    let raw = format!("{origin}/downloads/dft_traffic_counts_raw_counts.parquet");
    html! {
        h2 { "Query the Parquet files in place" }
        p { "Each national file is also served as Apache Parquet: typed columns (integers, doubles, dates, dictionary-encoded text; empty values as nulls) under the CSV's headers, zstd-compressed, with statistics per row group and page. The files of count data are GeoParquet 1.1: each row's point (WKB) in a " code { "geometry" } " column and its box in " code { "bbox" } ", after the CSV's columns, the rows ordered by place (count points along a Hilbert curve), so a box or a local authority reads few row groups; the others are sorted by year then local authority. The files are written once per release, so every request gets the same bytes, with a length, a strong " code { "ETag" } " and byte ranges (" code { "Range" } ", " code { "If-Range" } "): a query engine reads only the columns and row groups a query needs, not the whole file." }
        h3 { "DuckDB" }
        pre { code { "INSTALL httpfs; LOAD httpfs;\nSELECT year, sum(all_motor_vehicles) AS vehicles\nFROM read_parquet('" (raw) "')\nWHERE local_authority_id = 129\nGROUP BY year ORDER BY year;" } }
        h3 { "pandas and pyarrow" }
        p { "Through an " code { "fsspec" } " file system (with " code { "aiohttp" } "), pyarrow reads the footer and the column chunks a filter needs by ranges, in fsspec's blocks of 5 MiB; without " code { "filesystem=" } ", pandas downloads the whole file first:" }
        pre { code { "import fsspec, pandas as pd\naadf = pd.read_parquet('" (aadf) "',\n    columns=['count_point_id', 'year', 'all_motor_vehicles'],\n    filters=[('year', '=', 2019)],\n    filesystem=fsspec.filesystem('http'))" } }
        h3 { "polars" }
        pre { code { "import polars as pl\npl.scan_parquet('" (aadf) "').filter(pl.col('year') == 2019)\\\n  .group_by('region_name').agg(pl.col('all_motor_vehicles').sum()).collect()" } }
        h3 { "Spark" }
        p { "Spark has no reader of plain HTTP. On one machine, " code { "addFile" } " fetches a file for it; a cluster copies the files once into its own store (HDFS, S3) and reads them there." }
        pre { code { "from pyspark import SparkFiles\nspark.sparkContext.addFile('" (aadf) "')\naadf = spark.read.parquet('file://' + SparkFiles.get('dft_traffic_counts_aadf.parquet'))\naadf.groupBy('year').sum('all_motor_vehicles').orderBy('year').show()" } }
        h3 { "A listing as Parquet" }
        p { "A listing's Parquet form (" code { "/api/raw-counts.parquet?…" } ") is written as it is sent, with no length and no ranges: read it whole (DuckDB: " code { "SET force_download = true" } "; pandas without " code { "filesystem=" } ")." }
    }
}

/// The page's content (the caller puts it in the site's layout); `origin`: the mirror's scheme
/// and host, for the examples.
pub fn page(release: &Release, areas: &AreaLists, base_path: &str, origin: &str) -> Markup {
    let (regions, local_authorities) = (&areas.regions, &areas.local_authorities);
    html! {
        h1 { "Downloads" }
        p { "Every dataset of the release loaded here, whole, as the Department for Transport publishes it (current national headers), as CSV or zipped CSV, and as Parquet. Data: Department for Transport, road traffic statistics, Open Government Licence v3.0." }
        div.table-scroll tabindex="0" role="region" aria-label="National files (table)" {
            table {
                caption { "National files" }
                thead { tr { th scope="col" { "Dataset" } th scope="col" { "CSV" } th scope="col" { "Zip" } th scope="col" { "Parquet" } th scope="col" { "Rows" } } }
                tbody { @for d in DATASETS { (national_row(d, release)) } }
            }
        }
        (in_place(origin))
        h2 { "One area's files" }
        p { "At DfT's paths: " code { "/downloads/aadf/local_authority_id/dft_aadf_local_authority_id_129.csv" } ", and likewise " code { "aadfbydirection" } ", " code { "rawcount" } ", " code { "countpoints" } " (by " code { "local_authority_id" } " or " code { "region_id" } "; AADF also by " code { "count_point_id" } ") and " code { "traffic" } " (by " code { "local_authority_id" } "): the split files' columns (lower case, no ONS codes, no road category). Each is also served as Parquet: " code { ".parquet" } " for " code { ".csv" } "." }
        h2 { "Any listing, whole" }
        p { "Every API listing is also served whole, with the same filters, sort and fields, as CSV, NDJSON or Parquet (and GeoJSON where records have places): add " code { ".csv" } ", " code { ".ndjson" } " or " code { ".parquet" } " to its path, e.g. "
            a href={ (base_path) "/raw-counts.csv?filter%5Blocal_authority_id%5D=" (local_authorities.first().map_or(0, |a| a.0)) "&sort=-year" } { code { (base_path) "/raw-counts.csv?filter[local_authority_id]=…&sort=-year" } } "." }
        (area_table("Regions", "region_id", regions))
        (area_table("Local authorities", "local_authority_id", local_authorities))
    }
}
