//! The response cache of one loaded file. The data never changes while a file is served, so a
//! response is a pure function of the file and the request: finished bodies are kept (and,
//! with `--compress`, their compressed encodings, each made once), bounded in bytes
//! (`--response-cache-mb`), least recently used first out. A new file comes with a new cache:
//! the old one goes with the old file.
//!
//! Entries are keyed by the question in its canonical form (`api::ListingAsked::key`,
//! `totals::Summary::key`...): the same key for the same response whatever the parameters'
//! encoding (`page%5Bsize%5D` or `page[size]`), repetitions, empty values, or order where the
//! response does not write them back.

use std::io::Write;

use actix_web::http::header::{self, AcceptEncoding, ContentEncoding};
use actix_web::{HttpMessage, HttpRequest};
use bytes::Bytes;
use quick_cache::sync::Cache;
use quick_cache::Weighter;

/// The encodings a body is kept in: the encodings of actix's compression middleware (features
/// `compress-gzip`, which brings deflate, and `compress-brotli`), so that a body the middleware
/// encodes (the cache off) was negotiated here the same way, and its ETag is weak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    Identity,
    Gzip,
    Deflate,
    Brotli,
}

impl Encoding {
    /// The encoding to answer a request with, by its `Accept-Encoding`, among those
    /// compression (`--compress`) offers.
    pub fn negotiate(req: &HttpRequest, compress: bool) -> Encoding {
        let accept = compress
            .then(|| req.get_header::<AcceptEncoding>())
            .flatten();
        let Some(accept) = accept else {
            return Encoding::Identity;
        };
        let offered = [
            header::Encoding::brotli(),
            header::Encoding::gzip(),
            header::Encoding::deflate(),
            header::Encoding::identity(),
        ];
        match accept.negotiate(offered.iter()) {
            Some(e) if e == header::Encoding::brotli() => Encoding::Brotli,
            Some(e) if e == header::Encoding::gzip() => Encoding::Gzip,
            Some(e) if e == header::Encoding::deflate() => Encoding::Deflate,
            _ => Encoding::Identity,
        }
    }

    /// The `Content-Encoding` of a body in this encoding, if it is encoded.
    pub fn content_encoding(self) -> Option<ContentEncoding> {
        match self {
            Encoding::Identity => None,
            Encoding::Gzip => Some(ContentEncoding::Gzip),
            Encoding::Deflate => Some(ContentEncoding::Deflate),
            Encoding::Brotli => Some(ContentEncoding::Brotli),
        }
    }

    /// The ETag of a body in this encoding, given the plain body's (quoted): a strong tag promises
    /// the very bytes, and an encoded body is other bytes than the plain one, so its tag is
    /// weak (as nginx's gzip makes it).
    pub fn etag(self, plain: String) -> String {
        match self {
            Encoding::Identity => plain,
            Encoding::Gzip | Encoding::Deflate | Encoding::Brotli => format!("W/{plain}"),
        }
    }

    /// The body in this encoding.
    fn encode(self, body: &[u8]) -> std::io::Result<Bytes> {
        match self {
            Encoding::Identity => Ok(Bytes::copy_from_slice(body)),
            Encoding::Gzip => {
                let mut gz =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                gz.write_all(body)?;
                Ok(gz.finish()?.into())
            }
            // HTTP's `deflate` is the zlib format (RFC 9110 8.4.1.2), not raw deflate.
            Encoding::Deflate => {
                let mut z =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
                z.write_all(body)?;
                Ok(z.finish()?.into())
            }
            Encoding::Brotli => {
                let mut out = Vec::new();
                let mut br = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
                br.write_all(body)?;
                drop(br);
                Ok(out.into())
            }
        }
    }
}

#[derive(Clone)]
struct ByLength;

impl Weighter<(String, Encoding), Bytes> for ByLength {
    fn weight(&self, key: &(String, Encoding), body: &Bytes) -> u64 {
        (key.0.len() + body.len()) as u64
    }
}

/// Finished bodies of one loaded file.
pub struct ResponseCache {
    bodies: Option<Cache<(String, Encoding), Bytes, ByLength>>,
}

