//! Hostile and damaged input to the loader: for each family of damage an operator meets on
//! release day (wrong folders and paths, links, FIFOs and devices, bombs, files cut short or
//! re-saved, broken quoting, out-of-range values), mutations of the bundled sample and of the
//! shared real files. Every case asserts the exit status, a message naming the file (and line),
//! the served file byte-identical after a refusal, nothing left behind, nothing written
//! outside the target's folder (TMPDIR included), and bounded time and memory.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::fs::{symlink, MetadataExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use proptest::prelude::*;

use crate::support::*;

/// The promises of the issue: peak memory of any load, and how soon a refusal comes.
const MAX_RSS_KB: i64 = 256 * 1024;
const TIME_LIMIT: Duration = Duration::from_secs(30);

/// One run of the loader binary.
struct Run {
    code: Option<i32>,
    signal: Option<i32>,
    stderr: String,
    max_rss_kb: i64,
    elapsed: Duration,
}

/// Runs the loader under GNU time, which forks it from a small process: its peak RSS is the
/// loader's own (a child forked straight from this big test process would count the test's
/// memory until it execs).
fn run_loader(args: &[OsString], tmpdir: &Path) -> Run {
    let time = tool("time").expect("GNU time (/usr/bin/time; .ci/run installs it)");
    let measured = tmpdir.with_extension("time");
    let started = Instant::now();
    let mut child = Command::new(time)
        .arg("-o")
        .arg(&measured)
        .args(["-f", "%M"])
        .arg(env!("CARGO_BIN_EXE_roadtraffic-load"))
        .args(args)
        .env("TMPDIR", tmpdir)
        .env("SQLITE_TMPDIR", tmpdir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("run roadtraffic-load");
    let mut pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = pipe.read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > TIME_LIMIT {
            unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
            let _ = child.wait();
            panic!("the loader ran over {TIME_LIMIT:?}: {args:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let report = std::fs::read_to_string(&measured).unwrap_or_default();
    let _ = std::fs::remove_file(&measured);
    // GNU time exits with the loader's status, 128 + N when signal N ended it, and says so.
    let signal = report
        .lines()
        .find_map(|l| l.strip_prefix("Command terminated by signal "))
        .and_then(|n| n.trim().parse().ok());
    let max_rss_kb = report
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(i64::MAX);
    Run {
        code: if signal.is_some() {
            None
        } else {
            status.code()
        },
        signal,
        stderr: reader.join().unwrap(),
        max_rss_kb,
        elapsed: started.elapsed(),
    }
}

/// What a folder holds: every entry (links not followed) with its type, size and content hash.
fn inventory(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let what = if meta.file_type().is_symlink() {
                format!("link to {:?}", std::fs::read_link(&path).unwrap())
            } else if meta.is_dir() {
                stack.push(path.clone());
                "folder".to_string()
            } else if meta.is_file() {
                format!("file {} {:x}", meta.len(), hash_file(&path))
            } else {
                format!("special {:o}", meta.mode())
            };
            out.insert(path, what);
        }
    }
    out
}

fn hash_file(path: &Path) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    let mut f = std::fs::File::open(path).unwrap();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).unwrap();
        if n == 0 {
            return h;
        }
        for &b in &buf[..n] {
            h = (h ^ b as u64).wrapping_mul(0x100000001b3);
        }
    }
}

/// The bundled sample built once, copied into each sandbox as the served file.
fn sample_bytes() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| std::fs::read(sample_db()).unwrap())
}

/// A served file in `served/`, inputs in `inputs/`, the loader's TMPDIR in `tmp/`, and a file
/// outside the target's folder that nothing may touch.
struct Sandbox {
    root: PathBuf,
    db: PathBuf,
    inputs: PathBuf,
    tmp: PathBuf,
    /// The served file's bytes: as they must stay after a refusal.
    served: std::cell::RefCell<Vec<u8>>,
}

impl Sandbox {
    fn new() -> Sandbox {
        Sandbox::serving(sample_bytes())
    }

