//! Input files: CSV files, zip archives read in place, directories; recognising each file's
//! kind from its header.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use sha2::{Digest, Sha256};

use crate::guard::{RecordGuard, StreamNotes};
use crate::LoadError;
use roadtraffic_catalog::{Dataset, Source, DATASETS};

/// One CSV stream: a file, or a member of a zip archive.
#[derive(Debug, Clone)]
pub struct InputSource {
    pub path: PathBuf,
    /// The member's name when the CSV is inside a zip archive.
    pub member: Option<String>,
    /// Uncompressed size in bytes (for progress).
    pub size: u64,
}

impl InputSource {
    /// How the source is named in messages: `path` or `archive.zip!member.csv`.
    pub fn name(&self) -> String {
        match &self.member {
            Some(m) => format!("{}!{}", self.path.display(), m),
            None => self.path.display().to_string(),
        }
    }
}

/// Opens a file for reading only if it is a regular file. The open does not block (a FIFO
/// would wait for a writer for ever) and the check is made on the opened file itself, so a file
/// swapped for something else in between is caught too.
pub fn open_regular(path: &Path) -> Result<File, LoadError> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| LoadError::io(path, e))?;
    let meta = file.metadata().map_err(|e| LoadError::io(path, e))?;
    if !meta.is_file() {
        return Err(LoadError::NotRegular(path.to_path_buf(), kind_of(&meta)));
    }
    Ok(file)
}

/// What a file system entry that is not a regular file is, in words.
pub fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "a regular file"
    }
}

/// A zip archive by its first bytes (a member, or the end record of an empty archive) or
/// its name.
fn is_zip(path: &Path, file: &mut File) -> io::Result<bool> {
    let mut magic = [0u8; 4];
    let n = file.read(&mut magic)?;
    let zip_magic = n == 4 && (magic == *b"PK\x03\x04" || magic == *b"PK\x05\x06");
    Ok(zip_magic || has_extension(path, "zip"))
}

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// A file's identity on its device: the same file under two names is read once, and the
/// database being built is never one of the inputs.
pub type FileId = (u64, u64);

pub fn file_id(meta: &std::fs::Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

/// The command line's inputs, expanded.
#[derive(Debug, Default)]
pub struct Inputs {
    /// Every CSV stream to read, in order.
    pub sources: Vec<InputSource>,
    /// The files read (CSV files and archives), for the metadata.
    pub files: Vec<PathBuf>,
    pub ids: Vec<FileId>,
    /// Entries of folders that were not read, with why.
    pub skipped: Vec<String>,
}

impl Inputs {
    /// Takes a file unless it was taken already (under this name or another).
    fn take(&mut self, path: PathBuf, meta: &std::fs::Metadata) -> bool {
        let id = file_id(meta);
        if self.ids.contains(&id) {
            return false;
        }
        self.ids.push(id);
        self.files.push(path);
        true
    }
}

/// Expands the command line's inputs into CSV sources, in the order given (folders walked in
/// name order, so a load is reproducible). Each input must yield at least one CSV file.
pub fn expand(inputs: &[PathBuf]) -> Result<Inputs, LoadError> {
    let mut out = Inputs::default();
    for input in inputs {
        let meta = std::fs::metadata(input).map_err(|e| LoadError::io(input, e))?;
        let before = out.files.len();
        if meta.is_dir() {
            if walk(input, &mut out)? == 0 {
                return Err(LoadError::NoCsv(input.clone()));
            }
        } else if !meta.is_file() {
            return Err(LoadError::NotRegular(input.clone(), kind_of(&meta)));
        } else if !out.take(input.clone(), &meta) {
            out.skipped
                .push(format!("{}: given twice, read once", input.display()));
        }
        for i in before..out.files.len() {
            let file = out.files[i].clone();
            out.sources.extend(sources_of(&file)?);
        }
    }
    Ok(out)
}

/// The CSV streams of one file: itself, or the CSV members of a zip archive.
fn sources_of(file: &Path) -> Result<Vec<InputSource>, LoadError> {
    let mut f = open_regular(file)?;
    if !is_zip(file, &mut f).map_err(|e| LoadError::io(file, e))? {
        let size = f.metadata().map_err(|e| LoadError::io(file, e))?.len();
        return Ok(vec![InputSource {
            path: file.to_path_buf(),
            member: None,
            size,
        }]);
    }
    let damaged = |e: zip::result::ZipError| LoadError::Zip(file.to_path_buf(), e.to_string());
    let mut archive = zip::ZipArchive::new(open_regular(file)?).map_err(damaged)?;
    if archive.has_duplicate_names() {
        return Err(LoadError::Zip(
            file.to_path_buf(),
            "two members have the same name: which one is meant cannot be told".into(),
        ));
    }
    let mut members: Vec<InputSource> = Vec::new();
    for i in 0..archive.len() {
        let entry = archive.by_index_raw(i).map_err(damaged)?;
        let name = entry.name().map_err(damaged)?.to_string();
        if entry.is_dir()
            || name.starts_with("__MACOSX/")
            || !has_extension(Path::new(&name), "csv")
        {
            continue;
        }
        members.push(InputSource {
            path: file.to_path_buf(),
            member: Some(name),
            size: entry.size(),
        });
    }
    if members.is_empty() {
        return Err(LoadError::NoCsv(file.to_path_buf()));
    }
    Ok(members)
}

/// Walks a folder: CSV files and zips in name order, following symbolic links but never round
/// a loop; what is not a regular file is skipped and listed. Gives how many CSV files and zips
/// it found (read now, or already read as another input).
fn walk(dir: &Path, out: &mut Inputs) -> Result<usize, LoadError> {
    let mut found = 0;
    let walker = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name();
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) if e.loop_ancestor().is_some() => {
                let at = e.path().unwrap_or(dir).display().to_string();
                out.skipped
                    .push(format!("{at}: a symbolic link loop, not followed"));
                continue;
            }
            Err(e) => {
                let at = e.path().unwrap_or(dir).to_path_buf();
                return Err(LoadError::io(&at, e.into()));
            }
        };
        let path = entry.path();
        let meta = entry
            .metadata()
            .map_err(|e| LoadError::io(path, e.into()))?;
        if meta.is_dir() {
            continue;
        }
        if !meta.is_file() {
            out.skipped
                .push(format!("{}: {}, not read", path.display(), kind_of(&meta)));
            continue;
        }
        if !has_extension(path, "csv") && !has_extension(path, "zip") {
            continue;
        }
        found += 1;
        if !out.take(path.to_path_buf(), &meta) {
            out.skipped.push(format!(
                "{}: the same file as another input, read once",
                path.display()
            ));
        }
    }
    Ok(found)
}

