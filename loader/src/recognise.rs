//! Recognising a file: its first bytes (is it CSV at all?), its header (what kind of
//! dataset, which column is where), against the catalogue's columns and aliases.

use std::cell::RefCell;
use std::io::Read;
use std::rc::Rc;

use roadtraffic_catalog::{self as catalog, Column, Dataset, Source};

use crate::error::{FileRefusal, LoadError, RecordTooLong, Refusal, Refusals};
use crate::guard::{self, StreamNotes};
use crate::input::{self, DamagedMember, InputSource, SourceReader};
use crate::value;

/// The CSV parser of a source's rows.
pub type Parser<'r> = csv::Reader<Box<dyn Read + 'r>>;

/// A source opened for its rows: the parser past the header, the header's names, and what
/// the stream guard notes.
pub struct Opened<'r> {
    pub rdr: Parser<'r>,
    pub headers: Vec<String>,
    pub notes: Rc<RefCell<StreamNotes>>,
}

/// How far into a source the kind of file is sniffed from.
const SNIFFED_BYTES: u64 = 512;

/// A source's first bytes, checked to be CSV, and the rest of it.
struct Sniffed<'r> {
    head: Vec<u8>,
    delimiter: u8,
    rest: Box<dyn Read + 'r>,
    buffer: usize,
}

/// Reads a source's first bytes and refuses what is not CSV at all. A first line of tabs
/// without commas is a tab-separated file (what a spreadsheet's "Unicode text" export writes).
fn sniff<'r>(
    name: &str,
    reader: Box<dyn Read + 'r>,
    buffer: usize,
) -> Result<Sniffed<'r>, FileRefusal> {
    let mut head = Vec::with_capacity(SNIFFED_BYTES as usize);
    let mut rest = reader;
    (&mut rest)
        .take(SNIFFED_BYTES)
        .read_to_end(&mut head)
        .map_err(|e| stream_error(name, &csv::Error::from(e)))?;
    if let Some(what) = sniff_not_csv(&head) {
        return Err(FileRefusal::new(name, None, Refusal::NotCsv(what)));
    }
    let first_line = &head[..memchr::memchr(b'\n', &head).unwrap_or(head.len())];
    let tabs = first_line.contains(&b'\t') && !first_line.contains(&b',');
    let delimiter = if tabs { b'\t' } else { b',' };
    Ok(Sniffed {
        head,
        delimiter,
        rest,
        buffer,
    })
}

impl<'r> Sniffed<'r> {
    /// The CSV parser over the whole source, past its header, and the header's names.
    fn parse(self, name: &str) -> Result<(Parser<'r>, Vec<String>), FileRefusal> {
        let chained: Box<dyn Read + 'r> =
            Box::new(std::io::Cursor::new(self.head).chain(self.rest));
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(self.delimiter)
            .buffer_capacity(self.buffer)
            .from_reader(chained);
        let mut record = csv::ByteRecord::new();
        match rdr.read_byte_record(&mut record) {
            Ok(true) => {}
            Ok(false) => return Err(FileRefusal::new(name, None, Refusal::Empty)),
            Err(e) => return Err(stream_error(name, &e)),
        }
        let headers = record.iter().map(header_name).collect();
        Ok((rdr, once_each(name, headers)?))
    }
}

/// Reads a source's header (after checking it is CSV at all) and gives back the parser
/// positioned on the first row.
pub fn read_header<'r>(
    source: &InputSource,
    reader: SourceReader<'r>,
) -> Result<Opened<'r>, FileRefusal> {
    let name = source.name();
    let (rdr, headers) = sniff(&name, reader.reader, reader.buffer)?.parse(&name)?;
    Ok(Opened {
        rdr,
        headers,
        notes: reader.notes,
    })
}

