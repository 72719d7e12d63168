//! Checking a downloaded zip archive whole before it is kept: it opens (its central directory
//! is there, so it was not cut short), it holds at least one member, and every member reads to
//! its end with the CRC-32 its header gives. An HTML page saved under the name is named as such.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

use crate::error::FetchError;

/// A release's national files inflate to about 1.3 GB; an archive declaring more than this is
/// refused rather than inflated.
const MAX_INFLATED: u64 = 32 << 30;

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
    if archive.decompressed_size().unwrap_or(0) > u128::from(MAX_INFLATED) {
        return Err(not_zip(format!(
            "the zip archive declares more than {MAX_INFLATED} bytes once inflated: refused"
        )));
    }
    for i in 0..archive.len() {
        let mut member = archive
            .by_index(i)
            .map_err(|e| not_zip(format!("member {i} of the zip archive is unreadable: {e}")))?;
        let name = member
            .name()
            .map_or(format!("member {i}"), |n| n.to_string());
        let declared = member.size();
        let read = io::copy(&mut (&mut member).take(declared + 1), &mut io::sink())
            .map_err(|e| not_zip(format!("{name} in the zip archive is damaged: {e}")))?;
        if read != declared {
            return Err(not_zip(format!(
                "{name} in the zip archive holds {read} bytes, not the {declared} it declares"
            )));
        }
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
