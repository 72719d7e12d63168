//! Prometheus metrics, in the text format `/metrics` answers: every request counted by the
//! middleware [`observe`] (so every route, whoever adds it, is counted), what the SQLite layer
//! reports (`crate::release::DbMetrics`), and the release in service, read when scraped.
//!
//! Requests are labelled by endpoint, never the raw path, so the number of series stays
//! bounded whatever clients ask: the route table gives each request its [`Label`], a template
//! (`/api/raw-counts`, `/readyz`) kept whatever the answer, or a section (the path's first
//! segment, `/docs`) kept for an answer of 2xx or 3xx; any other answer is labelled
//! `unmatched` (a 404) or `other`.

use std::borrow::Cow;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Instant, SystemTime};

use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::web::{self, Bytes};
use actix_web::{HttpMessage, HttpRequest};
use prometheus::{
    Encoder, Gauge, HistogramOpts, HistogramVec, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder,
};

use crate::error::ApiError;
use crate::release::{DbMetrics, Listing, Release};
use crate::rows::FilterSets;
use crate::wire::SplicedBytes;

use super::access_log::Access;

/// Request durations, in seconds: from a 1 ms page to a 30,000-row page sent to a slow client.
const DURATION_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// What a request's `endpoint` label is made from (see the module's documentation).
#[derive(Clone, Debug)]
pub enum Label {
    /// A route template (`/api/raw-counts`, not its query or ids), whatever the answer.
    Template(Cow<'static, str>),
    /// The path's first segment, for an answer of 2xx or 3xx.
    Section(String),
}

impl Label {
    /// Labels the request.
    pub fn set(self, req: &HttpRequest) {
        req.extensions_mut().insert(self);
    }
}

/// Every metric of one server.
pub struct Metrics {
    registry: Registry,
    http: HttpMetrics,
    pub db: std::sync::Arc<DbMetrics>,
    release: ReleaseGauges,
    /// One scrape at a time sets the release's gauges and encodes them.
    scrape: Mutex<()>,
}

struct HttpMetrics {
    requests: IntCounterVec,
    duration: HistogramVec,
    in_flight: IntGauge,
    bytes: IntCounterVec,
}

/// The release in service, set from it at each scrape.
struct ReleaseGauges {
    info: IntGaugeVec,
    loaded: Gauge,
    serving_since: Gauge,
    rows: IntGaugeVec,
    connections: IntGaugeVec,
    filter_set_bytes: IntGauge,
    kept: IntGaugeVec,
}

fn register<T: prometheus::core::Collector + Clone + 'static>(
    registry: &Registry,
    metric: T,
) -> prometheus::Result<T> {
    registry.register(Box::new(metric.clone()))?;
    Ok(metric)
}

fn opts(name: &str, help: &str) -> Opts {
    Opts::new(name, help)
}

impl HttpMetrics {
    fn new(r: &Registry) -> prometheus::Result<Self> {
        let duration = HistogramOpts::new(
            "roadtraffic_http_request_duration_seconds",
            "Time from a request's arrival to the last byte of its response handed to the socket",
        )
        .buckets(DURATION_BUCKETS.to_vec());
        Ok(HttpMetrics {
            requests: register(
                r,
                IntCounterVec::new(
                    opts("roadtraffic_http_requests_total", "Requests answered"),
                    &["endpoint", "status"],
                )?,
            )?,
            duration: register(r, HistogramVec::new(duration, &["endpoint"])?)?,
            in_flight: register(
                r,
                IntGauge::with_opts(opts(
                    "roadtraffic_http_requests_in_flight",
                    "Requests whose response is not yet wholly sent",
                ))?,
            )?,
            bytes: register(
                r,
                IntCounterVec::new(
                    opts(
                        "roadtraffic_http_response_bytes_total",
                        "Response body bytes sent (after compression)",
                    ),
                    &["endpoint"],
                )?,
            )?,
        })
    }
}

