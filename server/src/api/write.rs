//! Writing a listing: its rows from SQLite straight to PHP-style JSON bytes, inside the
//! Laravel envelope (or a bare array for the unpaginated endpoints), in chunks so that a page
//! of any size is written in bounded memory.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::envelope;
use super::json;
use super::paging::RowQuery;
use super::query::Params;
use super::request::ListRequest;
use crate::error::ApiError;
use crate::release::Release;
use crate::stream::Flush;

/// Bodies are handed on in chunks of about this many bytes: a body that fits in one (pages of
/// up to ~1,400 rows) is sent whole with its length, a bigger one is streamed chunk by chunk.
pub const CHUNK_BYTES: usize = 1 << 20;

/// A response body being written: full chunks go to `flush`.
struct Body<'a, 'f> {
    buf: Vec<u8>,
    flush: &'a mut Flush<'f>,
}

impl Body<'_, '_> {
    fn flush_if_full(&mut self) -> Result<(), ApiError> {
        if self.buf.len() >= CHUNK_BYTES {
            let next = Vec::with_capacity(CHUNK_BYTES + 64 * 1024);
            let chunk = std::mem::replace(&mut self.buf, next);
            (self.flush)(chunk)?;
        }
        Ok(())
    }
}

impl ListRequest {
    /// Runs the request and writes its body. Full chunks go to `flush` as they fill; the
    /// last, partial chunk is returned. `path` is the absolute URL of the endpoint; `params`
    /// the request's own. A query over `time_limit` (spent in SQLite: time waiting for the
    /// client to take a chunk pushes the deadline back) is stopped with a 503.
    pub fn run(
        &self,
        release: &Release,
        path: &str,
        params: &Params,
        time_limit: Duration,
        flush: &mut Flush,
    ) -> Result<Vec<u8>, ApiError> {
        let conn = release.connection()?;
        let started = Instant::now();
        let allowed = Arc::new(AtomicU64::new(time_limit.as_nanos() as u64));
        let limit = allowed.clone();
        let timeouts = release.metrics().query_timeouts.clone();
        conn.progress_handler(
            10_000,
            Some(move || {
                let over = started.elapsed().as_nanos() as u64 > limit.load(Ordering::Relaxed);
                if over {
                    timeouts.inc();
                }
                over
            }),
        )?;
        let mut timed_flush = |chunk: Vec<u8>| {
            let waiting = Instant::now();
            let result = flush(chunk);
            allowed.fetch_add(waiting.elapsed().as_nanos() as u64, Ordering::Relaxed);
            result
        };
        let mut body = Body {
            buf: Vec::with_capacity(self.rows_asked().clamp(1, 1400) as usize * 800),
            flush: &mut timed_flush,
        };
        let result = self.write(&conn, release, path, params, &mut body);
        // The connection goes back to the pool without the handler, whatever happened.
        conn.progress_handler(0, None::<fn() -> bool>)?;
        result.map(|()| body.buf)
    }

    fn write(
        &self,
        conn: &rusqlite::Connection,
        release: &Release,
        path: &str,
        params: &Params,
        body: &mut Body,
    ) -> Result<(), ApiError> {
        let sql = self.sql();
        if self.page.is_none() {
            return self.write_rows(conn, &self.all_rows(&sql), body);
        }
        let (page, rows) = self.page_rows(conn, release, &sql)?;
        envelope::write_head(&mut body.buf, &page);
        match rows {
            Some(query) => self.write_rows(conn, &query, body)?,
            None => body.buf.extend_from_slice(b"[]"),
        }
        envelope::write_tail(&mut body.buf, &page, path, params);
        Ok(())
    }

    /// The rows of a query as a JSON array of records, in the request's fields.
    fn write_rows(
        &self,
        conn: &rusqlite::Connection,
        query: &RowQuery,
        body: &mut Body,
    ) -> Result<(), ApiError> {
        // Each field's key, with what comes before it: `{"id":`, `,"year":`.
        let keys: Vec<Vec<u8>> = self
            .fields
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut k = if i == 0 { b"{".to_vec() } else { b",".to_vec() };
                json::string(&mut k, c.name);
                k.push(b':');
                k
            })
            .collect();
        let mut stmt = conn.prepare_cached(&query.sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(query.args.iter()))?;
        body.buf.push(b'[');
        let mut first = true;
        while let Some(row) = rows.next()? {
            let out = &mut body.buf;
            if !first {
                out.push(b',');
            }
            first = false;
            for (i, key) in keys.iter().enumerate() {
                out.extend_from_slice(key);
                json::value(out, row.get_ref(i)?);
            }
            if keys.is_empty() {
                out.push(b'{');
            }
            out.push(b'}');
            body.flush_if_full()?;
        }
        body.buf.push(b']');
        Ok(())
    }
}
