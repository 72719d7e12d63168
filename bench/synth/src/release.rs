//! A whole release: the model built from the seed, then the seven files written, the big ones in
//! threads of their own (each file's rows depend on nothing written before them).

use roadtraffic_catalog::{AADF, AADF_BY_DIRECTION, COUNT_POINTS, RAW_COUNTS};

use crate::count_files::{write_aadf, write_count_points, write_raw};
use crate::count_points::build_model;
use crate::csv_file::CsvFile;
use crate::error::{io_err, SynthError};
use crate::options::SynthOptions;
use crate::report::{FileSummary, SynthSummary};
use crate::seed::read_seed;
use crate::summaries::write_summaries;

/// Write the release described by `opts` into `opts.out_dir`.
pub fn generate(opts: &SynthOptions) -> Result<SynthSummary, SynthError> {
    let seed = read_seed(&opts.seed_path)?;
    let model = build_model(&seed, opts)?;
    std::fs::create_dir_all(&opts.out_dir).map_err(io_err(&opts.out_dir))?;
    let dir = opts.out_dir.as_path();
    log::info!(
        "synth: {} count points, years {}-{}",
        model.cps.len(),
        model.years.0,
        model.years.1
    );

    let mut aadf = CsvFile::create(dir, &AADF)?;
    let mut by_direction = CsvFile::create(dir, &AADF_BY_DIRECTION)?;
    let mut raw = CsvFile::create(dir, &RAW_COUNTS)?;
    let mut count_points = CsvFile::create(dir, &COUNT_POINTS)?;

    let model = &model;
    let (aadf_res, raw_res, rest) = std::thread::scope(|sc| {
        let t_aadf = sc.spawn(move || -> Result<(FileSummary, FileSummary), SynthError> {
            write_aadf(model, &mut aadf, &mut by_direction)?;
            Ok((aadf.finish()?, by_direction.finish()?))
        });
        let t_raw = sc.spawn(move || -> Result<FileSummary, SynthError> {
            write_raw(model, &mut raw)?;
            raw.finish()
        });
        let rest = (|| -> Result<(FileSummary, Vec<FileSummary>), SynthError> {
            write_count_points(model, &mut count_points)?;
            Ok((count_points.finish()?, write_summaries(&seed, opts)?))
        })();
        (t_aadf.join(), t_raw.join(), rest)
    });
    let (aadf_sum, dir_sum) = aadf_res.map_err(|_| SynthError::Panic)??;
    let raw_sum = raw_res.map_err(|_| SynthError::Panic)??;
    let (cp_sum, summaries) = rest?;
    let mut files = vec![aadf_sum, dir_sum, raw_sum, cp_sum];
    files.extend(summaries);
    Ok(SynthSummary { files })
}
