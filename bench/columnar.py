#!/usr/bin/env python3
"""Columnar downloads, measured (issue 24): the Parquet files against the CSV files they come
from, and the server's byte ranges against nginx serving the same file, side by side in one run.

    bench/columnar.py BASE_URL [--nginx URL] [--la ID] [--rounds N] [--json] [--log-requests]

    pip install 'duckdb==1.4.4' 'duckdb-ext-httpfs==1.4.4.20260205'   # the extension, offline

1. Sizes: HEAD Content-Length of `/downloads/dft_traffic_counts_aadf.csv` and
   `dft_traffic_counts_raw_counts.csv` against their `.parquet` (target: Parquet <= 1/4).
2. DuckDB over HTTP: one local authority's motor vehicles by year, read from the raw counts'
   Parquet and from their CSV; best of N (`--rounds`, default 3) wall times, each in a new
   in-memory DuckDB with the HTTP metadata cache off (target: CSV / Parquet >= 5); the bytes
   DuckDB took for the Parquet query, counted by a proxy in this script and by DuckDB's own
   EXPLAIN ANALYZE (target: <= 15% of the file). The CSV's columns are named as its header
   line names them (read with a Range request).
3. Byte ranges: random single ranges (64 KiB and 1 MiB, seeded offsets) of the raw counts'
   Parquet, from the server and from nginx serving a copy of the same file (started here on a
   free port unless `--nginx` names one serving the same paths), wrk (or a threaded Python
   client when wrk is absent) the same for both, alternating (and who goes first), median of
   `--rounds` (target: ours / nginx >= 0.7 in requests/s). wrk, the server and nginx share the
   machine's cores: quote these from a quiet machine. `--nginx BASE_URL` (the server against
   itself) shows the noise: its ratio should be 1.

Prints a Markdown table with the command line, or everything as JSON with `--json`.
"""
import argparse
import glob
import http.client
import http.server
import json
import os
import random
import re
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

AADF = "/downloads/dft_traffic_counts_aadf"
RAW = "/downloads/dft_traffic_counts_raw_counts"
COLUMNS = ("year", "all_motor_vehicles", "local_authority_id")
# Headers that belong to one hop: the proxy must not pass them on (RFC 9110, 7.6.1), and Host
# is the target's, set by http.client.
HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
       "upgrade", "host"}
CHUNK = 1 << 20  # the proxy copies bodies a MiB at a time: no per-byte Python work


# --- HTTP ------------------------------------------------------------------------------------

def connect(url):
    """A connection to the URL's host, and the URL's path (with its query)."""
    u = urllib.parse.urlsplit(url)
    kind = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
    return kind(u.netloc, timeout=60), (u.path or "/") + (f"?{u.query}" if u.query else "")


def request(url, method="GET", headers=None, limit=None):
    """Status, lower-cased headers and at most `limit` bytes of the body (all when None)."""
    conn, path = connect(url)
    try:
        conn.request(method, path, headers=headers or {})
        r = conn.getresponse()
        body = r.read() if limit is None else r.read(limit)
        return r.status, {k.lower(): v for k, v in r.getheaders()}, body
    finally:
        conn.close()  # also drops the rest of a body that ignored the Range


def get_length(url):
    """Bytes of a GET's body: its Content-Length, else the body read through and dropped."""
    conn, path = connect(url)
    conn.request("GET", path)
    r = conn.getresponse()
    if r.status != 200:
        raise SystemExit(f"GET {url}: {r.status}")
    n, buf = 0, memoryview(bytearray(CHUNK))
    if r.length is not None:
        n = r.length
    else:
        while k := r.readinto(buf):
            n += k
    conn.close()
    return n, "GET Content-Length" if r.length is not None else "GET, counted (no Content-Length)"


def size_of(url):
    """The file's bytes and how they were learnt (HEAD Content-Length, else by a GET)."""
    status, headers, _ = request(url, "HEAD")
    if status == 200 and "content-length" in headers:
        return int(headers["content-length"]), "HEAD"
    return get_length(url)


