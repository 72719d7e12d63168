//! Writing a listing: its rows from SQLite straight to PHP-style JSON bytes, inside the
//! Laravel envelope (or a bare array for the unpaginated endpoints), in chunks so that a page
//! of any size is written in bounded memory.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::envelope;
use super::json;
use super::legacy::{self, Envelope};
use super::paging::RowQuery;
use super::query::Params;
use super::request::ListRequest;
use crate::error::ApiError;
use crate::release::Release;
use crate::stream::{Body, Flush};

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
        let capacity = self.rows_asked().clamp(1, 1400) as usize * 800;
        let mut body = Body::new(capacity, &mut timed_flush);
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
        match self.envelope {
            Envelope::Laravel => envelope::write_head(&mut body.buf, &page),
            Envelope::Legacy => legacy::write_head(&mut body.buf),
        }
        match rows {
            Some(query) => self.write_rows(conn, &query, body)?,
            None => body.buf.extend_from_slice(b"[]"),
        }
        match self.envelope {
            Envelope::Laravel => envelope::write_tail(&mut body.buf, &page, path, params),
            Envelope::Legacy => legacy::write_tail(&mut body.buf, &page, path, params),
        }
        Ok(())
    }

    /// The rows of a query as a JSON array of records, in the request's fields.
    fn write_rows(
        &self,
        conn: &rusqlite::Connection,
        query: &RowQuery,
        body: &mut Body,
    ) -> Result<(), ApiError> {
        let record = JsonRecord::of(self);
        let mut stmt = conn.prepare_cached(&query.sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(query.args.iter()))?;
        body.buf.push(b'[');
        let mut first = true;
        while let Some(row) = rows.next()? {
            if !first {
                body.buf.push(b',');
            }
            first = false;
            record.write(&mut body.buf, row)?;
            body.flush_if_full()?;
        }
        body.buf.push(b']');
        Ok(())
    }
}

/// A row as a JSON record of the request's fields, written as PHP writes it.
pub struct JsonRecord {
    /// Each field's key, with what comes before it: `{"id":`, `,"year":`.
    keys: Vec<Vec<u8>>,
    /// What closes a record: `}`, after the envelope's retired fields if any.
    close: Vec<u8>,
}

impl JsonRecord {
    pub fn of(request: &ListRequest) -> Self {
        let (keys, close) = legacy::record_keys(request.envelope, request.dataset, &request.fields);
        JsonRecord { keys, close }
    }

    pub fn write(&self, out: &mut Vec<u8>, row: &rusqlite::Row) -> Result<(), ApiError> {
        for (i, key) in self.keys.iter().enumerate() {
            out.extend_from_slice(key);
            json::value(out, row.get_ref(i)?);
        }
        if self.keys.is_empty() {
            out.push(b'{');
        }
        out.extend_from_slice(&self.close);
        Ok(())
    }
}