    fn serving(bytes: &[u8]) -> Sandbox {
        let root = scratch_dir();
        for d in ["served", "inputs", "tmp"] {
            std::fs::create_dir(root.join(d)).unwrap();
        }
        let db = root.join("served/roadtraffic.db");
        std::fs::write(&db, bytes).unwrap();
        std::fs::write(root.join("victim.txt"), "not to be touched\n").unwrap();
        Sandbox {
            inputs: root.join("inputs"),
            tmp: root.join("tmp"),
            served: std::cell::RefCell::new(bytes.to_vec()),
            db,
            root,
        }
    }

    /// The bundled sample copied into `inputs/`, to be damaged.
    fn with_sample(self) -> Sandbox {
        for e in std::fs::read_dir(repo_path("data/sample")).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), self.inputs.join(e.file_name())).unwrap();
        }
        self
    }

    fn input(&self, name: &str) -> PathBuf {
        self.inputs.join(name)
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.input(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// Runs the loader on `inputs` (paths, or `inputs/` itself when empty) into the served file.
    fn load(&self, extra: &[&str], inputs: &[&Path]) -> Outcome<'_> {
        self.load_into(&self.db, extra, inputs)
    }

    fn load_into(&self, db: &Path, extra: &[&str], inputs: &[&Path]) -> Outcome<'_> {
        let before = inventory(&self.root);
        let mut args: Vec<OsString> = vec!["--db".into(), db.into()];
        args.extend(extra.iter().map(OsString::from));
        if inputs.is_empty() {
            args.push(self.inputs.clone().into());
        } else {
            args.extend(inputs.iter().map(|p| p.as_os_str().to_owned()));
        }
        let run = run_loader(&args, &self.tmp);
        assert!(
            run.signal.is_none() && matches!(run.code, Some(0 | 1)),
            "the loader died ({:?}, signal {:?}):\n{}",
            run.code,
            run.signal,
            run.stderr
        );
        assert!(
            run.max_rss_kb < MAX_RSS_KB,
            "peak RSS {} MB:\n{}",
            run.max_rss_kb / 1024,
            run.stderr
        );
        let after = inventory(&self.root);
        Outcome {
            run,
            before,
            after,
            sandbox: self,
        }
    }
}

struct Outcome<'a> {
    run: Run,
    before: BTreeMap<PathBuf, String>,
    after: BTreeMap<PathBuf, String>,
    sandbox: &'a Sandbox,
}

impl Outcome<'_> {
    /// Refused: exit status 1, every needle in the message, and nothing anywhere changed.
    fn refused(&self, needles: &[&str]) -> &Self {
        assert_eq!(
            self.run.code,
            Some(1),
            "should refuse:\n{}",
            self.run.stderr
        );
        self.says(needles);
        assert!(
            std::fs::read(&self.sandbox.db).is_ok_and(|b| b == *self.sandbox.served.borrow()),
            "the served file changed after a refusal"
        );
        assert_eq!(self.before, self.after, "files changed after a refusal");
        self
    }

    /// Loaded: exit status 0, the served file replaced, nothing else new or changed (no
    /// temporary file or lock left), TMPDIR untouched.
    fn loaded(&self) -> &Self {
        assert_eq!(self.run.code, Some(0), "should load:\n{}", self.run.stderr);
        let db = &self.sandbox.db;
        let changed: Vec<&PathBuf> = self
            .after
            .keys()
            .filter(|p| self.before.get(*p) != self.after.get(*p) && *p != db)
            .chain(self.before.keys().filter(|p| !self.after.contains_key(*p)))
            .collect();
        assert!(
            changed.is_empty(),
            "files changed besides --db: {changed:?}"
        );
        *self.sandbox.served.borrow_mut() = std::fs::read(db).unwrap_or_default();
        self
    }

    fn says(&self, needles: &[&str]) -> &Self {
        for n in needles {
            assert!(
                self.run.stderr.contains(n),
                "expected `{n}` in:\n{}",
                self.run.stderr
            );
        }
        self
    }

    fn quick(&self) -> &Self {
        assert!(
            self.run.elapsed < Duration::from_secs(10),
            "took {:?}",
            self.run.elapsed
        );
        self
    }
}

