//! The real `roadtraffic-serve` program, run as a child process: how it refuses to start, and
//! how it stops on SIGTERM and SIGINT (in flight requests finished, a 30,000-row streamed page
//! among them, within `--shutdown-timeout`; then exit 0).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::fixtures::fixture_db;
use crate::support::*;

const SERVE: &str = env!("CARGO_BIN_EXE_roadtraffic-serve");
const BIG_PAGE: &str = "/api/raw-counts?page%5Bsize%5D=30000&page%5Bnumber%5D=1";

/// The program running, with what it logs; killed if a test fails before it stops.
pub struct Program {
    child: Child,
    pub addr: SocketAddr,
    log: Arc<Mutex<String>>,
}

impl Program {
    pub fn start(db: &Path, extra: &[&str]) -> Program {
        Program::start_at(db, "127.0.0.1:0", extra)
    }

    /// The program listening on `bind` (a replica restarted on its port).
    pub fn start_at(db: &Path, bind: &str, extra: &[&str]) -> Program {
        let mut child = Command::new(SERVE)
            .arg("--db")
            .arg(db)
            .args(["--bind", bind])
            .args(extra)
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let lines = log.clone();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                if let Some((_, addr)) = line.split_once("listening on http://") {
                    let _ = tx.send(addr.parse::<SocketAddr>().unwrap());
                }
                lines.lock().unwrap().push_str(&(line + "\n"));
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the server says where it listens");
        Program { child, addr, log }
    }

    pub fn signal(&self, signal: libc::c_int) {
        assert_eq!(
            unsafe { libc::kill(self.child.id() as libc::pid_t, signal) },
            0
        );
    }

