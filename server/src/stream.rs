//! From the blocking pool, where SQLite runs, to the response: a body that fits in one chunk is
//! sent whole with its length; a bigger one is streamed chunk by chunk while it is written,
//! in bounded memory, and a client that stops reading is given up on.

use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse, HttpResponseBuilder};

use crate::error::ApiError;

/// A client that takes nothing of a streamed body for this long is given up on, so that it
/// does not hold its connection and its heavy-request permit for ever.
const STALLED_CLIENT: Duration = Duration::from_secs(30);

pub type Chunk = Result<web::Bytes, std::io::Error>;

/// Where a body's full chunks go as they are written; the last, partial chunk is returned.
pub type Flush<'a> = dyn FnMut(Vec<u8>) -> Result<(), ApiError> + 'a;

/// Bodies are handed on in chunks of about this many bytes: a body that fits in one (pages of
/// up to ~1,400 rows) is sent whole with its length, a bigger one is streamed chunk by chunk.
pub const CHUNK_BYTES: usize = 1 << 20;

/// A response body being written: full chunks go to `flush`.
pub struct Body<'a, 'f> {
    pub buf: Vec<u8>,
    flush: &'a mut Flush<'f>,
}

impl<'a, 'f> Body<'a, 'f> {
    pub fn new(capacity: usize, flush: &'a mut Flush<'f>) -> Self {
        Body {
            buf: Vec::with_capacity(capacity),
            flush,
        }
    }

    /// Hands on the chunk written so far if it is full.
    pub fn flush_if_full(&mut self) -> Result<(), ApiError> {
        if self.buf.len() >= CHUNK_BYTES {
            let next = Vec::with_capacity(CHUNK_BYTES + 64 * 1024);
            let chunk = std::mem::replace(&mut self.buf, next);
            (self.flush)(chunk)?;
        }
        Ok(())
    }
}

/// A body is also a writer, for encoders that write into it (the zip of a download).
impl std::io::Write for Body<'_, '_> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        self.flush_if_full()
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::BrokenPipe, e.to_string()))?;
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What `write` wrote: a body that fit in one chunk, or the chunks of one being streamed.
pub enum Written {
    Whole(Vec<u8>),
    Streamed(ChunkStream),
}

pub type ChunkStream = std::pin::Pin<Box<dyn futures_util::Stream<Item = Chunk>>>;

/// Runs `write` on the blocking pool and answers with what it writes: a 200 with its body, or
/// its error if it fails before its first chunk. Once streaming, a failure can only cut the
/// response short (logged).
pub async fn respond<W>(mut head: HttpResponseBuilder, write: W) -> Result<HttpResponse, ApiError>
where
    W: FnOnce(&mut Flush) -> Result<Vec<u8>, ApiError> + Send + 'static,
{
    head.status(StatusCode::OK);
    Ok(match run(write).await? {
        Written::Whole(body) => head.body(body),
        Written::Streamed(chunks) => head.streaming(chunks),
    })
}

/// Runs `write` on the blocking pool: its whole body, or its error if it fails before its
/// first chunk, or the stream of its chunks.
pub async fn run<W>(write: W) -> Result<Written, ApiError>
where
    W: FnOnce(&mut Flush) -> Result<Vec<u8>, ApiError> + Send + 'static,
{
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel::<Result<Option<Vec<u8>>, ApiError>>();
    let (chunk_tx, chunk_rx) = tokio::sync::mpsc::channel::<Chunk>(2);
    actix_web::rt::task::spawn_blocking(move || {
        let mut ready = Some(ready_tx);
        let mut flush = |chunk: Vec<u8>| {
            // A second chunk: the body is streamed from here on.
            if let Some(ready) = ready.take() {
                let _ = ready.send(Ok(None));
            }
            send_chunk(&chunk_tx, Ok(web::Bytes::from(chunk)))
        };
        let result = write(&mut flush);
        match (result, ready.take()) {
            (Ok(body), Some(ready)) => drop(ready.send(Ok(Some(body)))),
            (Err(e), Some(ready)) => drop(ready.send(Err(e))),
            (Ok(rest), None) => drop(send_chunk(&chunk_tx, Ok(web::Bytes::from(rest)))),
            (Err(ApiError::ClientGone), None) => log::debug!("the client went away mid-response"),
            (Err(e), None) => {
                // Too late for a status: cut the response short so the client sees it fail.
                log::error!("response cut short: {e:?}");
                let cut = Err(std::io::Error::other("response cut short"));
                drop(send_chunk(&chunk_tx, cut));
            }
        }
    });
    match ready_rx.await.map_err(ApiError::internal)?? {
        Some(body) => Ok(Written::Whole(body)),
        None => {
            let chunks = futures_util::stream::unfold(chunk_rx, |mut rx| async move {
                rx.recv().await.map(|c| (c, rx))
            });
            Ok(Written::Streamed(Box::pin(chunks)))
        }
    }
}

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
