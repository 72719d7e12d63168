#!/usr/bin/env python3
"""Do two builds of the mirror answer the same bytes? Loads DATA with each build's loader,
serves each file with that build's server, and compares the bodies (and statuses) of requests
made from the new server's OpenAPI description: every endpoint and alias plain, paged, past
its last page, sorted both ways by each sort key, filtered by values taken from its own rows,
with sparse fields, and a few malformed requests. Then everything beyond the listings' JSON,
statuses, headers and bodies: the site's pages (from its own links), assets and map data, the
docs, the description, the downloads page and files (SAME_FILES of them, 40 by default), the
operator's paths, redirects, 404s (for a browser too), every wrong method and preflight; and
last, the metric labels those requests were counted under. The served file's tag and load time
(in page bodies) and the Date and ETag headers differ by file, not by build: they are left out.

    bench/same_bytes.py OLD_BIN_DIR NEW_BIN_DIR DATA

Each BIN_DIR holds roadtraffic-load and roadtraffic-serve (for example target/release, or a
folder of binaries kept from an older commit). DATA may be several paths, joined by ':'.
Env: LOAD_ARGS (extra loader options for both, e.g. "--keep-first"), NEW_LOAD_ARGS (for the new
build only, e.g. "--rendered-records": the same build twice then compares two kinds of file).
Its files go to a temporary folder under OUT_DIR, else BENCH_DATA, else target/bench-data.
Exits 1 and lists the first differences if any.
"""
import os
import json
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def start(bins, data, work, port, extra=""):
    db = work / f"{port}.db"
    args = os.environ.get("LOAD_ARGS", "").split() + extra.split()
    subprocess.run([bins / "roadtraffic-load", "--db", db, "--quiet", *args, *data], check=True)
    server = subprocess.Popen(
        [bins / "roadtraffic-serve", "--db", db, "--bind", f"127.0.0.1:{port}",
         "--public-url", "http://mirror.test"],
        stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            fetch(f"http://127.0.0.1:{port}/api/regions")
            return server
        except OSError:
            time.sleep(0.05)
    sys.exit(f"no server on {port}")


def targets(base):
    """Requests worth comparing, from the description of the new server."""
    spec = json.loads(fetch(f"{base}/api/openapi.json")[1])
    for path, item in spec["paths"].items():
        if path.endswith((".csv", ".ndjson", "openapi.json")) or "{" in path:
            continue
        params = {p["name"]: p for p in item["get"].get("parameters", [])}
        yield path
        yield path + "?page%5Bsize%5D=7&page%5Bnumber%5D=3"
        yield path + "?page%5Bnumber%5D=99999999"
        yield path + "?page%5Bsize%5D=0"
        sort = params.get("sort", {}).get("schema", {}).get("items", {}).get("enum", [])
        for key in [k for k in sort if k][:12]:
            yield f"{path}?sort={urllib.parse.quote(key)}&page%5Bsize%5D=5"
        fields = [f for f in params.get("fields", {}).get("schema", {}).get("items", {}).get("enum", []) if f]
        if fields:
            yield f"{path}?fields={','.join(fields[-3:])}&page%5Bsize%5D=4"
        first = json.loads(fetch(f"{base}/api{path}?page%5Bsize%5D=3")[1] or b"{}")
        rows = first.get("data", first) if isinstance(first, (dict, list)) else []
        for name in [n[len("filter["):-1] for n in params if n.startswith("filter[")]:
            for row in rows[:2] if isinstance(rows, list) else []:
                value = row.get(name) if isinstance(row, dict) else None
                if value is not None:
                    v = urllib.parse.quote(str(value))
                    yield f"{path}?filter%5B{name}%5D={v}&page%5Bsize%5D=6"
                    yield f"{path}?{name}={v},{v}&sort=-{name}"
        yield path + "?filter%5Bnope%5D=1&page%5Bsize%5D=abc"


# Headers that differ between two servers of the same data for no reason of theirs: the time,
# and the ETag, which carries the served file's identity (each server loads its own file).
VARYING = {"date", "etag"}


def request(url, method="GET", headers=None):
    """Status, the headers (but VARYING, in order), and the body of a request."""
    req = urllib.request.Request(url, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            status, head, body = r.status, r.getheaders(), r.read()
    except urllib.error.HTTPError as e:
        status, head, body = e.code, e.headers.items(), e.read()
    # The map's point file is named after the served file's tag, which differs by file.
    body = re.sub(rb"points-[0-9a-f]{16}\.bin", b"points-TAG.bin", body)
    # The about page says when the file was loaded: each server's file was loaded apart.
    body = re.sub(rb"<dt>Loaded at</dt><dd>[^<]*</dd>", b"<dt>Loaded at</dt><dd>T</dd>", body)
    kept = [(k.lower(), v) for k, v in head if k.lower() not in VARYING]
    etag = [v.startswith("W/") for k, v in head if k.lower() == "etag"]
    return status, sorted(kept), etag, body


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


urllib.request.install_opener(urllib.request.build_opener(NoRedirect))


def links(body, prefix):
    """The distinct href values of a page that start with prefix."""
    text = body.decode("utf-8", "replace")
    return sorted({h for h in re.findall(r'href="([^"]+)"', text) if h.startswith(prefix)})


def beyond_api(base):
    """Everything but the listings' JSON, as (method, path, headers): the site's pages, the docs,
    the description, the downloads, the operator's paths, redirects, 404s, wrong methods and
    preflights, each path once (HEAD and OPTIONS too)."""
    home = request(f"{base}/")[3]
    regions = request(f"{base}/regions")[3]
    las = request(f"{base}/local-authorities")[3]
    downloads = request(f"{base}/downloads")[3]
    pages = ["/", "/regions", "/regions/", "/local-authorities", "/about", "/about/", "/docs",
             "/docs/", "/downloads", "/downloads/"]
    pages += links(regions, "/regions/")[:6] + links(las, "/local-authorities/")[:6]
    pages += links(home, "/assets/") + links(home, "/manualcountpoints/")[:4]
    for la in links(las, "/local-authorities/")[:3]:
        pages += links(request(base + la)[3], "/manualcountpoints/")[:3]
    files = [f for f in links(downloads, "/downloads/") if not f.endswith(".zip")]
    pages += files[:int(os.environ.get("SAME_FILES", "40"))]
    odd = ["/regions/abc", "/regions/99999999", "/regions/1/2", "/manualcountpoints/-1", "//",
           "/assets/nope.css", "/assets", "/nope", "/nope/", "/healthz/", "/docs/index.html",
           "/api-documentation", "/api", "/api/", "/api/openapi.json", "/api/nope",
           "/api/releases/latest/changes", "/api/releases/latest/changes//",
           "/api/count-points/", "/api/count-points.csv?filter[year]=2019", "/api/regions.ndjson",
           "/downloads/nope.csv", "/downloads/../x", "/api%2Fregions", "/apix", "/legacy/api/regions"]
    for path in pages + odd + ["POINTS"]:
        yield "GET", path, {}
    yield "GET", "POINTS", {"Accept-Encoding": "gzip"}
    for path in ["/nope", "/regions/abc", "/api/nope"]:
        yield "GET", path, {"Accept": "text/html,application/xhtml+xml"}
    for path in ["/", "/regions", "/api/regions", "/api/count-points.csv", "/docs", "/downloads",
                 "/healthz", "/readyz", "/api/openapi.json", "/assets/nope.css", "/nope", "/api",
                 "/api/nope", "/docs/index.html", "/api/releases/latest/changes"] + files[:2]:
        for method in ["HEAD", "POST", "DELETE", "OPTIONS"]:
            yield method, path, {}
    yield "GET", "/readyz", {}
    yield "GET", "/healthz", {}


def compare_beyond_api(old, new):
    """The answers beyond the listings' JSON, then the metric labels they were counted under."""
    same, differ = 0, []
    points = {s: re.search(rb'data-points="([^"]+)"', urllib.request.urlopen(s + "/").read()).group(1).decode()
              for s in (old, new)}
    for method, path, headers in beyond_api(new):
        a = request(old + points[old] if path == "POINTS" else old + path, method, headers)
        b = request(new + points[new] if path == "POINTS" else new + path, method, headers)
        if path == "/readyz":  # names the file served, with its own id and times: its length too
            a = (a[0], [h for h in a[1] if h[0] != "content-length"], a[2], b"")
            b = (b[0], [h for h in b[1] if h[0] != "content-length"], b[2], b"")
        if a == b:
            same += 1
        else:
            differ.append((method, path, a[0], b[0], str(a[1])[:300], str(b[1])[:300], a[3][:160], b[3][:160]))
    # Which (endpoint, status) pairs were counted: the same requests went to both servers, but
    # for the few that chose them (asked of the new one only), so the counts are not compared.
    labels = [sorted({l.rsplit(" ", 1)[0] for l in request(s + "/metrics")[3].decode().splitlines()
                      if l.startswith("roadtraffic_http_requests_total{")}) for s in (old, new)]
    if labels[0] == labels[1]:
        same += 1
    else:
        differ.append(("metrics", "labels", "", "", str(sorted(set(labels[0]) - set(labels[1]))),
                       str(sorted(set(labels[1]) - set(labels[0]))), b"", b""))
    return same, differ


def main():
    old, new = (Path(a).resolve() for a in sys.argv[1:3])
    data = [Path(p).resolve() for p in sys.argv[3].split(":")]
    default = Path(__file__).resolve().parent.parent / "target" / "bench-data"
    out_dir = os.environ.get("OUT_DIR") or os.environ.get("BENCH_DATA") or default
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir) as work:
        work = Path(work)
        servers = [start(old, data, work, 18301), start(new, data, work, 18302, os.environ.get("NEW_LOAD_ARGS", ""))]
        try:
            same, differ = 0, []
            for t in sorted(set(targets("http://127.0.0.1:18302"))):
                a = fetch(f"http://127.0.0.1:18301/api{t}")
                b = fetch(f"http://127.0.0.1:18302/api{t}")
                if a == b:
                    same += 1
                else:
                    differ.append((t, a[0], b[0], a[1][:160], b[1][:160]))
            more_same, more_differ = compare_beyond_api("http://127.0.0.1:18301", "http://127.0.0.1:18302")
            same, differ = same + more_same, differ + more_differ
        finally:
            for s in servers:
                s.terminate()
    print(f"{same} requests answered byte for byte alike, {len(differ)} differently")
    for d in differ[:20]:
        print(*d, sep="\n  ")
    sys.exit(1 if differ else 0)


main()