impl ReleaseGauges {
    fn new(r: &Registry) -> prometheus::Result<Self> {
        let gauge = |name: &str, help: &str| register(r, Gauge::with_opts(opts(name, help))?);
        let vec = |name: &str, help: &str, label: &str| {
            register(r, IntGaugeVec::new(opts(name, help), &[label])?)
        };
        Ok(ReleaseGauges {
            info: register(
                r,
                IntGaugeVec::new(
                    opts(
                        "roadtraffic_release_info",
                        "The release in service (always 1): its label and id",
                    ),
                    &["release", "id"],
                )?,
            )?,
            loaded: gauge(
                "roadtraffic_release_loaded_timestamp_seconds",
                "When the release in service was built by roadtraffic-load (Unix time)",
            )?,
            serving_since: gauge(
                "roadtraffic_release_serving_since_timestamp_seconds",
                "When this server started answering from the release in service (Unix time)",
            )?,
            rows: vec(
                "roadtraffic_table_rows",
                "Rows per table of the release in service",
                "table",
            )?,
            connections: vec(
                "roadtraffic_sqlite_connections",
                "SQLite connections of the release in service, busy or idle",
                "state",
            )?,
            kept: register(
                r,
                IntGaugeVec::new(
                    opts(
                        "roadtraffic_release_kept_info",
                        "Each release served under /releases/{name} (always 1): its name, id \
                         and whether it is the latest",
                    ),
                    &["release", "id", "latest"],
                )?,
            )?,
            filter_set_bytes: register(
                r,
                IntGauge::with_opts(opts(
                    "roadtraffic_filter_set_cache_bytes",
                    "Memory held by the filter sets learnt (bounded by --filter-set-cache-mib)",
                ))?,
            )?,
        })
    }

    fn set_kept(&self, listing: &Listing) {
        self.kept.reset();
        let latest = listing.latest();
        for r in &listing.releases {
            let is_latest = if Some(r.name.as_str()) == latest {
                "true"
            } else {
                "false"
            };
            self.kept
                .with_label_values(&[r.name.as_str(), &r.id, is_latest])
                .set(1);
        }
    }

    fn set(&self, release: &Release) {
        let about = &release.about;
        self.info.reset();
        self.info
            .with_label_values(&[about.label.as_deref().unwrap_or(""), &about.id])
            .set(1);
        self.loaded.set(about.loaded_at.map_or(0.0, unix_seconds));
        self.serving_since.set(unix_seconds(about.serving_since));
        for (table, rows) in release.table_rows() {
            self.rows.with_label_values(&[table]).set(rows);
        }
        let pool = release.pool.state();
        let idle = i64::from(pool.idle_connections);
        let busy = i64::from(pool.connections) - idle;
        self.connections.with_label_values(&["busy"]).set(busy);
        self.connections.with_label_values(&["idle"]).set(idle);
        let filter_sets = release.kept.get::<FilterSets>();
        let bytes = filter_sets.map_or(0, |sets| sets.bytes());
        self.filter_set_bytes
            .set(bytes.try_into().unwrap_or(i64::MAX));
    }
}

fn unix_seconds(t: SystemTime) -> f64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl Metrics {
    pub fn new() -> prometheus::Result<Metrics> {
        let registry = Registry::new();
        registry.register(Box::new(
            prometheus::process_collector::ProcessCollector::for_self(),
        ))?;
        Ok(Metrics {
            http: HttpMetrics::new(&registry)?,
            db: std::sync::Arc::new(DbMetrics::new(&registry)?),
            release: ReleaseGauges::new(&registry)?,
            registry,
            scrape: Mutex::new(()),
        })
    }

    /// Requests whose response is not yet wholly sent.
    pub fn in_flight(&self) -> i64 {
        self.http.in_flight.get()
    }

    /// Every metric in the Prometheus text format, the release's read from `release`.
    pub fn render(&self, release: &Release, kept: &Listing) -> Result<String, ApiError> {
        let _one_at_a_time = self.scrape.lock().unwrap_or_else(PoisonError::into_inner);
        self.release.set(release);
        self.release.set_kept(kept);
        let mut out = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut out)
            .map_err(ApiError::internal)?;
        String::from_utf8(out).map_err(ApiError::internal)
    }
}

