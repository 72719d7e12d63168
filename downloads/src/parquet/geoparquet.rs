//! GeoParquet 1.1: the `geometry` column (WKB) and its `bbox` covering column (a struct of
//! `xmin`, `ymin`, `xmax`, `ymax`), gathered row by row, and the file's `geo` metadata that
//! declares them. Any geometry goes in as its WKB bytes and its box ([`GeoColumns::append`]):
//! a record's point here, an area's polygons elsewhere.

use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, Float64Builder};
use arrow_array::{ArrayRef, StructArray};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Fields};

/// The geometry column's name, and the covering column's.
pub const GEOMETRY: &str = "geometry";
pub const BBOX: &str = "bbox";

/// The covering column's fields, in the order GeoParquet names them.
const BOX_FIELDS: [&str; 4] = ["xmin", "ymin", "xmax", "ymax"];

/// A box: `[xmin, ymin, xmax, ymax]`.
pub type Bbox = [f64; 4];

/// The WKB of a point (ISO, little-endian: byte order, type 1, x, y): 21 bytes.
pub fn point_wkb(x: f64, y: f64) -> [u8; 21] {
    let mut wkb = [0u8; 21];
    wkb[0] = 1;
    wkb[1..5].copy_from_slice(&1u32.to_le_bytes());
    wkb[5..13].copy_from_slice(&x.to_le_bytes());
    wkb[13..21].copy_from_slice(&y.to_le_bytes());
    wkb
}

/// The two columns of the rows gathered since the last batch, and the extent of every
/// geometry so far (the file's `bbox`).
pub struct GeoColumns {
    geometry_types: &'static [&'static str],
    wkb: BinaryBuilder,
    corners: [Float64Builder; 4],
    valid: Vec<bool>,
    extent: Option<Bbox>,
}

impl GeoColumns {
    /// Columns of geometries of these GeoParquet types (`["Point"]`, `["Polygon",
    /// "MultiPolygon"]`), a batch of `capacity` rows at a time.
    pub fn new(geometry_types: &'static [&'static str], capacity: usize) -> GeoColumns {
        GeoColumns {
            geometry_types,
            wkb: BinaryBuilder::with_capacity(capacity, capacity * 21),
            corners: std::array::from_fn(|_| Float64Builder::with_capacity(capacity)),
            valid: Vec::with_capacity(capacity),
            extent: None,
        }
    }

    /// The Arrow fields of the two columns: the geometry, marked as GeoArrow's WKB for readers
    /// that know the extension (GDAL), then the box.
    pub fn fields() -> [Field; 2] {
        let extension =
            [("ARROW:extension:name", "geoarrow.wkb")].map(|(k, v)| (k.to_string(), v.to_string()));
        let geometry = Field::new(GEOMETRY, DataType::Binary, true).with_metadata(extension);
        [
            geometry,
            Field::new(BBOX, DataType::Struct(box_fields()), true),
        ]
    }

    /// A row's geometry (WKB) and its box, or none (a null geometry, a null box).
    pub fn append(&mut self, geometry: Option<(&[u8], Bbox)>) {
        let Some((wkb, bbox)) = geometry else {
            self.wkb.append_null();
            self.corners
                .iter_mut()
                .for_each(Float64Builder::append_null);
            self.valid.push(false);
            return;
        };
        self.wkb.append_value(wkb);
        for (corner, value) in self.corners.iter_mut().zip(bbox) {
            corner.append_value(value);
        }
        self.valid.push(true);
        self.extent = Some(match self.extent {
            None => bbox,
            Some(e) => [
                e[0].min(bbox[0]),
                e[1].min(bbox[1]),
                e[2].max(bbox[2]),
                e[3].max(bbox[3]),
            ],
        });
    }

    /// A row's point, if it has both coordinates.
    pub fn append_point(&mut self, x: Option<f64>, y: Option<f64>) {
        match (x, y) {
            (Some(x), Some(y)) => self.append(Some((&point_wkb(x, y), [x, y, x, y]))),
            _ => self.append(None),
        }
    }

    /// The two columns of the rows appended since the last call; the builders start again.
    pub fn finish(&mut self) -> [ArrayRef; 2] {
        let corners: Vec<ArrayRef> = (self.corners.iter_mut())
            .map(|c| Arc::new(c.finish()) as ArrayRef)
            .collect();
        let nulls = NullBuffer::from(std::mem::take(&mut self.valid));
        let bbox = StructArray::new(box_fields(), corners, Some(nulls));
        [Arc::new(self.wkb.finish()), Arc::new(bbox)]
    }

    /// The file's `geo` metadata (GeoParquet 1.1.0): the geometry column, WKB, its types, the
    /// extent of its geometries (none in a file without any), its covering box; no `crs`,
    /// which means OGC:CRS84 (longitude, latitude on WGS 84).
    pub fn metadata(&self) -> String {
        let path = |corner: &str| serde_json::json!([BBOX, corner]);
        let covering: serde_json::Map<_, _> = (BOX_FIELDS.iter())
            .map(|c| (c.to_string(), path(c)))
            .collect();
        let mut column = serde_json::json!({
            "encoding": "WKB",
            "geometry_types": self.geometry_types,
            "covering": { BBOX: covering },
        });
        if let Some(extent) = self.extent {
            column["bbox"] = serde_json::json!(extent);
        }
        serde_json::json!({
            "version": "1.1.0",
            "primary_column": GEOMETRY,
            "columns": { GEOMETRY: column },
        })
        .to_string()
    }
}

fn box_fields() -> Fields {
    let fields = BOX_FIELDS.map(|name| Field::new(name, DataType::Float64, true));
    Fields::from(fields.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Float64Type;
    use arrow_array::Array;

    #[test]
    fn a_point_is_the_wkb_every_reader_knows() {
        // POINT(-1.5 52.25), as PostGIS writes it: ST_AsBinary(ST_Point(-1.5, 52.25), 'NDR').
        let want = "0101000000000000000000f8bf0000000000204a40";
        let got: String = point_wkb(-1.5, 52.25)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_missing_place_is_a_null_geometry_and_a_null_box() {
        let mut columns = GeoColumns::new(&["Point"], 4);
        columns.append_point(Some(-1.0), Some(52.0));
        columns.append_point(None, Some(51.0));
        columns.append_point(Some(0.5), Some(50.0));
        let [geometry, bbox] = columns.finish();
        assert_eq!(geometry.null_count(), 1);
        assert!(geometry.is_null(1) && bbox.is_null(1));
        let bbox = bbox.as_struct();
        let xmax = bbox.column(2).as_primitive::<Float64Type>();
        assert_eq!((xmax.value(0), xmax.value(2)), (-1.0, 0.5));
        let geo: serde_json::Value = serde_json::from_str(&columns.metadata()).unwrap();
        assert_eq!(geo["version"], "1.1.0");
        let column = &geo["columns"]["geometry"];
        assert_eq!(column["bbox"], serde_json::json!([-1.0, 50.0, 0.5, 52.0]));
        assert_eq!(
            column["covering"]["bbox"]["ymin"],
            serde_json::json!(["bbox", "ymin"])
        );
        assert!(column.get("crs").is_none());
    }

    #[test]
    fn a_file_without_geometries_has_no_extent() {
        let mut columns = GeoColumns::new(&["Point"], 1);
        columns.append_point(None, None);
        let geo: serde_json::Value = serde_json::from_str(&columns.metadata()).unwrap();
        assert!(geo["columns"]["geometry"].get("bbox").is_none());
    }
}
