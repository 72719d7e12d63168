//! One file's transfer: a conditional request when a checked copy is cached, a ranged one when
//! a partial download can be resumed, the body appended to the partial file, transient
//! failures retried with backoff, everything else a final error naming the URL.

use std::io::Read;
use std::time::{Duration, Instant};

use ureq::http::{header, Response};

use super::cache::{Cache, Validators};
use super::partial;
use super::progress::FileProgress;
use crate::error::FetchError;

/// A request's body may take this long; a longer transfer goes on in a ranged request, so a
/// connection that stalls is noticed within this time.
pub const REQUEST_BODY_TIME: Duration = Duration::from_secs(120);
/// The wait before the first retry; it doubles with each failure in a row, up to
/// [`LONGEST_WAIT`].
const FIRST_WAIT: Duration = Duration::from_secs(1);
const LONGEST_WAIT: Duration = Duration::from_secs(30);
/// The longest `Retry-After` obeyed.
const LONGEST_RETRY_AFTER: u64 = 60;

/// The HTTP client every file is fetched with.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_recv_response(Some(Duration::from_secs(60)))
        .timeout_recv_body(Some(REQUEST_BODY_TIME))
        .user_agent(concat!("roadtraffic-load/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// What a transfer ended with.
#[derive(Debug)]
pub enum Outcome {
    /// The server says the cached copy is current (304).
    Unchanged,
    /// The partial file now holds the whole body.
    Downloaded {
        validators: Validators,
        bytes: u64,
        /// Of the whole file, resumed or not.
        sha256: String,
        /// Bytes already there from an earlier, interrupted transfer.
        resumed_from: u64,
        seconds: f64,
    },
}

/// Why one attempt failed.
enum Failure {
    /// Worth another attempt (after a wait, unless `now`).
    Transient {
        why: String,
        retry_after: Option<Duration>,
        now: bool,
    },
    Final(FetchError),
}

fn transient(why: impl Into<String>) -> Failure {
    Failure::Transient {
        why: why.into(),
        retry_after: None,
        now: false,
    }
}

/// One file of the release to fetch.
pub struct Job<'a> {
    pub agent: &'a ureq::Agent,
    pub cache: &'a Cache,
    pub name: &'a str,
    pub url: &'a str,
    /// Ask whether the cached copy (with these validators) is still current.
    pub cached: Option<&'a Validators>,
    /// Failures in a row allowed before giving up.
    pub retries: u32,
    pub progress: &'a FileProgress,
}

/// Fetches the file into the cache's partial file, retrying what can be retried. A failure
/// that made the partial file grow does not count against the retries: the next attempt
/// resumes from there.
pub fn fetch(job: &Job) -> Result<Outcome, FetchError> {
    let started = Instant::now();
    let mut failures = 0u32;
    let mut attempts = 0u32;
    let mut held = partial_len(job);
    loop {
        attempts += 1;
        let (why, retry_after, now) = match attempt(job, started) {
            Ok(outcome) => return Ok(outcome),
            Err(Failure::Final(e)) => return Err(e),
            Err(Failure::Transient {
                why,
                retry_after,
                now,
            }) => (why, retry_after, now),
        };
        let grew = partial_len(job) > held;
        held = held.max(partial_len(job));
        failures = if grew { 0 } else { failures + 1 };
        if failures > job.retries {
            return Err(FetchError::Network {
                url: job.url.to_string(),
                detail: why,
                attempts,
            });
        }
        let wait = match (grew || now, retry_after) {
            (_, Some(after)) => after,
            (true, None) => Duration::ZERO,
            (false, None) => backoff(failures),
        };
        job.progress.retrying(&why, wait);
        std::thread::sleep(wait);
    }
}

fn backoff(failures: u32) -> Duration {
    let doubled = FIRST_WAIT.saturating_mul(1 << failures.saturating_sub(1).min(16));
    doubled.min(LONGEST_WAIT)
}

fn partial_len(job: &Job) -> u64 {
    std::fs::metadata(job.cache.partial(job.name)).map_or(0, |m| m.len())
}

/// One request and its body.
fn attempt(job: &Job, started: Instant) -> Result<Outcome, Failure> {
    let resume = job.cache.resumable(job.name, job.url);
    if resume.is_none() {
        job.cache.discard_partial(job.name);
    }
    let mut request = job
        .agent
        .get(job.url)
        .header(header::ACCEPT_ENCODING, "identity");
    if let Some((held, validators)) = &resume {
        request = request.header(header::RANGE, format!("bytes={held}-"));
        if let Some(v) = validators.if_range() {
            request = request.header(header::IF_RANGE, v);
        }
    } else if let Some(cached) = job.cached {
        if let Some(etag) = &cached.etag {
            request = request.header(header::IF_NONE_MATCH, etag);
        }
        if let Some(date) = &cached.last_modified {
            request = request.header(header::IF_MODIFIED_SINCE, date);
        }
    }
    let response = request.call().map_err(|e| network_failure(job, e))?;
    let from = start_of_body(job, &response, resume.as_ref().map(|r| r.0))?;
    let Some(from) = from else {
        return Ok(Outcome::Unchanged);
    };
    refuse_html(job, &response)?;
    let validators = validators_of(job.url, &response);
    let total = expected_total(&response, from);
    if from == 0 {
        job.cache.discard_partial(job.name);
        job.cache
            .start_partial(job.name, &validators)
            .map_err(Failure::Final)?;
    }
    let (bytes, sha256) = receive(job, response, from, total)?;
    // A resumed body belongs to the content the partial file was started with.
    let validators = match resume {
        Some((_, started_with)) if from > 0 => started_with,
        _ => validators,
    };
    Ok(Outcome::Downloaded {
        validators,
        bytes,
        sha256,
        resumed_from: from,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Where the body starts in the file (0 for a whole body, the held length for a range), or
/// `None` for a cached copy still current; anything else is a failure.
fn start_of_body(
    job: &Job,
    response: &Response<ureq::Body>,
    held: Option<u64>,
) -> Result<Option<u64>, Failure> {
    let status = response.status();
    match status.as_u16() {
        200 => Ok(Some(0)),
        206 => match (held, content_range_start(response)) {
            (Some(held), Some(start)) if start == held => Ok(Some(held)),
            _ => {
                // A range we did not ask for: start again from the beginning.
                job.cache.discard_partial(job.name);
                Err(Failure::Transient {
                    why: "the server answered another range than the one asked for".into(),
                    retry_after: None,
                    now: true,
                })
            }
        },
        304 if job.cached.is_some() => Ok(None),
        416 => {
            job.cache.discard_partial(job.name);
            Err(Failure::Transient {
                why: "the server refused to resume the partial download (416)".into(),
                retry_after: None,
                now: true,
            })
        }
        408 | 429 | 500..=599 => Err(Failure::Transient {
            why: format!("the server answered {status}"),
            retry_after: retry_after(response),
            now: false,
        }),
        _ => Err(Failure::Final(FetchError::Status {
            url: job.url.to_string(),
            status: status.to_string(),
            attempts: 1,
        })),
    }
}

fn header_text(response: &Response<ureq::Body>, name: header::HeaderName) -> Option<&str> {
    response.headers().get(name).and_then(|v| v.to_str().ok())
}

/// A page where a zip archive was asked for (an error page served with 200) is refused
/// before a byte of it is kept.
fn refuse_html(job: &Job, response: &Response<ureq::Body>) -> Result<(), Failure> {
    let content_type = header_text(response, header::CONTENT_TYPE).unwrap_or_default();
    if content_type.to_ascii_lowercase().starts_with("text/html") {
        return Err(Failure::Final(FetchError::NotZip {
            url: job.url.to_string(),
            detail: format!(
                "the server sent an HTML page ({content_type}), not a zip archive: nothing was kept"
            ),
        }));
    }
    Ok(())
}

fn validators_of(url: &str, response: &Response<ureq::Body>) -> Validators {
    Validators {
        url: url.to_string(),
        etag: header_text(response, header::ETAG).map(str::to_string),
        last_modified: header_text(response, header::LAST_MODIFIED).map(str::to_string),
    }
}

/// `Content-Range: bytes START-END/TOTAL`: START.
fn content_range_start(response: &Response<ureq::Body>) -> Option<u64> {
    let range = header_text(response, header::CONTENT_RANGE)?;
    let spec = range.trim().strip_prefix("bytes ")?;
    spec.split(['-', '/']).next()?.trim().parse().ok()
}

/// The whole file's length, when the response says it.
fn expected_total(response: &Response<ureq::Body>, from: u64) -> Option<u64> {
    if from > 0 {
        let range = header_text(response, header::CONTENT_RANGE)?;
        return range.rsplit('/').next()?.trim().parse().ok();
    }
    header_text(response, header::CONTENT_LENGTH)?
        .trim()
        .parse()
        .ok()
}

fn retry_after(response: &Response<ureq::Body>) -> Option<Duration> {
    let seconds: u64 = header_text(response, header::RETRY_AFTER)?
        .trim()
        .parse()
        .ok()?;
    Some(Duration::from_secs(seconds.min(LONGEST_RETRY_AFTER)))
}

/// Appends the body to the partial file from `from` (the writing thread hashes the file as it
/// grows); the partial file's length and SHA-256 when the body ended whole.
fn receive(
    job: &Job,
    mut response: Response<ureq::Body>,
    from: u64,
    total: Option<u64>,
) -> Result<(u64, String), Failure> {
    let path = job.cache.partial(job.name);
    job.progress.start(from, total);
    let body = response.body_mut().as_reader();
    let (received, written) =
        partial::write_while(&path, from, |feed| feed_body(job, body, from, &feed));
    // A write error is the cause of a receive that stopped short: it comes first.
    let sha256 = written.map_err(|e| Failure::Final(FetchError::cache(&path, e)))?;
    let held = received?;
    match total {
        Some(total) if held != total => Err(transient(format!(
            "the transfer ended after {held} of {total} bytes"
        ))),
        _ => Ok((held, sha256)),
    }
}

/// Reads the body into full buffers for the writer until it ends (the bytes held then) or is
/// cut (what came before the cut is written all the same, to be resumed).
fn feed_body(
    job: &Job,
    mut body: impl Read,
    from: u64,
    feed: &partial::Feed,
) -> Result<u64, Failure> {
    let mut held = from;
    loop {
        let mut buf = feed.buffer();
        let (n, cut) = fill(&mut body, &mut buf);
        buf.truncate(n);
        if n > 0 && !feed.send(buf) {
            return Err(transient("the partial file could not be written"));
        }
        held += n as u64;
        job.progress.advance(held);
        if let Some(e) = cut {
            return Err(transient(format!(
                "the transfer was cut after {held} bytes: {e}"
            )));
        }
        if n < partial::BUFFER {
            return Ok(held);
        }
    }
}

/// Reads until `buf` is full or the body ends: how many bytes, and the error that cut the body
/// short, if one did.
fn fill(body: &mut impl Read, buf: &mut [u8]) -> (usize, Option<std::io::Error>) {
    let mut n = 0;
    while n < buf.len() {
        match body.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return (n, Some(e)),
        }
    }
    (n, None)
}

/// A failure to get any answer: retried, but for an unknown host or a malformed URL.
fn network_failure(job: &Job, e: ureq::Error) -> Failure {
    let final_error = |detail: String| {
        Failure::Final(FetchError::Network {
            url: job.url.to_string(),
            detail,
            attempts: 1,
        })
    };
    match e {
        ureq::Error::HostNotFound => final_error("host not found (DNS)".into()),
        ureq::Error::Io(e) if is_unknown_host(&e) => {
            final_error(format!("host not found (DNS): {e}"))
        }
        ureq::Error::BadUri(why) => final_error(format!("not a URL that can be fetched: {why}")),
        other => transient(format!("no answer: {other}")),
    }
}

/// A name the resolver says does not exist: the standard library's lookup error (ureq passes
/// it on as an I/O error), but for a temporary failure (no resolver reachable), which a retry
/// may cure.
fn is_unknown_host(e: &std::io::Error) -> bool {
    let text = e.to_string();
    text.starts_with("failed to lookup address information") && !text.contains("Temporary failure")
}
