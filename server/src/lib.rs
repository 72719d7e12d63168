//! The HTTP server: the public API's paths answered from the loaded file.

mod envelope;
pub mod error;
mod json;
mod listing;
pub mod query;
mod ratelimit;
pub mod release;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use actix_web::http::{header, Method, StatusCode};
use actix_web::middleware::{Compress, Condition, DefaultHeaders, Logger};
use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer, ResponseError};

use error::ApiError;
use listing::ListRequest;
use release::Current;
use roadtraffic_catalog::{Dataset, DATASETS};

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
    /// Largest accepted page[size].
    #[arg(long, env = "ROADTRAFFIC_MAX_PAGE_SIZE", default_value_t = 100_000)]
    pub max_page_size: i64,
    /// HTTP worker threads (default: one per core).
    #[arg(long, env = "ROADTRAFFIC_WORKERS")]
    pub workers: Option<usize>,
    /// SQLite connections, so the number of queries run at once (default: 2 per core).
    #[arg(long, env = "ROADTRAFFIC_CONNECTIONS")]
    pub connections: Option<u32>,
    /// Longest a query may run, in milliseconds, before the request gets a 503.
    #[arg(long, env = "ROADTRAFFIC_QUERY_TIMEOUT", default_value_t = 5000)]
    pub query_timeout: u64,
    /// Requests per minute per client IP; 0 turns rate limiting off.
    #[arg(long, env = "ROADTRAFFIC_RATE_LIMIT", default_value_t = 0)]
    pub rate_limit: u32,
    /// Negotiate gzip/br compression (off by default: some clients keep raw bytes).
    #[arg(long, env = "ROADTRAFFIC_COMPRESS")]
    pub compress: bool,
    /// How often to look for a new file at --db, in milliseconds.
    #[arg(long, env = "ROADTRAFFIC_WATCH_INTERVAL", default_value_t = 500)]
    pub watch_interval: u64,
}

pub const DEFAULT_DB: &str = "data/roadtraffic.db";
pub const SAMPLE_DIR: &str = "data/sample";

struct AppState {
    current: Arc<Current>,
    config: Config,
    limiter: Option<ratelimit::Limiter>,
    /// Permits for requests of more than [`HEAVY_ROWS`] rows.
    heavy: Arc<tokio::sync::Semaphore>,
}

/// Pages of more rows than this are heavy: at most half the connections serve them at once.
const HEAVY_ROWS: i64 = 1000;

/// The dataset a request path names, if any.
fn dataset_for(path: &str) -> Option<&'static Dataset> {
    let path = path
        .strip_suffix('/')
        .filter(|p| !p.is_empty())
        .unwrap_or(path);
    DATASETS.iter().copied().find(|d| d.paths.contains(&path))
}

fn base_url(req: &HttpRequest, config: &Config) -> String {
    match &config.public_url {
        Some(u) => u.trim_end_matches('/').to_string(),
        None => {
            let info = req.connection_info();
            format!("{}://{}", info.scheme(), info.host())
        }
    }
}

async fn dispatch(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let Some(limiter) = &state.limiter else {
        return answer(&req, &state)
            .await
            .unwrap_or_else(|e| e.error_response());
    };
    // With rate limiting on, every response carries the limit and what is left of it.
    let (limit, remaining, result) = match limiter.check(&req) {
        Ok((limit, remaining)) => (limit, remaining, answer(&req, &state).await),
        Err(e) => (limiter.per_minute(), 0, Err(e)),
    };
    let mut response = result.unwrap_or_else(|e| e.error_response());
    for (name, value) in [
        ("x-ratelimit-limit", limit),
        ("x-ratelimit-remaining", remaining),
    ] {
        response.headers_mut().insert(
            header::HeaderName::from_static(name),
            header::HeaderValue::from(value),
        );
    }
    response
}

