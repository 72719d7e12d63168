//! The server's configuration: every option, from the command line or the environment.

use std::path::PathBuf;

/// Serve the road traffic API from a file built by roadtraffic-load.
#[derive(clap::Parser, Debug, Clone)]
#[command(name = "roadtraffic-serve", version)]
pub struct Config {
    /// The SQLite file built by roadtraffic-load. When it is missing and is the default, it is
    /// first built from the bundled sample in data/sample.
    #[arg(long, env = "ROADTRAFFIC_DB", default_value = DEFAULT_DB)]
    pub db: PathBuf,
    /// Address and port to listen on.
    #[arg(long, env = "ROADTRAFFIC_BIND", default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// Scheme and host used in the envelope's URLs (e.g. https://traffic.example.org);
    /// by default those of each request.
    #[arg(long, env = "ROADTRAFFIC_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Path prefix of every endpoint.
    #[arg(long, env = "ROADTRAFFIC_BASE_PATH", default_value = "/api")]
    pub base_path: String,
    /// Path prefix of the same endpoints in the envelope the public service served until
    /// about 2020 (`data`, `links`, `meta`), for the clients written for it; empty: not served.
    #[arg(
        long,
        env = "ROADTRAFFIC_LEGACY_BASE_PATH",
        default_value = "/legacy/api"
    )]
    pub legacy_base_path: String,
    /// Largest accepted page[size].
    #[arg(long, env = "ROADTRAFFIC_MAX_PAGE_SIZE", default_value_t = 100_000)]
    pub max_page_size: i64,
    /// HTTP worker threads (default: one per core).
    #[arg(long, env = "ROADTRAFFIC_WORKERS")]
    pub workers: Option<usize>,
    /// SQLite connections, so the number of queries run at once (default: 2 per core).
    #[arg(long, env = "ROADTRAFFIC_CONNECTIONS")]
    pub connections: Option<u32>,
    /// Longest a query may run, in milliseconds, before the request gets a 503. 0 stops a
    /// request's queries once they have run 10,000 of SQLite's instructions, where a limit
    /// first looks at the clock: the same on any machine (for tests).
    #[arg(long, env = "ROADTRAFFIC_QUERY_TIMEOUT", default_value_t = 5000)]
    pub query_timeout: u64,
    /// Requests per minute per client IP; 0 turns rate limiting off.
    #[arg(long, env = "ROADTRAFFIC_RATE_LIMIT", default_value_t = 0)]
    pub rate_limit: u32,
    /// Negotiate br, gzip or deflate compression (off by default: some clients keep raw bytes).
    #[arg(long, env = "ROADTRAFFIC_COMPRESS")]
    pub compress: bool,
    /// The response cache of each loaded file, in MiB: finished bodies of the hot pages (and
    /// their compressed forms), least recently used first out; 0 turns it off.
    #[arg(long, env = "ROADTRAFFIC_RESPONSE_CACHE_MB", default_value_t = 64)]
    pub response_cache_mb: u64,
    /// The `cache-control` header of every response; e.g. `public, max-age=300` to let a
    /// shared cache (nginx proxy_cache, a CDN) in front keep responses.
    #[arg(
        long,
        env = "ROADTRAFFIC_CACHE_CONTROL",
        default_value = "no-cache, private"
    )]
    pub cache_control: String,
    /// How often to look for a new file at --db, in milliseconds.
    #[arg(long, env = "ROADTRAFFIC_WATCH_INTERVAL", default_value_t = 500)]
    pub watch_interval: u64,
    /// On SIGTERM or SIGINT, how long the requests in flight may take to finish, in seconds,
    /// before they are cut and the server exits.
    #[arg(long, env = "ROADTRAFFIC_SHUTDOWN_TIMEOUT", default_value_t = 30)]
    pub shutdown_timeout: u64,
    /// SQLite's page cache, in MiB, shared out among the connections.
    #[arg(long, env = "ROADTRAFFIC_SQLITE_CACHE_MIB", default_value_t = 16)]
    pub sqlite_cache_mib: u64,
    /// How much of each SQLite file is read through a memory map rather than copied in by
    /// `pread`, in MiB (SQLite caps it at 2 GiB a file); 0, the default, reads every page with
    /// `pread`. Mapped, a cold page costs about 0.86 of the CPU; but the mapped pages, the
    /// kernel's page cache, count in the server's RSS once touched (1.4 GB after the cold mix
    /// on a full-size file, against 136 MB), which the memory bounds operators watch would read
    /// as growth: off unless asked for.
    #[arg(long, env = "ROADTRAFFIC_SQLITE_MMAP_MIB", default_value_t = 0)]
    pub sqlite_mmap_mib: u64,
    /// Memory the learnt filter sets (totals and checkpoints of filtered listings) may hold, in
    /// MiB; past it the oldest half is forgotten.
    #[arg(long, env = "ROADTRAFFIC_FILTER_SET_CACHE_MIB", default_value_t = 16)]
    pub filter_set_cache_mib: u64,
    /// Where the downloads are kept once written (each national file as CSV, zip and Parquet,
    /// and the split files asked for), a folder per release; by default beside --db, in
    /// FILE.downloads. If it cannot be made, a folder in the system's temporary folder.
    #[arg(long, env = "ROADTRAFFIC_DOWNLOADS_DIR")]
    pub downloads_dir: Option<PathBuf>,
    /// Write the national files only when first asked for, not as soon as a release is served.
    #[arg(long, env = "ROADTRAFFIC_LAZY_DOWNLOADS")]
    pub lazy_downloads: bool,
}

