//! `roadtraffic-load --fetch` against a local HTTP server, in the suite, that serves a release
//! (the bundled sample, a zip per national file) and misbehaves on demand: cuts the connection
//! mid-file, answers 500 then 200, 404, an HTML page under a `.zip` name, ignores Range. Each
//! time a resumed success or a clear failure naming the URL, and nothing lost: the served file
//! is untouched by a failure, and a cached file is replaced only by a whole one.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use sha2::Digest;

use crate::support::*;

/// What the server does instead of answering a request for a file properly, once each.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// Sends the head with the whole length and half of the (rest of the) body, then closes.
    Cut,
    Status(u16),
    /// A 200 with an HTML error page (as a misconfigured proxy or bucket does).
    Html,
    /// A 200 with the whole body whatever Range asked.
    IgnoreRange,
    /// Both: the whole body whatever Range asked, cut at half.
    CutWhole,
}

/// What a request asked for, as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    name: String,
    range: Option<String>,
    if_none_match: Option<String>,
    status: u16,
}

#[derive(Default)]
struct Script {
    files: HashMap<String, Vec<u8>>,
    faults: HashMap<String, VecDeque<Fault>>,
    seen: Vec<Seen>,
}

struct Upstream {
    base: String,
    script: Arc<Mutex<Script>>,
}

impl Upstream {
    /// A server of the release's national zips, made from the bundled sample; it runs until
    /// the tests end.
    fn start() -> Upstream {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}/downloads/", listener.local_addr().unwrap());
        let mut script = Script::default();
        for (name, _) in roadtraffic_loader::fetch::release_files(&base).unwrap() {
            script.files.insert(name.clone(), sample_zip(&name));
        }
        let script = Arc::new(Mutex::new(script));
        let shared = script.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let script = shared.clone();
                std::thread::spawn(move || answer(stream, &script));
            }
        });
        Upstream { base, script }
    }

    fn fault(&self, name: &str, faults: &[Fault]) {
        let mut script = self.script.lock().unwrap();
        script
            .faults
            .entry(name.to_string())
            .or_default()
            .extend(faults);
    }

    /// Serves `body` under `name` from now on.
    fn serve(&self, name: &str, body: Vec<u8>) {
        self.script
            .lock()
            .unwrap()
            .files
            .insert(name.to_string(), body);
    }

    fn seen(&self) -> Vec<Seen> {
        std::mem::take(&mut self.script.lock().unwrap().seen)
    }

    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.script.lock().unwrap().files.keys().cloned().collect();
        names.sort();
        names
    }
}

/// The sample's CSV file of a zip name, zipped (stored: a body big enough to cut).
fn sample_zip(name: &str) -> Vec<u8> {
    let csv = name.replace(".zip", ".csv");
    let sample = repo_path("data/sample");
    let path = [csv.clone(), format!("dft_{csv}")]
        .iter()
        .map(|n| sample.join(n))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no sample file for {name}"));
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file(csv, options).unwrap();
    zip.write_all(&std::fs::read(path).unwrap()).unwrap();
    zip.finish().unwrap().into_inner()
}

fn etag(body: &[u8]) -> String {
    format!(
        "\"{}-{:x}\"",
        body.len(),
        body.iter().map(|&b| b as u64).sum::<u64>()
    )
}

/// One HTTP/1.1 exchange (the connection is closed after it).
fn answer(mut stream: TcpStream, script: &Mutex<Script>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let target = line.split(' ').nth(1).unwrap_or("").to_string();
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let name = target.rsplit('/').next().unwrap_or("").to_string();
    let (body, fault) = {
        let mut s = script.lock().unwrap();
        let fault = s.faults.get_mut(&name).and_then(VecDeque::pop_front);
        (s.files.get(&name).cloned(), fault)
    };
    let status = respond(&mut stream, body, fault, &headers);
    script.lock().unwrap().seen.push(Seen {
        name,
        range: headers.get("range").cloned(),
        if_none_match: headers.get("if-none-match").cloned(),
        status,
    });
}