async fn answer(req: &HttpRequest, state: &AppState) -> Result<HttpResponse, ApiError> {
    let config = &state.config;
    let raw_path = req.path();
    let route = raw_path.strip_prefix(config.base_path.trim_end_matches('/'));
    let dataset = route.and_then(dataset_for);
    if req.method() == Method::OPTIONS {
        return Ok(HttpResponse::NoContent()
            .insert_header((header::ACCESS_CONTROL_ALLOW_METHODS, "GET, HEAD, OPTIONS"))
            .insert_header((header::ACCESS_CONTROL_ALLOW_HEADERS, "*"))
            .insert_header((header::ACCESS_CONTROL_MAX_AGE, "86400"))
            .finish());
    }
    let Some(dataset) = dataset else {
        let shown = query::url_decode(raw_path.trim_start_matches('/'));
        return Err(ApiError::NotFound(shown));
    };
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return Err(ApiError::MethodNotAllowed(req.method().to_string()));
    }
    let params = query::parse(req.query_string());
    let request = ListRequest::parse(dataset, &params, config.max_page_size)?;
    let release = state.current.get();
    let path = format!(
        "{}{}",
        base_url(req, config),
        raw_path.trim_end_matches('/')
    );
    let etag = format!(
        "\"{}-{:x}\"",
        release.tag,
        roadtraffic_catalog::stable_hash(&format!("{path}?{}", req.query_string()))
    );
    if let Some(inm) = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
    {
        if inm.split(',').any(|t| t.trim() == etag || t.trim() == "*") {
            return Ok(HttpResponse::NotModified()
                .insert_header((header::ETAG, etag))
                .finish());
        }
    }
    let time_limit = Duration::from_millis(config.query_timeout);
    // Big pages wait their turn for one of a few permits, so that crawlers asking for 30,000
    // rows at a time cannot take every connection from the light requests.
    let permit = if request.rows_asked() > HEAVY_ROWS {
        Some(
            state
                .heavy
                .clone()
                .acquire_owned()
                .await
                .map_err(ApiError::internal)?,
        )
    } else {
        None
    };
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel::<Result<Option<Vec<u8>>, ApiError>>();
    let (chunk_tx, chunk_rx) = tokio::sync::mpsc::channel::<Chunk>(2);
    actix_web::rt::task::spawn_blocking(move || {
        let _permit = permit;
        let mut ready = Some(ready_tx);
        let mut flush = |chunk: Vec<u8>| {
            // A second chunk: the body is streamed from here on.
            if let Some(ready) = ready.take() {
                let _ = ready.send(Ok(None));
            }
            send_chunk(&chunk_tx, Ok(web::Bytes::from(chunk)))
        };
        let result = request.run(&release, &path, &params, time_limit, &mut flush);
        match (result, ready.take()) {
            (Ok(body), Some(ready)) => drop(ready.send(Ok(Some(body)))),
            (Err(e), Some(ready)) => drop(ready.send(Err(e))),
            (Ok(rest), None) => drop(send_chunk(&chunk_tx, Ok(web::Bytes::from(rest)))),
            (Err(ApiError::ClientGone), None) => log::debug!("the client went away mid-response"),
            (Err(e), None) => {
                // Too late for a status: cut the response short so the client sees it fail.
                log::error!("response cut short: {e:?}");
                drop(send_chunk(
                    &chunk_tx,
                    Err(std::io::Error::other("response cut short")),
                ));
            }
        }
    });
    let mut response = HttpResponse::build(StatusCode::OK);
    response
        .insert_header((header::CONTENT_TYPE, "application/json"))
        .insert_header((header::ETAG, etag));
    match ready_rx.await.map_err(ApiError::internal)?? {
        Some(body) => Ok(response.body(body)),
        None => {
            let chunks = futures_util::stream::unfold(chunk_rx, |mut rx| async move {
                rx.recv().await.map(|c| (c, rx))
            });
            Ok(response.streaming(chunks))
        }
    }
}

/// A client that takes nothing of a streamed body for this long is given up on, so that it
/// does not hold its connection and its heavy-request permit for ever.
const STALLED_CLIENT: Duration = Duration::from_secs(30);

type Chunk = Result<web::Bytes, std::io::Error>;

/// Hands a chunk to the response stream, waiting while the client reads, but not for ever.
fn send_chunk(tx: &tokio::sync::mpsc::Sender<Chunk>, chunk: Chunk) -> Result<(), ApiError> {
    use tokio::sync::mpsc::error::TrySendError;
    let started = std::time::Instant::now();
    let mut chunk = chunk;
    loop {
        match tx.try_send(chunk) {
            Ok(()) => return Ok(()),
            Err(TrySendError::Closed(_)) => return Err(ApiError::ClientGone),
            Err(TrySendError::Full(back)) if started.elapsed() < STALLED_CLIENT => {
                chunk = back;
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(TrySendError::Full(_)) => return Err(ApiError::ClientGone),
        }
    }
}

/// Opens the file and binds the listener; the returned server runs when awaited.
pub fn start(config: Config) -> std::io::Result<(actix_web::dev::Server, SocketAddr)> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let connections = config.connections.unwrap_or(2 * cores as u32).max(1);
    let current = Arc::new(Current::open(&config.db, connections).map_err(std::io::Error::other)?);
    current.watch(Duration::from_millis(config.watch_interval.max(50)));
    let workers = config.workers.unwrap_or(cores).max(1);
    let limiter = (config.rate_limit > 0).then(|| ratelimit::Limiter::new(config.rate_limit));
    let compress = config.compress;
    let state = web::Data::new(AppState {
        current,
        config: config.clone(),
        limiter,
        heavy: Arc::new(tokio::sync::Semaphore::new(
            (connections as usize / 2).max(1),
        )),
    });
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .wrap(Condition::new(compress, Compress::default()))
            .wrap(
                DefaultHeaders::new()
                    .add((header::CONTENT_TYPE, "application/json"))
                    .add((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"))
                    .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
                    .add((header::X_FRAME_OPTIONS, "Deny"))
                    .add((header::CACHE_CONTROL, "no-cache, private"))
                    .add((
                        header::CONTENT_SECURITY_POLICY,
                        "default-src 'none'; frame-ancestors 'none'",
                    )),
            )
            .wrap(Logger::new("%a \"%r\" %s %b %Dms"))
            .default_service(web::to(dispatch))
    })
    .workers(workers)
    // SQLite work runs on the blocking pool; more threads than connections would only wait.
    .worker_max_blocking_threads((connections as usize).max(2))
    .client_request_timeout(Duration::from_secs(10))
    .client_disconnect_timeout(Duration::from_secs(5))
    .keep_alive(Duration::from_secs(30))
    .bind(&config.bind)?;
    let addr = server
        .addrs()
        .first()
        .copied()
        .ok_or_else(|| std::io::Error::other("no address bound"))?;
    Ok((server.run(), addr))
}
