//! Writing a download: every row of a listing as CSV in a layout (plain, or zipped while it
//! is written) or as NDJSON, chunk by chunk, in bounded memory whatever its size. No time limit:
//! a whole national file takes seconds, and the client's reading paces it.

use std::io::Write;

use super::layout::{AreaNames, Cell, CellValue, Layout, Quoting};
use super::parquet;
use crate::api::features::{self, FeatureWriter};
use crate::api::{Distance, JsonRecord, ListRequest, Plan, RowQuery};
use crate::error::ApiError;
use crate::release::Release;
use crate::spatial::Crs;
use crate::stream::{Body, Flush};

/// What a download is written as.
pub enum Export {
    Csv(Layout),
    /// The CSV file of this name, in a zip.
    Zip(Layout, String),
    Ndjson,
    /// A GeoJSON FeatureCollection (CRS84).
    GeoJson,
    /// A Parquet file of the layout's columns; the rows sorted by the cells at these positions.
    Parquet(Layout, Vec<usize>),
}

/// Runs the request (unpaginated) and writes every row it finds.
pub fn export(
    release: &Release,
    request: &ListRequest,
    export: &Export,
    flush: &mut Flush,
) -> Result<Vec<u8>, ApiError> {
    let conn = release.pool.get()?;
    let query = || RowQuery::all(&Plan(request).sql());
    let mut body = Body::new(1 << 20, flush);
    let written = match export {
        Export::Csv(layout) => csv(&conn, &query(), layout, &mut body),
        Export::Zip(layout, name) => zipped(&conn, &query(), layout, name, &mut body),
        Export::Parquet(layout, sorted_by) => {
            parquet(&conn, &query(), layout, sorted_by, &mut body)
        }
        Export::Ndjson => ndjson(&conn, request, JsonRecord::of(request, release), &mut body),
        Export::GeoJson => {
            let mut writer = FeatureWriter::of(request, release, Crs::Crs84);
            features::write_collection(&conn, request, &mut writer, &mut body)
        }
    };
    written.map(|()| body.buf)
}

/// A write into the body that failed: the body fails only when the client is gone.
fn client_gone(_: std::io::Error) -> ApiError {
    ApiError::ClientGone
}

fn csv(
    conn: &rusqlite::Connection,
    query: &RowQuery,
    layout: &Layout,
    out: &mut dyn Write,
) -> Result<(), ApiError> {
    let areas = AreaNames::for_layout(conn, layout)?;
    let mut line = Vec::with_capacity(4096);
    header(&mut line, layout);
    out.write_all(&line).map_err(client_gone)?;
    let mut stmt = conn.prepare_cached(&query.sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(query.args.iter()))?;
    while let Some(row) = rows.next()? {
        line.clear();
        for (i, cell) in layout.cells.iter().enumerate() {
            if i > 0 {
                line.push(b',');
            }
            write_cell(&mut line, cell, row, &areas, layout.quoting)?;
        }
        line.push(b'\n');
        out.write_all(&line).map_err(client_gone)?;
    }
    Ok(())
}

fn parquet(
    conn: &rusqlite::Connection,
    query: &RowQuery,
    layout: &Layout,
    sorted_by: &[usize],
    out: &mut dyn Write,
) -> Result<(), ApiError> {
    let areas = AreaNames::for_layout(conn, layout)?;
    let mut stmt = conn.prepare_cached(&query.sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(query.args.iter()))?;
    parquet::write(&mut rows, layout, &areas, sorted_by, out)
}

fn header(out: &mut Vec<u8>, layout: &Layout) {
    for (i, h) in layout.headers.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        text(out, h.as_bytes(), layout.quoting);
    }
    out.push(b'\n');
}

fn write_cell(
    out: &mut Vec<u8>,
    cell: &Cell,
    row: &rusqlite::Row,
    areas: &AreaNames,
    quoting: Quoting,
) -> Result<(), ApiError> {
    match cell.read(row, areas)? {
        CellValue::Null => {}
        CellValue::Integer(i) => out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes()),
        // The shortest text that reads back as the same number.
        CellValue::Real(f) => out.extend_from_slice(f.to_string().as_bytes()),
        CellValue::Text(t) => text(out, t, quoting),
    }
    Ok(())
}

/// Text, quoted as the layout says; a quote inside is doubled. Where needed is where PHP's
/// `fputcsv` (DfT's) quotes: a comma, a quote, a backslash, a space, a tab or a line end.
pub fn text(out: &mut Vec<u8>, t: &[u8], quoting: Quoting) {
    let needs = quoting == Quoting::AllText
        || t.iter()
            .any(|b| matches!(b, b' ' | b',' | b'"' | b'\\' | b'\t' | b'\n' | b'\r'));
    if !needs {
        out.extend_from_slice(t);
        return;
    }
    out.push(b'"');
    for &b in t {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// The CSV file, deflated into a zip as it is written (the zip's sizes follow each file in a
/// data descriptor, so nothing needs to be seeked back to).
fn zipped(
    conn: &rusqlite::Connection,
    query: &RowQuery,
    layout: &Layout,
    name: &str,
    body: &mut Body,
) -> Result<(), ApiError> {
    let zip_error = |e: zip::result::ZipError| match e {
        zip::result::ZipError::Io(io) => client_gone(io),
        other => ApiError::internal(other),
    };
    let mut zip = zip::ZipWriter::new_stream(body);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1))
        .large_file(true);
    zip.start_file(name, options).map_err(zip_error)?;
    csv(conn, query, layout, &mut zip)?;
    zip.finish().map_err(zip_error)?;
    Ok(())
}

fn ndjson(
    conn: &rusqlite::Connection,
    request: &ListRequest,
    mut record: JsonRecord,
    body: &mut Body,
) -> Result<(), ApiError> {
    let query = RowQuery::all(&record.sql(request));
    let distance = Distance::of(request, 0);
    let mut stmt = conn.prepare_cached(&query.sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(query.args.iter()))?;
    while let Some(row) = rows.next()? {
        record.write(conn, &mut body.buf, row)?;
        if let Some(distance) = &distance {
            distance.append(&mut body.buf, row)?;
        }
        body.buf.push(b'\n');
        body.flush_if_full()?;
    }
    Ok(())
}
