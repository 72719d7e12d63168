//! The one conditional layer (RFC 9110 §13): an answer's validators (its entity tag, strong or
//! weak, and its last modification when it has one), the request's preconditions evaluated
//! against them in the RFC's order, and what they answer instead of the representation: `304
//! Not Modified` or `412 Precondition Failed`; and `If-Range`, which decides whether a `Range`
//! is honoured. Every answer that has a tag goes through here: the listings, their totals and
//! revisions, the change reports, the releases, the stored downloads, OGC's documents and
//! features.
//!
//! An answer's tag is made by its handler from the release and the question in a canonical
//! form (the same question, asked with its parameters in any order or encoding, has the same
//! tag); an encoded body's tag is weak (`cache::Encoding::etag`). The parsing of the headers is
//! actix's.

use std::str::FromStr;
use std::time::{Duration, SystemTime};

use actix_web::http::header::{
    self, EntityTag, Header, IfMatch, IfModifiedSince, IfNoneMatch, IfRange, IfUnmodifiedSince,
};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};

/// What a client can know a representation by.
#[derive(Debug, Clone, Copy)]
pub struct Validators<'a> {
    /// Quoted, with `W/` before a weak one.
    pub etag: &'a str,
    /// When it last changed, if it says (the stored downloads): compared in whole seconds, as
    /// `Last-Modified` has them.
    pub modified: Option<SystemTime>,
}

impl Validators<'_> {
    /// The status the request's preconditions answer with instead of the representation (a
    /// `412` or a `304`), or `None` to answer it: RFC 9110 §13.2.2's order, in which
    /// `If-Match` overrides `If-Unmodified-Since` and `If-None-Match` overrides
    /// `If-Modified-Since`. (actix reads an absent list header as an empty list: presence is
    /// asked first.)
    pub fn precondition(&self, req: &HttpRequest) -> Option<StatusCode> {
        let has = |name| req.headers().contains_key(name);
        let conditions = [
            header::IF_MATCH,
            header::IF_UNMODIFIED_SINCE,
            header::IF_NONE_MATCH,
            header::IF_MODIFIED_SINCE,
        ];
        // Most requests ask nothing: answered without parsing the tag (a hot page's budget is
        // a few microseconds).
        if !conditions.into_iter().any(has) {
            return None;
        }
        let etag = EntityTag::from_str(self.etag).ok();
        let modified = self.modified.map(whole_seconds);
        let failed = match has(header::IF_MATCH) {
            true => match IfMatch::parse(req) {
                Ok(IfMatch::Any) => false,
                Ok(IfMatch::Items(tags)) => !etag
                    .as_ref()
                    .is_some_and(|e| tags.iter().any(|t| t.strong_eq(e))),
                Err(_) => true,
            },
            false => modified.is_some_and(|modified| {
                IfUnmodifiedSince::parse(req)
                    .is_ok_and(|IfUnmodifiedSince(date)| modified > SystemTime::from(date))
            }),
        };
        if failed {
            return Some(StatusCode::PRECONDITION_FAILED);
        }
        let not_modified = match has(header::IF_NONE_MATCH) {
            true => match IfNoneMatch::parse(req) {
                Ok(IfNoneMatch::Any) => true,
                Ok(IfNoneMatch::Items(tags)) => etag
                    .as_ref()
                    .is_some_and(|e| tags.iter().any(|t| t.weak_eq(e))),
                Err(_) => false,
            },
            false => modified.is_some_and(|modified| {
                IfModifiedSince::parse(req)
                    .is_ok_and(|IfModifiedSince(date)| modified <= SystemTime::from(date))
            }),
        };
        not_modified.then_some(StatusCode::NOT_MODIFIED)
    }

    /// The answer to give instead of the representation when the request's preconditions say
    /// so (a `304` or a `412`, see [`unmet`]); `None` to answer it.
    pub fn instead(&self, req: &HttpRequest) -> Option<HttpResponse> {
        let status = self.precondition(req)?;
        Some(unmet(status, self.etag))
    }

    /// Whether the request's `Range` is to be honoured: always without `If-Range`, and with it
    /// only if the client's validator is this representation's (a strong tag, or exactly its
    /// date).
    pub fn range_applies(&self, req: &HttpRequest) -> bool {
        if !req.headers().contains_key(header::IF_RANGE) {
            return true;
        }
        let etag = EntityTag::from_str(self.etag).ok();
        match IfRange::parse(req) {
            Ok(IfRange::EntityTag(tag)) => etag.is_some_and(|e| tag.strong_eq(&e)),
            Ok(IfRange::Date(date)) => self
                .modified
                .is_some_and(|m| SystemTime::from(date) == whole_seconds(m)),
            Err(_) => false,
        }
    }
}

/// An answer whose precondition was not met (`status`, from [`Validators::precondition`]), with
/// the representation's tag. (What else it repeats of the representation's head, RFC 9110
/// §15.4.5, is added where it is decided: `Vary` by the negotiation, the caching of a named
/// release by the routes.)
fn unmet(status: StatusCode, etag: &str) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::ETAG, etag))
        .finish()
}

/// Whether an answer stands for the representation, so that what describes it (its caching)
/// goes with it: a success, or a `304` that tells the client its copy is still it.
pub fn stands_for_representation(status: StatusCode) -> bool {
    status.is_success() || status == StatusCode::NOT_MODIFIED
}

/// A time to the whole second, as HTTP dates have it.
pub fn whole_seconds(t: SystemTime) -> SystemTime {
    let since = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    SystemTime::UNIX_EPOCH + Duration::from_secs(since.as_secs())
}
