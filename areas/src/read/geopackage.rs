//! A GeoPackage's feature layer: the file is SQLite, its layers listed in `gpkg_contents` and
//! `gpkg_geometry_columns`, their CRS in `gpkg_spatial_ref_sys`, each geometry a GeoPackage
//! binary header then WKB (read by `geozero`). Opened read-only and immutable: reading a
//! user's file never writes beside it.

use std::path::Path;

use geozero::error::GeozeroError;
use geozero::GeomProcessor;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use super::{crs_named, BoundaryError, Features, Fields, RawFeature, Rings};
use crate::SetCrs;

/// A feature layer: its table, geometry column and CRS.
struct Layer {
    table: String,
    column: String,
    srs_id: i64,
}

pub(crate) fn read(path: &Path, fields: &Fields) -> Result<Features, BoundaryError> {
    let not_gpkg = |e: rusqlite::Error| BoundaryError::file(format!("not a valid GeoPackage: {e}"));
    let conn = open(path).map_err(not_gpkg)?;
    let layer = layer(&conn, fields.layer.as_deref())?;
    let crs = layer_crs(&conn, layer.srs_id)?;
    let features = features(&conn, &layer, fields).map_err(not_gpkg)??;
    Ok((crs, features))
}

fn open(path: &Path) -> rusqlite::Result<Connection> {
    let uri = format!(
        "file:{}?mode=ro&immutable=1",
        roadtraffic_catalog::schema::uri_path(path)
    );
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri, flags)?;
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))?;
    Ok(conn)
}

/// The one feature layer, or the one `--layer` names.
fn layer(conn: &Connection, named: Option<&str>) -> Result<Layer, BoundaryError> {
    let sql = "SELECT c.table_name, g.column_name, g.srs_id FROM gpkg_contents c \
               JOIN gpkg_geometry_columns g ON g.table_name = c.table_name \
               WHERE c.data_type = 'features' ORDER BY c.table_name";
    let layers: Vec<Layer> = conn
        .prepare(sql)
        .and_then(|mut stmt| {
            let rows = stmt.query_map([], |r| {
                Ok(Layer {
                    table: r.get(0)?,
                    column: r.get(1)?,
                    srs_id: r.get(2)?,
                })
            })?;
            rows.collect()
        })
        .map_err(|e| BoundaryError::file(format!("not a valid GeoPackage: {e}")))?;
    let names = || {
        let names: Vec<&str> = layers.iter().map(|l| l.table.as_str()).collect();
        names.join(", ")
    };
    match (named, layers.len()) {
        (_, 0) => Err(BoundaryError::file("this GeoPackage has no feature layer")),
        (Some(name), _) => match layers.iter().position(|l| l.table == name) {
            Some(i) => Ok(layers.into_iter().nth(i).expect("found")),
            None => Err(BoundaryError::file(format!(
                "no feature layer {name:?} in this GeoPackage; it has: {}",
                names()
            ))),
        },
        (None, 1) => Ok(layers.into_iter().next().expect("one")),
        (None, n) => Err(BoundaryError::file(format!(
            "this GeoPackage has {n} feature layers ({}): name one with --layer",
            names()
        ))),
    }
}

