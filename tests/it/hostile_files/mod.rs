//! Hostile and damaged input files to the loader: for each family of damage an operator meets
//! on release day (wrong folders and paths, links, FIFOs and devices, bombs, files cut short or
//! re-saved, broken quoting, out-of-range values), mutations of the bundled sample and of the
//! shared real files. Every case asserts the exit status, a message naming the file (and line),
//! the served file byte-identical after a refusal, nothing left behind, nothing written
//! outside the target's folder (TMPDIR included), and bounded time and memory.
//!
//! This file is the sandbox every case runs in (the loader under GNU time, what a folder holds
//! before and after, what a refusal and a load must leave); the cases are in its submodules,
//! one family a file.

mod csv_contents;
mod paths;
mod real_files;
mod zips;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

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
    /// temporary file or lock left) but the release's national files in `{db}.downloads`,
    /// TMPDIR untouched.
    fn loaded(&self) -> &Self {
        assert_eq!(self.run.code, Some(0), "should load:\n{}", self.run.stderr);
        let db = &self.sandbox.db;
        let national = PathBuf::from(format!("{}.downloads", db.display()));
        let changed: Vec<&PathBuf> = self
            .after
            .keys()
            .filter(|p| self.before.get(*p) != self.after.get(*p) && *p != db)
            .filter(|p| !p.starts_with(&national))
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