/// Replaces the first occurrence of `from` on line `line` (1-based) of a text file.
fn on_line(text: &[u8], line: usize, from: &[u8], to: &[u8]) -> Vec<u8> {
    let start: usize = text
        .split_inclusive(|&b| b == b'\n')
        .take(line - 1)
        .map(|l| l.len())
        .sum();
    let end = start + text[start..].iter().position(|&b| b == b'\n').unwrap();
    let at = start
        + text[start..end]
            .windows(from.len())
            .position(|w| w == from)
            .unwrap_or_else(|| panic!("{:?} not on line {line}", String::from_utf8_lossy(from)));
    [&text[..at], to, &text[at + from.len()..]].concat()
}

fn sample_file(name: &str) -> Vec<u8> {
    std::fs::read(repo_path(&format!("data/sample/{name}"))).unwrap()
}

const RAW: &str = "dft_traffic_counts_raw_counts.csv";
const AADF: &str = "dft_traffic_counts_aadf.csv";
const LA: &str = "local_authority_traffic.csv";

// --- The served file is safe whatever the arguments -----------------------------------------

#[test]
fn an_empty_folder_or_zip_never_replaces_the_served_file() {
    let s = Sandbox::new();
    s.load(&[], &[])
        .refused(&["no CSV file found in", "inputs"])
        .quick();
    let empty_zip = s.input("empty.zip");
    zip::ZipWriter::new(std::fs::File::create(&empty_zip).unwrap())
        .finish()
        .unwrap();
    s.load(&[], &[&empty_zip])
        .refused(&["no CSV file found in", "empty.zip"]);
    let folders = s.input("folders.zip");
    let mut z = zip::ZipWriter::new(std::fs::File::create(&folders).unwrap());
    z.add_directory("2024/", zip::write::SimpleFileOptions::default())
        .unwrap();
    z.finish().unwrap();
    s.load(&[], &[&folders])
        .refused(&["no CSV file found in", "folders.zip"]);
}

#[test]
fn the_db_is_never_an_input_a_folder_a_device_or_someone_elses_file() {
    let s = Sandbox::new();
    let csv = s.write("cp.csv", sample_file("count_points.csv"));
    // `--db cp.csv cp.csv`, and a link to it, and the same through another spelling.
    s.load_into(&csv, &[], &[&csv])
        .refused(&["cp.csv", "not a database built by roadtraffic-load"]);
    let link = s.input("link.csv");
    symlink(&csv, &link).unwrap();
    s.load_into(&csv, &[], &[&link]).refused(&["cp.csv"]);
    // A database of ours given as an input of itself.
    let ours = s.root.join("served/roadtraffic.db");
    let dotted = s.root.join("served/./roadtraffic.db");
    s.load_into(&dotted, &[], &[&ours])
        .refused(&["roadtraffic.db"]);
    s.load_into(&s.inputs, &[], &[&csv])
        .refused(&["inputs", "a directory"]);
    let fifo = s.root.join("served/fifo");
    mkfifo(&fifo);
    s.load_into(&fifo, &[], &[&csv])
        .refused(&["fifo", "a FIFO"]);
    let out = s.load_into(Path::new("/dev/null"), &[], &[&csv]);
    out.refused(&["/dev/null", "a character device"]);
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device_());
}

