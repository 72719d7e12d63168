//! The API's listing endpoints: a request flows one way, parse -> a checked request -> (on the
//! blocking pool) its SQL plan, its page, its JSON -> the response.

use std::sync::Arc;
use std::time::Duration;

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse, HttpResponseBuilder};
use bytes::Bytes;

use roadtraffic_catalog::places::Places;
use roadtraffic_catalog::Dataset;

use super::answers::public_base;
use crate::api::{Envelope, FilterSets, Format, ListRequest};
use crate::cache::{Encoding, ResponseCache};
use crate::error::ApiError;
use crate::query::Query;
use crate::release::Release;
use crate::spatial::Crs;
use crate::state::AppState;
use crate::stream::{self, Written};

pub async fn list(
    req: &HttpRequest,
    query: &Query,
    state: &AppState,
    release: Arc<Release>,
    dataset: &'static Dataset,
    envelope: Envelope,
) -> Result<HttpResponse, ApiError> {
    let config = &state.config;
    let params = query.php().clone();
    let mut request = ListRequest::parse(dataset, &params, config.max_page_size)?;
    request.envelope = envelope;
    let spatial =
        envelope == Envelope::Laravel && dataset.paginated && Places::of(dataset).is_some();
    if spatial && prefers_geojson(req) {
        request.features = Some(Crs::Crs84);
    }
    let content_type = match request.features {
        Some(_) => Format::GeoJson.content_type(),
        None => Format::Json.content_type(),
    };
    let base = public_base(req, config.public_url.as_deref());
    let url = format!("{base}{}", req.path().trim_end_matches('/'));
    let mut key = request.canonical(&url, &params);
    if request.features.is_some() {
        key.push_str(" as GeoJSON");
    }
    let encoding = Encoding::negotiate(req, config.compress);
    let responses = state.responses(&release);
    let head = match Head::unless_held(req, &release, &key, encoding, content_type) {
        Ok(head) => head.varying(spatial),
        Err(held) => return Ok(held.response()),
    };
    if let Some(body) = kept(&responses, &key, encoding).await? {
        return Ok(whole(body, encoding, head));
    }
    let permit = state.heavy_permit(request.rows_asked()).await?;
    let time_limit = Duration::from_millis(config.query_timeout);
    let filter_sets = FilterSets::of(&release, config.filter_set_bytes());
    let written = stream::run(move |flush| {
        let _permit = permit;
        request.run(&release, &filter_sets, &url, &params, time_limit, flush)
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

/// A whole answer of `release` (JSON, CSV...), known by `key` (the request in a form that
/// determines it): its tag and `304`, the body kept for it, or `make`'s on the blocking pool
/// (after a heavy permit for `rows` rows) then kept. What a question that is not a listing
/// answers through.
pub async fn whole_answer(
    req: &HttpRequest,
    state: &AppState,
    release: Arc<Release>,
    key: String,
    content_type: &'static str,
    rows: i64,
    make: impl FnOnce(&Release) -> Result<Vec<u8>, ApiError> + Send + 'static,
) -> Result<HttpResponse, ApiError> {
    let encoding = Encoding::negotiate(req, state.config.compress);
    let head = match Head::unless_held(req, &release, &key, encoding, content_type) {
        Ok(head) => head,
        Err(held) => return Ok(held.response()),
    };
    let responses = state.responses(&release);
    if let Some(body) = kept(&responses, &key, encoding).await? {
        return Ok(whole(body, encoding, head));
    }
    let permit = state.heavy_permit(rows).await?;
    let body = web::block(move || {
        let _permit = permit;
        make(&release)
    })
    .await
    .map_err(ApiError::internal)??;
    let (body, encoding) = keep(responses, key, body, encoding).await?;
    Ok(whole(body, encoding, head))
}

/// The body kept for `key` in `encoding`, or made from the plain body kept for it. Encoding runs
/// on the blocking pool: gzip or brotli of a page takes milliseconds, which on this thread
/// would hold up every other connection of the worker.
async fn kept(
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
async fn keep(
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

/// The client holds the answer: its tag.
struct NotModified(String);

impl NotModified {
    fn response(self) -> HttpResponse {
        HttpResponse::NotModified()
            .insert_header((header::ETAG, self.0))
            .finish()
    }
}

/// What a listing's response says of its body.
struct Head {
    content_type: &'static str,
    etag: String,
    /// The body depends on `Accept` (JSON, or GeoJSON when asked), which caches must know.
    vary_accept: bool,
}

impl Head {
    /// The head of the answer known by `key`, tagged; or a 304 when the client holds it.
    fn unless_held(
        req: &HttpRequest,
        release: &Release,
        key: &str,
        encoding: Encoding,
        content_type: &'static str,
    ) -> Result<Head, NotModified> {
        let etag = etag(release, key, encoding);
        if matches_etag(req, &etag) {
            return Err(NotModified(etag));
        }
        Ok(Head {
            content_type,
            etag,
            vary_accept: false,
        })
    }

    /// The same head, saying the body depends on `Accept` when it does.
    fn varying(mut self, on_accept: bool) -> Head {
        self.vary_accept = on_accept;
        self
    }

    fn builder(self) -> HttpResponseBuilder {
        let mut head = HttpResponse::Ok();
        head.insert_header((header::CONTENT_TYPE, self.content_type))
            .insert_header((header::ETAG, self.etag));
        if self.vary_accept {
            head.insert_header((header::VARY, "Accept"));
        }
        head
    }
}

/// Whether the client asks for GeoJSON before JSON: `application/geo+json` in `Accept` with a
/// quality above 0 and not below that of `application/json` (browsers, asking `*/*`, get JSON).
fn prefers_geojson(req: &HttpRequest) -> bool {
    let quality = |wanted: &str| {
        req.headers()
            .get_all(header::ACCEPT)
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|item| {
                let mut parts = item.split(';').map(str::trim);
                let media = parts.next()?;
                let q = parts
                    .find_map(|p| p.strip_prefix("q="))
                    .map_or(Some(1.0), |q| q.parse::<f32>().ok())?;
                media.eq_ignore_ascii_case(wanted).then_some(q)
            })
            .fold(None, |best: Option<f32>, q| {
                Some(best.map_or(q, |b| b.max(q)))
            })
    };
    match (quality("application/geo+json"), quality("application/json")) {
        (Some(geo), json) => geo > 0.0 && geo >= json.unwrap_or(0.0),
        (None, _) => false,
    }
}

/// A whole body, in its encoding: an encoded one says so (and compression leaves it alone).
fn whole(body: Bytes, encoding: Encoding, head: Head) -> HttpResponse {
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

/// `If-None-Match`, compared weakly as HTTP says: `W/"x"` matches `"x"` and `"x"` matches
/// `W/"x"`; a list matches if any of its tags does; `*` matches any.
pub fn matches_etag(req: &HttpRequest, etag: &str) -> bool {
    fn opaque(tag: &str) -> &str {
        tag.trim().trim_start_matches("W/")
    }
    req.headers()
        .get_all(header::IF_NONE_MATCH)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim() == "*" || opaque(t) == opaque(etag))
}
