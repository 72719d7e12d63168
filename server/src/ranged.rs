//! A file of known length answered as RFC 9110 asks of a server that offers byte ranges:
//! validators (a strong `ETag`, `Last-Modified`), conditional requests (`If-Match`,
//! `If-Unmodified-Since`, `If-None-Match`, `If-Modified-Since`: `crate::conditional`), `Range`
//! with `If-Range`, one
//! range as a `206` with `Content-Range`, several as `multipart/byteranges`, none satisfiable
//! a `416`, and `HEAD` as `GET` without the body. Parsing of the headers is actix's.
//!
//! The bytes are read with positioned reads on the worker thread, a chunk at a time: the file
//! is in the page cache once read, where a read takes microseconds, as nginx's do.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::SystemTime;

use actix_web::body::{BodyStream, SizedStream};
use actix_web::http::header::{self, ByteRangeSpec, EntityTag, HttpDate, Range};
use actix_web::http::{Method, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse, HttpResponseBuilder};

use futures_util::StreamExt;

use crate::conditional::{whole_seconds, Validators};
use crate::wire::{SplicedBytes, Splices};

/// The file answered, and how it is described.
pub struct Representation<'a> {
    pub path: &'a Path,
    /// The file mapped, if it is held so; else it is opened at `path`.
    pub mapped: Option<Arc<memmap2::Mmap>>,
    /// The file open, if it is held so; else it is opened at `path`.
    pub opened: Option<Arc<File>>,
    pub len: u64,
    /// Strong, quoted.
    pub etag: &'a str,
    pub modified: SystemTime,
    pub content_type: &'a str,
    /// The name a client saves it under.
    pub filename: &'a str,
    /// Whether the compression middleware would encode the body (`--compress`, and the client
    /// accepts an encoding). The answer then says `Content-Encoding: identity`, which the
    /// middleware leaves alone: the bytes stay the file's, with their length and strong ETag,
    /// whole or in ranges alike (the big files are compressed already: zip, Parquet).
    pub would_be_encoded: bool,
}

/// More ranges than this in one request are answered with the whole file, as RFC 9110
/// allows: a request of thousands of tiny ranges costs far more than the file.
const MAX_PARTS: usize = 64;

/// Bytes read from the file for each chunk of the body.
const CHUNK: u64 = 256 * 1024;

/// The boundary between the parts of a `multipart/byteranges` body: a fixed string that the
/// parts' bytes cannot be confused with, as each part's length is known to the reader only
/// by finding the boundary; 40 random-looking characters make a false match negligible.
const BOUNDARY: &str = "3d6b6a416f9b4e2c8a0f1b7e5c9d2a4f6e8b0c1d";

/// The answer to a GET or HEAD of the file.
pub fn respond(req: &HttpRequest, file: &Representation) -> std::io::Result<HttpResponse> {
    EntityTag::from_str(file.etag).map_err(std::io::Error::other)?;
    // Last-Modified has whole seconds: compared in whole seconds.
    let modified = whole_seconds(file.modified);
    let validators = Validators {
        etag: file.etag,
        modified: Some(modified),
    };
    if let Some(status) = validators.precondition(req) {
        let mut head = head(status, file, modified);
        return Ok(head.finish());
    }
    let wanted = match *req.method() {
        Method::GET if validators.range_applies(req) => ranges(req, file.len),
        _ => Wanted::Whole,
    };
    let head = head(StatusCode::OK, file, modified);
    answer(req, head, file, wanted)
}

/// What the request's `Range` asks for.
#[derive(Debug, PartialEq, Eq)]
enum Wanted {
    Whole,
    /// Byte ranges, first and last byte inclusive, in the file's order, overlapping and
    /// adjacent ones merged (RFC 9110 lets a server coalesce them).
    Parts(Vec<(u64, u64)>),
    Unsatisfiable,
}

/// The request's byte ranges against a file of `len` bytes. A `Range` that does not parse, or
/// of another unit, is ignored (RFC 9110 §14.2).
fn ranges(req: &HttpRequest, len: u64) -> Wanted {
    let Some(value) = req.headers().get(header::RANGE) else {
        return Wanted::Whole;
    };
    let specs = match value.to_str().ok().map(Range::from_str) {
        Some(Ok(Range::Bytes(specs))) => specs,
        _ => return Wanted::Whole,
    };
    satisfiable(&specs, len)
}

fn satisfiable(specs: &[ByteRangeSpec], len: u64) -> Wanted {
    let mut parts: Vec<(u64, u64)> = specs
        .iter()
        .filter_map(|s| s.to_satisfiable_range(len))
        .collect();
    if parts.is_empty() {
        return Wanted::Unsatisfiable;
    }
    parts.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(parts.len());
    for (first, last) in parts {
        match merged.last_mut() {
            // Overlapping or adjacent: one part.
            Some((_, end)) if first <= end.saturating_add(1) => *end = (*end).max(last),
            _ => merged.push((first, last)),
        }
    }
    match merged.len() {
        n if n > MAX_PARTS => Wanted::Whole,
        _ => Wanted::Parts(merged),
    }
}

