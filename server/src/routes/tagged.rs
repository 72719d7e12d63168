//! A tagged answer of a release: its tag (the release and the question in a canonical form,
//! weak for an encoded body), the request's preconditions checked against it before anything
//! is run (`crate::conditional`), and its body: kept in the release's response cache, or made
//! on the blocking pool (after a heavy permit when it reads many rows) and kept.

use std::sync::Arc;

use actix_web::http::{header, Method};
use actix_web::{web, HttpRequest, HttpResponse, HttpResponseBuilder};
use bytes::Bytes;

use crate::cache::{Encoding, ResponseCache};
use crate::conditional::Validators;
use crate::error::ApiError;
use crate::release::Release;
use crate::state::AppState;
use crate::stream::{self, Flush, Written};

/// A whole answer of `release` (JSON, CSV...), known by `key` (the question in a form that
/// determines the answer): its tag and `304`, the body kept for it, or `make`'s on the blocking
/// pool (after a heavy permit for `rows` rows) then kept.
pub async fn whole_answer(
    req: &HttpRequest,
    state: &AppState,
    release: Arc<Release>,
    key: String,
    content_type: &'static str,
    rows: i64,
    make: impl FnOnce(&Release) -> Result<Vec<u8>, ApiError> + Send + 'static,
) -> Result<HttpResponse, ApiError> {
    // A body made whole is a written one that never fills a chunk: always kept.
    let write = move |release: &Release, _: &mut Flush| make(release);
    streamed_answer(req, state, release, (key, content_type), rows, write).await
}

/// An answer of `release` written in chunks on the blocking pool (a page of a listing, OGC's
/// features), known by `key`: its tag and `304`, the body kept for it, or `write`'s (after a
/// heavy permit for `rows` rows), kept when it fits in one chunk, else streamed as it is
/// written.
pub async fn streamed_answer<W>(
    req: &HttpRequest,
    state: &AppState,
    release: Arc<Release>,
    (key, content_type): (String, &'static str),
    rows: i64,
    write: W,
) -> Result<HttpResponse, ApiError>
where
    W: FnOnce(&Release, &mut Flush) -> Result<Vec<u8>, ApiError> + Send + 'static,
{
    streamed_answer_of(
        req,
        state,
        release,
        (key, content_type, Headed::ByRunning),
        rows,
        write,
    )
    .await
}

/// How a `HEAD` of a tagged answer is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Headed {
    /// As a `GET`, without its body: the answer's status may depend on what is read (an OGC
    /// feature that is not there).
    ByRunning,
    /// By its head alone, nothing run: a listing, whose status its parameters decide and whose
    /// rows only fill its body (a client asking `HEAD` before each read must not cost a query).
    WithoutRunning,
}