def csv_columns(url):
    """The CSV's own names for the query's columns, from its header line (first 2 KB)."""
    _, _, body = request(url, headers={"Range": "bytes=0-2047"}, limit=2048)
    header = body.split(b"\n", 1)[0].decode("utf-8-sig").strip()
    names = {n.strip('"').lower(): n.strip('"') for n in header.split(",")}
    missing = [c for c in COLUMNS if c not in names]
    if missing:
        raise SystemExit(f"{url}: no column {missing} in its header {header[:200]!r}")
    return {c: names[c] for c in COLUMNS}


# --- the counting proxy ----------------------------------------------------------------------

class ProxyHandler(http.server.BaseHTTPRequestHandler):
    """Forwards GET and HEAD, Range and all, to the target; counts body bytes sent back."""
    protocol_version = "HTTP/1.1"  # keep-alive, as DuckDB expects of a server
    disable_nagle_algorithm = True  # else headers then body wait on delayed ACKs (40 ms)
    upstream = None

    def do_GET(self):
        self.forward()

    def do_HEAD(self):
        self.forward()

    def log_message(self, *args):
        pass  # the server keeps its own log of requests

    def finish(self):
        super().finish()
        if self.upstream is not None:
            self.upstream.close()

    def forward(self):
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        try:
            r = self.ask(headers)
        except OSError as e:
            self.send_error(502, str(e))
            return
        self.send_response_only(r.status, r.reason)
        for k, v in r.getheaders():
            if k.lower() not in HOP:
                self.send_header(k, v)
        if self.command != "HEAD" and r.length is None:
            # The length is unknown (chunked upstream): the end of the body is the close.
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        n = self.copy(r) if self.command != "HEAD" else 0
        self.server.record(self.command, self.path, headers.get("Range"), r, n)

    def ask(self, headers):
        """The target's response, over this client connection's own upstream connection."""
        for attempt in (0, 1):  # once more if the target closed an idle kept-alive connection
            if self.upstream is None:
                self.upstream = connect(self.server.target)[0]
            try:
                self.upstream.request(self.command, self.path, headers=headers)
                return self.upstream.getresponse()
            except (ConnectionError, http.client.HTTPException):
                self.upstream.close()
                self.upstream = None
                if attempt:
                    raise

    def copy(self, r):
        """The body's bytes as the client took them (it may hang up before the end)."""
        buf, n = memoryview(bytearray(CHUNK)), 0
        try:
            while k := r.readinto(buf):
                self.wfile.write(buf[:k])
                n += k
        except ConnectionError:
            self.close_connection = True
            self.upstream.close()  # the rest of the body is still on its way
            self.upstream = None
        return n


class CountingProxy(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, target):
        super().__init__(("127.0.0.1", 0), ProxyHandler)
        self.target, self.lock = target, threading.Lock()
        self.reset()
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def base(self):
        return f"http://127.0.0.1:{self.server_address[1]}"

    def reset(self):
        with self.lock:
            self.bytes, self.log = 0, []

    def record(self, method, path, range_, r, n):
        with self.lock:
            self.bytes += n
            self.log.append({"method": method, "path": path, "range": range_, "status": r.status,
                             "content_range": r.getheader("Content-Range"), "bytes": n})

    def stop(self):
        self.shutdown()
        self.server_close()


# --- DuckDB ----------------------------------------------------------------------------------

def httpfs_file():
    """The httpfs extension installed by pip's duckdb-ext-httpfs, for this DuckDB version."""
    import duckdb
    roots = [os.path.join(p, "duckdb_ext") for p in sys.path if p]
    found = [f for r in roots for f in glob.glob(
        os.path.join(r, "extensions", f"v{duckdb.__version__}", "*", "httpfs.duckdb_extension"))]
    if not found:
        raise SystemExit(f"no httpfs for DuckDB {duckdb.__version__}: pip install "
                         f"'duckdb-ext-httpfs=={duckdb.__version__}.*'")
    return found[0]


def duck(ext):
    """A new in-memory DuckDB: nothing cached from an earlier run (cold, by construction)."""
    import duckdb
    con = duckdb.connect()
    con.execute(f"LOAD '{ext}'")  # by path: this machine cannot download extensions
    con.execute("SET enable_http_metadata_cache = false")
    return con


