//! The site's files, embedded in the binary (`assets/` at the repository's root): served under
//! names that carry a hash of their bytes, so that a browser may keep them for a year and a
//! new build is never mixed with an old cache. The map's point data is per loaded file: its
//! name carries the release's tag, and it is sent gzipped to any client that takes gzip.

use std::sync::OnceLock;

use actix_web::http::{header, StatusCode};
use actix_web::{HttpRequest, HttpResponse};

use crate::error::ApiError;
use crate::html;
use crate::site::{current_summary, summary::Summary};
use crate::startup::AppState;

pub const STYLESHEET: &str = "site.css";
pub const SCRIPT: &str = "site.js";
pub const OUTLINE: &str = "gb-outline.json";
pub const ICON: &str = "icon.svg";

/// An embedded file: its plain name, type and bytes.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
}

macro_rules! asset {
    ($name:literal, $type:literal) => {
        Asset {
            name: $name,
            content_type: $type,
            bytes: include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/", $name)),
        }
    };
}

static ASSETS: [Asset; 4] = [
    asset!("site.css", "text/css; charset=utf-8"),
    asset!("site.js", "text/javascript; charset=utf-8"),
    asset!("gb-outline.json", "application/json"),
    asset!("icon.svg", "image/svg+xml"),
];

/// A year: the name changes whenever the bytes do.
const FOREVER: &str = "public, max-age=31536000, immutable";

/// Each asset's served name: `site.css` is `site.0123456789abcdef.css`.
fn hashed_names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        ASSETS
            .iter()
            .map(|a| {
                let hash = roadtraffic_catalog::stable_hash(&String::from_utf8_lossy(a.bytes));
                let (stem, ext) = a.name.rsplit_once('.').unwrap_or((a.name, ""));
                format!("{stem}.{hash:016x}.{ext}")
            })
            .collect()
    })
}

/// The path an asset is served at, by its plain name.
pub fn url(name: &str) -> String {
    let served = ASSETS
        .iter()
        .zip(hashed_names())
        .find(|(a, _)| a.name == name)
        .map_or(name, |(_, served)| served.as_str());
    format!("/assets/{served}")
}

/// Answers `/assets/{name}`.
pub async fn serve(req: &HttpRequest, state: &AppState, name: &str) -> HttpResponse {
    if let Some((asset, _)) = ASSETS
        .iter()
        .zip(hashed_names())
        .find(|(_, served)| *served == name)
    {
        return HttpResponse::Ok()
            .insert_header((header::CONTENT_TYPE, asset.content_type))
            .insert_header((header::CACHE_CONTROL, FOREVER))
            .body(asset.bytes);
    }
    if name.starts_with("points-") {
        return match current_summary(state).await {
            Ok((release, summary)) if name == Summary::points_asset(&release) => {
                points(req, &summary)
            }
            Ok(_) => html::error_page(&ApiError::NotFound(name.to_string())),
            Err(e) => html::error_page(&e),
        };
    }
    html::error_page(&ApiError::NotFound(name.to_string()))
}

/// The map's point data, gzipped when the client takes it (it is compressed once per file).
fn points(req: &HttpRequest, summary: &Summary) -> HttpResponse {
    let gzip = req
        .headers()
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|e| e.trim().starts_with("gzip")));
    let mut response = HttpResponse::build(StatusCode::OK);
    response
        .insert_header((header::CONTENT_TYPE, "application/octet-stream"))
        .insert_header((header::CACHE_CONTROL, FOREVER))
        .insert_header((header::VARY, "Accept-Encoding"));
    if gzip {
        response
            .insert_header((header::CONTENT_ENCODING, "gzip"))
            .body(summary.points.gzipped.clone())
    } else {
        response.body(summary.points.bytes.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn served_names_carry_a_hash_of_the_bytes() {
        let css = url(STYLESHEET);
        assert!(
            css.starts_with("/assets/site.") && css.ends_with(".css"),
            "{css}"
        );
        assert_eq!(css.len(), "/assets/site..css".len() + 16);
        assert_ne!(url(STYLESHEET), url(SCRIPT));
    }
}