fn respond(
    stream: &mut TcpStream,
    body: Option<Vec<u8>>,
    fault: Option<Fault>,
    headers: &HashMap<String, String>,
) -> u16 {
    let head = |status: &str, extra: &str, length: usize| {
        format!("HTTP/1.1 {status}\r\nContent-Length: {length}\r\nConnection: close\r\n{extra}\r\n")
    };
    let Some(body) = body else {
        let _ = stream.write_all(head("404 Not Found", "", 0).as_bytes());
        return 404;
    };
    let tag = etag(&body);
    let validators = format!(
        "ETag: {tag}\r\nLast-Modified: Wed, 01 Oct 2025 09:30:00 GMT\r\nAccept-Ranges: bytes\r\nContent-Type: application/zip\r\n"
    );
    let from: usize = headers
        .get("range")
        .and_then(|r| r.strip_prefix("bytes=")?.strip_suffix('-')?.parse().ok())
        .filter(|_| headers.get("if-range").is_none_or(|v| *v == tag))
        .unwrap_or(0);
    let from = match fault {
        Some(Fault::IgnoreRange | Fault::CutWhole) => 0,
        _ => from,
    };
    let partial = |from: usize| match from {
        0 => ("200 OK".to_string(), validators.clone()),
        _ => (
            "206 Partial Content".to_string(),
            format!(
                "{validators}Content-Range: bytes {from}-{}/{}\r\n",
                body.len() - 1,
                body.len()
            ),
        ),
    };
    let code = if from == 0 { 200 } else { 206 };
    let (status, out): (u16, Vec<u8>) = match fault {
        Some(Fault::Status(code)) => (code, head(&format!("{code} Trouble"), "", 0).into_bytes()),
        Some(Fault::Html) => {
            let page = b"<!DOCTYPE html><html><body>Service Unavailable</body></html>";
            let mut out = head("200 OK", "Content-Type: text/html\r\n", page.len()).into_bytes();
            out.extend_from_slice(page);
            (200, out)
        }
        None if from == 0 && headers.get("if-none-match") == Some(&tag) => {
            (304, head("304 Not Modified", &validators, 0).into_bytes())
        }
        Some(Fault::Cut | Fault::CutWhole) => {
            let (status, extra) = partial(from);
            let rest = &body[from..];
            let mut out = head(&status, &extra, rest.len()).into_bytes();
            out.extend_from_slice(&rest[..rest.len() / 2]);
            (code, out)
        }
        None | Some(Fault::IgnoreRange) => {
            let (status, extra) = partial(from);
            let mut out = head(&status, &extra, body.len() - from).into_bytes();
            out.extend_from_slice(&body[from..]);
            (code, out)
        }
    };
    let _ = stream.write_all(&out);
    let _ = stream.flush();
    status
}

struct Run {
    ok: bool,
    stderr: String,
}

fn fetch(db: &Path, cache: &Path, source: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "--fetch",
        "--source",
        source,
        "--cache-dir",
        cache.to_str().unwrap(),
        "--release",
        "fetched",
    ];
    args.extend(extra);
    let run = load(db, &args, &[]);
    Run {
        ok: run.ok,
        stderr: run.stderr,
    }
}

fn served_rows(db: &Path) -> i64 {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row("SELECT count(*) FROM raw_counts", [], |r| r.get(0))
        .unwrap()
}

