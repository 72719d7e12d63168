//! Checking a downloaded zip archive whole before it is kept, by its structure alone (its
//! length is the one the server announced: the download checks that): its end record and
//! central directory parse (so it was not cut short), it holds at least one member, it
//! declares no more than [`MAX_INFLATED`] bytes once inflated, and every member's local header
//! is where the directory says, with its compressed bytes lying inside the archive, before the
//! directory. An HTML page saved under the name is named as such.
//!
//! Nothing is inflated here. The CRC-32 of every member the load reads is checked by the load
//! itself, which inflates each member to its end anyway (a mismatch fails the load, naming the
//! member, and the served file stays as it was): inflating 1.3 GB here too doubled that work
//! and made a fetch five times slower than `curl`.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use crate::error::FetchError;

/// A release's national files inflate to about 1.3 GB; an archive declaring more than this is
/// refused rather than inflated.
const MAX_INFLATED: u64 = 32 << 30;

/// Checks the archive at `path`, downloaded from `url`.
pub fn check_zip(path: &Path, url: &str) -> Result<(), FetchError> {
    let not_zip = |detail: String| FetchError::NotZip {
        url: url.to_string(),
        detail,
    };
    let file = File::open(path).map_err(|e| FetchError::cache(path, e))?;
    let mut archive = match zip::ZipArchive::new(BufReader::new(file)) {
        Ok(a) => a,
        Err(e) => return Err(not_zip(what_it_is(path, &e.to_string()))),
    };
    if archive.is_empty() {
        return Err(not_zip("the zip archive is empty".into()));
    }
    let directory_start = archive.central_directory_start();
    let mut inflated = 0u64;
    for i in 0..archive.len() {
        let member = archive
            .by_index_raw(i)
            .map_err(|e| not_zip(format!("member {i} of the zip archive is unreadable: {e}")))?;
        let name = member
            .name()
            .map_or(format!("member {i}"), |n| n.to_string());
        let data_end = member
            .data_start()
            .and_then(|start| start.checked_add(member.compressed_size()));
        if data_end.is_none_or(|end| end > directory_start) {
            return Err(not_zip(format!(
                "{name} in the zip archive runs past its end (cut short or damaged?)"
            )));
        }
        inflated = inflated.saturating_add(member.size());
    }
    if inflated > MAX_INFLATED {
        return Err(not_zip(format!(
            "the zip archive declares more than {MAX_INFLATED} bytes once inflated: refused"
        )));
    }
    Ok(())
}

/// Why a file is not a zip archive, in words: an HTML page, or the archive's own error (cut
/// short, damaged).
fn what_it_is(path: &Path, error: &str) -> String {
    let mut head = [0u8; 512];
    let n = File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    let text = String::from_utf8_lossy(&head[..n]).to_ascii_lowercase();
    let text = text.trim_start();
    if text.starts_with("<!doctype html") || text.starts_with("<html") || text.starts_with("<?xml")
    {
        "it is an HTML or XML page, not a zip archive (an error page saved under the name?)"
            .to_string()
    } else {
        format!("not a whole zip archive (cut short or damaged?): {error}")
    }
}