/// SHA-256 of a whole file (zip archives are hashed as the archive).
pub fn sha256_file(path: &Path) -> Result<String, LoadError> {
    let mut file = open_regular(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match file.read(&mut buf).map_err(|e| LoadError::io(path, e))? {
            0 => break,
            n => hasher.update(&buf[..n]),
        }
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// A source's bytes as the CSV parser gets them: decompressed (zip members, which the zip
/// reader refuses to inflate past their declared size), decoded to UTF-8 (UTF-16 files with a BOM, as spreadsheets export
/// "Unicode text"), and guarded ([`RecordGuard`]).
pub struct SourceReader<'a> {
    pub reader: Box<dyn Read + 'a>,
    pub notes: Rc<RefCell<StreamNotes>>,
}

fn guarded<'a>(
    raw: Box<dyn Read + 'a>,
    path: &Path,
    max_record_bytes: u64,
) -> Result<SourceReader<'a>, LoadError> {
    let mut raw = BufReader::with_capacity(1 << 20, raw);
    let peek = raw.fill_buf().map_err(|e| LoadError::io(path, e))?;
    let utf16 = peek.starts_with(&[0xff, 0xfe]) || peek.starts_with(&[0xfe, 0xff]);
    let decoded: Box<dyn Read + 'a> = if utf16 {
        Box::new(BufReader::with_capacity(
            1 << 20,
            encoding_rs_io::DecodeReaderBytesBuilder::new()
                .bom_sniffing(true)
                .build(raw),
        ))
    } else {
        Box::new(raw)
    };
    let (guard, notes) = RecordGuard::new(decoded, max_record_bytes);
    Ok(SourceReader {
        reader: Box::new(guard),
        notes,
    })
}