/// A source's header's names, as [`read_header`] reads them, to recognise its kind: parsed
/// from the sniffed bytes when the whole header is there, without building a CSV reader
/// (building one took 15% of the load of a zip of 60,000 small members, each read twice).
pub fn header_names(
    source: &InputSource,
    reader: SourceReader<'_>,
) -> Result<Vec<String>, FileRefusal> {
    let name = source.name();
    let sniffed = sniff(&name, reader.reader, reader.buffer)?;
    match names_within(&sniffed.head, sniffed.delimiter) {
        Some(headers) => once_each(&name, headers),
        None => sniffed.parse(&name).map(|(_, headers)| headers),
    }
}

/// The names of the first record, if it ends within `head`: parsed by a parser configured as
/// [`Sniffed::parse`]'s CSV reader, built once a thread and reset for each use (a copy would not
/// do: csv-core's `Clone` of its parser copies only part of its table).
fn names_within(head: &[u8], delimiter: u8) -> Option<Vec<String>> {
    thread_local! {
        static PARSERS: std::cell::RefCell<[csv_core::Reader; 2]> = std::cell::RefCell::new({
            let with = |d| csv_core::ReaderBuilder::new().delimiter(d).build();
            [with(b','), with(b'\t')]
        });
    }
    // An empty input is the end of the file to the parser: the CSV reader sees no record.
    if head.is_empty() {
        return None;
    }
    let (mut fields, mut ends) = (vec![0; head.len()], vec![0; head.len() + 1]);
    let (result, _, _, count) = PARSERS.with_borrow_mut(|[comma, tab]| {
        let parser = if delimiter == b'\t' { tab } else { comma };
        parser.reset();
        parser.read_record(head, &mut fields, &mut ends)
    });
    if result != csv_core::ReadRecordResult::Record {
        return None;
    }
    let starts = std::iter::once(0).chain(ends.iter().copied());
    let spans = starts.zip(&ends[..count]);
    Some(
        spans
            .map(|(from, &to)| header_name(&fields[from..to]))
            .collect(),
    )
}

/// A header's field as its name is compared with the catalogue's.
fn header_name(field: &[u8]) -> String {
    normalise_header(&value::decode(field).0)
}

/// The names, if none is given twice.
fn once_each(name: &str, headers: Vec<String>) -> Result<Vec<String>, FileRefusal> {
    match repeated(&headers) {
        Some((first, second)) => {
            let reason = Refusal::HeaderTwice {
                name: value::shown(&headers[first]),
                first: first + 1,
                second: second + 1,
            };
            Err(FileRefusal::new(name, Some(1), reason))
        }
        None => Ok(headers),
    }
}

/// The first two positions of a header name given twice (empty names aside): of the names
/// given twice, the one given first. One pass with a map of the names seen: comparing each
/// name with every later one took minutes on a header of 100,000 columns (a hostile file).
fn repeated(headers: &[String]) -> Option<(usize, usize)> {
    let mut seen: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    seen.reserve(headers.len());
    let mut found: Option<(usize, usize)> = None;
    for (at, h) in headers.iter().enumerate().filter(|(_, h)| !h.is_empty()) {
        match seen.get(h.as_str()) {
            // The first repeat of each name comes first; an earlier name's repeat wins.
            Some(&first) if found.is_none_or(|(f, _)| first < f) => found = Some((first, at)),
            Some(_) => {}
            None => {
                seen.insert(h, at);
            }
        }
    }
    found
}

/// A read that failed, with its place.
pub fn stream_error(name: &str, e: &csv::Error) -> FileRefusal {
    if let Some(long) = guard::record_too_long(e) {
        let too_long = RecordTooLong { ..*long };
        return FileRefusal::new(name, Some(long.line), Refusal::TooLong(too_long));
    }
    let line = e.position().map_or(0, |p| p.line());
    let reason = match e.kind() {
        csv::ErrorKind::Io(io) if io.get_ref().is_some_and(|e| e.is::<DamagedMember>()) => {
            Refusal::Damaged(io.to_string())
        }
        csv::ErrorKind::Io(io) => Refusal::Unreadable(io.to_string()),
        _ => Refusal::Csv(e.to_string()),
    };
    FileRefusal::new(name, Some(line), reason)
}

