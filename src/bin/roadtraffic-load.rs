//! `roadtraffic-load`: builds the mirror's SQLite file from published CSV files
//! (`roadtraffic_loader::cli`).

use std::process::ExitCode;

/// The loader allocates and frees millions of small cells across two threads; mimalloc does
/// that far faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../allocator.rs"]
mod allocator;

fn main() -> ExitCode {
    allocator::bound_memory();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    roadtraffic_loader::cli::main()
}
