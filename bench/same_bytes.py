#!/usr/bin/env python3
"""Do two builds of the mirror answer the same bytes? Loads DATA with each build's loader,
serves each file with that build's server, and compares the bodies (and statuses) of requests
made from the new server's OpenAPI description: every endpoint and alias plain, paged, past
its last page, sorted both ways by each sort key, filtered by values taken from its own rows,
with sparse fields, and a few malformed requests.

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
        finally:
            for s in servers:
                s.terminate()
    print(f"{same} requests answered byte for byte alike, {len(differ)} differently")
    for d in differ[:20]:
        print(*d, sep="\n  ")
    sys.exit(1 if differ else 0)


main()
