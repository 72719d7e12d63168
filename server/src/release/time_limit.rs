//! The query time limit (`--query-timeout`) of the listings and the site's pages, written once:
//! a connection taken with a limit stops its statement (a 503) once the time spent in SQLite
//! passes it, and is given back to the pool without the limit, whatever happened.
//!
//! A limit of 0 is no time at all, counted without a clock: the queries are stopped where a
//! limit first looks at the clock, once they have run [`CHECK_EVERY`] of SQLite's instructions
//! (together, on the connection). What is stopped then is the same on any machine, however
//! fast: what the tests of the limit ask for.

use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::file::{PooledConnection, Release};
use crate::error::ApiError;

/// SQLite's virtual machine instructions between two looks at the clock; under a limit of 0,
/// the instructions a connection's queries may run.
const CHECK_EVERY: i32 = 10_000;

/// A pooled connection whose queries stop at a time limit.
pub struct TimedConnection {
    conn: PooledConnection,
    /// The time allowed, in nanoseconds since `started`: [`TimedConnection::allow_more`]
    /// pushes it back.
    allowed: Arc<AtomicU64>,
}

impl Release {
    /// A connection whose queries stop after `limit` (counted in `query_timeouts`); a limit of
    /// 0 stops them after [`CHECK_EVERY`] instructions.
    pub fn timed_connection(&self, limit: Duration) -> Result<TimedConnection, ApiError> {
        let conn = self.connection()?;
        let allowed = Arc::new(AtomicU64::new(nanos(limit)));
        let timeouts = self.metrics().query_timeouts.clone();
        stop_at_the_limit(&conn, allowed.clone(), move || timeouts.inc())?;
        Ok(TimedConnection { conn, allowed })
    }
}

/// Makes the queries of `conn` stop (SQLite's "interrupted") once they have run for the
/// nanoseconds `allowed`, from now; each stop `counted`. None allowed: once they have run
/// [`CHECK_EVERY`] instructions.
fn stop_at_the_limit(
    conn: &rusqlite::Connection,
    allowed: Arc<AtomicU64>,
    mut counted: impl FnMut() + Send + 'static,
) -> rusqlite::Result<()> {
    let started = Instant::now();
    if allowed.load(Ordering::Relaxed) == 0 {
        // Called at every instruction: SQLite's count of a statement's instructions, by which
        // it calls at every `CHECK_EVERY`, goes on across its runs (a cached statement would be
        // stopped anywhere in its first `CHECK_EVERY`); this count does not.
        let mut run = 0;
        return conn.progress_handler(
            1,
            Some(move || {
                run += 1;
                let over = run > CHECK_EVERY;
                if over {
                    counted();
                }
                over
            }),
        );
    }
    conn.progress_handler(
        CHECK_EVERY,
        Some(move || {
            let over = nanos(started.elapsed()) > allowed.load(Ordering::Relaxed);
            if over {
                counted();
            }
            over
        }),
    )
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A limit of `millis` on `conn`'s queries from now (as a request takes a connection), and
    /// how many of them it stopped.
    fn limit(conn: &rusqlite::Connection, millis: u64) -> Arc<AtomicUsize> {
        let stops = Arc::new(AtomicUsize::new(0));
        let counted = stops.clone();
        let allowed = Arc::new(AtomicU64::new(nanos(Duration::from_millis(millis))));
        let count = move || {
            counted.fetch_add(1, Ordering::Relaxed);
        };
        stop_at_the_limit(conn, allowed, count).unwrap();
        stops
    }

    /// The numbers 1 to `n` counted by a recursive query (`n` of 0: never ending).
    fn count_to(conn: &rusqlite::Connection, n: i64) -> rusqlite::Result<i64> {
        let sql = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r \
                   WHERE ?1 = 0 OR x < ?1) SELECT count(*) FROM r";
        conn.prepare_cached(sql)?.query_row([n], |r| r.get(0))
    }

    fn interrupted(result: rusqlite::Result<i64>) -> bool {
        let code = result.err().and_then(|e| e.sqlite_error_code());
        code == Some(rusqlite::ErrorCode::OperationInterrupted)
    }

    /// A query that would never end is stopped at a limit in milliseconds, however fast the
    /// machine; the connection goes on answering short ones.
    #[test]
    fn queries_over_the_time_limit_are_stopped_by_the_clock() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let stops = limit(&conn, 1);
        assert!(interrupted(count_to(&conn, 0)));
        assert_eq!(stops.load(Ordering::Relaxed), 1);
        assert_eq!(count_to(&conn, 10).unwrap(), 10);
    }

    /// Under a limit of 0 what is stopped is counted in instructions, from the limit on: a
    /// short query is answered however often its statement has run before (SQLite's own count
    /// of it going on), a long one is stopped.
    #[test]
    fn queries_over_the_time_limit_of_0_are_stopped_by_count() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for _ in 0..1_000 {
            let stops = limit(&conn, 0);
            assert_eq!(count_to(&conn, 100).unwrap(), 100);
            assert_eq!(stops.load(Ordering::Relaxed), 0);
        }
        let stops = limit(&conn, 0);
        assert!(interrupted(count_to(&conn, 10_000)));
        assert_eq!(stops.load(Ordering::Relaxed), 1);
    }
}