trait IsCharDevice {
    fn is_char_device_(&self) -> bool;
}
impl IsCharDevice for std::fs::FileType {
    fn is_char_device_(&self) -> bool {
        use std::os::unix::fs::FileTypeExt;
        self.is_char_device()
    }
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

#[test]
fn links_beside_the_db_are_never_written_through() {
    let s = Sandbox::new().with_sample();
    let victim = s.root.join("victim.txt");
    let before = std::fs::read(&victim).unwrap();
    // A link where older versions built the new file, and one where the lock is taken.
    symlink(&victim, s.root.join("served/roadtraffic.db.partial")).unwrap();
    s.load(&[], &[]).loaded();
    assert_eq!(std::fs::read(&victim).unwrap(), before);
    let lock = s.root.join("served/.roadtraffic.db.lock");
    symlink(&victim, &lock).unwrap();
    s.load(&[], &[]).refused(&[".roadtraffic.db.lock"]);
    assert_eq!(std::fs::read(&victim).unwrap(), before);
}

#[test]
fn less_data_never_replaces_more_without_saying_so() {
    let s = Sandbox::new();
    let la = s.write(LA, sample_file(LA));
    let out = s.load(&[], &[&la]);
    out.refused(&["raw_counts", "--allow-shrink", "before", "after"]);
    s.load(&["--allow-shrink"], &[&la]).loaded();
}

// --- Only regular files are read; everything finishes -------------------------------------

#[test]
fn fifos_devices_and_loops_are_never_read() {
    let s = Sandbox::new().with_sample();
    let fifo = s.input("pipe.csv");
    mkfifo(&fifo);
    s.load(&[], &[&fifo])
        .refused(&["pipe.csv: not a regular file (a FIFO)"])
        .quick();
    s.load(&[], &[Path::new("/dev/zero")])
        .refused(&["/dev/zero: not a regular file"])
        .quick();
    // Inside a folder they are skipped and listed; a link loop is not followed.
    symlink(".", s.input("self")).unwrap();
    let out = s.load_into(&s.db, &[], &[]);
    out.loaded();
    let noisy = run_loader(
        &[
            "--db".into(),
            s.root.join("served/other.db").into(),
            s.inputs.clone().into(),
        ],
        &s.tmp,
    );
    assert_eq!(noisy.code, Some(0), "{}", noisy.stderr);
    assert!(
        noisy.stderr.contains("pipe.csv: a FIFO, not read")
            && noisy.stderr.contains("a symbolic link loop"),
        "{}",
        noisy.stderr
    );
    std::fs::remove_file(s.root.join("served/other.db")).unwrap();
}

#[test]
fn the_same_file_twice_is_read_once() {
    let s = Sandbox::new().with_sample();
    let raw = s.input(RAW);
    let again = s.inputs.join(".").join(RAW);
    s.load(&[], &[&s.inputs, &raw, &again]).loaded();
}

// --- Bounded memory on any input ------------------------------------------------------------

#[test]
fn a_zip_of_a_gib_of_nul_bytes_is_refused_within_seconds() {
    let s = Sandbox::new();
    let bomb = s.input("bomb.zip");
    let mut z = zip::ZipWriter::new(std::fs::File::create(&bomb).unwrap());
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    z.start_file("raw.csv", opts).unwrap();
    let chunk = vec![0u8; 1 << 20];
    for _ in 0..1024 {
        z.write_all(&chunk).unwrap();
    }
    z.finish().unwrap();
    s.load(&[], &[&bomb])
        .refused(&["bomb.zip!raw.csv:1", "longer than 1048576 bytes"])
        .quick();
}

#[test]
fn a_zip_member_inflating_past_its_declared_size_is_refused() {
    let s = Sandbox::new();
    let path = s.input("liar.zip");
    let mut z = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    z.start_file(LA, opts).unwrap();
    z.write_all(&sample_file(LA)).unwrap();
    z.finish().unwrap();
    // Declare 100 bytes in both headers (local: offset 22; central: offset 24 of its record).
    let mut bytes = std::fs::read(&path).unwrap();
    let real = (sample_file(LA).len() as u32).to_le_bytes();
    let mut patched = 0;
    for i in 0..bytes.len() - 4 {
        if bytes[i..i + 4] == real {
            bytes[i..i + 4].copy_from_slice(&100u32.to_le_bytes());
            patched += 1;
        }
    }
    assert_eq!(patched, 2);
    std::fs::write(&path, bytes).unwrap();
    s.load(&["--allow-shrink"], &[&path])
        .refused(&["liar.zip", "larger than its declared uncompressed size"]);
}

/// `--fetch` checks a zip's structure only: the CRC-32 of every member is checked as the load
/// reads it to its end.
#[test]
fn a_zip_member_whose_bytes_do_not_match_its_crc_is_refused_naming_it() {
    let s = Sandbox::new();
    let path = s.input("flipped.zip");
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    z.start_file(LA, opts).unwrap();
    z.write_all(&sample_file(LA)).unwrap();
    std::fs::write(
        &path,
        with_a_digit_changed(&z.finish().unwrap().into_inner()),
    )
    .unwrap();
    s.load(&["--allow-shrink"], &[&path]).refused(&[
        &format!("flipped.zip!{LA}"),
        "the zip archive is damaged: its bytes do not match the CRC-32",
    ]);
}

#[test]
fn a_ten_mb_line_is_refused_at_its_line_unread() {
    let s = Sandbox::new().with_sample();
    let mut text = sample_file(RAW);
    let line = 6;
    let at: usize = text
        .split_inclusive(|&b| b == b'\n')
        .take(line - 1)
        .map(|l| l.len())
        .sum();
    text.splice(at..at, std::iter::repeat_n(b'9', 10 << 20));
    s.write(RAW, text);
    s.load(&[], &[])
        .refused(&[&format!("{RAW}:{line}: a record longer than 1048576 bytes")])
        .quick();
    // The limit is the operator's to set.
    s.load(&["--max-record-bytes", "4096"], &[])
        .refused(&[&format!("{RAW}:{line}:"), "4096"]);
}

// --- Nothing damaged is stored silently -----------------------------------------------------

/// Each value put in place of a good one on line 3 of a sample file is an unreadable row,
/// named with its file, line and column.
#[test]
fn out_of_range_and_malformed_values_are_unreadable_rows() {
    let raw_line3 = "501,N,2023,2023-10-23,8,";
    let cases: Vec<(&str, &[u8], Vec<u8>, &str)> = vec![
        (
            RAW,
            b"2023-10-23",
            b"2019-02-30".to_vec(),
            "count_date: value '2019-02-30'",
        ),
        (
            RAW,
            b",2023,",
            b",0,".to_vec(),
            "year: value '0' is not a four-digit year",
        ),
        (RAW, b",2023,", b",99999,".to_vec(), "year: value '99999'"),
        (RAW, b",2023,", b",-1,".to_vec(), "year: value '-1'"),
        (RAW, b",2023,", b",209,".to_vec(), "year: value '209'"),
        (RAW, b",2023,", b",1e3,".to_vec(), "year: value '1e3'"),
        (RAW, b",2023,", b",,".to_vec(), "year: no value"),
        (RAW, b",8,4,", b",25,4,".to_vec(), "hour: value '25'"),
        (
            RAW,
            b"51.57731861",
            b"1e400".to_vec(),
            "latitude: value '1e400'",
        ),
        (
            RAW,
            b"51.57731861",
            b"NaN".to_vec(),
            "latitude: value 'NaN'",
        ),
        (
            RAW,
            b"51.57731861",
            b"inf".to_vec(),
            "latitude: value 'inf'",
        ),
        (
            RAW,
            b"51.57731861",
            b"0x10".to_vec(),
            "latitude: value '0x10'",
        ),
        (
            RAW,
            b"51.57731861",
            b"\"1,000\"".to_vec(),
            "latitude: value '1,000'",
        ),
        (
            RAW,
            b",1.37,",
            b",0.9g,".to_vec(),
            "link_length_miles: value '0.9g'",
        ),
        (
            RAW,
            b"Newport",
            b"New\0port".to_vec(),
            "local_authority_name: value 'New\\u{0}port'",
        ),
        (AADF, b",2019,", b",0,".to_vec(), "year: value '0'"),
        (LA, b",2019,", b",0,".to_vec(), "year: value '0'"),
        (
            LA,
            b"1743.16",
            b"99999999999999999999".to_vec(),
            "link_length_km: value '99999999999999999999'",
        ),
    ];
    assert!(String::from_utf8(sample_file(RAW))
        .unwrap()
        .lines()
        .nth(2)
        .unwrap()
        .starts_with(raw_line3));
    for (file, from, to, needle) in cases {
        let s = Sandbox::new().with_sample();
        s.write(file, on_line(&sample_file(file), 3, from, &to));
        let out = s.load(&[], &[]);
        out.refused(&[&format!("{file}:3: {needle}")]);
        // The same row is skipped, and listed, with --skip-bad-rows.
        s.load(&["--skip-bad-rows"], &[]).loaded();
    }
}

/// Damage the parser would take silently: kept, but reported with file and line.
#[test]
fn silent_damage_is_reported_with_its_place() {
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            LA,
            on_line(
                &sample_file(LA),
                2,
                b"\"Glasgow City\"",
                b"\"Glasgow City\"x",
            ),
            "local_authority_traffic.csv:2",
        ),
        (
            LA,
            on_line(
                &sample_file(LA),
                3,
                b"\"North Lanarkshire\"",
                b"\"\"North Lanarkshire\"",
            ),
            "local_authority_traffic.csv:3",
        ),
        (
            LA,
            on_line(&sample_file(LA), 4, b"\",", b"\xff\xfe\xc3(\","),
            "local_authority_traffic.csv:4",
        ),
        (
            RAW,
            on_line(&sample_file(RAW), 5, b",Major,", b",Mi'or,"),
            "dft_traffic_counts_raw_counts.csv:5: road_type: 'Mi'or'",
        ),
    ];
    let kinds = [
        "text after a closing quote",
        "a quote character inside a field",
        "not UTF-8",
        "outside their column's known codes",
    ];
    for ((file, text, place), kind) in cases.into_iter().zip(kinds) {
        let s = Sandbox::new().with_sample();
        s.write(file, text);
        let report = s.root.join("report.json");
        let run = run_loader(
            &[
                "--db".into(),
                s.db.clone().into(),
                "--report-json".into(),
                report.clone().into(),
                s.inputs.clone().into(),
            ],
            &s.tmp,
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert!(
            run.stderr.contains(kind) && run.stderr.contains(place),
            "{kind}, {place}:\n{}",
            run.stderr
        );
        let json = std::fs::read_to_string(&report).unwrap();
        assert!(json.contains(place), "{json}");
    }
}