/// Opens a source and hands its reader to `f`.
pub fn with_reader<T>(
    source: &InputSource,
    max_record_bytes: u64,
    f: impl FnOnce(SourceReader<'_>) -> Result<T, LoadError>,
) -> Result<T, LoadError> {
    let file = open_regular(&source.path)?;
    match &source.member {
        None => f(guarded(Box::new(file), &source.path, max_record_bytes)?),
        Some(member) => {
            let damaged =
                |e: zip::result::ZipError| LoadError::Zip(source.path.clone(), e.to_string());
            let mut archive = zip::ZipArchive::new(BufReader::new(file)).map_err(damaged)?;
            let entry = archive.by_name(member).map_err(damaged)?;
            let reader = guarded(Box::new(entry), &source.path, max_record_bytes)?;
            f(reader)
        }
    }
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
pub fn header_matches(column: &roadtraffic_catalog::Column, header: &str) -> bool {
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

/// The kind of a CSV file, from its normalised header.
pub fn recognise(name: &str, headers: &[String]) -> Result<&'static Dataset, String> {
    if let Some(era) = old_era(headers) {
        return Err(format!(
            "{name}: refused: this is {era}. It names regions, local authorities and roads \
             instead of giving their ids, and uses the old road category codes, so it cannot be \
             mapped onto the current records; load a current release (2020 onward) instead"
        ));
    }
    let kinds = DATASETS.iter().copied().filter(|d| d.from_csv);
    let mut closest: Option<(&'static Dataset, Vec<&'static str>)> = None;
    let mut partial: Vec<(&'static Dataset, Vec<&'static str>)> = Vec::new();
    for d in kinds {
        let missing = missing_required(d, headers);
        if missing.is_empty() {
            // A file that also has key columns only a more specific kind has is a broken file of
            // that kind (a raw count file without `hour` must not load as count points).
            let specific = partial.iter().find(|(near, _)| {
                near.columns().any(|c| {
                    near.natural_key.contains(&c.name)
                        && headers.iter().any(|h| {
                            header_matches(c, h) && !d.columns().any(|m| header_matches(m, h))
                        })
                })
            });
            return match specific {
                Some((near, m)) => Err(missing_message(name, near, m)),
                None => given_once(name, d, headers).map(|()| d),
            };
        }
        if closest
            .as_ref()
            .is_none_or(|(_, m)| missing.len() < m.len())
        {
            closest = Some((d, missing.clone()));
        }
        partial.push((d, missing));
    }
    let (near, missing) = closest.expect("at least one CSV kind");
    Err(missing_message(name, near, &missing))
}

/// Refuses a header that gives one of the dataset's columns twice, under one name or two of
/// its aliases.
fn given_once(name: &str, d: &Dataset, headers: &[String]) -> Result<(), String> {
    for c in d.columns() {
        let mut at = headers
            .iter()
            .enumerate()
            .filter(|(_, h)| header_matches(c, h));
        if let (Some((i, first)), Some((j, second))) = (at.next(), at.next()) {
            return Err(format!(
                "{name}:1: refused: the header gives {} twice: column {} ({first}) and column {} \
                 ({second})",
                c.name,
                i + 1,
                j + 1
            ));
        }
    }
    Ok(())
}

fn missing_message(name: &str, d: &Dataset, missing: &[&str]) -> String {
    format!(
        "{name}: not a recognised road traffic CSV file: closest kind is {} ({}), but the \
         column(s) {} are missing",
        d.title,
        d.table,
        missing.join(", ")
    )
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
    use crate::*;

    fn headers(line: &str) -> Vec<String> {
        line.split(',').map(normalise_header).collect()
    }

    #[test]
    fn recognises_current_and_split_files() {
        let aadf = "count_point_id,year,region_id,region_name,local_authority_id,local_authority_name,road_name,road_type,start_junction_road_name,end_junction_road_name,easting,northing,latitude,longitude,link_length_km,link_length_miles,estimation_method,estimation_method_detailed,pedal_cycles,two_wheeled_motor_vehicles,cars_and_taxis,buses_and_coaches,lgvs,hgvs_2_rigid_axle,hgvs_3_rigid_axle,hgvs_4_or_more_rigid_axle,hgvs_3_or_4_articulated_axle,hgvs_5_articulated_axle,hgvs_6_articulated_axle,all_hgvs,all_motor_vehicles";
        assert_eq!(recognise("f", &headers(aadf)).unwrap().table, "aadf");
        let by_dir = aadf.replace(
            "estimation_method_detailed,",
            "estimation_method_detailed,direction_of_travel,",
        );
        assert_eq!(
            recognise("f", &headers(&by_dir)).unwrap().table,
            "aadf_by_direction"
        );
        let la = "\u{feff}\"Local_authority_id\",\"Local_authority_name\",\"Year\",\"Link_length_km\",\"Link_length_miles\",\"Cars_and_taxis\",\"All_motor_vehicles\"";
        assert_eq!(
            recognise("f", &headers(la)).unwrap().table,
            "local_authority_traffic"
        );
    }

    #[test]
    fn a_broken_raw_count_file_is_not_count_points() {
        let raw_without_hour = "count_point_id,direction_of_travel,year,count_date,region_id,local_authority_id,road_name,road_type,all_motor_vehicles";
        let err = recognise("f.csv", &headers(raw_without_hour)).unwrap_err();
        assert!(err.contains("raw counts") && err.contains("hour"), "{err}");
    }

    #[test]
    fn old_eras_are_refused_by_name() {
        let err = recognise(
            "d.csv",
            &headers("AADFYear,CP,Estimation_method,Region,LocalAuthority,Road,AllMotorVehicles"),
        )
        .unwrap_err();
        assert!(
            err.contains("2015-2019") && err.contains("CamelCase"),
            "{err}"
        );
        let err = recognise("r.csv", &headers("CP,iDir,Year,dCount,Hour,PC,AMV")).unwrap_err();
        assert!(err.contains("short-code"), "{err}");
    }

    #[test]
    fn a_column_given_twice_is_refused() {
        let la = "local_authority_id,year,link_length_km,cars_and_taxis,all_motor_vehicles,local_authority_code,local_authority_ons_code";
        let err = recognise("f.csv", &headers(la)).unwrap_err();
        assert!(
            err.contains("column 6") && err.contains("column 7"),
            "{err}"
        );
        assert_eq!(normalise_header(" Count  Point Id "), "count_point_id");
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
