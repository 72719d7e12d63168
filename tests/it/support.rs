//! Shared test machinery: building files with the real loader, starting the real server on
//! port 0, and speaking HTTP to it.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use clap::Parser;
use roadtraffic_server::{self as server, Config};

/// A file or folder of the shared contract folder beside the repository (`../shared/{rel}`),
/// when it is there. Without it a test that needs it says on stderr what it skips (`checks`);
/// with `ROADTRAFFIC_REQUIRE_SHARED=1` (CI) it fails instead, naming the path.
pub fn shared(rel: &str, checks: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel);
    if path.exists() {
        return Some(path);
    }
    missing(
        &format!(
            "{} (ROADTRAFFIC_REQUIRE_SHARED=1): it is absent",
            path.display()
        ),
        &format!("{checks}: {} is absent", path.display()),
    )
}

/// The real published files beside the repository, when they are there (see [`shared`]).
pub fn real_data() -> Option<PathBuf> {
    shared("data/real", "the checks on real files")
}

/// What a test does without something it needs: under `ROADTRAFFIC_REQUIRE_SHARED=1` (CI, whose
/// `.ci/run` provides everything) it fails, saying it `needs` what is missing; elsewhere it says
/// on stderr what it `skips`, and goes on without it.
pub fn missing<T>(needs: &str, skips: &str) -> Option<T> {
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    if std::env::var("ROADTRAFFIC_REQUIRE_SHARED").is_ok_and(|v| v == "1") {
        panic!("{test} needs {needs}");
    }
    eprintln!("{test}: skipped {skips}");
    None
}

pub fn repo_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Waits until `done`, for up to 10 s, panicking with `what` (what was waited for) after: a
/// test waits for what it needs to have happened, never for a time that a busy machine may not
/// fill.
pub fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "not within 10 s: {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A temporary directory kept for the whole test run (servers read from it).
pub fn scratch_dir() -> PathBuf {
    tempfile::tempdir().expect("tempdir").keep()
}

pub struct LoadRun {
    pub ok: bool,
    pub stderr: String,
}

/// Runs the loader binary, as a user would.
pub fn load(db: &Path, args: &[&str], inputs: &[&Path]) -> LoadRun {
    let out = Command::new(env!("CARGO_BIN_EXE_roadtraffic-load"))
        .arg("--db")
        .arg(db)
        .args(args)
        .args(inputs)
        .output()
        .expect("run roadtraffic-load");
    LoadRun {
        ok: out.status.success(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// What a command wrote on stdout, once it succeeded (else its stderr, failing the test).
pub fn stdout_of(command: &mut Command) -> Vec<u8> {
    let out = command.output().expect("run the command");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{command:?} failed:\n{stderr}");
    out.stdout
}

pub fn load_ok(db: &Path, args: &[&str], inputs: &[&Path]) -> String {
    let run = load(db, args, inputs);
    assert!(run.ok, "load failed:\n{}", run.stderr);
    run.stderr
}

/// Rows of a table of the bundled sample, counted in the file itself.
pub fn sample_rows(table: &str) -> i64 {
    rusqlite::Connection::open(sample_db())
        .unwrap()
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

/// A command-line tool the tests need (from PyPI or Debian, installed by `.ci/run`), if it is
/// there. Without it a test says on stderr what it skips; with `ROADTRAFFIC_REQUIRE_SHARED=1`
/// (CI) it fails.
pub fn tool(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    });
    found.or_else(|| {
        missing(
            &format!("`{name}` (ROADTRAFFIC_REQUIRE_SHARED=1): .ci/run installs it"),
            &format!("what needs `{name}`: not installed (.ci/run installs it)"),
        )
    })
}

/// Every current real file of ../shared loaded into one file (the old eras are refused by
/// design; the national and split files of one table overlap, so the first row is kept).
pub fn real_db() -> Option<&'static Path> {
    static DB: OnceLock<Option<PathBuf>> = OnceLock::new();
    DB.get_or_init(|| {
        let real = real_data()?;
        let db = scratch_dir().join("real.db");
        let inputs: Vec<PathBuf> = [
            "aadf",
            "count_points",
            "raw_counts",
            "local_authority_traffic",
            "region_traffic",
        ]
        .iter()
        .map(|d| real.join(d))
        .collect();
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        load_ok(&db, &["--quiet", "--keep-first"], &inputs);
        Some(db)
    })
    .as_deref()
}

/// The bundled sample, loaded once for the whole run.
pub fn sample_db() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let db = scratch_dir().join("sample.db");
        load_ok(&db, &["--quiet"], &[&repo_path("data/sample")]);
        db
    })
}

