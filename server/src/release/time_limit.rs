//! The query time limit (`--query-timeout`) of the listings and the site's pages, written once:
//! a connection taken with a limit stops its statement (a 503) once the time spent in SQLite
//! passes it, and is given back to the pool without the limit, whatever happened.

use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::file::{PooledConnection, Release};
use crate::error::ApiError;

/// SQLite's virtual machine instructions between two looks at the clock.
const CHECK_EVERY: i32 = 10_000;

/// A pooled connection whose queries stop at a time limit.
pub struct TimedConnection {
    conn: PooledConnection,
    /// The time allowed, in nanoseconds since `started`: [`TimedConnection::allow_more`]
    /// pushes it back.
    allowed: Arc<AtomicU64>,
}

impl Release {
    /// A connection whose queries stop after `limit` (counted in `query_timeouts`).
    pub fn timed_connection(&self, limit: Duration) -> Result<TimedConnection, ApiError> {
        let conn = self.connection()?;
        let started = Instant::now();
        let allowed = Arc::new(AtomicU64::new(nanos(limit)));
        let limit = allowed.clone();
        let timeouts = self.metrics().query_timeouts.clone();
        conn.progress_handler(
            CHECK_EVERY,
            Some(move || {
                let over = nanos(started.elapsed()) > limit.load(Ordering::Relaxed);
                if over {
                    timeouts.inc();
                }
                over
            }),
        )?;
        Ok(TimedConnection { conn, allowed })
    }
}

impl TimedConnection {
    /// Adds time not spent in SQLite (waiting for a client to take a chunk) to the limit.
    pub fn allow_more(&self, time: Duration) {
        let more = |allowed: u64| Some(allowed.saturating_add(nanos(time)));
        let _ = self
            .allowed
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, more);
    }

    /// `flush`, with the time it spends waiting (for the client to take a chunk) given back to
    /// the limit: a slow reader never makes a query run over its time.
    pub fn paced<'a, E>(
        &'a self,
        flush: &'a mut dyn FnMut(Vec<u8>) -> Result<(), E>,
    ) -> impl FnMut(Vec<u8>) -> Result<(), E> + 'a {
        move |chunk| {
            let waiting = Instant::now();
            let result = flush(chunk);
            self.allow_more(waiting.elapsed());
            result
        }
    }
}

impl Deref for TimedConnection {
    type Target = rusqlite::Connection;

    fn deref(&self) -> &rusqlite::Connection {
        &self.conn
    }
}

impl Drop for TimedConnection {
    /// The connection goes back to the pool without the handler.
    fn drop(&mut self) {
        // Removing a handler only clears a pointer in SQLite: it cannot fail in a way that
        // leaves the handler set.
        let _ = self.conn.progress_handler(0, None::<fn() -> bool>);
    }
}

fn nanos(time: Duration) -> u64 {
    u64::try_from(time.as_nanos()).unwrap_or(u64::MAX)
}
