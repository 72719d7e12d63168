//! Which form a request gets, decided once (`routes::dispatch` calls [`negotiate`] with what
//! the route offers): the form its path names (a listing's `.csv`); else, where a route offers
//! several, OGC's `f` parameter if given; else `Accept`, with its q-values.
//!
//! `Accept` (RFC 9110 §12.5.1): each offered form takes the quality of the most specific media
//! range that matches it (`type/subtype` exactly, then `type/*`, then `*/*`; a JSON type that
//! names no form offered names the JSON one, as OGC clients ask); a form at `q=0` is refused
//! and never chosen; the highest quality wins, ties going to the more specific match, then to
//! the form that is more of the types asked (GeoJSON is JSON too), then to the range the
//! client listed first, then to the route's own order. When the client accepts
//! none of the forms, the route's first is sent (RFC 9110 lets a server disregard `Accept`
//! rather than answer 406). An answer whose form `Accept` chose says `Vary: Accept`.

use std::cmp::Reverse;

use actix_web::http::header::{Accept, Header, Quality, QualityItem};
use actix_web::mime::Mime;
use actix_web::HttpRequest;

use super::Form;
use crate::error::ApiError;
use crate::query::{php, Param, Query};

/// How a route's answer takes its form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// One form, whatever `Accept` says: the path names it, or the route has no other.
    Fixed(Form),
    /// The first of these unless `Accept` prefers another.
    Accept(&'static [Form]),
    /// OGC API's: `f` names one of these (`json` or `geojson` the first, `html` the page);
    /// without it, as `Accept` prefers.
    Ogc(&'static [Form]),
    /// The route writes its own media type (an asset, the metrics, a redirect): nothing to
    /// choose.
    Own,
}

/// The form chosen for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chosen {
    /// `None` for a route that writes its own media type.
    pub form: Option<Form>,
    /// Whether `Accept` chose it: the answer then says `Vary: Accept`.
    pub by_accept: bool,
}

impl Chosen {
    /// The form chosen, or `default` on a route that writes its own.
    pub fn form_or(&self, default: Form) -> Form {
        self.form.unwrap_or(default)
    }
}

/// The form of a request to a route that offers `offer`; a 400 for an `f` that names none.
pub fn negotiate(offer: Offer, req: &HttpRequest, query: &Query) -> Result<Chosen, ApiError> {
    let (form, by_accept) = match offer {
        Offer::Own => (None, false),
        Offer::Fixed(form) => (Some(form), false),
        Offer::Accept(forms) => (Some(by_accept(forms, req)), true),
        Offer::Ogc(forms) => match format_param(forms, query)? {
            Some(form) => (Some(form), false),
            None => (Some(by_accept(forms, req)), true),
        },
    };
    Ok(Chosen { form, by_accept })
}

/// OGC's `f`: the form it names, `None` when absent or empty (the default), a 400 otherwise.
fn format_param(forms: &[Form], query: &Query) -> Result<Option<Form>, ApiError> {
    let f = match php::get(query.php(), "f") {
        None => return Ok(None),
        Some(Param::Text(f)) if f.is_empty() => return Ok(None),
        Some(Param::Text(f)) => f,
        Some(Param::Map(_)) => {
            return Err(ApiError::BadRequest(
                "Unknown parameter `f[...]`: this API's parameters have no brackets.".into(),
            ))
        }
    };
    let named = match f.to_ascii_lowercase().as_str() {
        "json" | "geojson" => forms.iter().find(|form| form.is_json()),
        "html" => forms.iter().find(|form| **form == Form::Html),
        _ => None,
    };
    named.copied().map(Some).ok_or_else(|| {
        ApiError::BadRequest(format!(
            "Unknown format f=`{f}`: this API answers f=json (GeoJSON for features) or f=html."
        ))
    })
}

/// The form of `forms` that the request's `Accept` prefers (the first when it has none, or
/// accepts none of them).
fn by_accept(forms: &[Form], req: &HttpRequest) -> Form {
    let ranges = Accept::parse(req).map(|a| a.0).unwrap_or_default();
    let ranked = forms.iter().enumerate().filter_map(|(at, form)| {
        let (quality, specificity, listed) = preference(*form, forms, &ranges)?;
        let fits = fits(*form, &ranges);
        let rank = (quality, specificity, fits, Reverse(listed), Reverse(at));
        (quality > Quality::ZERO).then_some((rank, *form))
    });
    ranked
        .max_by_key(|(rank, _)| *rank)
        .map_or(forms[0], |(_, form)| form)
}

type Ranges = [QualityItem<Mime>];

/// How the client's ranges rate a form of `offered`: the quality of the most specific range
/// that matches it (the first listed of equally specific ones), how specific, and where it is
/// listed.
fn preference(form: Form, offered: &[Form], ranges: &Ranges) -> Option<(Quality, u8, usize)> {
    let matching = ranges.iter().enumerate().filter_map(|(listed, range)| {
        let specificity = specificity(form, offered, &range.item)?;
        Some((specificity, Reverse(listed), range.quality))
    });
    let (specificity, Reverse(listed), quality) = matching.max_by_key(|(s, l, _)| (*s, *l))?;
    Some((quality, specificity, listed))
}

