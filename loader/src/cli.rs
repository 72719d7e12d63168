//! The command line of `roadtraffic-load`: arguments, the run, the report on stderr, the exit
//! status. `roadtraffic-load --db FILE INPUT...` loads (`--fetch` downloads the current release
//! first); `roadtraffic-load diff OLD NEW` compares two files; `roadtraffic-load releases`
//! lists the releases kept beside `--db`, and `--drop-release NAME` drops one;
//! `roadtraffic-load areas add|list|drop` keeps the area sets in `--db`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::areas;
use crate::fetch::{self, FetchOptions, Show};
use crate::{self as load, diff, LoadError, LoadOptions, LoadReport};

/// Load DfT road traffic CSV files (plain, zipped, or directories of them) into one indexed
/// SQLite file. The file is replaced atomically, only when the whole load succeeded; what
/// changed since the file it replaces is reported and kept in the new file.
#[derive(Parser, Debug)]
#[command(
    name = "roadtraffic-load",
    version,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// The SQLite file to build (replaced atomically on success).
    #[arg(long, env = "ROADTRAFFIC_DB", required = true)]
    db: Option<PathBuf>,
    /// CSV files, .zip archives of CSV files, or directories (searched recursively).
    #[arg(required_unless_present_any = ["fetch", "drop_release"])]
    inputs: Vec<PathBuf>,
    /// Skip rows that cannot be read, listing them in the report, instead of refusing the load.
    #[arg(long)]
    skip_bad_rows: bool,
    /// When a natural key repeats (e.g. a national file and its regional split), keep the first
    /// row instead of refusing the load.
    #[arg(long)]
    keep_first: bool,
    /// A name for this release (e.g. "2024"), kept in the file's metadata. The releases loaded
    /// before it under a name are kept beside --db (in FILE.releases/) and served with it;
    /// once one is kept, every load must name its release. A label that cannot name a release
    /// (one with spaces) labels the file and keeps nothing, as before releases were kept.
    #[arg(long, value_name = "NAME")]
    release: Option<String>,
    /// With --release: replace the kept release of that name instead of refusing the load.
    #[arg(long, requires = "release")]
    replace_release: bool,
    /// With --release: keep at most N releases, this one included; the oldest beyond N are
    /// dropped [default: all].
    #[arg(long, value_name = "N", requires = "release", value_parser = clap::value_parser!(u64).range(1..))]
    keep: Option<u64>,
    /// With --release: the release this load moves aside (the latest before it) keeps of the
    /// AADF tables only its rows that differ from this release's, read through a view. This is
    /// the default; the flag is kept for the scripts that pass it.
    #[arg(long, requires = "release", conflicts_with = "whole_rows")]
    share_rows: bool,
    /// With --release: the release this load moves aside keeps its AADF tables whole, as it did
    /// before rows were shared: more disk, and its requests that read a large share of a table
    /// (a summary of most years read from the rows, a sorted page 50 pages deep) as fast as the
    /// latest's, rather than 3 to 30 times slower (see README, "Every release kept").
    #[arg(long, requires = "release")]
    whole_rows: bool,
    /// Drop the kept release NAME (refused for the only one): no inputs are read. Dropping the
    /// latest makes the one before it --db again.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["inputs", "fetch", "release"])]
    drop_release: Option<String>,
    /// Write the load report (with what changed) as JSON to this file.
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
    /// Also keep each record's JSON, written once now, for roadtraffic-serve to copy: pages it
    /// builds cost about half the CPU, for a file several times larger (see BENCHMARKS.md).
    #[arg(long)]
    rendered_records: bool,
    /// Where to write the national files (Parquet, CSV and zip): roadtraffic-serve's
    /// --downloads-dir (by default FILE.downloads beside --db, where it looks).
    #[arg(long, value_name = "DIR")]
    downloads_dir: Option<PathBuf>,
    #[command(flatten)]
    fetch: FetchArgs,
}

