//! The site's files, embedded in the binary (`assets/` at the repository's root), and the
//! names they are served under: names that carry a hash of their bytes, so that a browser may
//! keep them for a year and a new build is never mixed with an old cache.

use std::sync::OnceLock;

pub const STYLESHEET: &str = "site.css";
pub const SCRIPT: &str = "site.js";
pub const OUTLINE: &str = "gb-outline.json";
pub const ICON: &str = "icon.svg";

/// An embedded file: its plain name, type and bytes.
pub struct Asset {
    pub name: &'static str,
    pub content_type: &'static str,
    pub bytes: &'static [u8],
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

/// The embedded file of this plain name (`gb-outline.json`), for the server's own use.
pub fn named(name: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|a| a.name == name)
}

/// The embedded file served under this (hashed) name, if any.
pub fn served_as(name: &str) -> Option<&'static Asset> {
    ASSETS
        .iter()
        .zip(hashed_names())
        .find(|(_, served)| *served == name)
        .map(|(asset, _)| asset)
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
