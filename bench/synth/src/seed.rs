//! The seed file (`synth_seed.json.gz`): real LA list and centroids, real summary tables, real
//! count point identities, real flow and hourly count templates, which the release is drawn from.
//!
//! The seed file holds each row as a JSON array; serde reads an array into a struct field by
//! field, in order, so each struct below is the layout of its rows. Every element must have a
//! field (serde refuses a longer array): the published miles are read and not used, being
//! recomputed from the perturbed kilometres. The vehicles of a flow template and of a region's
//! traffic by vehicle type are read by position, in the catalogue's order (see `vehicles`),
//! rather than repeated here as fields.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::io::{BufReader, Read};
use std::marker::PhantomData;
use std::path::Path;

use serde::de::{self, Deserializer, Expected, SeqAccess, Visitor};
use serde::Deserialize;

use crate::error::{io_err, SynthError};
use crate::road_class::CLASSES;
use crate::vehicles::{region_table_vehicles, NV};

#[derive(Deserialize)]
pub struct Seed {
    /// By region id.
    pub regions: BTreeMap<String, SeedRegion>,
    pub las: Vec<SeedLa>,
    pub la_traffic: Vec<SeedLaTraffic>,
    pub region_vehicle: Vec<SeedRegionVehicle>,
    pub region_road: Vec<SeedRegionRoad>,
    pub ident: Vec<SeedIdent>,
    pub flows: Vec<SeedFlow>,
    pub hourly: Vec<SeedHourly>,
}

impl Seed {
    pub fn region(&self, region_id: u32) -> Option<&SeedRegion> {
        self.regions.get(&region_id.to_string())
    }
}

#[derive(Deserialize)]
pub struct SeedRegion {
    pub name: String,
    pub ons_code: String,
}

/// A local authority, with where its count points are when it has too few real ones.
#[derive(Deserialize)]
pub struct SeedLa {
    pub id: u32,
    pub name: String,
    pub ons_code: String,
    pub region_id: u32,
    pub latitude: f64,
    pub longitude: f64,
    /// Its share of the count points of the regions.
    pub weight: f64,
}

#[derive(Deserialize)]
pub struct SeedLaTraffic {
    pub la_id: u32,
    pub year: u16,
    pub link_length_km: f64,
    _link_length_miles: f64,
    pub cars_and_taxis: f64,
    pub all_motor_vehicles: f64,
}

/// Traffic by vehicle type of a region and year, in vehicle miles: `[year, region_id,
/// link_length_km, link_length_miles, traffic of each vehicle...]`.
pub struct SeedRegionVehicle {
    pub year: u16,
    pub region_id: u32,
    pub link_length_km: f64,
    /// By position among the vehicle columns the catalogue gives the region table, in catalogue
    /// order.
    pub traffic: Vec<f64>,
}

/// Traffic of a region, year and road category.
#[derive(Deserialize)]
pub struct SeedRegionRoad {
    pub year: u16,
    pub region_id: u32,
    pub road_category_id: u32,
    pub road_category: String,
    pub link_length_km: f64,
    _link_length_miles: f64,
    pub all_motor_vehicles: f64,
}

/// A real count point's identity.
#[derive(Deserialize)]
pub struct SeedIdent {
    pub la_id: u32,
    pub count_point_id: u32,
    pub road_name: String,
    pub road_type: String,
    pub road_category: String,
    pub start_junction_road_name: Option<String>,
    pub end_junction_road_name: Option<String>,
    pub easting: f64,
    pub northing: f64,
    pub link_length_km: Option<f64>,
}

/// A real AADF of a road class and year: `[class, year, flow of each modelled vehicle...]`.
pub struct SeedFlow {
    pub class: String,
    pub year: u16,
    /// By [`crate::vehicles::MODELLED_VEHICLES`] position.
    pub aadf: [f64; NV],
}

/// A seed row of named leading fields followed by one value per vehicle, which serde cannot
/// derive (serde_json refuses elements left over after it).
trait PositionalRow: Sized {
    fn expecting(f: &mut fmt::Formatter) -> fmt::Result;
    fn read<'de, A: SeqAccess<'de>>(seq: &mut A, row: &dyn Expected) -> Result<Self, A::Error>;
}