#[test]
fn a_file_cut_short_is_refused_or_reported() {
    let s = Sandbox::new().with_sample();
    let text = sample_file(RAW);
    // Cut inside the last field of a row: loads, with a warning naming the place.
    let row_end = text[..text.len() / 2]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap();
    let cut = row_end - 2;
    let line = text[..cut].iter().filter(|&&b| b == b'\n').count() + 1;
    s.write(RAW, &text[..cut]);
    let out = s.load(&["--allow-shrink"], &[]);
    out.loaded()
        .says(&[&format!("{RAW}:{line}"), "may have been cut short"]);
    // Cut mid-row: refused at that line.
    let cut = row_end - 40;
    let out = Sandbox::new().with_sample();
    out.write(RAW, &text[..cut]);
    out.load(&[], &[])
        .refused(&[&format!("{RAW}:{line}: expected")]);
}

#[test]
fn a_header_naming_a_column_twice_is_refused_with_both_positions() {
    let s = Sandbox::new().with_sample();
    let text = sample_file(RAW);
    let header_twice = on_line(&text, 1, b"local_authority_name,", b"region_name,");
    s.write(RAW, header_twice);
    s.load(&[], &[]).refused(&[
        &format!("{RAW}:1:"),
        "region_name twice",
        "columns 7 and 10",
    ]);
    // Twice under two aliases of one column.
    let aliased = on_line(
        &text,
        1,
        b"local_authority_code,",
        b"local_authoirty_ons_code,",
    );
    let aliased = on_line(&aliased, 1, b"region_ons_code,", b"local_authority_code,");
    s.write(RAW, aliased);
    s.load(&[], &[]).refused(&[
        &format!("{RAW}:1:"),
        "local_authority_code twice",
        "column 8",
        "column 11",
    ]);
}