/// Recognises the kind of every source; refuses the load naming every file it cannot take.
/// The second half of the sources is recognised on another thread (a zip of 60,000 members
/// spent a fifth of its load here); what is refused, and the error that stops it, are the
/// same as one after the other.
pub fn classify(
    sources: &[InputSource],
    max_record_bytes: u64,
) -> Result<Vec<&'static Dataset>, LoadError> {
    let kinds_of = |half: &[InputSource]| -> Vec<_> {
        (half.iter())
            .map(|source| kind_of(source, max_record_bytes))
            .collect()
    };
    let (first, second) = sources.split_at(sources.len() / 2);
    let (mut found, rest) = std::thread::scope(|scope| {
        let rest = scope.spawn(|| kinds_of(second));
        (kinds_of(first), rest.join())
    });
    found.extend(rest.unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
    let mut kinds = Vec::new();
    let mut refusals = Vec::new();
    for kind in found {
        match kind? {
            Ok(k) => kinds.push(k),
            Err(refusal) => refusals.push(refusal),
        }
    }
    if refusals.is_empty() {
        Ok(kinds)
    } else {
        Err(Refusals(refusals).into())
    }
}

/// The kind of one source, or why it is refused; an error that stops the load.
fn kind_of(
    source: &InputSource,
    max_record_bytes: u64,
) -> Result<Result<&'static Dataset, FileRefusal>, LoadError> {
    input::with_head_reader(source, max_record_bytes, |r| {
        Ok(header_names(source, r).and_then(|headers| {
            recognise(&headers)
                .map_err(|(line, reason)| FileRefusal::new(&source.name(), line, reason))
        }))
    })
}

/// A header name as compared with the catalogue: BOM, quotes and outer blanks stripped, lower
/// case, inner blanks as `_` (`Count Point Id` is `count_point_id`).
pub fn normalise_header(raw: &str) -> String {
    raw.trim_start_matches('\u{feff}')
        .trim()
        .trim_matches('"')
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("_")
        .to_ascii_lowercase()
}

/// Whether a normalised header name is read into this column.
pub fn header_matches(column: &Column, header: &str) -> bool {
    match column.source {
        Source::Csv(aliases) => column.name == header || aliases.contains(&header),
        Source::Id | Source::Derived => false,
    }
}

fn missing_required(d: &Dataset, headers: &[String]) -> Vec<&'static str> {
    d.columns()
        .filter(|c| c.required && !headers.iter().any(|h| header_matches(c, h)))
        .map(|c| c.name)
        .collect()
}

/// Files of the 2015-2019 eras carry names instead of ids; we recognise them to refuse them
/// with a message that says what they are.
fn old_era(headers: &[String]) -> Option<&'static str> {
    let has = |n: &str| headers.iter().any(|h| h == n);
    if has("cp") && (has("idir") || has("dcount")) {
        Some("a short-code raw count file of the 2015-2019 era (CP, iDir, dCount, ...)")
    } else if has("cp") && (has("aadfyear") || has("allmotorvehicles") || has("carstaxis")) {
        Some(
            "a CamelCase file of the 2015-2019 era (AADFYear, CP, ...); such files hold either \
             AADF or annual traffic volumes under the same column names",
        )
    } else {
        None
    }
}

/// Why a header is refused, and its line if it is the header's fault.
type Unrecognised = (Option<u64>, Refusal);

/// The kind of a CSV file, from its normalised header: the first published dataset whose
/// required columns it has.
pub fn recognise(headers: &[String]) -> Result<&'static Dataset, Unrecognised> {
    if let Some(era) = old_era(headers) {
        return Err((None, Refusal::OldEra(era)));
    }
    let mut tried: Vec<(&'static Dataset, Vec<&'static str>)> = Vec::new();
    for d in catalog::published() {
        let missing = missing_required(d, headers);
        if !missing.is_empty() {
            tried.push((d, missing));
            continue;
        }
        // A file that also has key columns only a more specific kind has is a broken file of
        // that kind (a raw count file without `hour` must not load as count points).
        if let Some((near, m)) = tried.iter().find(|(near, _)| has_own_key(near, d, headers)) {
            return Err((None, unrecognised(near, m.clone())));
        }
        return given_once(d, headers).map(|()| d);
    }
    let (near, missing) = tried
        .into_iter()
        .min_by_key(|(_, m)| m.len())
        .ok_or((None, Refusal::Empty))?;
    Err((None, unrecognised(near, missing)))
}