/// The head of every answer: validators, `Accept-Ranges`, the name to save under.
fn head(status: StatusCode, file: &Representation, modified: SystemTime) -> HttpResponseBuilder {
    let mut head = HttpResponse::build(status);
    if file.would_be_encoded {
        head.insert_header((header::CONTENT_ENCODING, "identity"));
    }
    head.insert_header((header::ETAG, file.etag))
        .insert_header((header::LAST_MODIFIED, HttpDate::from(modified)))
        .insert_header((header::ACCEPT_RANGES, "bytes"))
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{}\"", file.filename),
        ));
    head
}

fn answer(
    req: &HttpRequest,
    mut head: HttpResponseBuilder,
    file: &Representation,
    wanted: Wanted,
) -> std::io::Result<HttpResponse> {
    let pieces = match wanted {
        Wanted::Unsatisfiable => {
            head.status(StatusCode::RANGE_NOT_SATISFIABLE)
                .insert_header((header::CONTENT_RANGE, format!("bytes */{}", file.len)));
            return Ok(head.finish());
        }
        Wanted::Whole => vec![Piece::File(0, file.len)],
        Wanted::Parts(parts) if parts.len() == 1 => {
            let (first, last) = parts[0];
            head.status(StatusCode::PARTIAL_CONTENT).insert_header((
                header::CONTENT_RANGE,
                format!("bytes {first}-{last}/{}", file.len),
            ));
            vec![Piece::File(first, last - first + 1)]
        }
        Wanted::Parts(parts) => {
            head.status(StatusCode::PARTIAL_CONTENT);
            multipart(&parts, file)
        }
    };
    let content_type = match pieces.len() {
        1 => file.content_type.to_string(),
        _ => format!("multipart/byteranges; boundary={BOUNDARY}"),
    };
    head.insert_header((header::CONTENT_TYPE, content_type));
    let len = pieces.iter().map(Piece::len).sum();
    if req.method() == Method::HEAD {
        return Ok(head.body(SizedStream::new(
            len,
            futures_util::stream::empty::<Result<web::Bytes, std::io::Error>>(),
        )));
    }
    // A connection served through a `Wire`: the file's bytes go out by `sendfile`. Not when
    // the compression middleware would see them (it takes the body's bytes as they are).
    let spliced = req
        .conn_data::<Splices>()
        .filter(|_| !file.would_be_encoded && len > 0);
    if let Some(splices) = spliced {
        let opened = match &file.opened {
            Some(opened) => opened.clone(),
            None => Arc::new(File::open(file.path)?),
        };
        let counted = SplicedBytes::of(req);
        let splicing = (splices.clone(), opened, counted);
        return Ok(spliced_body(head, splicing, pieces, len));
    }
    let source = match &file.mapped {
        Some(map) => FileBytes::Mapped(map.clone()),
        None => FileBytes::Read(Arc::new(File::open(file.path)?)),
    };
    body(head, source, pieces, len)
}

/// The body as the wire sends it: the text between parts as it is, each range of the file as
/// a marker that the connection's [`crate::wire::Wire`] replaces with the range by `sendfile`.
/// Its length is the bytes the client gets, said by the head (the body yields fewer).
fn spliced_body(
    mut head: HttpResponseBuilder,
    (splices, file, counted): (Splices, Arc<File>, SplicedBytes),
    pieces: Vec<Piece>,
    len: u64,
) -> HttpResponse {
    head.no_chunking(len);
    let chunks = futures_util::stream::iter(pieces).map(move |piece| {
        Ok::<_, std::io::Error>(match piece {
            Piece::Text(text) => web::Bytes::from(text),
            Piece::File(offset, len) => {
                // Queued as it is yielded: the wire meets the markers in this order.
                let marker = splices.queue(file.clone(), offset, len);
                counted.add(len);
                web::Bytes::copy_from_slice(&marker)
            }
        })
    });
    // Not `streaming`, which would take the length for the bytes yielded.
    head.body(BodyStream::new(chunks))
}

/// A piece of the body: bytes of the file (offset, length), or text between parts.
enum Piece {
    File(u64, u64),
    Text(String),
}

impl Piece {
    fn len(&self) -> u64 {
        match self {
            Piece::File(_, len) => *len,
            Piece::Text(t) => t.len() as u64,
        }
    }
}

/// The pieces of a `multipart/byteranges` body of these parts (RFC 9110 §14.6).
fn multipart(parts: &[(u64, u64)], file: &Representation) -> Vec<Piece> {
    let mut pieces = Vec::with_capacity(parts.len() * 2 + 1);
    for (first, last) in parts {
        pieces.push(Piece::Text(format!(
            "\r\n--{BOUNDARY}\r\nContent-Type: {}\r\nContent-Range: bytes {first}-{last}/{}\r\n\r\n",
            file.content_type, file.len
        )));
        pieces.push(Piece::File(*first, last - first + 1));
    }
    pieces.push(Piece::Text(format!("\r\n--{BOUNDARY}--\r\n")));
    pieces
}