/// [`streamed_answer`], with how its `HEAD` is answered.
pub async fn streamed_answer_of<W>(
    req: &HttpRequest,
    state: &AppState,
    release: Arc<Release>,
    (key, content_type, headed): (String, &'static str, Headed),
    rows: i64,
    write: W,
) -> Result<HttpResponse, ApiError>
where
    W: FnOnce(&Release, &mut Flush) -> Result<Vec<u8>, ApiError> + Send + 'static,
{
    let encoding = Encoding::negotiate(req, state.config.compress);
    let head = Head::of(&release, &key, encoding, content_type);
    if let Some(held) = head.held(req) {
        return Ok(held);
    }
    let responses = state.responses(&release);
    if let Some(body) = kept(&responses, &key, encoding).await? {
        return Ok(whole(body, encoding, head));
    }
    if headed == Headed::WithoutRunning && req.method() == Method::HEAD {
        return Ok(bodiless(head.builder()));
    }
    let permit = state.heavy_permit(rows).await?;
    let written = stream::run(move |flush| {
        let _permit = permit;
        write(&release, flush)
    })
    .await?;
    Ok(match written {
        Written::Whole(body) => {
            let (body, encoding) = keep(responses, key, body, encoding).await?;
            whole(body, encoding, head)
        }
        Written::Streamed(chunks) => head.builder().streaming(chunks),
    })
}

/// The body kept for `key` in `encoding`, or made from the plain body kept for it. Encoding runs
/// on the blocking pool: gzip or brotli of a page takes milliseconds, which on this thread
/// would hold up every other connection of the worker.
pub async fn kept(
    responses: &Arc<ResponseCache>,
    key: &str,
    encoding: Encoding,
) -> Result<Option<Bytes>, ApiError> {
    let found = responses.get(key, encoding);
    if found.is_some() || encoding == Encoding::Identity {
        return Ok(found);
    }
    let (responses, key) = (responses.clone(), key.to_string());
    web::block(move || responses.encode_kept(&key, encoding))
        .await
        .map_err(ApiError::internal)
}

/// Keeps a finished body and gives it back in `encoding` (see `ResponseCache::keep`); encoded on
/// the blocking pool, as in `kept` (with the cache off, the compression middleware encodes it,
/// off this thread too).
pub async fn keep(
    responses: Arc<ResponseCache>,
    key: String,
    body: Vec<u8>,
    encoding: Encoding,
) -> Result<(Bytes, Encoding), ApiError> {
    if encoding == Encoding::Identity || !responses.is_on() {
        return Ok(responses.keep(key, body, encoding));
    }
    web::block(move || responses.keep(key, body, encoding))
        .await
        .map_err(ApiError::internal)
}

/// The `304` or `412` to send instead of the answer tagged `etag` (which has no date), when the
/// request's preconditions say so.
pub fn held(req: &HttpRequest, etag: &str) -> Option<HttpResponse> {
    let validators = Validators {
        etag,
        modified: None,
    };
    validators.instead(req)
}

/// The head of a JSON answer tagged `etag`.
pub fn json(etag: String) -> HttpResponseBuilder {
    let mut head = HttpResponse::Ok();
    head.insert_header((header::CONTENT_TYPE, "application/json"))
        .insert_header((header::ETAG, etag));
    head
}

/// What a tagged answer's response says of its body.
pub struct Head {
    content_type: &'static str,
    etag: String,
}

impl Head {
    /// The head of the answer of `release` known by `key` (the question in its canonical
    /// form), tagged.
    pub fn of(
        release: &Release,
        key: &str,
        encoding: Encoding,
        content_type: &'static str,
    ) -> Head {
        Head {
            content_type,
            etag: etag(release, key, encoding),
        }
    }

    /// The `304` or `412` to send instead of the answer, when the request's preconditions
    /// say so.
    pub fn held(&self, req: &HttpRequest) -> Option<HttpResponse> {
        held(req, &self.etag)
    }

    pub fn builder(self) -> HttpResponseBuilder {
        let mut head = HttpResponse::Ok();
        head.insert_header((header::CONTENT_TYPE, self.content_type))
            .insert_header((header::ETAG, self.etag));
        head
    }
}

/// The answer to a `HEAD` that is not run: its headers, and no length (RFC 9110 lets a `HEAD`
/// leave out what only writing the body would tell).
pub fn bodiless(mut head: HttpResponseBuilder) -> HttpResponse {
    head.streaming(futures_util::stream::empty::<Result<Bytes, std::io::Error>>())
}

/// A whole body, in its encoding: an encoded one says so (and compression leaves it alone).
pub fn whole(body: Bytes, encoding: Encoding, head: Head) -> HttpResponse {
    let mut head = head.builder();
    if let Some(encoding) = encoding.content_encoding() {
        head.insert_header((header::CONTENT_ENCODING, encoding));
    }
    head.body(body)
}

/// The ETag of a response: the loaded file and the request, in its canonical form (weak for
/// an encoded body: `Encoding::etag`).
fn etag(release: &Release, canonical: &str, encoding: Encoding) -> String {
    let request = roadtraffic_catalog::stable_hash(canonical);
    encoding.etag(format!("\"{}-{request:x}\"", release.tag))
}