/// The middleware: counts the request in flight until its response body is wholly sent (or
/// dropped), then records its endpoint, status, duration and bytes.
pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<Metered>, actix_web::Error> {
    let Some(metrics) = req.app_data::<web::Data<Metrics>>().cloned() else {
        return Err(actix_web::error::ErrorInternalServerError(
            "metrics are not set up",
        ));
    };
    metrics.http.in_flight.inc();
    let started = Instant::now();
    let result = next.call(req).await;
    let res = match result {
        Ok(res) => res.map_into_boxed_body(),
        // Not ours to answer: count it with its status, then pass it on.
        Err(e) => {
            let status = e.as_response_error().status_code();
            let counted = (metrics, "other".into(), status, started);
            drop(Metered::new(counted, BoxBody::new(())));
            return Err(e);
        }
    };
    let endpoint = endpoint_of(res.request(), res.status());
    let status = res.status();
    let spliced = res.request().extensions().get::<SplicedBytes>().cloned();
    let access = Access::of(res.request(), status);
    Ok(res.map_body(|_, body| {
        let mut metered = Metered::new((metrics, endpoint, status, started), body);
        (metered.spliced, metered.access) = (spliced, access);
        metered
    }))
}

/// The endpoint label of an answered request (see the module's documentation).
fn endpoint_of(req: &HttpRequest, status: StatusCode) -> Cow<'static, str> {
    let succeeded = status.is_success() || status.is_redirection();
    match req.extensions().get::<Label>() {
        Some(Label::Template(template)) => template.clone(),
        Some(Label::Section(section)) if succeeded => section.clone().into(),
        _ if status == StatusCode::NOT_FOUND => "unmatched".into(),
        _ => "other".into(),
    }
}

/// A response body that counts its bytes as they go, and records the request when dropped:
/// after its last chunk, or when the client goes away.
pub struct Metered {
    body: BoxBody,
    sent: u64,
    metrics: web::Data<Metrics>,
    endpoint: Cow<'static, str>,
    status: StatusCode,
    started: Instant,
    /// The bytes sent by `sendfile` in place of the markers yielded (`crate::wire`).
    spliced: Option<SplicedBytes>,
    /// Its line of the access log, when the log is on.
    access: Option<Access>,
}

/// What a request is recorded with: the metrics, its endpoint, its status, when it came.
type Counted = (web::Data<Metrics>, Cow<'static, str>, StatusCode, Instant);

impl Metered {
    fn new(counted: Counted, body: BoxBody) -> Self {
        let (metrics, endpoint, status, started) = counted;
        Metered {
            body,
            sent: 0,
            metrics,
            endpoint,
            status,
            started,
            spliced: None,
            access: None,
        }
    }
}

impl MessageBody for Metered {
    type Error = <BoxBody as MessageBody>::Error;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        let this = self.get_mut();
        let next = Pin::new(&mut this.body).poll_next(cx);
        if let Poll::Ready(Some(Ok(chunk))) = &next {
            this.sent += chunk.len() as u64;
        }
        next
    }
}

impl Drop for Metered {
    fn drop(&mut self) {
        let http = &self.metrics.http;
        let endpoint: &str = &self.endpoint;
        http.requests
            .with_label_values(&[endpoint, self.status.as_str()])
            .inc();
        http.duration
            .with_label_values(&[endpoint])
            .observe(self.started.elapsed().as_secs_f64());
        let sent = self.sent + self.spliced.as_ref().map_or(0, SplicedBytes::total);
        http.bytes.with_label_values(&[endpoint]).inc_by(sent);
        http.in_flight.dec();
        if let Some(access) = &self.access {
            access.log(sent, self.started.elapsed());
        }
    }
}
