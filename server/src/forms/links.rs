//! The links of a JSON answer (`{"href", "rel", "type", "title"}`), written by one writer for
//! the API's GeoJSON pages and OGC's: the URL in the API's JSON as PHP escapes it (`\/`), as
//! the public service's answers are, in OGC's as plain JSON; the relation, media type and
//! title, fixed words, as plain JSON in both (as the API's pages have always written them).

use roadtraffic_catalog::json;

/// A link to another answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub href: String,
    pub rel: &'static str,
    /// Its media type.
    pub media: &'static str,
    pub title: Option<&'static str>,
}

/// How the strings of a JSON answer are escaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escaping {
    /// As PHP's `json_encode` (the API's answers): `\/`, `\uXXXX`.
    Php,
    /// As plain JSON (OGC's answers).
    Plain,
}

impl Escaping {
    pub fn string(self, out: &mut Vec<u8>, s: &str) {
        match self {
            Escaping::Php => json::string(out, s),
            // Writing a string into a vector cannot fail.
            Escaping::Plain => serde_json::to_writer(&mut *out, s).unwrap_or_default(),
        }
    }
}

/// `[link, ...]`.
pub fn write(out: &mut Vec<u8>, links: &[Link], escaping: Escaping) {
    out.push(b'[');
    for (i, link) in links.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"href\":");
        escaping.string(out, &link.href);
        out.extend_from_slice(b",\"rel\":");
        Escaping::Plain.string(out, link.rel);
        out.extend_from_slice(b",\"type\":");
        Escaping::Plain.string(out, link.media);
        if let Some(title) = link.title {
            out.extend_from_slice(b",\"title\":");
            Escaping::Plain.string(out, title);
        }
        out.push(b'}');
    }
    out.push(b']');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_escaped_as_their_answer_is() {
        let links = [Link {
            href: "http://h/x?a=1".into(),
            rel: "next",
            media: "application/geo+json",
            title: Some("The next"),
        }];
        let mut out = Vec::new();
        write(&mut out, &links, Escaping::Plain);
        let plain = String::from_utf8(out).unwrap();
        assert_eq!(
            plain,
            r#"[{"href":"http://h/x?a=1","rel":"next","type":"application/geo+json","title":"The next"}]"#
        );
        let mut out = Vec::new();
        write(&mut out, &links, Escaping::Php);
        assert!(String::from_utf8(out)
            .unwrap()
            .contains(r#""http:\/\/h\/x?a=1""#));
    }
}