#[test]
fn two_zip_members_of_one_name_are_refused() {
    let s = Sandbox::new();
    let path = s.input("twice.zip");
    let mut z = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    // The zip crate refuses a second member of one name: write it under another, then rename
    // it in the bytes.
    for name in ["a.csv", "b.csv"] {
        z.start_file(name, opts).unwrap();
        z.write_all(&sample_file(LA)).unwrap();
    }
    z.finish().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let renamed: Vec<u8> = bytes
        .windows(5)
        .enumerate()
        .fold(bytes.clone(), |mut acc, (i, w)| {
            if w == b"b.csv" {
                acc[i] = b'a';
            }
            acc
        });
    std::fs::write(&path, renamed).unwrap();
    s.load(&["--allow-shrink"], &[&path])
        .refused(&["twice.zip", "two members have the same name"]);
}

#[test]
fn utf16_spreadsheet_exports_load_as_the_utf8_file_does() {
    let s = Sandbox::new();
    let text = String::from_utf8(sample_file(LA)).unwrap();
    let rows = text.lines().count() - 1;
    let utf16 = |t: &str| -> Vec<u8> {
        let mut out = vec![0xff, 0xfe];
        out.extend(t.encode_utf16().flat_map(u16::to_le_bytes));
        out
    };
    let comma = s.write("la16.csv", utf16(&text));
    // "Unicode text" as spreadsheets save it: UTF-16 with a BOM, tab-separated, CRLF.
    let tabbed = text.replace(',', "\t").replace('\n', "\r\n");
    let tabs = s.write("la16.txt.csv", utf16(&tabbed));
    for file in [&comma, &tabs] {
        let db = s.root.join("served/la.db");
        let out = s.load_into(&db, &[], &[file]);
        assert_eq!(out.run.code, Some(0), "{}", out.run.stderr);
        let conn = rusqlite::Connection::open(&db).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM local_authority_traffic", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(n, rows as i64);
        let name: String = conn
            .query_row(
                "SELECT local_authority_name FROM local_authority_traffic WHERE id = 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(name, "Glasgow City");
        drop(conn);
        std::fs::remove_file(db).unwrap();
    }
}

// --- Messages a person reads ----------------------------------------------------------------

#[test]
fn messages_are_short_plain_and_capped() {
    let s = Sandbox::new();
    for i in 0..3000 {
        s.write(&format!("empty{i:04}.csv"), "");
    }
    let out = s.load(&[], &[]);
    out.refused(&["empty0000.csv", "... and 2980 more"]);
    assert!(out.run.stderr.lines().count() < 30, "{}", out.run.stderr);

    let s = Sandbox::new().with_sample();
    let huge = "7".repeat(1_000_000);
    s.write(
        LA,
        on_line(&sample_file(LA), 2, b"1901.85", huge.as_bytes()),
    );
    let out = s.load(&[], &[]);
    out.refused(&["local_authority_traffic.csv:2: link_length_km"]);
    assert!(
        out.run.stderr.len() < 2000,
        "{} bytes of stderr",
        out.run.stderr.len()
    );

    let s = Sandbox::new().with_sample();
    let run = run_loader(
        &["--db".into(), s.db.clone().into(), s.inputs.clone().into()],
        &s.tmp,
    );
    assert_eq!(run.code, Some(0));
    for debug in ["TotalMismatch", "MissingColumn", "Int(", "Text(", "Some("] {
        assert!(!run.stderr.contains(debug), "{debug} in:\n{}", run.stderr);
    }
}

// --- The shared real files, damaged -----------------------------------------------------------

/// A real raw count file's first 300 lines: the base of the mutations below.
fn real_raw_head() -> Option<Vec<u8>> {
    let dir = real_data()?;
    let text =
        std::fs::read(dir.join("raw_counts/dft_rawcount_local_authority_id_31__williamjones7.csv"))
            .unwrap();
    let end = text
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .nth(299)
        .map(|(i, _)| i + 1)
        .unwrap();
    Some(text[..end].to_vec())
}

/// The real file served, then a damaged copy of it loaded over it.
fn real_sandbox(base: &[u8]) -> Sandbox {
    let built = scratch_dir().join("real.db");
    let file = built.with_file_name("raw.csv");
    std::fs::write(&file, base).unwrap();
    load_ok(&built, &["--quiet"], &[&file]);
    Sandbox::serving(&std::fs::read(&built).unwrap())
}

#[test]
fn real_files_damaged_are_refused_or_reported() {
    let Some(base) = real_raw_head() else { return };
    let s = real_sandbox(&base);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            on_line(&base, 10, b"\"Perth & Kinross\"", b"\"Perth & Kin\0ross\""),
            "raw.csv:10: local_authority_name",
        ),
        (on_line(&base, 20, b",2009,", b",209,"), "raw.csv:20: year"),
        (base[..base.len() - 300].to_vec(), "raw.csv:"),
    ];
    for (text, needle) in cases {
        s.write("raw.csv", text);
        s.load(&[], &[&s.input("raw.csv")]).refused(&[needle]);
    }
}