/// A response body is typically ~180 KB: how many a capacity is sized for.
const TYPICAL_BODY: u64 = 64 * 1024;

impl ResponseCache {
    /// A cache of at most `bytes` (0: none).
    pub fn new(bytes: u64) -> Self {
        let bodies = (bytes > 0).then(|| {
            let items = (bytes / TYPICAL_BODY).max(16) as usize;
            Cache::with_weighter(items, bytes, ByLength)
        });
        ResponseCache { bodies }
    }

    /// Whether bodies are kept at all (`--response-cache-mb` above 0).
    pub fn is_on(&self) -> bool {
        self.bodies.is_some()
    }

    /// The body of `key` in `encoding`, if it is kept in that encoding.
    pub fn get(&self, key: &str, encoding: Encoding) -> Option<Bytes> {
        self.bodies.as_ref()?.get(&(key.to_string(), encoding))
    }

    /// The body of `key` in `encoding`, made from the plain body and kept, when only that is kept.
    /// Encoding a page takes milliseconds: call it on the blocking pool.
    pub fn encode_kept(&self, key: &str, encoding: Encoding) -> Option<Bytes> {
        let bodies = self.bodies.as_ref()?;
        let plain = bodies.get(&(key.to_string(), Encoding::Identity))?;
        let encoded = encoding.encode(&plain).ok()?;
        bodies.insert((key.to_string(), encoding), encoded.clone());
        Some(encoded)
    }

    /// Keeps a finished plain body, and gives it back in `encoding` when it can: the encoding given is
    /// returned with it (plain when the cache is off, so compression stays per response).
    /// With an `encoding` other than identity, call it on the blocking pool (see `encode_kept`).
    pub fn keep(&self, key: String, mut body: Vec<u8>, encoding: Encoding) -> (Bytes, Encoding) {
        let Some(bodies) = &self.bodies else {
            return (body.into(), Encoding::Identity);
        };
        // The buffer was sized for the rows asked; kept, its spare capacity would be memory the
        // bound does not count.
        body.shrink_to_fit();
        let body = Bytes::from(body);
        bodies.insert((key.clone(), Encoding::Identity), body.clone());
        if encoding == Encoding::Identity {
            return (body, encoding);
        }
        match encoding.encode(&body) {
            Ok(encoded) => {
                bodies.insert((key, encoding), encoded.clone());
                (encoded, encoding)
            }
            Err(_) => (body, Encoding::Identity),
        }
    }

    /// Bytes held now (keys and bodies), and the most it may hold.
    pub fn weight(&self) -> (u64, u64) {
        self.bodies
            .as_ref()
            .map_or((0, 0), |b| (b.weight(), b.capacity()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_holds_more_than_its_bound() {
        let cache = ResponseCache::new(1 << 20);
        for i in 0..2_000 {
            let body = Bytes::from(vec![b'x'; 10_000 + i % 7_000]);
            cache.keep(
                format!("/api/raw-counts?page%5Bnumber%5D={i}"),
                body.to_vec(),
                Encoding::Identity,
            );
            let (held, bound) = cache.weight();
            assert!(held <= bound, "{held} > {bound}");
        }
        assert!(cache.weight().0 > 0);
    }

    #[test]
    fn encoded_bodies_are_made_once_from_the_plain_body() {
        let cache = ResponseCache::new(1 << 20);
        let body = Bytes::from(r#"{"data":[1,2,3]}"#.repeat(100));
        cache.keep("k".into(), body.to_vec(), Encoding::Identity);
        assert!(cache.get("k", Encoding::Gzip).is_none());
        let gz = cache.encode_kept("k", Encoding::Gzip).unwrap();
        assert_eq!(cache.get("k", Encoding::Gzip), Some(gz.clone()));
        let mut plain = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut plain).unwrap();
        assert_eq!(plain, body);
        assert!(cache.encode_kept("k", Encoding::Brotli).unwrap().len() < body.len());
        assert!(ResponseCache::new(0).get("k", Encoding::Identity).is_none());
        assert!(ResponseCache::new(0)
            .encode_kept("k", Encoding::Gzip)
            .is_none());
    }
}
