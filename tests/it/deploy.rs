//! What `deploy/` ships, checked with the tools that will run it: the systemd units by
//! `systemd-analyze`, the nginx site by Debian's nginx in front of real replicas (one killed
//! and restarted, a release rolled out by `deploy/rollout.sh`, no request lost).

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::program::Program;
use crate::support::*;

const UNITS: [&str; 3] = [
    "roadtraffic-serve.service",
    "roadtraffic-load.service",
    "roadtraffic-load.path",
];

fn run(command: &mut Command) -> Output {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{command:?}: {}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The lines `Key=value` of a unit file, comments left out.
fn directives(unit: &str) -> Vec<String> {
    std::fs::read_to_string(repo_path("deploy/systemd").join(unit))
        .unwrap()
        .lines()
        .filter(|l| l.contains('=') && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// `systemd-analyze verify` checks every directive, and that the programs named exist: the
/// units are checked with `/usr/local/bin` (where `cargo install --root /usr/local` puts them)
/// pointed at the programs just built.
#[test]
fn the_systemd_units_pass_systemd_analyze_and_are_hardened() {
    let Some(analyze) = required_tool("systemd-analyze", "systemd") else {
        return;
    };
    let dir = scratch_dir();
    let built = Path::new(env!("CARGO_BIN_EXE_roadtraffic-serve"))
        .parent()
        .unwrap();
    for unit in UNITS {
        let text = std::fs::read_to_string(repo_path("deploy/systemd").join(unit)).unwrap();
        let text = text.replace("/usr/local/bin/", &format!("{}/", built.display()));
        std::fs::write(dir.join(unit), text).unwrap();
    }
    let paths: Vec<PathBuf> = UNITS.iter().map(|u| dir.join(u)).collect();
    let out = run(Command::new(&analyze)
        .args(["verify", "--man=no"])
        .args(&paths));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // systemd's own score of the sandbox, 0 (locked down) to 10 (none): 2 at most.
    for service in &paths[..2] {
        run(Command::new(&analyze)
            .args(["security", "--offline=yes", "--threshold=20"])
            .arg(service));
    }
    let (serve, load) = (
        directives("roadtraffic-serve.service"),
        directives("roadtraffic-load.service"),
    );
    for unit in [&serve, &load] {
        for wanted in [
            "User=roadtraffic",
            "ProtectSystem=strict",
            "NoNewPrivileges=yes",
            "Environment=ROADTRAFFIC_DB=/var/lib/roadtraffic/roadtraffic.db",
        ] {
            assert!(unit.iter().any(|l| l == wanted), "{wanted} missing");
        }
        assert!(unit.iter().any(|l| l.starts_with("MemoryMax=")));
    }
    // The data directory: written by the loader only.
    assert!(!serve.iter().any(|l| l.starts_with("ReadWritePaths=")));
    assert!(load.contains(&"ReadWritePaths=/var/lib/roadtraffic".to_string()));
    assert!(load.contains(&"Type=oneshot".to_string()));
    assert!(directives("roadtraffic-load.path").contains(&"Unit=roadtraffic-load.service".into()));
}

/// Debian's nginx, with the shipped site file in a configuration of its own (no root, no
/// system paths); stopped with the test.
struct Nginx {
    child: Child,
    addr: SocketAddr,
}

impl Nginx {
    fn start(nginx: &Path, dir: &Path, addr: SocketAddr, replicas: &[SocketAddr]) -> Nginx {
        let site = std::fs::read_to_string(repo_path("deploy/nginx/roadtraffic.conf")).unwrap();
        let servers: String = replicas
            .iter()
            .map(|r| format!("    server {r} max_fails=3 fail_timeout=10s;\n"))
            .collect();
        let site: String = site
            .lines()
            .filter(|l| !l.starts_with("    server 127.0.0.1:808"))
            .map(|l| match l {
                "    least_conn;" => format!("{l}\n{servers}"),
                "    listen 80;" => format!("    listen {addr};\n"),
                _ => format!("{l}\n"),
            })
            .collect();
        assert!(site.contains(&servers) && site.contains(&format!("listen {addr};")));
        let d = dir.display();
        std::fs::write(dir.join("site.conf"), site).unwrap();
        std::fs::write(
            dir.join("nginx.conf"),
            format!(
                "daemon off;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
                 events {{ worker_connections 256; }}\nhttp {{\n    access_log off;\n    \
                 client_body_temp_path {d}/body;\n    proxy_temp_path {d}/proxy;\n    \
                 include {d}/site.conf;\n}}\n"
            ),
        )
        .unwrap();
        let user = String::from_utf8(run(Command::new("id").arg("-un")).stdout).unwrap();
        let args = |test: bool| {
            let mut command = Command::new(nginx);
            command
                .arg("-p")
                .arg(dir)
                .arg("-c")
                .arg(dir.join("nginx.conf"))
                .args(["-g", &format!("user {};", user.trim())]);
            if test {
                command.arg("-t");
            }
            command
        };
        run(&mut args(true));
        let child = args(false).stderr(Stdio::null()).spawn().unwrap();
        let nginx = Nginx { child, addr };
        let started = Instant::now();
        while std::net::TcpStream::connect(addr).is_err() {
            assert!(started.elapsed() < Duration::from_secs(10), "nginx answers");
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(get(&nginx.server(), "/api/regions").status, 200);
        nginx
    }

    fn server(&self) -> TestServer {
        TestServer { addr: self.addr }
    }
}

impl Drop for Nginx {
    /// SIGTERM: the master stops its workers before it exits (SIGKILL would leave them).
    fn drop(&mut self) {
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

/// A page whose rows, `from`, `to` and `last_page` are what its number, size and total say.
fn consistent(page: &serde_json::Value) -> bool {
    let n = |k: &str| page[k].as_u64();
    let (Some(number), Some(size), Some(total), Some(last)) =
        (n("current_page"), n("per_page"), n("total"), n("last_page"))
    else {
        return false;
    };
    let rows = page["data"].as_array().map_or(0, Vec::len) as u64;
    let expected = size.min(total.saturating_sub((number - 1) * size));
    rows == expected
        && last == total.div_ceil(size).max(1)
        && (rows == 0
            || (n("from") == Some((number - 1) * size + 1)
                && n("to") == Some((number - 1) * size + rows)))
}

/// Requests through the balancer until told to stop: how many, and what went wrong.
/// Requests through the balancer until `stop`, each counted in `answered`: those that failed.
fn client(balancer: TestServer, stop: Arc<AtomicBool>, answered: Arc<AtomicUsize>) -> Vec<String> {
    let (mut done, mut failed) = (0, Vec::new());
    while !stop.load(Ordering::Relaxed) {
        let target = format!(
            "/api/raw-counts?page%5Bsize%5D=7&page%5Bnumber%5D={}",
            1 + done % 40
        );
        let reply = get(&balancer, &target);
        done += 1;
        if reply.status != 200 || !consistent(&reply.json()) {
            failed.push(format!("{target}: {} {}", reply.status, reply.text()));
        }
        answered.fetch_add(1, Ordering::Relaxed);
    }
    failed
}

fn release_of(replica: SocketAddr) -> String {
    let ready = get(&TestServer { addr: replica }, "/readyz").json();
    ready["release"].as_str().unwrap_or_default().to_string()
}

#[test]
fn replicas_behind_the_shipped_nginx_site_lose_no_request_to_a_kill_or_a_rollout() {
    let (Some(nginx), Some(_)) = (
        required_tool("nginx", "nginx"),
        required_tool("sqlite3", "sqlite3"),
    ) else {
        return;
    };
    let dir = scratch_dir();
    let new = dir.join("new.db");
    load_ok(
        &new,
        &["--quiet", "--release", "rolled-out"],
        &[&repo_path("data/sample")],
    );
    // A free port for nginx (nothing else binds ports here meanwhile).
    let balancer_addr = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let public_url = format!("http://balancer.example:{}", balancer_addr.port());
    let options = ["--public-url", &public_url, "--watch-interval", "100"];
    let files: Vec<PathBuf> = (1..=2).map(|r| dir.join(format!("r{r}.db"))).collect();
    let mut replicas: Vec<Program> = files
        .iter()
        .map(|file| {
            std::fs::copy(sample_db(), file).unwrap();
            Program::start(file, &options)
        })
        .collect();
    let addrs: Vec<SocketAddr> = replicas.iter().map(|r| r.addr).collect();
    let balancer = Nginx::start(&nginx, &dir, balancer_addr, &addrs);

    // The envelope's URLs name the balancer, not the replica that answered.
    let page = get(&balancer.server(), "/api/raw-counts?page%5Bsize%5D=5").json();
    let next = page["next_page_url"].as_str().unwrap();
    assert!(
        next.starts_with(&format!("{public_url}/api/raw-counts?")),
        "{next}"
    );

    // Each step waits for the clients to have made requests through it, not for a time that a
    // busy machine may not fill.
    let stop = Arc::new(AtomicBool::new(false));
    let answered = Arc::new(AtomicUsize::new(0));
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let (balancer, stop) = (balancer.server(), stop.clone());
            let answered = answered.clone();
            std::thread::spawn(move || client(balancer, stop, answered))
        })
        .collect();
    let answers_past = |n: usize| {
        let from = answered.load(Ordering::Relaxed);
        wait_for(&format!("{n} answers more than {from}"), || {
            answered.load(Ordering::Relaxed) >= from + n
        });
    };
    answers_past(25);
    replicas[0].signal(libc::SIGKILL);
    answers_past(50);
    replicas[0] = Program::start_at(&files[0], &addrs[0].to_string(), &options);
    let rollout: Vec<String> = addrs
        .iter()
        .zip(&files)
        .map(|(addr, file)| format!("http://{addr}={}", file.display()))
        .collect();
    run(Command::new(repo_path("deploy/rollout.sh"))
        .arg(&new)
        .args(&rollout));
    answers_past(25);
    stop.store(true, Ordering::Relaxed);
    let mut failed = Vec::new();
    for client in clients {
        failed.extend(client.join().unwrap());
    }
    let done = answered.load(Ordering::Relaxed);
    assert!(
        failed.is_empty(),
        "{} of {done} failed: {failed:#?}",
        failed.len()
    );
    for addr in addrs {
        assert_eq!(release_of(addr), "rolled-out");
    }
}