#[derive(clap::Args, Debug)]
struct FetchArgs {
    /// Download the national files of the current release (a zip each, from --source) into
    /// --cache-dir, check each whole, and load them (with any INPUT given).
    #[arg(long)]
    fetch: bool,
    /// The base URL of the release's zip files.
    #[arg(long, value_name = "URL", default_value = fetch::DEFAULT_SOURCE)]
    source: String,
    /// Where downloads are kept between runs [default: <db folder>/<db name>-downloads].
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Failures in a row (no answer, 5xx, a cut transfer) allowed per file before giving up.
    #[arg(long, value_name = "N", default_value_t = fetch::DEFAULT_RETRIES)]
    retries: u32,
    /// With --fetch: download and check the files into the cache, and load nothing.
    #[arg(long, requires = "fetch")]
    download_only: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compare two files built by roadtraffic-load, table by table by natural key: rows added,
    /// removed and changed (per column, per year), count points new and retired, the years
    /// before and after, the largest revisions of all_motor_vehicles.
    Diff {
        /// The older file.
        old: PathBuf,
        /// The newer file.
        new: PathBuf,
        /// Write the whole comparison as JSON to this file.
        #[arg(long, value_name = "FILE")]
        report_json: Option<PathBuf>,
        /// No report on stderr (errors are still printed).
        #[arg(long, short)]
        quiet: bool,
    },
    /// List the releases kept beside --db, oldest first: name, when loaded, rows per table, the
    /// files each reads and the disk they take beside one complete file.
    Releases {
        /// The SQLite file the releases are kept beside.
        #[arg(long, env = "ROADTRAFFIC_DB")]
        db: PathBuf,
        /// Print the listing as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Area sets (wards, constituencies, a council's zones) kept in --db: added from a boundary
    /// file, listed, dropped. Each is carried over by every load.
    Areas {
        #[command(subcommand)]
        command: AreasCommand,
    },
}

#[derive(Subcommand, Debug)]
enum AreasCommand {
    /// Add the boundary file FILE (GeoJSON in longitude and latitude or a declared EPSG:27700,
    /// or a GeoPackage layer) as the set NAME, its count points assigned to its areas.
    Add {
        /// The SQLite file the set is added to (replaced atomically on success).
        #[arg(long, env = "ROADTRAFFIC_DB")]
        db: PathBuf,
        /// The set's name: a lower-case letter, then up to 63 lower-case letters, digits or _.
        name: String,
        /// The boundary file.
        file: PathBuf,
        /// The property giving each area its id [default: code, then id, then the feature's id].
        #[arg(long, value_name = "F")]
        id_field: Option<String>,
        /// The property giving each area its name [default: name; else the id].
        #[arg(long, value_name = "F")]
        name_field: Option<String>,
        /// The GeoPackage layer to read, when it has several.
        #[arg(long, value_name = "L")]
        layer: Option<String>,
        /// Replace the set NAME if it is there, instead of refusing.
        #[arg(long)]
        replace: bool,
        /// No report on stderr (errors are still printed).
        #[arg(long, short)]
        quiet: bool,
    },
    /// List the sets in --db: name, features, CRS, source file, its SHA-256, when added.
    List {
        /// The SQLite file.
        #[arg(long, env = "ROADTRAFFIC_DB")]
        db: PathBuf,
        /// Print the listing as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Drop the set NAME, its areas and their count points from --db.
    Drop {
        /// The SQLite file the set is dropped from (replaced atomically on success).
        #[arg(long, env = "ROADTRAFFIC_DB")]
        db: PathBuf,
        /// The set's name.
        name: String,
    },
}

/// Runs the command line: parses the arguments, loads or compares, reports. Logging is the
/// caller's.
pub fn main() -> ExitCode {
    let args = Args::parse();
    match args.command {
        Some(Command::Diff {
            old,
            new,
            report_json,
            quiet,
        }) => run_diff(&old, &new, report_json.as_deref(), quiet),
        Some(Command::Releases { db, json }) => run_releases(&db, json),
        Some(Command::Areas { command }) => run_areas(command),
        None => match args.drop_release.clone() {
            Some(name) => run_drop(&args.db.unwrap_or_default(), &name, args.quiet),
            None => run_load(args),
        },
    }
}

fn run_diff(old: &Path, new: &Path, report_json: Option<&Path>, quiet: bool) -> ExitCode {
    let changes = match diff::compare_files(old, new) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("roadtraffic-load diff: {e}");
            return ExitCode::FAILURE;
        }
    };
    if !quiet {
        eprint!("{}", diff::human(&changes));
    }
    let json = serde_json::to_string_pretty(&changes).expect("the comparison serialises");
    write_json(report_json, &json)
}

