//! Loads that cannot lose data: the loader killed at several points, a full disk, truncated
//! files. Each time the served file stays byte-identical and served, and the next load works.

use std::fmt::Write as _;
use std::io::Write as _;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::*;

const RAW_HEADER: &str = "count_point_id,direction_of_travel,year,count_date,hour,region_id,local_authority_id,road_name,road_type,all_motor_vehicles";

/// A raw counts file of `days` count days (24 rows each) that takes the loader a while.
fn big_raw_file(dir: &Path, days: usize) -> PathBuf {
    let mut text = format!("{RAW_HEADER}\n");
    for day in 0..days {
        let cp = 1000 + day / 5;
        let date = format!("20{:02}-0{}-1{}", 10 + day % 5, 3 + day % 6, day % 10);
        for dir in ["N", "S"] {
            for hour in 7..19 {
                writeln!(
                    text,
                    "{cp},{dir},20{:02},{date},{hour},9,110,A{},Major,{}",
                    10 + day % 5,
                    cp % 50,
                    hour * 10
                )
                .unwrap();
            }
        }
    }
    let path = dir.join("raw.csv");
    std::fs::write(&path, text).unwrap();
    path
}

fn loader(db: &Path, inputs: &[&Path]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_roadtraffic-load"));
    // The raw counts alone replace a whole release: a shrink, asked for.
    cmd.args(["--quiet", "--allow-shrink", "--db"])
        .arg(db)
        .args(inputs);
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    cmd
}

/// The served file, its bytes, and a server on it.
struct Served {
    db: PathBuf,
    bytes: Vec<u8>,
    server: TestServer,
    total: serde_json::Value,
}

impl Served {
    fn new(dir: &Path) -> Served {
        let db = dir.join("served.db");
        load_ok(&db, &["--quiet"], &[&repo_path("data/sample")]);
        let server = serve(&db, &[]);
        let total = get(&server, "/api/raw-counts").json()["total"].clone();
        Served {
            bytes: std::fs::read(&db).unwrap(),
            db,
            server,
            total,
        }
    }

    /// The file is as it was, and still served as it was.
    fn unharmed(&self, after: &str) {
        assert!(
            std::fs::read(&self.db).unwrap() == self.bytes,
            "{after}: the served file changed"
        );
        let reply = get(&self.server, "/api/raw-counts");
        assert_eq!(reply.status, 200, "{after}");
        assert_eq!(reply.json()["total"], self.total, "{after}");
    }
}

/// An AADF file of `rows` rows, read after the raw counts: it keeps a load busy after the raw
/// counts are done.
fn big_aadf_file(dir: &Path, rows: usize) -> PathBuf {
    let mut text = String::from(
        "count_point_id,year,region_id,local_authority_id,road_name,road_type,estimation_method,all_motor_vehicles\n",
    );
    for i in 0..rows {
        let (cp, year) = (5000 + i / 20, 2000 + i % 20);
        writeln!(
            text,
            "{cp},{year},9,110,A{},Major,Counted,{}",
            cp % 90,
            i % 5000
        )
        .unwrap();
    }
    let path = dir.join("aadf.csv");
    std::fs::write(&path, text).unwrap();
    path
}