/// The layer's CRS, from its organisation's code.
fn layer_crs(conn: &Connection, srs_id: i64) -> Result<SetCrs, BoundaryError> {
    let sql = "SELECT organization, organization_coordsys_id FROM gpkg_spatial_ref_sys \
               WHERE srs_id = ?1";
    let declared: Option<(String, i64)> = conn
        .query_row(sql, [srs_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .ok();
    let named = declared
        .as_ref()
        .and_then(|(org, code)| crs_named(&format!("{org}:{code}")));
    named.ok_or_else(|| {
        let what = match declared {
            Some((org, code)) => format!("{org}:{code}"),
            None => format!("srs_id {srs_id}, which gpkg_spatial_ref_sys does not list"),
        };
        BoundaryError::file(format!(
            "its layer's CRS is {what}: only longitude and latitude (EPSG:4326) or the \
             British National Grid (EPSG:27700) are known"
        ))
    })
}

fn quoted(identifier: &str) -> String {
    format!("\"{}\"", identifier.replace('"', "\"\""))
}

/// Every feature of the layer, in its primary key's order.
fn features(
    conn: &Connection,
    layer: &Layer,
    fields: &Fields,
) -> rusqlite::Result<Result<Vec<RawFeature>, BoundaryError>> {
    let count: i64 = conn.query_row(
        &format!("SELECT count(*) FROM {}", quoted(&layer.table)),
        [],
        |r| r.get(0),
    )?;
    if count as usize > super::MAX_FEATURES {
        return Ok(Err(super::check::too_many(count as usize)));
    }
    let mut stmt = conn.prepare(&format!(
        "SELECT _ROWID_, * FROM {} ORDER BY 1",
        quoted(&layer.table)
    ))?;
    let columns: Vec<String> = stmt.column_names().iter().map(|c| c.to_string()).collect();
    let at = |name: &str| {
        columns
            .iter()
            .skip(1)
            .position(|c| c == name)
            .map(|i| i + 1)
    };
    let geometry = at(&layer.column);
    let id_at = match &fields.id {
        Some(f) => Some(at(f)),
        None => None,
    };
    let name_at = at(fields.name.as_deref().unwrap_or("name"));
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let text = |i: Option<usize>| -> rusqlite::Result<Result<Option<String>, String>> {
            Ok(match i {
                None => Ok(None),
                Some(i) => column_text(row.get_ref(i)?),
            })
        };
        let index = out.len();
        let id = match id_at {
            Some(i) => text(i)?,
            None => match text(at("code"))? {
                Ok(None) => match text(at("id"))? {
                    Ok(None) => text(Some(0))?,
                    other => other,
                },
                other => other,
            },
        };
        let fault = |why: String| BoundaryError::feature(index, None, why);
        let id = match id {
            Ok(id) => id,
            Err(why) => return Ok(Err(fault(format!("its id {why}")))),
        };
        let name = match text(name_at)? {
            Ok(name) => name,
            Err(why) => return Ok(Err(fault(format!("its name {why}")))),
        };
        let blob = match geometry {
            Some(g) => row.get_ref(g)?.as_blob_or_null()?.map(<[u8]>::to_vec),
            None => None,
        };
        let rings = match blob {
            None => Err("it has no geometry".to_string()),
            Some(blob) => gpkg_rings(&blob),
        };
        out.push(RawFeature { id, name, rings });
    }
    Ok(Ok(out))
}

/// A column's value as an id or a name.
fn column_text(value: ValueRef) -> Result<Option<String>, String> {
    match value {
        ValueRef::Null => Ok(None),
        ValueRef::Integer(i) => Ok(Some(i.to_string())),
        ValueRef::Real(r) => Ok(Some(r.to_string())),
        ValueRef::Text(t) => Ok(Some(String::from_utf8_lossy(t).into_owned())),
        ValueRef::Blob(_) => Err("is binary, not text or a number".into()),
    }
}

/// A GeoPackage geometry's polygons, or why it has none.
fn gpkg_rings(blob: &[u8]) -> Result<Rings, String> {
    let mut collect = RingCollector::default();
    geozero::wkb::process_gpkg_geom(&mut &blob[..], &mut collect)
        .map_err(|e| format!("its geometry is not valid GeoPackage WKB: {e}"))?;
    match collect.other {
        Some(kind) => Err(format!(
            "a {kind}: only Polygon and MultiPolygon features are areas"
        )),
        None => Ok(collect.polygons),
    }
}

/// Collects a WKB geometry's rings as they are (an unclosed one stays unclosed, to be
/// refused), noting any part that is not a polygon.
#[derive(Default)]
struct RingCollector {
    polygons: Rings,
    other: Option<&'static str>,
}

impl RingCollector {
    fn not_polygon(&mut self, kind: &'static str) -> Result<(), GeozeroError> {
        self.other.get_or_insert(kind);
        Ok(())
    }
}

impl GeomProcessor for RingCollector {
    fn xy(&mut self, x: f64, y: f64, _idx: usize) -> Result<(), GeozeroError> {
        if let Some(ring) = self.polygons.last_mut().and_then(|p| p.last_mut()) {
            ring.push([x, y]);
        }
        Ok(())
    }
    fn polygon_begin(&mut self, _: bool, size: usize, _: usize) -> Result<(), GeozeroError> {
        self.polygons.push(Vec::with_capacity(size));
        Ok(())
    }
    fn linestring_begin(
        &mut self,
        tagged: bool,
        size: usize,
        _: usize,
    ) -> Result<(), GeozeroError> {
        match (tagged, self.polygons.last_mut()) {
            (false, Some(p)) => p.push(Vec::with_capacity(size)),
            _ => {
                self.other.get_or_insert("LineString");
            }
        }
        Ok(())
    }
    fn point_begin(&mut self, _: usize) -> Result<(), GeozeroError> {
        self.not_polygon("Point")
    }
    fn empty_point(&mut self, _: usize) -> Result<(), GeozeroError> {
        self.not_polygon("Point")
    }
    fn multipoint_begin(&mut self, _: usize, _: usize) -> Result<(), GeozeroError> {
        self.not_polygon("MultiPoint")
    }
    fn multilinestring_begin(&mut self, _: usize, _: usize) -> Result<(), GeozeroError> {
        self.not_polygon("MultiLineString")
    }
    fn geometrycollection_begin(&mut self, _: usize, _: usize) -> Result<(), GeozeroError> {
        self.not_polygon("GeometryCollection")
    }
    fn circularstring_begin(&mut self, _: usize, _: usize) -> Result<(), GeozeroError> {
        self.not_polygon("CircularString")
    }
    fn compoundcurve_begin(&mut self, _: usize, _: usize) -> Result<(), GeozeroError> {
        self.not_polygon("CompoundCurve")
    }
    fn multicurve_begin(&mut self, _: usize, _: usize) -> Result<(), GeozeroError> {
        self.not_polygon("MultiCurve")
    }
    fn curvepolygon_begin(&mut self, _: usize, _: usize) -> Result<(), GeozeroError> {
        self.not_polygon("CurvePolygon")
    }
    fn multisurface_begin(&mut self, _: usize, _: usize) -> Result<(), GeozeroError> {
        self.not_polygon("MultiSurface")
    }
    fn triangle_begin(&mut self, _: bool, _: usize, _: usize) -> Result<(), GeozeroError> {
        self.not_polygon("Triangle")
    }
    fn polyhedralsurface_begin(&mut self, _: usize, _: usize) -> Result<(), GeozeroError> {
        self.not_polygon("PolyhedralSurface")
    }
    fn tin_begin(&mut self, _: usize, _: usize) -> Result<(), GeozeroError> {
        self.not_polygon("TIN")
    }
}