    /// Waits for the program to exit, at most `limit`.
    pub fn exit_within(&mut self, limit: Duration) -> ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                started.elapsed() < limit,
                "still running after {limit:?}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// A connection that has sent `target` and read the first bytes of the answer.
    fn started_request(&self, target: &str) -> TcpStream {
        let mut stream = TcpStream::connect(self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        write!(
            stream,
            "GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut first = [0u8; 12];
        stream.read_exact(&mut first).unwrap();
        assert_eq!(&first, b"HTTP/1.1 200");
        stream
    }

    /// Whether a new connection is refused (the listener is closed), within 10 s (however
    /// busy the machine: it is at once).
    fn refuses_connections(&self) -> bool {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            match TcpStream::connect_timeout(&self.addr, Duration::from_millis(200)) {
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => return true,
                _ => std::thread::sleep(Duration::from_millis(20)),
            }
        }
        false
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The body of a whole chunked response read from a socket: its rows.
fn rows_of_chunked_response(raw: &[u8]) -> usize {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let (mut rest, mut body) = (&raw[split + 4..], Vec::new());
    loop {
        let eol = rest.windows(2).position(|w| w == b"\r\n").unwrap();
        let size = usize::from_str_radix(std::str::from_utf8(&rest[..eol]).unwrap(), 16).unwrap();
        if size == 0 {
            break;
        }
        body.extend_from_slice(&rest[eol + 2..eol + 2 + size]);
        rest = &rest[eol + 2 + size + 2..];
    }
    let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
    json["data"].as_array().unwrap().len()
}

#[test]
fn sigterm_finishes_a_streamed_page_in_flight_then_exits_0() {
    let mut program = Program::start(fixture_db(), &[]);
    // An idle keep-alive connection, as a load balancer keeps them.
    let mut idle = TcpStream::connect(program.addr).unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut answer = [0u8; 512];
    assert!(idle.read(&mut answer).unwrap() > 0);
    // A 30,000-row page (~20 MB), begun but far from read.
    let mut big = program.started_request(BIG_PAGE);
    program.signal(libc::SIGTERM);
    assert!(
        program.refuses_connections(),
        "new connections are refused at once"
    );
    assert_eq!(
        idle.read(&mut answer).unwrap(),
        0,
        "idle keep-alive connections are closed"
    );
    std::thread::sleep(Duration::from_millis(300));
    let mut raw = b"HTTP/1.1 200".to_vec();
    big.read_to_end(&mut raw).unwrap();
    assert_eq!(
        rows_of_chunked_response(&raw),
        30_000,
        "the page in flight is sent whole"
    );
    let status = program.exit_within(Duration::from_secs(10));
    let log = program.log();
    assert_eq!(status.code(), Some(0), "{log}");
    assert!(
        log.contains("SIGTERM: stopping; 1 requests in flight"),
        "{log}"
    );
    assert!(log.contains("every request in flight finished"), "{log}");
}

/// A client that stops reading holds its request in flight: at `--shutdown-timeout` it is cut
/// and the program exits 0 all the same.
#[test]
fn sigint_cuts_what_is_still_in_flight_at_the_shutdown_timeout() {
    let mut program = Program::start(fixture_db(), &["--shutdown-timeout", "1"]);
    let _stalled = program.started_request(BIG_PAGE);
    let signalled = Instant::now();
    program.signal(libc::SIGINT);
    let status = program.exit_within(Duration::from_secs(10));
    let took = signalled.elapsed();
    let log = program.log();
    assert_eq!(status.code(), Some(0), "{log}");
    // Not before the timeout; after it, the log says the requests were cut (a program that
    // waited for them would never exit: the client reads nothing).
    assert!(
        took >= Duration::from_secs(1),
        "stopped after {took:?}, before the timeout"
    );
    assert!(log.contains("SIGINT: stopping"), "{log}");
    assert!(
        log.contains("1 s passed: the requests still in flight were cut"),
        "{log}"
    );
}

/// A second signal does not wait for the shutdown timeout.
#[test]
fn a_second_signal_stops_at_once() {
    let mut program = Program::start(fixture_db(), &["--shutdown-timeout", "60"]);
    let _stalled = program.started_request(BIG_PAGE);
    program.signal(libc::SIGTERM);
    // The second once the first is taken, however long that takes.
    wait_for("the first SIGTERM taken", || {
        program.log().contains("SIGTERM: stopping")
    });
    program.signal(libc::SIGTERM);
    // Not the 60 s of the shutdown timeout.
    let status = program.exit_within(Duration::from_secs(10));
    assert_eq!(status.code(), Some(0), "{}", program.log());
    assert!(
        program.log().contains("SIGTERM again: cutting"),
        "{}",
        program.log()
    );
}

/// A refused start is one clear line on stderr and a non-zero exit, at once, whatever the file:
/// not SQLite at all, SQLite but not ours, missing. "At once" is not after the connection
/// pool's 10 s of retries: it takes milliseconds, so 5 s tells them apart on a machine however
/// busy.
#[test]
fn a_refused_start_is_one_line_and_quick() {
    let dir = scratch_dir();
    let not_sqlite = dir.join("not-sqlite.db");
    std::fs::write(&not_sqlite, b"not a database").unwrap();
    let plain = dir.join("plain.db");
    rusqlite::Connection::open(&plain)
        .unwrap()
        .execute_batch("CREATE TABLE x (a)")
        .unwrap();
    for (db, why) in [
        (not_sqlite, "file is not a database"),
        (plain, "no such table: metadata"),
        (dir.join("missing.db"), "No such file"),
    ] {
        let started = Instant::now();
        let out = Command::new(SERVE)
            .arg("--db")
            .arg(&db)
            .args(["--bind", "127.0.0.1:0"])
            .env("RUST_LOG", "info")
            .output()
            .unwrap();
        let took = started.elapsed();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert!(
            took < Duration::from_secs(5),
            "refused after {took:?}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "one line:\n{stderr}");
        assert!(
            stderr.starts_with(&format!("roadtraffic-serve: {}: ", db.display())),
            "{stderr}"
        );
        assert!(stderr.contains(why), "{stderr}");
    }
}

/// The default file (`data/roadtraffic.db`, run from a folder holding `data/sample`) is built
/// again when it is the sample as another version built it, so that the README's first command
/// still works after an upgrade; any other file of another version is refused, never replaced.
#[test]
fn the_default_file_is_rebuilt_only_when_it_is_an_old_sample() {
    let run = |dir: &Path| {
        let mut child = Command::new(SERVE)
            .current_dir(dir)
            .args(["--bind", "127.0.0.1:0"])
            .env("RUST_LOG", "info")
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut log = String::new();
        for line in BufReader::new(child.stderr.take().unwrap()).lines() {
            let line = line.unwrap();
            log.push_str(&line);
            log.push('\n');
            if line.contains("listening on") {
                break;
            }
        }
        let _ = child.kill();
        (child.wait().unwrap(), log)
    };
    let version = |db: &Path| -> String {
        let conn = rusqlite::Connection::open(db).unwrap();
        let sql = "SELECT value FROM metadata WHERE key = 'schema_version'";
        conn.query_row(sql, [], |r| r.get(0)).unwrap()
    };
    let current = version(sample_db());
    for (release, rebuilt) in [("bundled sample", true), ("2024", false)] {
        let dir = scratch_dir().join(format!("default-{rebuilt}"));
        std::fs::create_dir_all(dir.join("data")).unwrap();
        std::os::unix::fs::symlink(repo_path("data/sample"), dir.join("data/sample")).unwrap();
        let db = dir.join(roadtraffic_server::DEFAULT_DB);
        std::fs::copy(sample_db(), &db).unwrap();
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(&format!(
                "UPDATE metadata SET value = 'older' WHERE key = 'schema_version';
                 UPDATE metadata SET value = '{release}' WHERE key = 'release';"
            ))
            .unwrap();
        let (status, log) = run(&dir);
        if rebuilt {
            assert!(log.contains("sample of another version"), "{log}");
            assert!(log.contains("listening on"), "{log}");
            assert_eq!(version(&db), current);
        } else {
            assert!(!status.success(), "{log}");
            assert!(log.contains("schema version older"), "{log}");
            assert_eq!(version(&db), "older");
        }
    }
}