fn run_releases(db: &Path, json: bool) -> ExitCode {
    match load::list_releases(db, json) {
        Ok(listing) => {
            print!("{listing}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("roadtraffic-load releases: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_areas(command: AreasCommand) -> ExitCode {
    match command {
        AreasCommand::Add {
            db,
            name,
            file,
            id_field,
            name_field,
            layer,
            replace,
            quiet,
        } => {
            let opts = areas::AddOptions {
                db,
                name,
                file,
                fields: roadtraffic_areas::Fields {
                    id: id_field,
                    name: name_field,
                    layer,
                },
                replace,
            };
            match areas::add(&opts) {
                Ok(added) => {
                    if !quiet {
                        eprintln!(
                            "Added area set {}: {} areas ({}) from {}, {} count points in them; \
                             wrote {}",
                            opts.name,
                            added.areas,
                            added.crs,
                            opts.file.display(),
                            added.memberships,
                            opts.db.display()
                        );
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => refused(&e, &opts.db, None),
            }
        }
        AreasCommand::List { db, json } => match areas::list(&db, json) {
            Ok(listing) => {
                print!("{listing}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("roadtraffic-load areas: {e}");
                ExitCode::FAILURE
            }
        },
        AreasCommand::Drop { db, name } => match areas::drop_set(&db, &name) {
            Ok(()) => {
                eprintln!("Dropped area set {name} from {}", db.display());
                ExitCode::SUCCESS
            }
            Err(e) => refused(&e, &db, None),
        },
    }
}

fn run_drop(db: &Path, name: &str, quiet: bool) -> ExitCode {
    match load::drop_release(db, name) {
        Ok(kept) => {
            if !quiet {
                eprintln!(
                    "Dropped release {name}; kept, oldest first: {}",
                    kept.join(", ")
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => refused(&e, db, None),
    }
}

/// Writes a JSON report where asked; a failure to write it is the run's failure.
fn write_json(path: Option<&Path>, json: &str) -> ExitCode {
    if let Some(path) = path {
        if let Err(e) = std::fs::write(path, json) {
            eprintln!("roadtraffic-load: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

fn run_load(args: Args) -> ExitCode {
    let db = args.db.clone().unwrap_or_default();
    let show = match (args.quiet, std::io::stderr().is_terminal()) {
        (true, _) => Show::Nothing,
        (false, true) => Show::Bar,
        (false, false) => Show::Lines,
    };
    let fetch = args.fetch.fetch.then(|| FetchOptions {
        source: args.fetch.source.clone(),
        cache_dir: (args.fetch.cache_dir.clone()).unwrap_or_else(|| fetch::default_cache_dir(&db)),
        retries: args.fetch.retries,
        show,
    });
    if let (true, Some(fetch)) = (args.fetch.download_only, &fetch) {
        return match fetch::fetch_release(fetch) {
            Ok(_) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("roadtraffic-load: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let opts = LoadOptions {
        db,
        inputs: args.inputs,
        skip_bad_rows: args.skip_bad_rows,
        keep_first: args.keep_first,
        release: args.release,
        replace_release: args.replace_release,
        keep: args.keep.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        share_rows: args.share_rows || !args.whole_rows,
        countries: args.countries,
        progress: show == Show::Bar,
        allow_shrink: args.allow_shrink,
        max_record_bytes: args.max_record_bytes,
        fetch,
        rendered_records: args.rendered_records,
        downloads_dir: args.downloads_dir,
    };
    let report_json = args.report_json.as_deref();
    match load::run(&opts) {
        Ok(report) => loaded(&report, &opts.db, args.quiet, report_json),
        Err(e) => refused(&e, &opts.db, report_json),
    }
}

fn loaded(report: &LoadReport, db: &Path, quiet: bool, report_json: Option<&Path>) -> ExitCode {
    if !quiet {
        eprint!("{}", report.human());
        if let Some(changes) = &report.changes {
            eprint!("{}", diff::human(changes));
        }
        eprintln!("Wrote {}", db.display());
    }
    write_json(report_json, &report.to_json())
}

fn refused(e: &LoadError, db: &Path, report_json: Option<&Path>) -> ExitCode {
    if let (Some(path), LoadError::BadRows(report) | LoadError::Shrinks(report)) = (report_json, e)
    {
        let _ = std::fs::write(path, report.to_json());
    }
    eprintln!("roadtraffic-load: {e}");
    eprintln!(
        "roadtraffic-load: nothing was changed: {} is as it was",
        db.display()
    );
    ExitCode::FAILURE
}
