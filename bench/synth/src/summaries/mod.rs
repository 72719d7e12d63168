//! The summary tables (LA traffic, region traffic by vehicle type and by road type): the seed's
//! real rows of the release's regions and summary years, made synthetic.

mod perturb;
mod rows;

use std::collections::HashMap;

use roadtraffic_catalog::{
    Dataset, LOCAL_AUTHORITY_TRAFFIC, REGION_TRAFFIC_BY_ROAD_TYPE, REGION_TRAFFIC_BY_VEHICLE_TYPE,
};

use crate::csv_file::CsvFile;
use crate::error::SynthError;
use crate::options::SynthOptions;
use crate::report::FileSummary;
use crate::seed::{Seed, SeedLa};
use crate::vehicles::region_table_vehicles;
use rows::{la_traffic_row, region_road_row, region_vehicle_row, SummaryRow};

/// Whether a row of the seed's summary tables is in the release: of its regions and its summary
/// years.
fn in_release(opts: &SynthOptions, region_id: u32, year: u16) -> bool {
    opts.includes_region(region_id)
        && opts
            .summary_years
            .is_none_or(|(a, b)| year >= a && year <= b)
}

/// The summary tables, in a fixed order: the seed's rows in the release, made synthetic.
pub fn write_summaries(seed: &Seed, opts: &SynthOptions) -> Result<Vec<FileSummary>, SynthError> {
    let las: HashMap<u32, &SeedLa> = seed.las.iter().map(|l| (l.id, l)).collect();
    let la_traffic = seed.la_traffic.iter().filter_map(|row| {
        let la = las.get(&row.la_id)?;
        in_release(opts, la.region_id, row.year).then(|| la_traffic_row(seed, opts.seed, la, row))
    });
    let region_vehicles = region_table_vehicles();
    let by_vehicle = (seed.region_vehicle.iter())
        .filter(|row| in_release(opts, row.region_id, row.year))
        .map(|row| region_vehicle_row(seed, opts.seed, row, &region_vehicles));
    let by_road = (seed.region_road.iter())
        .filter(|row| in_release(opts, row.region_id, row.year))
        .map(|row| region_road_row(seed, opts.seed, row));
    Ok(vec![
        write_summary_table(opts, &LOCAL_AUTHORITY_TRAFFIC, la_traffic)?,
        write_summary_table(opts, &REGION_TRAFFIC_BY_VEHICLE_TYPE, by_vehicle)?,
        write_summary_table(opts, &REGION_TRAFFIC_BY_ROAD_TYPE, by_road)?,
    ])
}

fn write_summary_table<'a>(
    opts: &SynthOptions,
    dataset: &'static Dataset,
    rows: impl Iterator<Item = SummaryRow<'a>>,
) -> Result<FileSummary, SynthError> {
    let mut f = CsvFile::create(&opts.out_dir, dataset)?;
    for row in rows {
        f.write(&row)?;
    }
    f.finish()
}