/// Whether the header has a key column of `near` that `d` does not read.
fn has_own_key(near: &Dataset, d: &Dataset, headers: &[String]) -> bool {
    near.columns().any(|c| {
        near.natural_key.contains(&c.name)
            && headers
                .iter()
                .any(|h| header_matches(c, h) && !d.columns().any(|m| header_matches(m, h)))
    })
}

fn unrecognised(near: &Dataset, missing: Vec<&'static str>) -> Refusal {
    Refusal::Unrecognised {
        title: near.title,
        table: near.table,
        missing,
    }
}

/// Refuses a header that gives one of the dataset's columns twice, under one name or two of
/// its aliases.
fn given_once(d: &Dataset, headers: &[String]) -> Result<(), Unrecognised> {
    for c in d.columns() {
        let mut at = headers
            .iter()
            .enumerate()
            .filter(|(_, h)| header_matches(c, h));
        if let (Some((i, first)), Some((j, second))) = (at.next(), at.next()) {
            let reason = Refusal::ColumnTwice {
                column: c.name,
                first: (i + 1, first.clone()),
                second: (j + 1, second.clone()),
            };
            return Err((Some(1), reason));
        }
    }
    Ok(())
}

/// A Git LFS pointer or an HTML page saved under a `.csv` name.
pub fn sniff_not_csv(first_bytes: &[u8]) -> Option<&'static str> {
    let text = String::from_utf8_lossy(first_bytes);
    let t = text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .to_ascii_lowercase();
    if t.starts_with("version https://git-lfs") {
        Some("a Git LFS pointer, not the data: fetch the real file (git lfs pull)")
    } else if t.starts_with("<!doctype") || t.starts_with("<html") || t.starts_with("<?xml") {
        Some("an HTML or XML page, not CSV: the download probably failed")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(line: &str) -> Vec<String> {
        line.split(',').map(normalise_header).collect()
    }

    #[test]
    fn recognises_current_and_split_files() {
        let aadf = "count_point_id,year,region_id,region_name,local_authority_id,local_authority_name,road_name,road_type,start_junction_road_name,end_junction_road_name,easting,northing,latitude,longitude,link_length_km,link_length_miles,estimation_method,estimation_method_detailed,pedal_cycles,two_wheeled_motor_vehicles,cars_and_taxis,buses_and_coaches,lgvs,hgvs_2_rigid_axle,hgvs_3_rigid_axle,hgvs_4_or_more_rigid_axle,hgvs_3_or_4_articulated_axle,hgvs_5_articulated_axle,hgvs_6_articulated_axle,all_hgvs,all_motor_vehicles";
        assert_eq!(recognise(&headers(aadf)).unwrap().table, "aadf");
        let by_dir = aadf.replace(
            "estimation_method_detailed,",
            "estimation_method_detailed,direction_of_travel,",
        );
        assert_eq!(
            recognise(&headers(&by_dir)).unwrap().table,
            "aadf_by_direction"
        );
        let la = "\u{feff}\"Local_authority_id\",\"Local_authority_name\",\"Year\",\"Link_length_km\",\"Link_length_miles\",\"Cars_and_taxis\",\"All_motor_vehicles\"";
        assert_eq!(
            recognise(&headers(la)).unwrap().table,
            "local_authority_traffic"
        );
    }

    #[test]
    fn a_broken_raw_count_file_is_not_count_points() {
        let raw_without_hour = "count_point_id,direction_of_travel,year,count_date,region_id,local_authority_id,road_name,road_type,all_motor_vehicles";
        let err = recognise(&headers(raw_without_hour))
            .unwrap_err()
            .1
            .to_string();
        assert!(err.contains("raw counts") && err.contains("hour"), "{err}");
    }

    #[test]
    fn old_eras_are_refused_by_name() {
        let err = recognise(&headers(
            "AADFYear,CP,Estimation_method,Region,LocalAuthority,Road,AllMotorVehicles",
        ))
        .unwrap_err()
        .1
        .to_string();
        assert!(
            err.contains("2015-2019") && err.contains("CamelCase"),
            "{err}"
        );
        let err = recognise(&headers("CP,iDir,Year,dCount,Hour,PC,AMV"))
            .unwrap_err()
            .1
            .to_string();
        assert!(err.contains("short-code"), "{err}");
    }

    #[test]
    fn a_column_given_twice_is_refused() {
        let la = "local_authority_id,year,link_length_km,cars_and_taxis,all_motor_vehicles,local_authority_code,local_authority_ons_code";
        let err = recognise(&headers(la)).unwrap_err().1.to_string();
        assert!(
            err.contains("column 6") && err.contains("column 7"),
            "{err}"
        );
        assert_eq!(normalise_header(" Count  Point Id "), "count_point_id");
    }

    #[test]
    fn a_repeated_header_name_is_found_at_its_first_two_places() {
        let names = |line: &str| headers(line);
        assert_eq!(repeated(&names("a,b,c")), None);
        assert_eq!(repeated(&names("a,,b,,c")), None, "empty names may repeat");
        assert_eq!(repeated(&names("a,b,b,a")), Some((0, 3)));
        assert_eq!(repeated(&names("x,b,a,b,a,b")), Some((1, 3)));
        let mut wide: Vec<String> = (0..100_015).map(|i| format!("c{i:x}")).collect();
        assert_eq!(repeated(&wide), None);
        wide.push("c10".into());
        assert_eq!(repeated(&wide), Some((16, 100_015)));
    }

    /// The first record's names as the CSV reader reads them.
    fn read_by_csv(bytes: &[u8], delimiter: u8) -> Option<Vec<String>> {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(delimiter)
            .from_reader(bytes);
        let mut record = csv::ByteRecord::new();
        rdr.read_byte_record(&mut record).ok()?;
        Some(record.iter().map(header_name).collect())
    }

    #[test]
    fn a_header_within_the_sniffed_bytes_reads_as_the_csv_reader_reads_it() {
        let within = |head: &str| names_within(head.as_bytes(), b',');
        assert_eq!(
            within("a,B c,\"d,\"\"e\"\"\"\nx").unwrap(),
            ["a", "b_c", "d,\"e"]
        );
        assert_eq!(
            within("\r\n\na,b\r").unwrap(),
            ["a", "b"],
            "blank lines before"
        );
        assert_eq!(within("a,b"), None, "may go on past the sniffed bytes");
        assert_eq!(within("a,\"b\nc"), None, "a quoted line end going on");
        assert_eq!(names_within(b"a\tb,c\n", b'\t').unwrap(), ["a", "b,c"]);
    }

    proptest::proptest! {
        #[test]
        fn names_within_the_head_are_the_csv_readers(
            bytes in proptest::collection::vec(
                proptest::sample::select(b"ab ,\t\"\r\n\xef\xbb\xbf\xff".to_vec()), 0..40),
            tabs in proptest::bool::ANY,
        ) {
            let delimiter = if tabs { b'\t' } else { b',' };
            if let Some(names) = names_within(&bytes, delimiter) {
                proptest::prop_assert_eq!(Some(names), read_by_csv(&bytes, delimiter));
            }
        }
    }

    #[test]
    fn sniffs_lfs_and_html() {
        assert!(
            sniff_not_csv(b"version https://git-lfs.github.com/spec/v1\noid sha256:").is_some()
        );
        assert!(sniff_not_csv(b"<!DOCTYPE html><html>").is_some());
        assert!(sniff_not_csv(b"count_point_id,year").is_none());
    }
}
