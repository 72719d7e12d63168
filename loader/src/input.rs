//! Input files: CSV files, zip archives read in place, directories; recognising each file's
//! kind from its header.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use sha2::{Digest, Sha256};

use crate::error::{InputError, LoadError};
use crate::guard::{RecordGuard, StreamNotes};
use crate::report::SourceReport;

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
        return Err(InputError::NotRegular(path.to_path_buf(), kind_of(&meta)).into());
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
                return Err(InputError::NoCsv(input.clone()).into());
            }
        } else if !meta.is_file() {
            return Err(InputError::NotRegular(input.clone(), kind_of(&meta)).into());
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
    let damaged = |e: zip::result::ZipError| InputError::Zip(file.to_path_buf(), e.to_string());
    let mut archive = zip::ZipArchive::new(open_regular(file)?).map_err(damaged)?;
    if archive.has_duplicate_names() {
        let why = "two members have the same name: which one is meant cannot be told";
        return Err(InputError::Zip(file.to_path_buf(), why.into()).into());
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
        return Err(InputError::NoCsv(file.to_path_buf()).into());
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

/// Each file's name, size and SHA-256, for the metadata.
pub fn describe(files: &[PathBuf]) -> Result<Vec<SourceReport>, LoadError> {
    files
        .iter()
        .map(|f| {
            Ok(SourceReport {
                file: f.display().to_string(),
                bytes: std::fs::metadata(f).map_err(|e| LoadError::io(f, e))?.len(),
                sha256: sha256_file(f)?,
            })
        })
        .collect()
}

/// SHA-256 of a whole file (zip archives are hashed as the archive).
pub fn sha256_file(path: &Path) -> Result<String, LoadError> {
    let mut hasher = Sha256::new();
    hash_into(open_regular(path)?, &mut hasher).map_err(|e| LoadError::io(path, e))?;
    Ok(sha256_hex(hasher))
}

/// Feeds what `reader` holds to the hasher, in reads of 1 MiB; the bytes read.
pub fn hash_into(reader: impl Read, hasher: &mut Sha256) -> io::Result<u64> {
    io::copy(&mut BufReader::with_capacity(1 << 20, reader), hasher)
}

/// The digest as the metadata keeps it: 64 lower-case hex digits.
pub fn sha256_hex(hasher: Sha256) -> String {
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A source's bytes as the CSV parser gets them: decompressed (zip members, which the zip
/// reader refuses to inflate past their declared size), decoded to UTF-8 (UTF-16 files with a BOM, as spreadsheets export
/// "Unicode text"), and guarded ([`RecordGuard`]).
pub struct SourceReader<'a> {
    pub reader: Box<dyn Read + 'a>,
    pub notes: Rc<RefCell<StreamNotes>>,
    /// The size of the buffers that read it ([`buffer_for`]), for the CSV reader's too.
    pub buffer: usize,
}

/// The buffers of a source of `size` bytes (a file's length, a member's declared size, past
/// which the zip reader does not inflate): up to 1 MiB, but no bigger than the source. Each
/// buffer is zeroed when first filled, so 1 MiB for a member of 30 KB, twice a member (read to
/// recognise it, then to load it), made a zip of 60,000 small members spend 5 s zeroing.
pub fn buffer_for(size: u64) -> usize {
    size.saturating_add(1).clamp(8 << 10, 1 << 20) as usize
}

fn guarded<'a>(
    raw: Box<dyn Read + 'a>,
    path: &Path,
    max_record_bytes: u64,
    size: u64,
) -> Result<SourceReader<'a>, LoadError> {
    let buffer = buffer_for(size);
    let mut raw = BufReader::with_capacity(buffer, raw);
    let peek = raw.fill_buf().map_err(|e| LoadError::io(path, e))?;
    let utf16 = peek.starts_with(&[0xff, 0xfe]) || peek.starts_with(&[0xfe, 0xff]);
    let decoded: Box<dyn Read + 'a> = if utf16 {
        Box::new(BufReader::with_capacity(
            buffer,
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
        buffer,
    })
}

/// Opens a source and hands its reader to `f`; reads `already`'s bytes instead, if the source
/// was read ahead ([`read_ahead`]).
pub fn with_reader<T>(
    source: &InputSource,
    already: Option<ReadAhead>,
    max_record_bytes: u64,
    f: impl FnOnce(SourceReader<'_>) -> Result<T, LoadError>,
) -> Result<T, LoadError> {
    match already {
        Some(read) => {
            let size = read.size;
            f(guarded(
                Box::new(read),
                &source.path,
                max_record_bytes,
                size,
            )?)
        }
        None => with_buffered_reader(source, max_record_bytes, 1 << 20, f),
    }
}

/// The most a member's declared size may be for it to be read ahead: what reading it would
/// have buffered anyway.
const READ_AHEAD_MOST: u64 = 1 << 20;

/// A zip member's bytes as reading it gives them, read on another thread ([`crate::ahead`]):
/// its bytes and the error its reading ended with, if any, given again in that order.
pub struct ReadAhead {
    bytes: io::Cursor<Vec<u8>>,
    end: Option<io::Error>,
    size: u64,
}

/// Reads a zip member of a declared size of at most 1 MiB ahead; None for any other source, or
/// one that fails to open (opened again when its turn comes, and refused then).
pub fn read_ahead(source: &InputSource) -> Option<ReadAhead> {
    let member = source.member.as_ref()?;
    let file = open_regular(&source.path).ok()?;
    let mut archive = archive_of(&source.path, file).ok()?;
    let entry = archive.by_name(member).ok()?;
    let size = entry.size();
    if size > READ_AHEAD_MOST {
        return None;
    }
    let mut bytes = Vec::with_capacity(size as usize);
    // The zip reader inflates no further than the declared size.
    let end = Member(entry).read_to_end(&mut bytes).err();
    Some(ReadAhead {
        bytes: io::Cursor::new(bytes),
        end,
        size,
    })
}

impl Read for ReadAhead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.bytes.read(buf)?;
        match self.end.take() {
            Some(e) if n == 0 && !buf.is_empty() => Err(e),
            end => {
                self.end = end;
                Ok(n)
            }
        }
    }
}

