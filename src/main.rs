//! `roadtraffic-serve`: the server (`roadtraffic_server`), after building the bundled sample
//! with the loader (`roadtraffic_loader`) when the default file is missing, so that the first
//! command of the README works on a fresh clone. This main is the one place the two meet.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use roadtraffic_server::{self as server, release, Config, DEFAULT_DB, SAMPLE_DIR, SAMPLE_RELEASE};

/// Response buffers of every size come and go on many threads; mimalloc hands the memory back
/// where the system allocator keeps growing per-thread arenas.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod allocator;

#[actix_web::main]
async fn main() -> ExitCode {
    allocator::bound_memory();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    match serve(Config::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        // One clear line, like every refusal: no debug dump of the error after it.
        Err(e) => {
            eprintln!("roadtraffic-serve: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Serves until stopped by SIGTERM or SIGINT (gracefully: see `roadtraffic_server::shutdown`).
async fn serve(config: Config) -> std::io::Result<()> {
    ensure_default_db(&config.db)?;
    let running = server::bind(config)?;
    log::info!("listening on http://{}", running.addr);
    server::serve_until_stopped(running).await
}

/// Builds the default file from the bundled sample when it is missing, or when it is the
/// sample as an older version built it (a file of anything else is left alone).
fn ensure_default_db(db: &Path) -> std::io::Result<()> {
    if db != Path::new(DEFAULT_DB) {
        return Ok(());
    }
    if !db.exists() {
        log::info!("{} is missing: building it from {SAMPLE_DIR}", db.display());
    } else if release::is_stale_sample(db) {
        log::info!(
            "{} is the sample of another version: building it again",
            db.display()
        );
    } else {
        return Ok(());
    }
    let opts = roadtraffic_loader::LoadOptions {
        db: db.to_path_buf(),
        inputs: vec![PathBuf::from(SAMPLE_DIR)],
        release: Some(SAMPLE_RELEASE.into()),
        ..Default::default()
    };
    roadtraffic_loader::run(&opts).map_err(std::io::Error::other)?;
    add_sample_areas(db)
}

/// The sample's hand-made area set (`data/sample-areas/`), added as `zones` so that a fresh
/// start shows one; a copy of the program run away from the repository has the sample alone.
const SAMPLE_AREAS: &str = "data/sample-areas/zones.geojson";

fn add_sample_areas(db: &Path) -> std::io::Result<()> {
    if !Path::new(SAMPLE_AREAS).is_file() {
        log::warn!("{SAMPLE_AREAS} is missing: the sample has no area set");
        return Ok(());
    }
    let opts = roadtraffic_loader::areas::AddOptions {
        db: db.to_path_buf(),
        name: "zones".into(),
        file: PathBuf::from(SAMPLE_AREAS),
        fields: Default::default(),
        replace: false,
    };
    roadtraffic_loader::areas::add(&opts)
        .map(|_| ())
        .map_err(std::io::Error::other)
}