def query(url, reader, la, names=None):
    n = {c: '"' + (names or {}).get(c, c) + '"' for c in COLUMNS}
    return (f"SELECT {n['year']} AS year, sum({n['all_motor_vehicles']}) AS motor_vehicles "
            f"FROM {reader}('{url}') WHERE {n['local_authority_id']} = {int(la)} "
            f"GROUP BY 1 ORDER BY 1")


def timed(ext, sql):
    con = duck(ext)
    t = time.perf_counter()
    rows = con.execute(sql).fetchall()
    seconds = time.perf_counter() - t
    con.close()
    return seconds, [tuple(int(x) for x in row) for row in rows]


UNITS = {"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


def http_stats(ext, sql):
    """httpfs's "HTTPFS HTTP Stats" from EXPLAIN ANALYZE (bytes rounded to 2 digits by it)."""
    con = duck(ext)
    text = "\n".join(row[1] for row in con.execute("EXPLAIN ANALYZE " + sql).fetchall())
    con.close()
    m = re.search(r"in: ([\d.]+) (\w+)", text)
    if not m:
        return None
    out = {"in_bytes_approx": round(float(m.group(1)) * UNITS.get(m.group(2), 1))}
    for method in ("HEAD", "GET"):
        k = re.search(rf"#{method}: (\d+)", text)
        out[method] = int(k.group(1)) if k else None
    return out


def via_proxy(ext, proxy, sql_for):
    """One run with DuckDB pointed at the counting proxy: bytes on the wire, requests made."""
    proxy.reset()
    timed(ext, sql_for(proxy.base))
    return {"bytes": proxy.bytes, "requests": list(proxy.log)}


def alternate(ext, rounds, sqls):
    """Wall times of each query, alternating (both see the same machine), and the answers."""
    times, answers = {k: [] for k in sqls}, {}
    for _ in range(rounds):
        for kind, sql in sqls.items():
            seconds, answers[kind] = timed(ext, sql)
            times[kind].append(seconds)
    return times, answers


def on_the_wire(ext, origin, queries):
    """Bytes and requests of one run of each query through the counting proxy."""
    proxy = CountingProxy(origin)
    try:
        return {kind: via_proxy(ext, proxy, q) for kind, q in queries.items()}
    finally:
        proxy.stop()


def duckdb_figures(args, base, raw_parquet_bytes):
    import duckdb
    ext, origin = httpfs_file(), origin_of(base)
    prefix = urllib.parse.urlsplit(base).path.rstrip("/")
    names = csv_columns(base + RAW + ".csv")
    queries = {  # by the origin they are asked of: the server, or the proxy in front of it
        "parquet": lambda o: query(o + prefix + RAW + ".parquet", "read_parquet", args.la),
        "csv": lambda o: query(o + prefix + RAW + ".csv", "read_csv", args.la, names)}
    times, answers = alternate(ext, args.rounds, {k: q(origin) for k, q in queries.items()})
    if args.skip_csv_bytes:
        del queries["csv"]
    wire = on_the_wire(ext, origin, queries)
    return {
        "duckdb": duckdb.__version__, "httpfs": ext, "csv_columns": names,
        "local_authority_id": args.la, "rows": len(answers["parquet"]),
        "same_answer": answers["parquet"] == answers["csv"],
        "seconds": times, "best": {k: min(v) for k, v in times.items()},
        "ratio": min(times["csv"]) / min(times["parquet"]),
        "wire": wire, "parquet_fraction": wire["parquet"]["bytes"] / raw_parquet_bytes,
        "explain_analyze": http_stats(ext, queries["parquet"](origin)),
    }


# --- byte ranges -----------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# nginx as it serves static files at its best here: sendfile, no request limit per connection
# (its default of 1,000 costs reconnections), and no tcp_nopush (Debian's default config has it
# on: over loopback, whose MTU is 64 KiB, a 64 KiB range then waits ~40 ms on a delayed ACK).
# It logs each request to a file, as our server logs each one (`RUST_LOG` info, its default)
# and as bench/serve.sh's nginx does.
NGINX_CONF = """daemon off;
worker_processes auto;
pid {dir}/nginx.pid;
error_log {dir}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log {dir}/access.log;
    sendfile on;
    keepalive_requests 1000000;
    types {{ application/vnd.apache.parquet parquet; text/csv csv; }}
    default_type application/octet-stream;
    client_body_temp_path {dir}/tmp;
    proxy_temp_path {dir}/tmp;
    fastcgi_temp_path {dir}/tmp;
    uwsgi_temp_path {dir}/tmp;
    scgi_temp_path {dir}/tmp;
    server {{ listen 127.0.0.1:{port}; root {dir}/root; }}
}}
"""


def start_nginx(base, path):
    """nginx on a free port serving a copy of the server's file at the same path."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    work = tempfile.mkdtemp(prefix="columnar-nginx-")
    os.chmod(work, 0o755)  # nginx's workers may run as another user
    dest = os.path.join(work, "root", path.lstrip("/"))
    os.makedirs(os.path.dirname(dest))
    os.makedirs(os.path.join(work, "tmp"))
    download(base + path, dest)
    port = free_port()
    with open(os.path.join(work, "nginx.conf"), "w") as f:
        f.write(NGINX_CONF.format(dir=work, port=port))
    proc = subprocess.Popen([nginx, "-c", f"{work}/nginx.conf", "-p", work],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    wait_for(url + path, proc)
    return proc, work, url


def download(url, dest):
    conn, path = connect(url)
    conn.request("GET", path)
    r = conn.getresponse()
    if r.status != 200:
        raise SystemExit(f"GET {url}: {r.status}")
    with open(dest, "wb") as f:
        shutil.copyfileobj(r, f, CHUNK)
    conn.close()


def wait_for(url, proc):
    for _ in range(200):
        if proc.poll() is not None:
            raise SystemExit("nginx exited at start")
        try:
            request(url, "HEAD")
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("nginx did not start")


def offsets(size, length, count, seed):
    rng = random.Random(f"{seed}:{length}")  # the same offsets for both servers, every run
    return [rng.randrange(0, size - length + 1) for _ in range(count)]


def check_ranges(urls, size, length, offs):
    """Every server answers a few of the ranges 206, with the same bytes and Content-Range."""
    for o in offs[:8] + [size - length]:
        want = f"bytes {o}-{o + length - 1}/{size}"
        bodies = set()
        for url in urls:
            status, headers, body = request(url, headers={"Range": f"bytes={o}-{o + length - 1}"},
                                            limit=length + 1)
            if status != 206 or headers.get("content-range") != want or len(body) != length:
                raise SystemExit(f"{url} Range {o}: {status} {headers.get('content-range')}, "
                                 f"{len(body)} bytes (want 206 {want})")
            bodies.add(body)
        if len(bodies) != 1:
            raise SystemExit(f"the servers' bytes differ at {o}")


WRK_LUA = """-- written by bench/columnar.py: one random single range a request, from a seeded list
local path, len = %s, %d
local offsets = {%s}
local n = 0
local threads = 0
function setup(thread)
  thread:set("first", threads * 1009)  -- threads start at different places in the list
  threads = threads + 1
end
function request()
  local o = offsets[(first + n) %% #offsets + 1]
  n = n + 1
  return wrk.format("GET", path, {Range = "bytes=" .. o .. "-" .. (o + len - 1)})
end
function done(s, latency, requests)
  io.write(string.format('WRKJSON {"requests": %%d, "bytes": %%d, "seconds": %%f, ' ..
    '"bad_status": %%d, "socket_errors": %%d, "p50_ms": %%f, "p99_ms": %%f}\\n',
    s.requests, s.bytes, s.duration / 1e6, s.errors.status,
    s.errors.connect + s.errors.read + s.errors.write + s.errors.timeout,
    latency:percentile(50) / 1e3, latency:percentile(99) / 1e3))
end
"""


def wrk_run(args, url, length, offs):
    u = urllib.parse.urlsplit(url)
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(WRK_LUA % (json.dumps(u.path), length, ",".join(map(str, offs))))
    try:
        out = subprocess.run(
            ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{args.duration}s",
             "--timeout", "30s", "-s", f.name, f"{u.scheme}://{u.netloc}"],
            capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(f.name)
    line = next(x for x in out.splitlines() if x.startswith("WRKJSON "))
    return json.loads(line[len("WRKJSON "):])


def py_client(url, length, offs, first, stop, out):
    conn, path = connect(url)
    i = first
    while time.perf_counter() < stop:
        o = offs[i % len(offs)]
        t = time.perf_counter()
        conn.request("GET", path, headers={"Range": f"bytes={o}-{o + length - 1}"})
        r = conn.getresponse()
        body = r.read()
        out.append((r.status == 206 and len(body) == length, len(body), time.perf_counter() - t))
        i += 1
    conn.close()


def py_run(args, url, length, offs):
    """wrk's figures from Python threads, one kept-alive connection each (when no wrk)."""
    out, start = [], time.perf_counter()
    stop = start + args.duration
    threads = [threading.Thread(target=py_client, args=(url, length, offs, k * 1009, stop, out))
               for k in range(args.connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - start
    lat = sorted(x[2] for x in out)
    return {"requests": len(out), "bytes": sum(x[1] for x in out), "seconds": seconds,
            "bad_status": sum(not x[0] for x in out), "socket_errors": 0,
            "p50_ms": lat[len(lat) // 2] * 1e3, "p99_ms": lat[int(len(lat) * 0.99)] * 1e3}


def load(args, url, length, offs):
    run = wrk_run if args.client == "wrk" else py_run
    r = run(args, url, length, offs)
    r["rps"] = r["requests"] / r["seconds"]
    r["mb_s"] = r["requests"] * length / r["seconds"] / 1e6  # range bodies only
    # A server that ignores Range sends whole files: the bytes a request would show it.
    r["bytes_per_request"] = r["bytes"] / max(r["requests"], 1)
    r["sound"] = (r["bad_status"] == 0 and r["socket_errors"] == 0
                  and length <= r["bytes_per_request"] < length + 4096)
    return r


def range_figures(args, base, size):
    """Per range length, alternating rounds on the server and nginx: median requests/s."""
    path = urllib.parse.urlsplit(base).path.rstrip("/") + RAW + ".parquet"
    proc = work = None
    try:
        if args.nginx:
            nginx = args.nginx.rstrip("/")
        else:
            proc, work, nginx = start_nginx(origin_of(base), path)
        if size_of(nginx + path)[0] != size:
            raise SystemExit(f"{nginx}{path} is not the server's file (size differs)")
        return {"nginx": nginx, "started_nginx": proc is not None, "client": args.client,
                "lengths": [one_length(args, origin_of(base) + path, nginx + path, size, n)
                            for n in args.ranges]}
    finally:
        if proc:
            proc.terminate()
            proc.wait()
        if work:
            shutil.rmtree(work, ignore_errors=True)


def origin_of(url):
    u = urllib.parse.urlsplit(url)
    return f"{u.scheme}://{u.netloc}"


def one_length(args, ours, nginx, size, length):
    offs = offsets(size, length, args.offsets, args.seed)
    check_ranges([ours, nginx], size, length, offs)
    runs, order = {"ours": [], "nginx": []}, [("ours", ours), ("nginx", nginx)]
    for i in range(args.rounds):
        # Who goes first alternates too (ABBA...): a machine that drifts favours neither.
        for name, url in order if i % 2 == 0 else order[::-1]:
            runs[name].append(load(args, url, length, offs))
    med = {k: statistics.median(r["rps"] for r in v) for k, v in runs.items()}
    pick = {k: min(v, key=lambda r: abs(r["rps"] - med[k])) for k, v in runs.items()}
    sound = all(r["sound"] for v in runs.values() for r in v)
    return {"length": length, "runs": runs, "median": pick, "ratio": med["ours"] / med["nginx"],
            "sound": sound}


# --- sizes and the Parquet file's HTTP -------------------------------------------------------

def size_figures(base):
    out = {}
    for name, stem in (("aadf", AADF), ("raw_counts", RAW)):
        row = {}
        for kind in ("csv", "parquet"):
            n, how = size_of(base + stem + "." + kind)
            row[kind] = {"bytes": n, "how": how}
        row["ratio"] = row["parquet"]["bytes"] / row["csv"]["bytes"]
        out[name] = row
    return out


def http_features(url, size):
    """What DuckDB relies on (HEAD's headers, exact ranges) and what other clients ask."""
    _, head, _ = request(url, "HEAD")
    keep = ("content-length", "accept-ranges", "etag", "last-modified", "content-type")
    out = {"head": {k: head.get(k) for k in keep}}
    asks = {"suffix bytes=-4": "bytes=-4", f"open bytes={size - 4}-": f"bytes={size - 4}-",
            f"past the end bytes={size}-": f"bytes={size}-"}
    for label, value in asks.items():
        status, headers, body = request(url, headers={"Range": value}, limit=16)
        out[label] = f"{status} {headers.get('content-range', '')} {body[:8]!r}".strip()
    return out


# --- the report ------------------------------------------------------------------------------

def verdict(ok):
    return "yes" if ok else "**no**"


def mb(n):
    return f"{n / 1e6:,.1f} MB" if n >= 1e6 else f"{n / 1e3:,.1f} kB"


def size_rows(sizes):
    for name, row in sizes.items():
        c, p = row["csv"], row["parquet"]
        yield (f"| size, {name} | {mb(c['bytes'])} | {mb(p['bytes'])} | Parquet/CSV "
               f"{row['ratio']:.3f} | <= 0.25 | {verdict(row['ratio'] <= 0.25)} |")


def duck_rows(d, size):
    b, w = d["best"], d["wire"]
    csv_wire = mb(w["csv"]["bytes"]) if "csv" in w else "not measured"
    ea = d["explain_analyze"] or {}
    yield (f"| DuckDB query, best of {len(d['seconds']['csv'])} | {b['csv']:.3f} s | "
           f"{b['parquet']:.3f} s | CSV/Parquet {d['ratio']:.1f}x | >= 5x | {verdict(d['ratio'] >= 5)} |")
    yield (f"| bytes DuckDB took (proxy) | {csv_wire} | {mb(w['parquet']['bytes'])} "
           f"({len(w['parquet']['requests'])} requests) | {d['parquet_fraction']:.1%} of "
           f"{mb(size)} | <= 15% | {verdict(d['parquet_fraction'] <= 0.15)} |")
    yield (f"| EXPLAIN ANALYZE HTTP stats | | in ~{mb(ea.get('in_bytes_approx', 0))}, "
           f"{ea.get('HEAD')} HEAD, {ea.get('GET')} GET | | | |")


def range_rows(r):
    for x in r["lengths"]:
        o, n = x["median"]["ours"], x["median"]["nginx"]
        yield (f"| {x['length'] // 1024} KiB | {o['rps']:,.0f} | {o['mb_s']:,.0f} | "
               f"{o['p50_ms']:.2f} / {o['p99_ms']:.2f} | {n['rps']:,.0f} | {n['mb_s']:,.0f} | "
               f"{n['p50_ms']:.2f} / {n['p99_ms']:.2f} | {x['ratio']:.2f} | "
               f"{verdict(x['ratio'] >= 0.7 and x['sound'])} |")
        if not x["sound"]:
            yield (f"| ^ some answers were not a 206 of exactly {x['length']} bytes, or a socket "
                   f"failed: see --json |" + " |" * 8)


def markdown(res):
    d, r = res.get("duckdb"), res.get("ranges")
    out = [f"`{res['command']}`", "",
           f"Run at {res['at']}, load average {res['loadavg']}; DuckDB {d['duckdb'] if d else '-'}; "
           f"ranges by {r['client'] if r else '-'}.", "",
           "| | CSV | Parquet | measure | target | met |", "|---|---|---|---|---|---|"]
    out += list(size_rows(res["sizes"]))
    out += [f"| ^ {n} {k} sized by {row[k]['how']} | |" + " |" * 4
            for n, row in res["sizes"].items() for k in ("csv", "parquet") if row[k]["how"] != "HEAD"]
    if d:
        out += list(duck_rows(d, res["sizes"]["raw_counts"]["parquet"]["bytes"]))
        none = " (**none**: choose another `--la`)" if not d["rows"] else ""
        out += ["", f"Local authority {d['local_authority_id']}: {d['rows']} years{none}, the same "
                f"answer from both files: {verdict(d['same_answer'])}. CSV columns as named in "
                f"its header: {', '.join(d['csv_columns'].values())}."]
    if r:
        out += ["", f"Random single ranges of the raw counts' Parquet (median of "
                f"{len(r['lengths'][0]['runs']['ours'])} alternating rounds; nginx at {r['nginx']}):", "",
                "| range | ours req/s | ours MB/s | ours p50 / p99 ms | nginx req/s | nginx MB/s "
                "| nginx p50 / p99 ms | ours/nginx | >= 0.7 |", "|---|---|---|---|---|---|---|---|---|"]
        out += list(range_rows(r))
    out += ["", "The Parquet file's HTTP: " + json.dumps(res["http"])]
    return "\n".join(out)


def request_log(d):
    lines = [f"{x['method']} {x['path']} Range: {x['range']} -> {x['status']} "
             f"{x['content_range'] or ''} {x['bytes']} B" for x in d["wire"]["parquet"]["requests"]]
    return "\n".join(["", "DuckDB's requests for the Parquet query:", "```"] + lines + ["```"])


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("base", help="the server's base URL, e.g. http://127.0.0.1:18080")
    p.add_argument("--nginx", help="nginx serving the same file at the same path (else started here)")
    p.add_argument("--la", type=int, default=42, help="local_authority_id of the query (42)")
    p.add_argument("--rounds", type=int, default=3, help="DuckDB: best of N; ranges: median of N (3)")
    p.add_argument("--ranges", type=lambda s: [int(x) for x in s.split(",")],
                   default=[64 << 10, 1 << 20], help="range lengths in bytes (65536,1048576)")
    p.add_argument("--duration", type=int, default=10, help="seconds of each ranges run (10)")
    p.add_argument("--connections", type=int, default=16, help="client connections (16)")
    p.add_argument("--threads", type=int, default=2, help="wrk threads (2)")
    p.add_argument("--offsets", type=int, default=4096, help="seeded offsets per length (4096)")
    p.add_argument("--seed", type=int, default=24)
    p.add_argument("--client", choices=("wrk", "python"),
                   default="wrk" if shutil.which("wrk") else "python")
    p.add_argument("--skip", action="append", default=[], choices=("duckdb", "ranges"),
                   help="leave a part out (repeatable)")
    p.add_argument("--skip-csv-bytes", action="store_true",
                   help="do not read the CSV once more through the proxy to count its bytes")
    p.add_argument("--log-requests", action="store_true",
                   help="print the requests DuckDB made for the Parquet query")
    p.add_argument("--json", action="store_true", help="print everything as JSON instead")
    return p.parse_args()


def main():
    args = parse_args()
    base = args.base.rstrip("/")
    res = {"command": shlex.join(["bench/columnar.py"] + sys.argv[1:]),
           "at": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
           "loadavg": " ".join(f"{x:.2f}" for x in os.getloadavg()),
           "sizes": size_figures(base)}
    size = res["sizes"]["raw_counts"]["parquet"]["bytes"]
    res["http"] = http_features(base + RAW + ".parquet", size)
    if "duckdb" not in args.skip:
        res["duckdb"] = duckdb_figures(args, base, size)
    if "ranges" not in args.skip:
        res["ranges"] = range_figures(args, base, size)
    if args.json:
        print(json.dumps(res, indent=1))
        return
    print(markdown(res))
    if args.log_requests and "duckdb" in res:
        print(request_log(res["duckdb"]))


if __name__ == "__main__":
    main()