/// A point a load passes, seen from outside: its new file created beside the target, or a line
/// it logs as it finishes a stage.
#[derive(Debug, Clone, Copy)]
enum Progress {
    NewFileCreated,
    Logged(&'static str),
}

/// Waits until the running load passes `point`; panics if it ends first.
fn wait_for(
    point: Progress,
    dir: &Path,
    lines: &std::sync::mpsc::Receiver<String>,
    child: &mut Child,
) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let seen = match point {
            Progress::NewFileCreated => std::fs::read_dir(dir).unwrap().flatten().any(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.starts_with(".served.db.") && name.ends_with(".partial")
            }),
            Progress::Logged(needle) => lines.try_iter().any(|l| l.contains(needle)),
        };
        if seen {
            return;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the load ended ({status}) before {point:?}: nothing was killed mid-load");
        }
        assert!(Instant::now() < deadline, "{point:?} not seen in 120 s");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn loader_killed_mid_load_at_several_points() {
    let dir = scratch_dir();
    let served = Served::new(&dir);
    let raw = big_raw_file(&dir, 8000);
    let aadf = big_aadf_file(&dir, 100_000);
    let points = [
        Progress::NewFileCreated,
        Progress::Logged("raw_counts: 192000 rows"),
        Progress::Logged("indexes of raw_counts"),
    ];
    for point in points {
        let mut cmd = loader(&served.db, &[&raw, &aadf]);
        let mut child = cmd.env("RUST_LOG", "info").spawn().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in
                std::io::BufRead::lines(std::io::BufReader::new(stderr)).map_while(Result::ok)
            {
                let _ = tx.send(line);
            }
        });
        wait_for(point, &dir, &lines, &mut child);
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        assert_eq!(
            status.signal(),
            Some(libc::SIGKILL),
            "the load must be killed mid-load, after {point:?}; it ended with {status}"
        );
        served.unharmed(&format!("killed after {point:?}"));
    }
    // The next load goes through whatever was left, and the server moves to it.
    assert!(loader(&served.db, &[&raw]).status().unwrap().success());
    let leftovers: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".partial") || n.ends_with(".lock"))
        .collect();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while get(&served.server, "/api/raw-counts").json()["total"] == served.total {
        assert!(Instant::now() < deadline, "new release not picked up");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        get(&served.server, "/api/raw-counts").json()["total"],
        8000 * 24
    );
}

#[test]
fn disk_full_during_a_load() {
    let dir = scratch_dir();
    let served = Served::new(&dir);
    let input = big_raw_file(&dir, 2000);
    let mut cmd = loader(&served.db, &[&input]);
    // A file size limit stands in for a full disk: writes past 512 KiB fail with EFBIG.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 512 * 1024,
                rlim_max: 512 * 1024,
            };
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the load should fail: {stderr}");
    assert!(stderr.contains("nothing was changed"), "{stderr}");
    served.unharmed("a full disk");
    let partials = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".partial"))
        .count();
    assert_eq!(partials, 0, "the temporary file is removed");
    // With room again, the same load succeeds.
    assert!(loader(&served.db, &[&input]).status().unwrap().success());
}

#[test]
fn truncated_files_are_refused() {
    let dir = scratch_dir();
    let served = Served::new(&dir);
    let input = big_raw_file(&dir, 200);
    let text = std::fs::read(&input).unwrap();
    // Cut mid-row, fields missing, as an interrupted download leaves it. (A cut inside the
    // last field of the last row cannot be told from a file without a final newline.)
    let cut = dir.join("cut.csv");
    let mid = text.len() / 2
        + text[text.len() / 2..]
            .windows(2)
            .position(|w| w == b",A")
            .unwrap()
        + 3;
    std::fs::write(&cut, &text[..mid]).unwrap();
    let run = load(&served.db, &["--quiet", "--allow-shrink"], &[&cut]);
    assert!(!run.ok && run.stderr.contains("cut.csv:"), "{}", run.stderr);
    served.unharmed("a truncated CSV");

    let zip_path = dir.join("release.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("raw.csv", opts).unwrap();
    zip.write_all(&text).unwrap();
    zip.finish().unwrap();
    let bytes = std::fs::read(&zip_path).unwrap();
    for keep in [bytes.len() / 3, bytes.len() - 30] {
        let cut_zip = dir.join(format!("cut-{keep}.zip"));
        std::fs::write(&cut_zip, &bytes[..keep]).unwrap();
        let run = load(&served.db, &["--quiet", "--allow-shrink"], &[&cut_zip]);
        assert!(!run.ok && run.stderr.contains("zip"), "{}", run.stderr);
        served.unharmed("a truncated zip");
    }
    assert!(
        load(&served.db, &["--quiet", "--allow-shrink"], &[&zip_path]).ok,
        "the whole zip loads"
    );
}

#[test]
fn server_refuses_a_file_of_another_schema_version() {
    let dir = scratch_dir();
    let db = dir.join("old.db");
    file_of_schema_version(&db, 999);
    let err = refused_to_start(&db);
    assert!(err.contains("schema version 999"), "{err}");
}
