//! `roadtraffic-synth`: write a deterministic synthetic national DfT release (the generator is the
//! library of this crate, `bench/synth/src/lib.rs`).
//!
//! ```text
//! roadtraffic-synth --out DIR [--scale 1.0] [--seed-file ../shared/data/synth_seed.json.gz] [--seed 42]
//!                   [--regions 3,4,6] [--count-points 12] [--years 2019-2024] [--summary-years 2019-2024]
//! roadtraffic-synth --sample --out data/sample     # the bundled sample release (run from the repo root)
//! ```
//!
//! Built and run from the repository root with `cargo run --release -p roadtraffic-synth -- ...`
//! (or `--bin roadtraffic-synth`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use roadtraffic_synth::{self as synth, SynthOptions};

#[derive(Parser, Debug)]
#[command(
    name = "roadtraffic-synth",
    version,
    about = "Write a deterministic synthetic national DfT road traffic release (CSV files)"
)]
struct Args {
    /// Output directory (created if missing; existing files of the same names are overwritten).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,

    /// Size relative to a full national release (1.0 = 47,000 count points, ~5M raw count rows).
    #[arg(long, default_value_t = 1.0)]
    scale: f64,

    /// The seed file with the real identities, templates and summary tables.
    #[arg(
        long,
        value_name = "FILE",
        default_value = "../shared/data/synth_seed.json.gz",
        env = "ROADTRAFFIC_SYNTH_SEED"
    )]
    seed_file: PathBuf,

    /// PRNG seed: the same seed and options give byte-identical files [default: 42; 30 with --sample].
    #[arg(long)]
    seed: Option<u64>,

    /// Only these region ids (comma-separated), in every file.
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    regions: Option<Vec<u32>>,

    /// Exact number of count points (overrides --scale for the count point total).
    #[arg(long, value_name = "N")]
    count_points: Option<usize>,

    /// AADF and raw count years, `FROM-TO` or `YEAR` [default: 2000-2024].
    #[arg(long, value_name = "FROM-TO", value_parser = parse_years)]
    years: Option<(u16, u16)>,

    /// Years of the summary tables (LA and region traffic) [default: all years of the seed].
    #[arg(long, value_name = "FROM-TO", value_parser = parse_years)]
    summary_years: Option<(u16, u16)>,

    /// The bundled sample preset: --regions 3,4,6 --count-points 12 --years 2019-2024
    /// --summary-years 2019-2024 --seed 30 (options given explicitly still win).
    #[arg(long)]
    sample: bool,
}

fn parse_years(s: &str) -> Result<(u16, u16), String> {
    let parse = |x: &str| {
        x.trim()
            .parse::<u16>()
            .map_err(|e| format!("bad year {x:?}: {e}"))
    };
    match s.split_once('-') {
        Some((a, b)) => {
            let (a, b) = (parse(a)?, parse(b)?);
            if a > b {
                return Err(format!("empty year range {s}"));
            }
            Ok((a, b))
        }
        None => {
            let y = parse(s)?;
            Ok((y, y))
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut opts = SynthOptions::new(&args.seed_file, &args.out);
    if args.sample {
        opts.apply_sample_preset();
    }
    opts.scale = args.scale;
    if let Some(seed) = args.seed {
        opts.seed = seed;
    }
    if args.regions.is_some() {
        opts.regions = args.regions;
    }
    if args.count_points.is_some() {
        opts.count_points = args.count_points;
    }
    if let Some(y) = args.years {
        opts.years = y;
    }
    if args.summary_years.is_some() {
        opts.summary_years = args.summary_years;
    }

    let start = Instant::now();
    match synth::generate(&opts) {
        Ok(summary) => {
            eprintln!(
                "roadtraffic-synth: wrote {} in {:.1}s",
                opts.out_dir.display(),
                start.elapsed().as_secs_f64()
            );
            eprintln!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("roadtraffic-synth: error: {e}");
            ExitCode::FAILURE
        }
    }
}