/// Opens a source to read its head only (to recognise its kind): with buffers of 8 KiB, so that
/// a member is inflated only as far as its header, not to 1 MiB.
pub fn with_head_reader<T>(
    source: &InputSource,
    max_record_bytes: u64,
    f: impl FnOnce(SourceReader<'_>) -> Result<T, LoadError>,
) -> Result<T, LoadError> {
    with_buffered_reader(source, max_record_bytes, 8 << 10, f)
}

fn with_buffered_reader<T>(
    source: &InputSource,
    max_record_bytes: u64,
    most: u64,
    f: impl FnOnce(SourceReader<'_>) -> Result<T, LoadError>,
) -> Result<T, LoadError> {
    let file = open_regular(&source.path)?;
    // The archive outlives the match: its member borrows it.
    let mut archive;
    let (raw, size): (Box<dyn Read>, u64) = match &source.member {
        None => {
            let size = file.metadata().map_or(u64::MAX, |m| m.len());
            (Box::new(file), size)
        }
        Some(member) => {
            let damaged =
                |e: zip::result::ZipError| InputError::Zip(source.path.clone(), e.to_string());
            archive = archive_of(&source.path, file).map_err(damaged)?;
            let entry = archive.by_name(member).map_err(damaged)?;
            let size = entry.size();
            (Box::new(Member(entry)), size)
        }
    };
    let reader = guarded(raw, &source.path, max_record_bytes, size.min(most))?;
    f(reader)
}

/// Which file a path held when it was opened: its device, inode, length and modification time.
type FileIdentity = (u64, u64, u64, i64, i64);

fn identity(file: &File) -> Option<FileIdentity> {
    use std::os::unix::fs::MetadataExt;
    let m = file.metadata().ok()?;
    Some((m.dev(), m.ino(), m.len(), m.mtime(), m.mtime_nsec()))
}

thread_local! {
    /// The archive whose member was read last, parsed once for all its members: a zip of
    /// 10,000 members parsed its central directory again for each member, twice (34 s).
    static LAST_ARCHIVE: RefCell<Option<(PathBuf, FileIdentity, zip::ZipArchive<SharedFile>)>> =
        const { RefCell::new(None) };
}

/// The archive at `path` (`file`, opened there), or a copy of the one parsed last if it is
/// that path's and the same file still (not replaced or rewritten since): the copy shares the
/// open file it was parsed from.
fn archive_of(
    path: &Path,
    file: File,
) -> Result<zip::ZipArchive<SharedFile>, zip::result::ZipError> {
    let id = identity(&file);
    LAST_ARCHIVE.with_borrow_mut(|last| {
        let same = |(p, i, _): &&(PathBuf, FileIdentity, _)| p == path && Some(*i) == id;
        if let Some((_, _, archive)) = last.as_ref().filter(same) {
            return Ok(archive.clone());
        }
        let archive = zip::ZipArchive::new(SharedFile {
            file: Rc::new(file),
            pos: 0,
        })?;
        *last = id.map(|id| (path.to_path_buf(), id, archive.clone()));
        Ok(archive)
    })
}

/// An open file read at a position of its own, so that copies of an archive share it.
#[derive(Clone)]
struct SharedFile {
    file: Rc<File>,
    pos: u64,
}

impl Read for SharedFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read_at(buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for SharedFile {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let pos = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.file.metadata()?.len().checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = pos.ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        Ok(self.pos)
    }
}

/// A zip member being inflated. The zip crate checks the member's CRC-32 when it is read to its
/// end (every load reads every member to its end; `--fetch` relies on this and does not inflate
/// what it downloads) and refuses to inflate past the declared size: a failure says that the
/// archive is damaged, and the refusal names the archive and the member.
struct Member<R>(R);

impl<R: Read> Read for Member<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf).map_err(|e| {
            // The zip crate's words for a CRC-32 mismatch.
            let why = if e.to_string() == "Invalid checksum" {
                "its bytes do not match the CRC-32 its header gives".to_string()
            } else {
                e.to_string()
            };
            io::Error::new(e.kind(), DamagedMember(why))
        })
    }
}

/// Why a zip member could not be read to its end: inside the `io::Error` of the read.
#[derive(Debug, thiserror::Error)]
#[error("the zip archive is damaged: {0} (fetch or copy it again)")]
pub struct DamagedMember(String);