pub struct TestServer {
    pub addr: SocketAddr,
}

impl TestServer {
    pub fn url(&self, target: &str) -> String {
        format!("http://{}{}", self.addr, target)
    }
}

/// Starts the real server on port 0 in a thread of its own; it runs until the tests end.
pub fn serve(db: &Path, extra: &[&str]) -> TestServer {
    let mut args = vec![
        "roadtraffic-serve".to_string(),
        "--db".into(),
        db.display().to_string(),
        "--bind".into(),
        "127.0.0.1:0".into(),
        "--workers".into(),
        "2".into(),
        "--watch-interval".into(),
        "100".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let config = Config::parse_from(args);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            match server::start(config) {
                Ok((server, addr)) => {
                    tx.send(Ok(addr)).unwrap();
                    let _ = server.await;
                }
                Err(e) => tx.send(Err(e.to_string())).unwrap(),
            }
        })
    });
    let addr = rx.recv().unwrap().expect("server starts");
    TestServer { addr }
}

/// A small file built by the loader, then marked as of another schema version.
pub fn file_of_schema_version(db: &Path, version: i64) {
    load_ok(
        db,
        &["--quiet"],
        &[&repo_path("data/sample/local_authority_traffic.csv")],
    );
    rusqlite::Connection::open(db)
        .unwrap()
        .execute(
            "UPDATE metadata SET value = ?1 WHERE key = 'schema_version'",
            [version.to_string()],
        )
        .unwrap();
}

/// Why the server refuses to start on this file (it must refuse).
pub fn refused_to_start(db: &Path) -> String {
    let config = Config::parse_from([
        "roadtraffic-serve",
        "--db",
        db.to_str().unwrap(),
        "--bind",
        "127.0.0.1:0",
    ]);
    match server::start(config) {
        Ok(_) => panic!("the server started on {}", db.display()),
        Err(e) => e.to_string(),
    }
}

/// The sample served once for the whole run.
pub fn sample_server() -> &'static TestServer {
    static SERVER: OnceLock<TestServer> = OnceLock::new();
    SERVER.get_or_init(|| serve(sample_db(), &[]))
}

pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

fn agent() -> &'static ureq::Agent {
    static AGENT: OnceLock<ureq::Agent> = OnceLock::new();
    AGENT.get_or_init(|| {
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into()
    })
}

/// A request through a real HTTP client (targets must be valid URIs: brackets encoded).
pub fn request(server: &TestServer, method: &str, target: &str, headers: &[(&str, &str)]) -> Reply {
    let mut req = ureq::http::Request::builder()
        .method(method)
        .uri(server.url(target));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut resp = agent().run(req.body(()).unwrap()).expect("HTTP request");
    let status = resp.status().as_u16();
    let headers = resp
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let body = resp
        .body_mut()
        .with_config()
        .limit(1 << 30)
        .read_to_vec()
        .unwrap_or_default();
    Reply {
        status,
        headers,
        body,
    }
}

pub fn get(server: &TestServer, target: &str) -> Reply {
    request(server, "GET", target, &[])
}

/// A request written byte for byte on a socket, for targets no client library would send
/// (raw brackets, broken escapes, huge query strings).
pub fn raw_get(server: &TestServer, target: &[u8]) -> Reply {
    raw_request(server, target, "")
}