/// Where the file's bytes are read from.
pub enum FileBytes {
    /// Read with positioned reads.
    Read(Arc<File>),
    /// Mapped: its bytes go out without being copied here first (the stored whole tables).
    Mapped(Arc<memmap2::Mmap>),
}

/// A window of a mapped file, as the bytes of a body.
struct MappedSlice {
    map: Arc<memmap2::Mmap>,
    start: usize,
    end: usize,
}

impl AsRef<[u8]> for MappedSlice {
    fn as_ref(&self) -> &[u8] {
        &self.map[self.start..self.end]
    }
}

/// The body: small ones at once, bigger ones streamed a chunk at a time.
fn body(
    mut head: HttpResponseBuilder,
    source: FileBytes,
    pieces: Vec<Piece>,
    len: u64,
) -> std::io::Result<HttpResponse> {
    if len <= CHUNK {
        let mut chunks = pieces.iter().map(|p| read(&source, p, 0, p.len()));
        if pieces.len() == 1 {
            return Ok(head.body(chunks.next().unwrap_or(Ok(web::Bytes::new()))?));
        }
        let whole = chunks.collect::<std::io::Result<Vec<_>>>()?.concat();
        return Ok(head.body(whole));
    }
    // (piece, offset within it) of the next chunk.
    let chunks = futures_util::stream::unfold((0usize, 0u64), move |(at, done)| {
        let next = next_chunk(&source, &pieces, at, done);
        async move { next }
    });
    Ok(head.body(SizedStream::new(len, Box::pin(chunks))))
}

type Next = (Result<web::Bytes, std::io::Error>, (usize, u64));

fn next_chunk(source: &FileBytes, pieces: &[Piece], at: usize, done: u64) -> Option<Next> {
    let piece = pieces.get(at)?;
    let take = (piece.len() - done).min(CHUNK);
    let next = match done + take == piece.len() {
        true => (at + 1, 0),
        false => (at, done + take),
    };
    // After an error, the stream ends: the client sees a body shorter than its length.
    Some((read(source, piece, done, take), next))
}

/// `take` bytes of the piece from `skip` on.
fn read(source: &FileBytes, piece: &Piece, skip: u64, take: u64) -> std::io::Result<web::Bytes> {
    let (from, to) = (skip as usize, (skip + take) as usize);
    match (piece, source) {
        (Piece::Text(t), _) => Ok(web::Bytes::copy_from_slice(&t.as_bytes()[from..to])),
        (Piece::File(offset, _), FileBytes::Mapped(map)) => {
            let start = (*offset as usize) + from;
            let window = MappedSlice {
                map: map.clone(),
                start,
                end: start + (to - from),
            };
            Ok(web::Bytes::from_owner(window))
        }
        (Piece::File(offset, _), FileBytes::Read(file)) => {
            let mut chunk = vec![0; to - from];
            file.read_exact_at(&mut chunk, offset + skip)?;
            Ok(web::Bytes::from(chunk))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(header: &str, len: u64) -> Wanted {
        match Range::from_str(header) {
            Ok(Range::Bytes(specs)) => satisfiable(&specs, len),
            _ => Wanted::Whole,
        }
    }

    #[test]
    fn ranges_are_clamped_merged_and_refused_past_the_end() {
        assert_eq!(parts("bytes=0-9", 100), Wanted::Parts(vec![(0, 9)]));
        assert_eq!(parts("bytes=90-200", 100), Wanted::Parts(vec![(90, 99)]));
        assert_eq!(parts("bytes=-10", 100), Wanted::Parts(vec![(90, 99)]));
        assert_eq!(parts("bytes=-500", 100), Wanted::Parts(vec![(0, 99)]));
        assert_eq!(parts("bytes=95-", 100), Wanted::Parts(vec![(95, 99)]));
        assert_eq!(parts("bytes=100-", 100), Wanted::Unsatisfiable);
        assert_eq!(parts("bytes=0-0", 0), Wanted::Unsatisfiable);
        assert_eq!(
            parts("bytes=50-59,0-9,5-14,15-20", 100),
            Wanted::Parts(vec![(0, 20), (50, 59)])
        );
        assert_eq!(parts("bytes=0-9,200-300", 100), Wanted::Parts(vec![(0, 9)]));
    }

    #[test]
    fn too_many_parts_get_the_whole_file() {
        let many: Vec<String> = (0..100).map(|i| format!("{}-{}", i * 10, i * 10)).collect();
        assert_eq!(
            parts(&format!("bytes={}", many.join(",")), 10_000),
            Wanted::Whole
        );
    }
}