// --- Random damage to a real file -----------------------------------------------------------

/// A damage that a careful loader can always see: bytes that are not data (NUL, bytes that
/// are not UTF-8, a stray quote) put in place of others, a line end taken out (two rows
/// become one), or the file cut off mid-line.
#[derive(Debug, Clone)]
enum Damage {
    Byte { at: usize, to: u8 },
    JoinLines { nth: usize },
    Cut { at: usize },
}

fn damage_strategy(len: usize, header: usize) -> impl Strategy<Value = Damage> {
    prop_oneof![
        (
            header..len,
            prop::sample::select(vec![0u8, 0xff, 0x80, b'"'])
        )
            .prop_map(|(at, to)| Damage::Byte { at, to }),
        (1usize..250).prop_map(|nth| Damage::JoinLines { nth }),
        (header..len - 1).prop_map(|at| Damage::Cut { at }),
    ]
}

/// Applies the damage; gives the new bytes and the line it is on (1-based), or None when the
/// damage turned out to change nothing a reader could see.
fn apply(base: &[u8], damage: &Damage) -> Option<(Vec<u8>, usize)> {
    let line_of = |at: usize| base[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    match *damage {
        Damage::Byte { at, to } if base[at] != to && base[at] != b'\n' && base[at] != b'\r' => {
            let mut out = base.to_vec();
            out[at] = to;
            Some((out, line_of(at)))
        }
        Damage::JoinLines { nth } => {
            let at = base
                .iter()
                .enumerate()
                .filter(|(_, &b)| b == b'\n')
                .nth(nth)?
                .0;
            (at + 1 < base.len()).then(|| ([&base[..at], &base[at + 1..]].concat(), line_of(at)))
        }
        // A cut just after a line end leaves a whole, shorter file: nothing to see there.
        Damage::Cut { at } if base[at - 1] != b'\n' && base[at] != b'\n' => {
            Some((base[..at].to_vec(), line_of(at)))
        }
        _ => None,
    }
}

/// The file the random damage is done to: the real raw counts, else the sample's.
fn damage_base() -> &'static [u8] {
    static BASE: OnceLock<Vec<u8>> = OnceLock::new();
    BASE.get_or_init(|| real_raw_head().unwrap_or_else(|| sample_file(RAW)))
}