pub const DEFAULT_DB: &str = "data/roadtraffic.db";
pub const SAMPLE_DIR: &str = "data/sample";
/// The release label of a file built from the bundled sample.
pub const SAMPLE_RELEASE: &str = "bundled sample";

impl Config {
    /// Scheme and host of this mirror as its users reach it: `--public-url`, else the
    /// request's.
    pub fn public_base(&self, req: &actix_web::HttpRequest) -> String {
        match &self.public_url {
            Some(u) => u.trim_end_matches('/').to_string(),
            None => {
                let info = req.connection_info();
                format!("{}://{}", info.scheme(), info.host())
            }
        }
    }

    fn cores() -> usize {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    }

    /// SQLite connections: queries run at once.
    pub fn connections(&self) -> u32 {
        self.connections.unwrap_or(2 * Self::cores() as u32).max(1)
    }

    /// HTTP worker threads.
    pub fn workers(&self) -> usize {
        self.workers.unwrap_or(Self::cores()).max(1)
    }

    /// SQLite's page cache per connection, in KiB (at least 256).
    pub fn cache_kib_per_connection(&self) -> u64 {
        (self.sqlite_cache_mib * 1024 / u64::from(self.connections())).max(256)
    }

    /// How much of each SQLite file is memory-mapped, in bytes (`--sqlite-mmap-mib`).
    pub fn mmap_bytes(&self) -> u64 {
        self.sqlite_mmap_mib.saturating_mul(1 << 20)
    }

    /// What the learnt filter sets may hold, in bytes.
    pub fn filter_set_bytes(&self) -> usize {
        usize::try_from(self.filter_set_cache_mib << 20).unwrap_or(usize::MAX)
    }

    /// The folder the downloads are kept in (`--downloads-dir`).
    pub fn downloads_dir(&self) -> PathBuf {
        self.downloads_dir.clone().unwrap_or_else(|| {
            let mut name = self.db.as_os_str().to_owned();
            name.push(".downloads");
            PathBuf::from(name)
        })
    }

    /// The base path without a trailing slash (`/api`).
    pub fn base_path(&self) -> &str {
        self.base_path.trim_end_matches('/')
    }

    /// The legacy base path without a trailing slash (`/legacy/api`), if it is served.
    pub fn legacy_base_path(&self) -> Option<&str> {
        Some(self.legacy_base_path.trim_end_matches('/')).filter(|p| !p.is_empty())
    }
}