/// How specifically a media range names a form of `offered` (RFC 9110): 3 its very type, 2
/// its type's `type/*`, 1 `*/*`; `None` when it does not name it. A JSON range that names no
/// form offered (`application/json` where the JSON offered is GeoJSON, `application/geo+json`
/// or `application/schema+json` where it is plain JSON) names the offered JSON as its own:
/// OGC clients ask any JSON resource so.
fn specificity(form: Form, offered: &[Form], range: &Mime) -> Option<u8> {
    let (kind, _) = form.media().split_once('/')?;
    let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    let names = |f: &Form| same(range.essence_str(), f.media());
    match (range.type_().as_str(), range.subtype().as_str()) {
        ("*", "*") => Some(1),
        (k, "*") if same(k, kind) => Some(2),
        _ if names(&form) => Some(3),
        _ if is_json(range) && form.is_json() && !offered.iter().any(names) => Some(3),
        _ => None,
    }
}

/// How many of the acceptable types named (not `*` ranges) a form is: its own, and
/// `application/json` for a `+json` form (a GeoJSON document is a JSON document). Between two
/// forms equally preferred, the one that is more of what was asked wins: GeoJSON for
/// `application/json, application/geo+json`.
fn fits(form: Form, ranges: &Ranges) -> usize {
    let media = form.media();
    let is = |range: &Mime| {
        let essence = range.essence_str();
        essence.eq_ignore_ascii_case(media)
            || (essence.eq_ignore_ascii_case("application/json") && media.ends_with("+json"))
    };
    let acceptable = ranges.iter().filter(|r| r.quality > Quality::ZERO);
    acceptable.filter(|r| is(&r.item)).count()
}

/// Whether a media range is JSON: `application/json` or any `+json` (`application/geo+json`,
/// whose `subtype` is `geo` and `suffix` `json`).
fn is_json(range: &Mime) -> bool {
    range
        .suffix()
        .is_some_and(|s| s.as_str().eq_ignore_ascii_case("json"))
        || range.essence_str().eq_ignore_ascii_case("application/json")
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn chosen(forms: &'static [Form], accept: Option<&str>) -> Form {
        let mut req = TestRequest::default();
        if let Some(accept) = accept {
            req = req.insert_header(("accept", accept));
        }
        by_accept(forms, &req.to_http_request())
    }

    const API: &[Form] = &[Form::Json, Form::GeoJson];
    const OGC: &[Form] = &[Form::Json, Form::Html];
    const FEATURES: &[Form] = &[Form::GeoJson, Form::Html];

    #[test]
    fn a_listing_with_places_answers_geojson_when_asked() {
        assert_eq!(chosen(API, None), Form::Json);
        assert_eq!(chosen(API, Some("*/*")), Form::Json);
        assert_eq!(chosen(API, Some("application/geo+json")), Form::GeoJson);
        let both = "application/geo+json, application/json;q=0.9";
        assert_eq!(chosen(API, Some(both)), Form::GeoJson);
        assert_eq!(chosen(API, Some("application/geo+json;q=0")), Form::Json);
        let refused = "application/json;q=0, application/geo+json;q=0.1";
        assert_eq!(chosen(API, Some(refused)), Form::GeoJson);
        assert_eq!(chosen(API, Some("application/json")), Form::Json);
        assert_eq!(
            chosen(API, Some("*/*, application/geo+json;q=0.5")),
            Form::Json
        );
        // Equal preferences: the one that is both (GeoJSON is JSON), else the one listed first.
        assert_eq!(
            chosen(API, Some("application/geo+json, application/json")),
            Form::GeoJson
        );
        assert_eq!(
            chosen(API, Some("application/json, application/geo+json")),
            Form::GeoJson
        );
    }

    #[test]
    fn ogc_answers_a_page_to_a_browser_and_honours_refusals() {
        let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        assert_eq!(chosen(OGC, Some(browser)), Form::Html);
        assert_eq!(
            chosen(OGC, Some("text/html;q=0, application/json")),
            Form::Json
        );
        assert_eq!(
            chosen(OGC, Some("application/json;q=0, text/html")),
            Form::Html
        );
        assert_eq!(chosen(OGC, Some("application/geo+json")), Form::Json);
        assert_eq!(
            chosen(OGC, Some("application/schema+json, text/html;q=0.5")),
            Form::Json
        );
        assert_eq!(chosen(OGC, Some("text/*")), Form::Html);
        assert_eq!(chosen(OGC, Some("application/xml")), Form::Json);
        assert_eq!(chosen(OGC, Some("TEXT/HTML")), Form::Html);
        let gdal = "application/geo+json, application/json";
        assert_eq!(chosen(FEATURES, Some(gdal)), Form::GeoJson);
        assert_eq!(chosen(FEATURES, Some("application/json")), Form::GeoJson);
        assert_eq!(chosen(FEATURES, Some(browser)), Form::Html);
        let json_first = "application/json, text/html";
        assert_eq!(chosen(FEATURES, Some(json_first)), Form::GeoJson);
        let refused = "application/json;q=0, text/html";
        assert_eq!(chosen(FEATURES, Some(refused)), Form::Html);
        // Refused everywhere: nothing acceptable is the default.
        assert_eq!(chosen(OGC, Some("*/*;q=0")), Form::Json);
        assert_eq!(chosen(OGC, Some("garbage, ;;")), Form::Json);
    }

    #[test]
    fn f_names_a_form_and_nothing_else() {
        let format = |q: &str| format_param(OGC, &Query::read(q)).map_err(|e| e.to_string());
        assert_eq!(format("f=HTML"), Ok(Some(Form::Html)));
        assert_eq!(format("f=geojson"), Ok(Some(Form::Json)));
        assert_eq!(format("f="), Ok(None));
        assert!(format("f=xml").unwrap_err().contains("f=`xml`"));
        assert!(format("f[a]=1").unwrap_err().contains("brackets"));
    }
}