fn any_damage() -> impl Strategy<Value = Damage> {
    let base = damage_base();
    let header = base.iter().position(|&b| b == b'\n').unwrap() + 1;
    damage_strategy(base.len(), header)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Whatever the damage, the loader never panics, never hangs, and either refuses naming
    /// the damaged line or loads and reports it (the report names that line).
    #[test]
    fn random_damage_to_a_real_file_is_refused_or_reported(damage in any_damage()) {
        let Some((text, line)) = apply(damage_base(), &damage) else { return Ok(()) };
        let dir = scratch_dir();
        let file = dir.join("damaged.csv");
        std::fs::write(&file, &text).unwrap();
        let report = dir.join("report.json");
        let run = run_loader(
            &[
                "--db".into(), dir.join("t.db").into(),
                "--report-json".into(), report.clone().into(),
                file.clone().into(),
            ],
            &dir,
        );
        prop_assert!(run.signal.is_none() && matches!(run.code, Some(0 | 1)), "{:?}: {}", damage, run.stderr);
        prop_assert!(run.max_rss_kb < MAX_RSS_KB);
        let place = format!("damaged.csv:{line}");
        match run.code {
            Some(1) => prop_assert!(run.stderr.contains(&place), "{:?}: expected {} in:\n{}", damage, place, run.stderr),
            _ => {
                let json = std::fs::read_to_string(&report).unwrap();
                prop_assert!(json.contains(&place), "{:?}: loaded, and the report does not name {}:\n{}", damage, place, json);
            }
        }
        let mut left: Vec<String> = std::fs::read_dir(&dir).unwrap().flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !["damaged.csv", "report.json", "t.db"].contains(&n.as_str()))
            .collect();
        left.sort();
        prop_assert!(left.is_empty(), "left behind: {:?}", left);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
