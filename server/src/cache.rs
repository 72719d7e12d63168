//! The response cache of one loaded file. The data never changes while a file is served, so a
//! response is a pure function of the file and the request: finished bodies are kept (and,
//! with `--compress`, their compressed forms, each made once), bounded in bytes
//! (`--response-cache-mb`), least recently used first out. A new file comes with a new cache:
//! the old one goes with the old file.
//!
//! Entries are keyed by the normalised request (`api::query::canonical`): the same key for
//! the same response whatever the parameters' encoding (`page%5Bsize%5D` or `page[size]`),
//! repetitions, empty values or the order of `page[...]`'s own keys.

use std::io::Write;

use actix_web::http::header::{AcceptEncoding, ContentEncoding, Encoding};
use actix_web::{HttpMessage, HttpRequest};
use bytes::Bytes;
use quick_cache::sync::Cache;
use quick_cache::Weighter;

/// The forms a body is kept in: the encodings of actix's compression middleware (features
/// `compress-gzip`, which brings deflate, and `compress-brotli`), so that a body the middleware
/// encodes (the cache off) was negotiated here the same way, and its ETag is weak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Form {
    Identity,
    Gzip,
    Deflate,
    Brotli,
}

impl Form {
    /// The encoding to answer a request with, by its `Accept-Encoding`, among those
    /// compression (`--compress`) offers.
    pub fn negotiate(req: &HttpRequest, compress: bool) -> Form {
        let accept = compress
            .then(|| req.get_header::<AcceptEncoding>())
            .flatten();
        let Some(accept) = accept else {
            return Form::Identity;
        };
        let offered = [
            Encoding::brotli(),
            Encoding::gzip(),
            Encoding::deflate(),
            Encoding::identity(),
        ];
        match accept.negotiate(offered.iter()) {
            Some(e) if e == Encoding::brotli() => Form::Brotli,
            Some(e) if e == Encoding::gzip() => Form::Gzip,
            Some(e) if e == Encoding::deflate() => Form::Deflate,
            _ => Form::Identity,
        }
    }

    /// The `Content-Encoding` of a body in this form, if it is encoded.
    pub fn content_encoding(self) -> Option<ContentEncoding> {
        match self {
            Form::Identity => None,
            Form::Gzip => Some(ContentEncoding::Gzip),
            Form::Deflate => Some(ContentEncoding::Deflate),
            Form::Brotli => Some(ContentEncoding::Brotli),
        }
    }

    /// The ETag of a body in this form, given the plain body's (quoted): a strong tag promises
    /// the very bytes, and an encoded body is other bytes than the plain one, so its tag is
    /// weak (as nginx's gzip makes it).
    pub fn etag(self, plain: String) -> String {
        match self {
            Form::Identity => plain,
            Form::Gzip | Form::Deflate | Form::Brotli => format!("W/{plain}"),
        }
    }

    /// The body in this form.
    fn encode(self, body: &[u8]) -> std::io::Result<Bytes> {
        match self {
            Form::Identity => Ok(Bytes::copy_from_slice(body)),
            Form::Gzip => {
                let mut gz =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                gz.write_all(body)?;
                Ok(gz.finish()?.into())
            }
            // HTTP's `deflate` is the zlib format (RFC 9110 8.4.1.2), not raw deflate.
            Form::Deflate => {
                let mut z =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
                z.write_all(body)?;
                Ok(z.finish()?.into())
            }
            Form::Brotli => {
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

impl Weighter<(String, Form), Bytes> for ByLength {
    fn weight(&self, key: &(String, Form), body: &Bytes) -> u64 {
        (key.0.len() + body.len()) as u64
    }
}

/// Finished bodies of one loaded file.
pub struct ResponseCache {
    bodies: Option<Cache<(String, Form), Bytes, ByLength>>,
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

    /// The body of `key` in `form`, if it is kept in that form.
    pub fn get(&self, key: &str, form: Form) -> Option<Bytes> {
        self.bodies.as_ref()?.get(&(key.to_string(), form))
    }

    /// The body of `key` in `form`, made from the plain body and kept, when only that is kept.
    /// Encoding a page takes milliseconds: call it on the blocking pool.
    pub fn encode_kept(&self, key: &str, form: Form) -> Option<Bytes> {
        let bodies = self.bodies.as_ref()?;
        let plain = bodies.get(&(key.to_string(), Form::Identity))?;
        let encoded = form.encode(&plain).ok()?;
        bodies.insert((key.to_string(), form), encoded.clone());
        Some(encoded)
    }

    /// Keeps a finished plain body, and gives it back in `form` when it can: the form given is
    /// returned with it (plain when the cache is off, so compression stays per response).
    /// With an encoded `form`, call it on the blocking pool (see `encode_kept`).
    pub fn keep(&self, key: String, mut body: Vec<u8>, form: Form) -> (Bytes, Form) {
        let Some(bodies) = &self.bodies else {
            return (body.into(), Form::Identity);
        };
        // The buffer was sized for the rows asked; kept, its spare capacity would be memory the
        // bound does not count.
        body.shrink_to_fit();
        let body = Bytes::from(body);
        bodies.insert((key.clone(), Form::Identity), body.clone());
        if form == Form::Identity {
            return (body, form);
        }
        match form.encode(&body) {
            Ok(encoded) => {
                bodies.insert((key, form), encoded.clone());
                (encoded, form)
            }
            Err(_) => (body, Form::Identity),
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
                Form::Identity,
            );
            let (held, bound) = cache.weight();
            assert!(held <= bound, "{held} > {bound}");
        }
        assert!(cache.weight().0 > 0);
    }

    #[test]
    fn encoded_forms_are_made_once_from_the_plain_body() {
        let cache = ResponseCache::new(1 << 20);
        let body = Bytes::from(r#"{"data":[1,2,3]}"#.repeat(100));
        cache.keep("k".into(), body.to_vec(), Form::Identity);
        assert!(cache.get("k", Form::Gzip).is_none());
        let gz = cache.encode_kept("k", Form::Gzip).unwrap();
        assert_eq!(cache.get("k", Form::Gzip), Some(gz.clone()));
        let mut plain = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut plain).unwrap();
        assert_eq!(plain, body);
        assert!(cache.encode_kept("k", Form::Brotli).unwrap().len() < body.len());
        assert!(ResponseCache::new(0).get("k", Form::Identity).is_none());
        assert!(ResponseCache::new(0).encode_kept("k", Form::Gzip).is_none());
    }
}