/// [`raw_get`] with extra header lines (each ending in `\r\n`), and no decoding of the body.
pub fn raw_request(server: &TestServer, target: &[u8], extra_headers: &str) -> Reply {
    let mut stream = connect_raw(server);
    let mut req = b"GET ".to_vec();
    req.extend_from_slice(target);
    req.extend_from_slice(b" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    req.extend_from_slice(extra_headers.as_bytes());
    req.extend_from_slice(b"\r\n");
    stream.write_all(&req).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let (status, headers) = parse_head(&String::from_utf8_lossy(&raw[..split]));
    let chunked = headers.iter().any(|(k, v): &(String, String)| {
        k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked")
    });
    let body = raw[split + 4..].to_vec();
    Reply {
        status,
        headers,
        body: if chunked { dechunk(&body) } else { body },
    }
}

/// The body of a `Transfer-Encoding: chunked` response.
/// A response head's status and header lines (names as sent).
fn parse_head(head: &str) -> (u16, Vec<(String, String)>) {
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    let status = status_line.split(' ').nth(1).unwrap().parse().unwrap();
    let headers = (lines.filter_map(|l| l.split_once(':')))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    (status, headers)
}

fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = raw.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(std::str::from_utf8(&raw[..eol]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.extend_from_slice(&raw[eol + 2..eol + 2 + size]);
        raw = &raw[eol + 2 + size + 2..];
    }
    out
}

/// A program from a Debian package that a test needs (`promtool`, `nginx`, ...), found on the
/// PATH or in /usr/sbin. Without it the test says on stderr what it skips; with
/// `ROADTRAFFIC_REQUIRE_SHARED=1` (CI, where `.ci/run` installs it) it fails instead.
pub fn required_tool(name: &str, package: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|dir| dir.join(name))
        .find(|p| p.is_file());
    found.or_else(|| {
        missing(
            &format!("{name} (Debian package {package}; .ci/run installs it): it is missing"),
            &format!("what needs {name}: it is missing (apt-get install {package})"),
        )
    })
}

/// The `python3` on the PATH, if it can import `modules` (as `import` takes them: `a, b`), the
/// Python clients the tests run (from PyPI: `install` says how; `.ci/run` installs them).
/// Without them a test says on stderr what it skips; with `ROADTRAFFIC_REQUIRE_SHARED=1` (CI)
/// it fails.
pub fn python_with(modules: &str, install: &str) -> Option<PathBuf> {
    let python = PathBuf::from("python3");
    let has = Command::new(&python)
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if has {
        return Some(python);
    }
    missing(
        &format!("the Python modules {modules} ({install}; .ci/run installs them)"),
        &format!("what needs the Python modules {modules}: not installed ({install})"),
    )
}

/// A zip archive's bytes with one digit changed inside its first member's data (stored, not
/// deflated): the CSV text still parses, only the member's CRC-32 tells.
pub fn with_a_digit_changed(zip: &[u8]) -> Vec<u8> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
    let member = archive.by_index_raw(0).unwrap();
    assert_eq!(member.compression(), zip::CompressionMethod::Stored);
    let start = member.data_start().unwrap() as usize;
    let middle = start + member.compressed_size() as usize / 2;
    drop(member);
    let mut bytes = zip.to_vec();
    let at = middle + bytes[middle..].iter().position(u8::is_ascii_digit).unwrap();
    bytes[at] = if bytes[at] == b'9' {
        b'8'
    } else {
        bytes[at] + 1
    };
    bytes
}

/// The rules of the API that its description cannot hold, as the `schemathesis.toml` of
/// [`fuzz_description`]: on the operations they concern, the fuzzer may see a 400 for a request
/// its schema allows.
///
/// - A CQL2 `filter` that is no valid expression of the dataset's fields is a 400, and JSON
///   Schema cannot hold CQL2's grammar (a string of at most 16 KB is all it can say): every
///   listing, and its revisions and totals. (Before CQL2, this was only the listings with
///   places: a `filter[bbox]` whose minimum is above its maximum is a 400, and JSON Schema
///   cannot compare two items of an array.)
/// - A summary's `sort` names one of its own output columns, which depend on its `group_by`
///   and measures (another parameter); its `group_by` names at most 5 columns, a repeated one
///   counting once (JSON Schema cannot count distinct items, and a cap on all of them would
///   be a lie the fuzzer finds the other way: six repeats of one are accepted); without
///   `limit` its groups number at most 10,000, which the data decides.
pub const UNDESCRIBABLE_RULES: &str = r#"
[[operations]]
include-path-regex = "/api/"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]

