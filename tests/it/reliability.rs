//! Loads that cannot lose data: the loader killed at several points, a full disk, truncated
//! files. Each time the served file stays byte-identical and served, and the next load works.

use std::fmt::Write as _;
use std::io::Write as _;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
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

#[test]
fn loader_killed_at_several_points() {
    let dir = scratch_dir();
    let served = Served::new(&dir);
    let input = big_raw_file(&dir, 8000);
    // How long a whole load takes here, to kill it at fractions of that.
    let started = Instant::now();
    let probe = dir.join("probe.db");
    assert!(loader(&probe, &[&input]).status().unwrap().success());
    let full = started.elapsed();
    for fraction in [0.02, 0.1, 0.3, 0.5, 0.7] {
        let mut child = loader(&served.db, &[&input]).spawn().unwrap();
        std::thread::sleep(full.mul_f64(fraction));
        if child.try_wait().unwrap().is_some() {
            // Finished before the kill (this machine was quicker than the probe): the file was
            // replaced by a complete one, which proves nothing here. Kill sooner next time.
            let _ = std::fs::write(&served.db, &served.bytes);
            continue;
        }
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        served.unharmed(&format!("killed at {:.0}% of a load", fraction * 100.0));
    }
    // The next load goes through whatever was left, and the server moves to it.
    assert!(loader(&served.db, &[&input]).status().unwrap().success());
    assert!(!dir.join("served.db.partial").exists());
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
    assert!(
        !dir.join("served.db.partial").exists(),
        "the temporary file is removed"
    );
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
    assert!(!dir.join("served.db.partial").exists());
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
