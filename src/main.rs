//! `roadtraffic-serve`: the server (`roadtraffic_server`), after building the bundled sample
//! with the loader (`roadtraffic_loader`) when the default file is missing, so that the first
//! command of the README works on a fresh clone. This main is the one place the two meet.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use roadtraffic_server::{self as server, Config, DEFAULT_DB, SAMPLE_DIR};

/// Response buffers of every size come and go on many threads; mimalloc hands the memory back
/// where the system allocator keeps growing per-thread arenas.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[actix_web::main]
async fn main() -> ExitCode {
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

/// Builds the default file from the bundled sample when it is missing.
fn ensure_default_db(db: &Path) -> std::io::Result<()> {
    if db.exists() || db != Path::new(DEFAULT_DB) {
        return Ok(());
    }
    log::info!("{} is missing: building it from {SAMPLE_DIR}", db.display());
    let opts = roadtraffic_loader::LoadOptions {
        db: db.to_path_buf(),
        inputs: vec![PathBuf::from(SAMPLE_DIR)],
        release: Some("bundled sample".into()),
        ..Default::default()
    };
    roadtraffic_loader::run(&opts)
        .map(|_| ())
        .map_err(std::io::Error::other)
}