[[operations]]
include-path-regex = "/summary(\\.csv|\\.ndjson)?$"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]
"#;

/// A `schemathesis.toml`'s text that turns its coverage phase off. That phase draws its
/// requests (about 30,000 here) from the description alone, so running it on a second server
/// with the same description (checked with [`description_text`]) repeats the same requests:
/// minutes of CI for nothing the first run did not try.
pub const NO_COVERAGE_PHASE: &str = "\n[phases.coverage]\nenabled = false\n";

/// A server's OpenAPI description at `path` (`/api/openapi.json`, `/ogcapi/api`), its address
/// replaced, so that two servers' texts are equal when they describe the same API.
pub fn description_text(server: &TestServer, path: &str) -> String {
    let text = get(server, path).text();
    text.replace(&server.addr.to_string(), "ADDRESS")
}

/// Schemathesis with all its checks on the description at `url` (no 5xx, no response that
/// breaks it, no undocumented status, schema-valid requests accepted and invalid ones
/// refused), but `exclude`, and with `config` (a `schemathesis.toml`'s text) for what a check
/// may accept. Its example database is off: examples kept from earlier runs (in
/// `.hypothesis/`) would make a run depend on the runs before it rather than on its seed alone.
/// Without the tool, says what it skips (fails in CI).
pub fn fuzz_description(url: &str, seed: &str, config: &str, exclude: &[&str]) {
    let Some(st) = tool("st") else { return };
    let config_file = scratch_dir().join("schemathesis.toml");
    std::fs::write(&config_file, config).unwrap();
    let mut command = std::process::Command::new(st);
    command
        .arg("--config-file")
        .arg(&config_file)
        .args(["run", url, "--checks", "all"]);
    if !exclude.is_empty() {
        command.args(["--exclude-checks", &exclude.join(",")]);
    }
    let out = command
        .args([
            "--max-examples",
            "12",
            "--seed",
            seed,
            "--max-failures",
            "10",
        ])
        .args(["--generation-database", "none"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the fuzzer found failures:\n{text}");
    assert!(
        text.contains(" passed"),
        "the fuzzer tested nothing:\n{text}"
    );
}

/// Queries a server has run so far: every query takes a connection, and each taking is
/// counted in `/metrics` (which takes none).
pub fn queries_run(server: &TestServer) -> u64 {
    let metrics = get(server, "/metrics").text();
    let line = (metrics.lines())
        .find(|l| l.starts_with("roadtraffic_sqlite_pool_wait_seconds_count"))
        .expect("the count of connections taken");
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

/// One response read off a kept-alive connection ([`connect_raw`]): its status, headers and body (by its
/// `Content-Length`; none for a `HEAD`).
pub fn read_reply(stream: &mut TcpStream, head_only: bool) -> Reply {
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).expect("a response head");
        raw.push(byte[0]);
    }
    let (status, headers) = parse_head(String::from_utf8(raw).unwrap().trim_end());
    let length = (headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length")))
    .map_or(0, |(_, v)| v.parse::<usize>().unwrap());
    let mut body = vec![0; if head_only { 0 } else { length }];
    stream.read_exact(&mut body).expect("the whole body");
    Reply {
        status,
        headers,
        body,
    }
}

/// A connection to write requests on byte for byte, several at once (pipelined), and read
/// their answers in turn with [`read_reply`].
pub fn connect_raw(server: &TestServer) -> TcpStream {
    let stream = TcpStream::connect(server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    stream
}

/// A request without a body, as written on a kept-alive connection; `headers` are whole lines.
pub fn pipelined(method: &str, target: &str, headers: &str) -> String {
    format!("{method} {target} HTTP/1.1\r\nHost: localhost\r\n{headers}\r\n")
}
