//! `/api/areas/{set}.parquet`: a set's areas as GeoParquet 1.1, one row per area in the file's
//! order: `id`, `name`, `count_points` (as the set's JSON records), the boundary as WKB
//! (a Polygon when it is one, else a MultiPolygon; lon/lat, OGC:CRS84, a grid set's vertices
//! converted as its GeoJSON's are) and its `bbox` covering box, with the `geo` metadata
//! written by the forms' [`GeoColumns`].

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};

use super::held::{SetMembers, StoredSet};
use crate::error::ApiError;
use crate::forms::parquet::footer;
use crate::forms::parquet::geoparquet::{Bbox, GeoColumns};

/// The WKB geometry types of GeoParquet's `geometry_types`, in its spelling.
const POLYGON: &str = "Polygon";
const MULTI_POLYGON: &str = "MultiPolygon";

/// The set's areas as one GeoParquet file (a few thousand rows at most: one row group).
pub fn file(set: &StoredSet, members: &SetMembers) -> Result<Vec<u8>, ApiError> {
    let polygons: Vec<geo::MultiPolygon<f64>> = (0..set.areas().len())
        .map(|i| set.lon_lat_polygons(i))
        .collect();
    let mut geo = GeoColumns::new(geometry_types(&polygons), polygons.len());
    for (polygons, bbox) in polygons.iter().zip(&set.bboxes) {
        geo.append(Some((&wkb(polygons), *bbox as Bbox)));
    }
    let ids = StringArray::from_iter_values(set.areas().iter().map(|a| a.id.as_str()));
    let names = StringArray::from_iter_values(set.areas().iter().map(|a| a.name.as_str()));
    let counts = Int64Array::from_iter_values(members.counts.iter().map(|&c| c as i64));
    let mut fields = vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("name", DataType::Utf8, false),
        Field::new("count_points", DataType::Int64, false),
    ];
    fields.extend(GeoColumns::fields());
    let schema = Arc::new(Schema::new(fields));
    let mut columns: Vec<ArrayRef> = vec![Arc::new(ids), Arc::new(names), Arc::new(counts)];
    columns.extend(geo.finish());
    let batch = RecordBatch::try_new(schema.clone(), columns).map_err(ApiError::internal)?;
    write(batch, KeyValue::new("geo".to_string(), geo.metadata()))
}

/// One batch as a file, zstd-compressed, with its statistics in the order every reader knows.
fn write(batch: RecordBatch, geo: KeyValue) -> Result<Vec<u8>, ApiError> {
    let level = ZstdLevel::try_new(3).map_err(ApiError::internal)?;
    let properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .set_statistics_enabled(EnabledStatistics::Page)
        .build();
    let leaves = batch.num_columns() - 1 + 4; // the covering box is four leaves
    let mut writer = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(properties))
        .map_err(ApiError::internal)?;
    writer.write(&batch).map_err(ApiError::internal)?;
    writer.append_key_value_metadata(geo);
    let mut bytes = writer.into_inner().map_err(ApiError::internal)?;
    footer::type_defined_orders(&mut bytes, leaves)
        .map_err(|footer::Unexpected(why)| ApiError::internal(format!("Parquet footer: {why}")))?;
    Ok(bytes)
}

/// The types the file's geometries have: an area of one polygon is a Polygon (as in the
/// set's GeoJSON), of several a MultiPolygon.
fn geometry_types(areas: &[geo::MultiPolygon<f64>]) -> &'static [&'static str] {
    let single = areas.iter().any(|a| a.0.len() == 1);
    let multi = areas.iter().any(|a| a.0.len() != 1);
    match (single, multi) {
        (true, true) => &[POLYGON, MULTI_POLYGON],
        (false, true) => &[MULTI_POLYGON],
        _ => &[POLYGON],
    }
}

/// An area's boundary as ISO WKB, little-endian: a Polygon (type 3) when it is one, else a
/// MultiPolygon (type 6) of Polygons.
fn wkb(area: &geo::MultiPolygon<f64>) -> Vec<u8> {
    let mut out = Vec::new();
    match area.0.as_slice() {
        [one] => polygon_wkb(one, &mut out),
        many => {
            header(6, many.len(), &mut out);
            many.iter().for_each(|p| polygon_wkb(p, &mut out));
        }
    }
    out
}

fn polygon_wkb(polygon: &geo::Polygon<f64>, out: &mut Vec<u8>) {
    let rings: Vec<_> = std::iter::once(polygon.exterior())
        .chain(polygon.interiors())
        .collect();
    header(3, rings.len(), out);
    for ring in rings {
        out.extend((ring.0.len() as u32).to_le_bytes());
        for c in &ring.0 {
            out.extend(c.x.to_le_bytes());
            out.extend(c.y.to_le_bytes());
        }
    }
}

/// A geometry's byte order (little-endian), its type and how many parts follow.
fn header(kind: u32, parts: usize, out: &mut Vec<u8>) {
    out.push(1);
    out.extend(kind.to_le_bytes());
    out.extend((parts as u32).to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::{polygon, MultiPolygon};

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// As PostGIS writes them: ST_AsBinary('POLYGON((0 0,1 0,1 1,0 0))', 'NDR') and its
    /// MULTIPOLYGON of two.
    #[test]
    fn a_polygon_and_a_multipolygon_are_the_wkb_every_reader_knows() {
        let square =
            polygon![(x: 0.0, y: 0.0), (x: 1.0, y: 0.0), (x: 1.0, y: 1.0), (x: 0.0, y: 0.0)];
        let one = MultiPolygon(vec![square.clone()]);
        let point = |x: f64, y: f64| format!("{}{}", hex(&x.to_le_bytes()), hex(&y.to_le_bytes()));
        let ring = format!(
            "04000000{}{}{}{}",
            point(0.0, 0.0),
            point(1.0, 0.0),
            point(1.0, 1.0),
            point(0.0, 0.0)
        );
        let polygon = format!("010300000001000000{ring}");
        assert_eq!(hex(&wkb(&one)), polygon);
        let two = MultiPolygon(vec![square.clone(), square]);
        assert_eq!(
            hex(&wkb(&two)),
            format!("010600000002000000{polygon}{polygon}")
        );
        assert_eq!(geometry_types(std::slice::from_ref(&one)), [POLYGON]);
        assert_eq!(geometry_types(&[one, two]), [POLYGON, MULTI_POLYGON]);
    }
}
