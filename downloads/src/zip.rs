//! A national file's zip: its one CSV file deflated, as both the loader and the server make
//! it. The zip's sizes follow its file in a data descriptor, so nothing is seeked back to and
//! the bytes go on as they are made.

use std::io::{BufRead, Write};
use std::path::Path;

/// How the one file of every zip is stored: deflated at the fastest level (a national zip is
/// written on release day, while the release is served), and as zip64 (the raw counts' CSV
/// passes 4 GiB in time). No timestamp is given: the zip's bytes are the CSV's alone.
pub fn options() -> zip::write::SimpleFileOptions {
    zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1))
        .large_file(true)
}

/// The zip of a CSV file already written (`csv`), as `name`. The deflater's output depends on
/// how its input is cut, so the file goes in a record at a time, as the server's zip form
/// gives it from the rows (a line end inside quotes is inside a record): the same bytes
/// either way.
pub fn zip_file(csv: &Path, name: &str, out: &mut dyn Write) -> std::io::Result<()> {
    let mut zip = zip::ZipWriter::new_stream(out);
    zip.start_file(name, options())?;
    let file = std::fs::File::open(csv)?;
    let mut lines = std::io::BufReader::with_capacity(1 << 20, file);
    let (mut record, mut quoted) = (Vec::with_capacity(4096), false);
    loop {
        let start = record.len();
        if lines.read_until(b'\n', &mut record)? == 0 {
            break;
        }
        // A doubled quote inside quotes turns the state twice.
        let quotes = record[start..].iter().filter(|&&b| b == b'"').count();
        quoted ^= quotes % 2 == 1;
        if !quoted {
            zip.write_all(&record)?;
            record.clear();
        }
    }
    zip.write_all(&record)?;
    zip.finish()?;
    Ok(())
}
