//! `roadtraffic-serve`: the server (`roadtraffic_server`), after building the bundled sample
//! with the loader (`roadtraffic_loader`) when the default file is missing, so that the first
//! command of the README works on a fresh clone. This main is the one place the two meet.

use std::path::{Path, PathBuf};

use clap::Parser;
use roadtraffic_server::{self as server, Config, DEFAULT_DB, SAMPLE_DIR};

/// Response buffers of every size come and go on many threads; mimalloc hands the memory back
/// where the system allocator keeps growing per-thread arenas.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let config = Config::parse();
    ensure_default_db(&config.db).inspect_err(|e| eprintln!("roadtraffic-serve: {e}"))?;
    let (server, addr) =
        server::start(config).inspect_err(|e| eprintln!("roadtraffic-serve: {e}"))?;
    log::info!("listening on http://{addr}");
    server.await
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
