//! The command line of `roadtraffic-load`: arguments, the run, the report on stderr, the exit
//! status.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use crate::{self as load, LoadOptions};

/// Load DfT road traffic CSV files (plain, zipped, or directories of them) into one indexed
/// SQLite file. The file is replaced atomically, only when the whole load succeeded.
#[derive(Parser, Debug)]
#[command(name = "roadtraffic-load", version)]
struct Args {
    /// The SQLite file to build (replaced atomically on success).
    #[arg(long, env = "ROADTRAFFIC_DB")]
    db: PathBuf,
    /// CSV files, .zip archives of CSV files, or directories (searched recursively).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Skip rows that cannot be read, listing them in the report, instead of refusing the load.
    #[arg(long)]
    skip_bad_rows: bool,
    /// When a natural key repeats (e.g. a national file and its regional split), keep the first
    /// row instead of refusing the load.
    #[arg(long)]
    keep_first: bool,
    /// A label for this release (e.g. "2024"), kept in the file's metadata.
    #[arg(long)]
    release: Option<String>,
    /// Write the load report as JSON to this file.
    #[arg(long)]
    report_json: Option<PathBuf>,
    /// The countries reference file (id,name,ons_code); the bundled one by default.
    #[arg(long)]
    countries: Option<PathBuf>,
    /// No progress bar and no report on stderr (errors are still printed).
    #[arg(long, short)]
    quiet: bool,
    /// Replace --db even if the new file lacks a table the old one has, or holds under half
    /// of one's rows.
    #[arg(long)]
    allow_shrink: bool,
    /// Refuse a CSV record longer than this many bytes at its line (real ones are under 2 KB).
    #[arg(long, default_value_t = load::DEFAULT_MAX_RECORD_BYTES, value_name = "N")]
    max_record_bytes: u64,
}

/// Runs the command line: parses the arguments, loads, reports. Logging is the caller's.
pub fn main() -> ExitCode {
    let args = Args::parse();
    let opts = LoadOptions {
        db: args.db,
        inputs: args.inputs,
        skip_bad_rows: args.skip_bad_rows,
        keep_first: args.keep_first,
        release: args.release,
        countries: args.countries,
        progress: !args.quiet && std::io::stderr().is_terminal(),
        allow_shrink: args.allow_shrink,
        max_record_bytes: args.max_record_bytes,
    };
    match load::run(&opts) {
        Ok(report) => {
            if !args.quiet {
                eprint!("{}", report.human());
                eprintln!("Wrote {}", opts.db.display());
            }
            if let Some(path) = &args.report_json {
                if let Err(e) = std::fs::write(path, report.to_json()) {
                    eprintln!("roadtraffic-load: {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            if let (
                Some(path),
                load::LoadError::BadRows(report) | load::LoadError::Shrinks(report),
            ) = (&args.report_json, &e)
            {
                let _ = std::fs::write(path, report.to_json());
            }
            eprintln!("roadtraffic-load: {e}");
            eprintln!(
                "roadtraffic-load: nothing was changed: {} is as it was",
                opts.db.display()
            );
            ExitCode::FAILURE
        }
    }
}
