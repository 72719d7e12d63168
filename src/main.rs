//! `roadtraffic-serve`: the API server. Everything but argument parsing lives in the library.

use clap::Parser;
use roadtraffic::server::{self, Config};

/// Response buffers of every size come and go on many threads; mimalloc hands the memory back
/// where the system allocator keeps growing per-thread arenas.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let config = Config::parse();
    let (server, addr) =
        server::start(config).inspect_err(|e| eprintln!("roadtraffic-serve: {e}"))?;
    log::info!("listening on http://{addr}");
    server.await
}
