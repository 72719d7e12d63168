//! What the SQLite layer counts: waits for a connection, queries stopped at their time limit,
//! and release switches. The counters are made here, where they are counted, and registered
//! in the registry that `/metrics` encodes (`crate::ops::metrics`), which is handed in.

use prometheus::{Histogram, HistogramOpts, IntCounter, Opts, Registry};

/// Waits for an SQLite connection, in seconds: none, up to the pool's 10 s limit.
const POOL_WAIT_BUCKETS: &[f64] = &[
    0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0,
];

pub struct DbMetrics {
    pub pool_wait: Histogram,
    pub pool_timeouts: IntCounter,
    pub query_timeouts: IntCounter,
    pub switches: IntCounter,
    pub refusals: IntCounter,
}

impl DbMetrics {
    /// The counters, registered in `registry`.
    pub fn new(registry: &Registry) -> prometheus::Result<Self> {
        let counter = |name: &str, help: &str| {
            let counter = IntCounter::with_opts(Opts::new(name, help))?;
            registry.register(Box::new(counter.clone()))?;
            Ok::<_, prometheus::Error>(counter)
        };
        let pool_wait = Histogram::with_opts(
            HistogramOpts::new(
                "roadtraffic_sqlite_pool_wait_seconds",
                "Time a query waited for an SQLite connection",
            )
            .buckets(POOL_WAIT_BUCKETS.to_vec()),
        )?;
        registry.register(Box::new(pool_wait.clone()))?;
        Ok(DbMetrics {
            pool_wait,
            pool_timeouts: counter(
                "roadtraffic_sqlite_pool_timeouts_total",
                "Requests answered 503 because no SQLite connection was free in time",
            )?,
            query_timeouts: counter(
                "roadtraffic_sqlite_query_timeouts_total",
                "Queries stopped at --query-timeout (answered 503)",
            )?,
            switches: counter(
                "roadtraffic_release_switches_total",
                "New files renamed over --db and switched to",
            )?,
            refusals: counter(
                "roadtraffic_release_refusals_total",
                "New files renamed over --db that could not be served (the old release kept)",
            )?,
        })
    }
}