struct RowVisitor<T>(PhantomData<T>);

impl<'de, T: PositionalRow> Visitor<'de> for RowVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        T::expecting(f)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        T::read(&mut seq, &self)
    }
}

/// Element `index` of a row, which must be there.
fn element<'de, T: Deserialize<'de>, A: SeqAccess<'de>>(
    seq: &mut A,
    index: usize,
    row: &dyn Expected,
) -> Result<T, A::Error> {
    seq.next_element()?
        .ok_or_else(|| de::Error::invalid_length(index, row))
}

impl PositionalRow for SeedFlow {
    fn expecting(f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a road class, a year and {NV} vehicle flows")
    }

    fn read<'de, A: SeqAccess<'de>>(seq: &mut A, row: &dyn Expected) -> Result<Self, A::Error> {
        let class = element(seq, 0, row)?;
        let year = element(seq, 1, row)?;
        let mut aadf = [0.0; NV];
        for (k, flow) in aadf.iter_mut().enumerate() {
            *flow = element(seq, 2 + k, row)?;
        }
        Ok(SeedFlow { class, year, aadf })
    }
}

impl<'de> Deserialize<'de> for SeedFlow {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(RowVisitor(PhantomData))
    }
}

impl PositionalRow for SeedRegionVehicle {
    fn expecting(f: &mut fmt::Formatter) -> fmt::Result {
        let vehicles = region_table_vehicles().len();
        write!(
            f,
            "a year, a region, link lengths and {vehicles} vehicle traffics"
        )
    }

    fn read<'de, A: SeqAccess<'de>>(seq: &mut A, row: &dyn Expected) -> Result<Self, A::Error> {
        let year = element(seq, 0, row)?;
        let region_id = element(seq, 1, row)?;
        let link_length_km = element(seq, 2, row)?;
        // the published miles, recomputed from the perturbed kilometres
        let _: f64 = element(seq, 3, row)?;
        let traffic = (4..4 + region_table_vehicles().len())
            .map(|index| element(seq, index, row))
            .collect::<Result<_, _>>()?;
        Ok(SeedRegionVehicle {
            year,
            region_id,
            link_length_km,
            traffic,
        })
    }
}

impl<'de> Deserialize<'de> for SeedRegionVehicle {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(RowVisitor(PhantomData))
    }
}

/// A real manual count of a road class: 12 hours (7:00 to 19:00) of counts of the
/// [`crate::vehicles::MODELLED_VEHICLES`].
#[derive(Deserialize)]
pub struct SeedHourly {
    pub class: String,
    pub hours: Vec<Vec<f64>>,
}

/// Read and check a seed file, gzipped or not.
pub fn read_seed(path: &Path) -> Result<Seed, SynthError> {
    let f = File::open(path).map_err(io_err(path))?;
    let mut bytes = Vec::new();
    let mut r = BufReader::new(f);
    r.read_to_end(&mut bytes).map_err(io_err(path))?;
    let json = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_end(&mut out)
            .map_err(io_err(path))?;
        out
    } else {
        bytes
    };
    let seed: Seed = serde_json::from_slice(&json).map_err(|source| SynthError::SeedJson {
        path: path.to_path_buf(),
        source,
    })?;
    check_seed(&seed).map_err(|msg| SynthError::Seed {
        path: path.to_path_buf(),
        msg,
    })?;
    Ok(seed)
}

/// What the generator needs of a seed beyond its shape.
fn check_seed(seed: &Seed) -> Result<(), String> {
    if seed.las.is_empty() {
        return Err("no local authorities".into());
    }
    if seed
        .hourly
        .iter()
        .any(|t| t.hours.len() != 12 || t.hours.iter().any(|h| h.len() != NV))
    {
        return Err(format!(
            "hourly templates must be 12 hours x {NV} vehicle counts"
        ));
    }
    for class in CLASSES {
        if !seed.flows.iter().any(|f| f.class == class)
            || !seed.hourly.iter().any(|h| h.class == class)
        {
            return Err(format!("no flow or hourly template for road class {class}"));
        }
    }
    for la in &seed.las {
        if seed.region(la.region_id).is_none() {
            return Err(format!(
                "local authority {} has unknown region {}",
                la.id, la.region_id
            ));
        }
    }
    Ok(())
}