fn fetched_metadata(db: &Path) -> Vec<Value> {
    let text: String = rusqlite::Connection::open(db)
        .unwrap()
        .query_row(
            "SELECT value FROM metadata WHERE key = 'fetched'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn setup() -> (Upstream, PathBuf, PathBuf) {
    let dir = scratch_dir();
    (Upstream::start(), dir.join("traffic.db"), dir.join("cache"))
}

#[test]
fn a_release_is_fetched_checked_recorded_and_not_fetched_again_when_unchanged() {
    let (upstream, db, cache) = setup();
    let run = fetch(&db, &cache, &upstream.base, &[]);
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(served_rows(&db), sample_rows("raw_counts"));
    let names = upstream.names();
    assert_eq!(names.len(), 7);
    let seen = upstream.seen();
    assert_eq!(seen.len(), names.len(), "{seen:?}");
    assert!(seen.iter().all(|s| s.status == 200 && s.range.is_none()));
    // Each file's URL, size, validators and SHA-256 are kept in the new file.
    let fetched = fetched_metadata(&db);
    assert_eq!(fetched.len(), names.len());
    for f in &fetched {
        let name = f["file"].as_str().unwrap();
        let bytes = std::fs::read(cache.join(name)).unwrap();
        assert_eq!(f["url"], format!("{}{name}", upstream.base));
        assert_eq!(f["bytes"], bytes.len());
        assert_eq!(f["etag"], etag(&bytes));
        assert_eq!(f["last_modified"], "Wed, 01 Oct 2025 09:30:00 GMT");
        assert_eq!(f["sha256"].as_str().unwrap().len(), 64);
        assert_eq!(f["downloaded"], true);
    }

    // Again: every file is asked for conditionally, and none is sent again.
    let run = fetch(&db, &cache, &upstream.base, &["--replace-release"]);
    assert!(run.ok, "{}", run.stderr);
    assert!(run.stderr.contains("unchanged upstream"), "{}", run.stderr);
    let seen = upstream.seen();
    assert!(
        seen.iter()
            .all(|s| s.status == 304 && s.if_none_match.is_some()),
        "{seen:?}"
    );
    assert!(fetched_metadata(&db)
        .iter()
        .all(|f| f["downloaded"] == false));
}

#[test]
fn a_cut_transfer_is_resumed_and_a_server_that_ignores_range_is_read_again_whole() {
    let (upstream, db, cache) = setup();
    let names = upstream.names();
    upstream.fault(&names[0], &[Fault::Cut, Fault::Cut]);
    upstream.fault(&names[1], &[Fault::Cut, Fault::IgnoreRange]);
    let run = fetch(&db, &cache, &upstream.base, &[]);
    assert!(run.ok, "{}", run.stderr);
    assert!(run.stderr.contains("resumed at"), "{}", run.stderr);
    assert_eq!(served_rows(&db), sample_rows("raw_counts"));
    let seen = upstream.seen();
    let of =
        |name: &str| -> Vec<Seen> { seen.iter().filter(|s| s.name == name).cloned().collect() };
    // Cut, cut again while resuming, then the rest from where it stopped.
    let first = of(&names[0]);
    assert_eq!(first.len(), 3, "{first:?}");
    assert_eq!(
        first.iter().map(|s| s.status).collect::<Vec<_>>(),
        [200, 206, 206]
    );
    assert!(first[0].range.is_none() && first[1].range.is_some() && first[2].range.is_some());
    // The server answered the ranged request with the whole file: read whole, kept whole.
    let second = of(&names[1]);
    assert_eq!(second.len(), 2, "{second:?}");
    assert!(second[1].range.is_some() && second[1].status == 200);
    for name in &names[..2] {
        let kept = std::fs::read(cache.join(name)).unwrap();
        assert_eq!(kept, sample_zip(name), "{name}");
    }
    // The SHA-256 recorded of a resumed file is the whole file's, kept bytes and all.
    let recorded = fetched_metadata(&db);
    let sha256 = |name: &str| -> String {
        let of = recorded.iter().find(|f| f["file"] == name).unwrap();
        of["sha256"].as_str().unwrap().to_string()
    };
    for name in &names[..2] {
        let whole = sha2::Sha256::digest(sample_zip(name));
        let hex: String = whole.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(sha256(name), hex, "{name}");
    }
}

#[test]
fn a_5xx_is_retried_with_backoff() {
    let (upstream, db, cache) = setup();
    let names = upstream.names();
    upstream.fault(&names[2], &[Fault::Status(500), Fault::Status(503)]);
    let run = fetch(&db, &cache, &upstream.base, &[]);
    assert!(run.ok, "{}", run.stderr);
    assert!(
        run.stderr.contains("the server answered 500") && run.stderr.contains("trying again in"),
        "{}",
        run.stderr
    );
    let statuses: Vec<u16> = upstream
        .seen()
        .iter()
        .filter(|s| s.name == names[2])
        .map(|s| s.status)
        .collect();
    assert_eq!(statuses, [500, 503, 200]);
}

/// A fetch that must fail: a clear message naming the URL, a non-zero status, the served file
/// as it was, and the cached copy (if any) as it was.
fn fails(upstream: &Upstream, db: &Path, cache: &Path, extra: &[&str], says: &str) -> String {
    let before = std::fs::read(db).unwrap();
    let run = fetch(db, cache, &upstream.base, extra);
    assert!(!run.ok, "the fetch succeeded:\n{}", run.stderr);
    assert!(run.stderr.contains(says), "{says}:\n{}", run.stderr);
    assert!(run.stderr.contains("nothing was changed"), "{}", run.stderr);
    assert_eq!(
        std::fs::read(db).unwrap(),
        before,
        "the served file changed"
    );
    run.stderr
}

#[test]
fn failures_name_the_url_and_change_nothing() {
    let (upstream, db, cache) = setup();
    load_ok(&db, &["--quiet"], &[&repo_path("data/sample")]);
    let names = upstream.names();
    let url = |n: &str| format!("{}{n}", upstream.base);

    upstream.fault(&names[0], &[Fault::Status(404)]);
    fails(
        &upstream,
        &db,
        &cache,
        &[],
        &format!("{}: the server answered 404", url(&names[0])),
    );

    upstream.fault(&names[1], &[Fault::Html]);
    let stderr = fails(&upstream, &db, &cache, &[], &url(&names[1]));
    assert!(stderr.contains("HTML page"), "{stderr}");
    // A copy fetched whole before is kept as it was; the page is not.
    let kept = std::fs::read(cache.join(&names[1]));
    assert!(kept.is_err() || kept.unwrap() == sample_zip(&names[1]));
    assert!(!cache.join(format!("{}.part", names[1])).exists());

    upstream.fault(&names[2], &[Fault::Status(500); 3]);
    let says = format!("{}: the server answered 500", url(&names[2]));
    let stderr = fails(&upstream, &db, &cache, &["--retries", "2"], &says);
    assert!(stderr.contains("(after 3 attempts)"), "{stderr}");
    upstream.seen();

    // Range ignored and every body cut at the same place: no progress, so a failure.
    upstream.fault(&names[3], &[Fault::CutWhole; 2]);
    let says = format!("{}: the transfer", url(&names[3]));
    fails(&upstream, &db, &cache, &["--retries", "0"], &says);

    // Nothing listens: no answer at all.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let source = format!("http://{}/", closed.local_addr().unwrap());
    drop(closed);
    let before = std::fs::read(&db).unwrap();
    let run = fetch(&db, &cache, &source, &["--retries", "0"]);
    assert!(!run.ok && run.stderr.contains(&source), "{}", run.stderr);
    assert_eq!(std::fs::read(&db).unwrap(), before);

    // Once the server behaves, the fetch completes and every kept file is whole.
    upstream.seen();
    let run = fetch(&db, &cache, &upstream.base, &[]);
    assert!(run.ok, "{}", run.stderr);
    for name in &names {
        assert_eq!(std::fs::read(cache.join(name)).unwrap(), sample_zip(name));
    }
}

/// The fetch checks a zip's structure, not its members' CRC-32: a member damaged inside is
/// caught by the load, which reads it to its end, and nothing is changed. The damaged copy is
/// not taken for current by the next fetch: it is downloaded again.
#[test]
fn a_fetched_zip_damaged_inside_a_member_fails_the_load_naming_it() {
    let (upstream, db, cache) = setup();
    load_ok(&db, &["--quiet"], &[&repo_path("data/sample")]);
    let name = &upstream.names()[0];
    upstream.serve(name, with_a_digit_changed(&sample_zip(name)));
    let stderr = fails(&upstream, &db, &cache, &[], "do not match the CRC-32");
    let member = name.replace(".zip", ".csv");
    let place = format!("{}!{member}", cache.join(name).display());
    assert!(stderr.contains(&place), "{place}:\n{stderr}");
    assert!(
        stderr.contains("the next --fetch downloads it again"),
        "{stderr}"
    );
    upstream.seen();

    let stderr = fails(&upstream, &db, &cache, &[], "do not match the CRC-32");
    let seen = upstream.seen();
    let again: Vec<&Seen> = seen.iter().filter(|s| s.name == *name).collect();
    assert!(
        again.len() == 1 && again[0].status == 200 && again[0].if_none_match.is_none(),
        "{seen:?}\n{stderr}"
    );
    upstream.serve(name, sample_zip(name));
    let run = fetch(&db, &cache, &upstream.base, &[]);
    assert!(run.ok, "{}", run.stderr);
}

/// A host that cannot exist (the reserved `.invalid` domain): a final failure at once, not
/// retried as a transient one.
#[test]
fn an_unknown_host_fails_at_once_naming_the_url() {
    let (_upstream, db, cache) = setup();
    let source = "http://roadtraffic.invalid/downloads/";
    let started = std::time::Instant::now();
    let run = fetch(&db, &cache, source, &[]);
    assert!(!run.ok, "{}", run.stderr);
    assert!(
        run.stderr.contains(source) && run.stderr.contains("host not found"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("trying again"), "{}", run.stderr);
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
    assert!(!db.exists());
}
