#!/usr/bin/env python3
"""Where, measured: spatial questions asked of the server against the same questions answered
by a full scan in SQLite, side by side in one run (issue 23).

    bench/spatial.py DB [SERVE_BIN]     (ROUNDS=40; SERVE_BIN defaults to target/release)

Starts `roadtraffic-serve --db DB --response-cache-mb 0` on a free port, then, for each
question, asks ROUNDS distinct instances in turn (a different box or point each time, so that
no filter set's total is already known: every answer counts its rows) and reports median
milliseconds:

- a page of 250 raw counts in a 10 km box, with its total, against the same page and total by
  a scan of every raw count row with its coordinates (`sqlite3` with the R*Tree unused), and
  against a plain filtered page of the same size (a local authority, also asked once each);
- count points in a 10 km box, and the 10 nearest count points, against scans of count points
  (the nearest also asked many times in a row);
- an OGC API items page of 1,000 features against a JSON API page of 1,000 records (when the
  server has /ogcapi);
- `.geojson` of all count points: bytes, time, and the server's RSS before and after.
"""
import http.client
import json
import urllib.parse
import math
import os
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = int(os.environ.get("ROUNDS", "40"))
FLAT_ROUNDS = min(ROUNDS, 8)  # a scan of every raw count row takes seconds
KM10_LAT = 10_000 / 111_320  # degrees of latitude in 10 km
rng = random.Random(23)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(db, bin_dir):
    port = free_port()
    serve = os.path.join(bin_dir, "roadtraffic-serve")
    proc = subprocess.Popen(
        [serve, "--db", db, "--bind", f"127.0.0.1:{port}", "--response-cache-mb", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(base + "/readyz").read()
            return proc, base
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the server did not start")


CONNECTIONS = {}


def fetch(url, accept=None):
    """GET over one kept-alive connection per server, as a client paging an API would."""
    parsed = urllib.parse.urlsplit(url)
    conn = CONNECTIONS.get(parsed.netloc)
    if conn is None:
        conn = CONNECTIONS[parsed.netloc] = http.client.HTTPConnection(parsed.netloc)
    conn.request("GET", parsed.path + "?" + parsed.query, headers={"Accept": accept} if accept else {})
    r = conn.getresponse()
    body = r.read()
    if r.status != 200:
        raise OSError(f"{r.status} for {url}")
    return body


def timed(f):
    t = time.perf_counter()
    out = f()
    return (time.perf_counter() - t) * 1000, out


def median_ms(samples):
    return statistics.median(samples)


def boxes(conn, n):
    """10 km boxes around random count points (WGS 84)."""
    # Chosen by the seeded generator, so that every run asks the same questions.
    points = rng.sample(conn.execute(
        "SELECT CAST(longitude AS REAL), CAST(latitude AS REAL) FROM count_points "
        "WHERE longitude IS NOT NULL ORDER BY id").fetchall(), n)
    out = []
    for lon, lat in points:
        half_lat = KM10_LAT / 2
        half_lon = half_lat / math.cos(math.radians(lat))
        out.append((lon - half_lon, lat - half_lat, lon + half_lon, lat + half_lat))
    return out


# The raw counts as a user holds them after importing DfT's CSV into SQLite: one flat table,
# coordinates in every row (built once, beside DB, from the loaded rows).
FLAT_SCAN = ("SELECT {what} FROM raw_flat WHERE CAST(longitude AS REAL) BETWEEN ? AND ? "
             "AND CAST(latitude AS REAL) BETWEEN ? AND ? {rest}")

RAW_SCAN = ("SELECT {what} FROM raw_counts r JOIN raw_counts_runs u NOT INDEXED "
            "ON r.id BETWEEN u.first_id AND u.last_id WHERE "
            "CAST(u.longitude AS REAL) BETWEEN ? AND ? AND CAST(u.latitude AS REAL) BETWEEN ? AND ? {rest}")
CP_SCAN = ("SELECT {what} FROM count_points NOT INDEXED WHERE "
           "CAST(longitude AS REAL) BETWEEN ? AND ? AND CAST(latitude AS REAL) BETWEEN ? AND ? {rest}")


def scan_raw(conn, b):
    args = (b[0], b[2], b[1], b[3])
    total = conn.execute(RAW_SCAN.format(what="count(*)", rest=""), args).fetchone()[0]
    rows = conn.execute(RAW_SCAN.format(what="r.*", rest="ORDER BY r.id LIMIT 250"), args).fetchall()
    return total, len(rows)


def flat_db(db):
    path = db + ".raw_flat"
    if not os.path.exists(path):
        tmp = path + ".partial"
        if os.path.exists(tmp):
            os.remove(tmp)
        c = sqlite3.connect(tmp)
        c.execute("ATTACH ? AS src", (f"file:{db}?mode=ro",))
        c.execute("CREATE TABLE raw_flat AS SELECT r.*, u.longitude, u.latitude, u.easting, u.northing "
                  "FROM src.raw_counts r JOIN src.raw_counts_runs u ON r.id BETWEEN u.first_id AND u.last_id")
        c.commit()
        c.close()
        os.rename(tmp, path)
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def scan_flat(flat, b):
    args = (b[0], b[2], b[1], b[3])
    total = flat.execute(FLAT_SCAN.format(what="count(*)", rest=""), args).fetchone()[0]
    rows = flat.execute(FLAT_SCAN.format(what="*", rest="ORDER BY id LIMIT 250"), args).fetchall()
    return total, len(rows)


def indexed_cp(conn, b):
    """The server's own SQL for a box of count points, in SQLite alone: the index's part."""
    where = ("id IN (SELECT count_point_id FROM places WHERE max_lon >= ? AND min_lon <= ? AND "
             "max_lat >= ? AND min_lat <= ?) AND CAST(longitude AS REAL) BETWEEN ? AND ? AND "
             "CAST(latitude AS REAL) BETWEEN ? AND ?")
    args = (b[0], b[2], b[1], b[3]) * 2
    total = conn.execute(f"SELECT count(*) FROM count_points WHERE {where}", args).fetchone()[0]
    rows = conn.execute(f"SELECT * FROM count_points WHERE {where} ORDER BY id LIMIT 250", args).fetchall()
    return total, len(rows)


def scan_cp(conn, b):
    args = (b[0], b[2], b[1], b[3])
    total = conn.execute(CP_SCAN.format(what="count(*)", rest=""), args).fetchone()[0]
    rows = conn.execute(CP_SCAN.format(what="*", rest="ORDER BY id LIMIT 250"), args).fetchall()
    return total, len(rows)


def scan_nearest(conn, e, n):
    return conn.execute(
        "SELECT * FROM count_points NOT INDEXED WHERE easting IS NOT NULL "
        "ORDER BY (easting-?)*(easting-?)+(northing-?)*(northing-?), id LIMIT 10",
        (e, e, n, n)).fetchall()


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def row(name, ours, baseline, label):
    ratio = baseline / ours if ours else float("inf")
    print(f"| {name} | {ours:.1f} | {baseline:.1f} ({label}) | {ratio:.1f}x |")


def setup(argv):
    """The file (argv[1]) read-only, its flat copy, and a server on it from the binaries in
    argv[2] (target/release by default): (conn, flat, proc, base)."""
    db = argv[1]
    bin_dir = argv[2] if len(argv) > 2 else os.path.join(ROOT, "target", "release")
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    flat = flat_db(db)
    proc, base = start(db, bin_dir)
    return conn, flat, proc, base


def main():
    conn, flat, proc, base = setup(sys.argv)
    try:
        run(conn, flat, base, proc)
    finally:
        proc.terminate()


def run(conn, flat, base, proc):
    api = base + "/api"
    qs = boxes(conn, ROUNDS)
    las = [r[0] for r in conn.execute("SELECT id FROM local_authorities ORDER BY id").fetchall()]
    rng.shuffle(las)
    grid_points = conn.execute("SELECT easting, northing FROM count_points WHERE easting IS NOT NULL ORDER BY id").fetchall()
    raw_box, raw_scan, raw_flat, raw_plain, cp_box, cp_sql, cp_scan, near, near5, near_scan = ([] for _ in range(10))
    for i, b in enumerate(qs):
        box = ",".join(f"{v:.6f}" for v in b)
        ms, body = timed(lambda: fetch(f"{api}/raw-counts?filter%5Bbbox%5D={box}&page%5Bsize%5D=250"))
        raw_box.append(ms)
        total = json.loads(body)["total"]
        ms, (scan_total, _) = timed(lambda: scan_raw(conn, b))
        raw_scan.append(ms)
        assert scan_total == total, (b, scan_total, total)
        if i < FLAT_ROUNDS:
            ms, (flat_total, _) = timed(lambda: scan_flat(flat, b))
            raw_flat.append(ms)
            assert flat_total == total
        la = las[i % len(las)]
        raw_plain.append(timed(lambda: fetch(f"{api}/raw-counts?filter%5Blocal_authority_id%5D={la}&page%5Bsize%5D=250"))[0])
        ms, body = timed(lambda: fetch(f"{api}/count-points?filter%5Bbbox%5D={box}&page%5Bsize%5D=250"))
        cp_box.append(ms)
        ms, (scan_total, _) = timed(lambda: scan_cp(conn, b))
        cp_scan.append(ms)
        assert scan_total == json.loads(body)["total"]
        ms, (sql_total, _) = timed(lambda: indexed_cp(conn, b))
        cp_sql.append(ms)
        assert sql_total == scan_total
        lon, lat = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        # Each radius asked first in every other round: the first to ask near a new point
        # also reads that part of the file from disk.
        nears = [
            (near, f"{api}/count-points?filter%5Bnear%5D={lon:.6f},{lat:.6f},20000&page%5Bsize%5D=10"),
            (near5, f"{api}/count-points?filter%5Bnear%5D={lon:.6f},{lat + 0.001:.6f},5000&page%5Bsize%5D=10"),
        ]
        for times, url in nears[:: 1 if i % 2 else -1]:
            times.append(timed(lambda: fetch(url))[0])
        e, n = rng.choice(grid_points)
        near_scan.append(timed(lambda: scan_nearest(conn, e, n))[0])
    print(f"{ROUNDS} questions each, median ms (each a new box or point: every total counted)\n")
    print("| question | server | baseline | baseline / server |")
    print("|---|---|---|---|")
    row("raw counts, 10 km box, page of 250 with its total", median_ms(raw_box), median_ms(raw_flat), "SQLite, full scan of the rows as imported from the CSV")
    row("raw counts, 10 km box, page of 250 with its total", median_ms(raw_box), median_ms(raw_scan), "SQLite, full scan of the mirror's runs")
    row("raw counts, 10 km box, page of 250 with its total", median_ms(raw_box), median_ms(raw_plain), "server, local authority page")
    row("count points, 10 km box", median_ms(cp_box), median_ms(cp_scan), "SQLite full scan")
    row("count points, 10 km box: the SQL alone", median_ms(cp_sql), median_ms(cp_scan), "SQLite full scan")
    row("count points, 10 nearest (within 20 km, all of them counted)", median_ms(near), median_ms(near_scan), "SQLite full scan")
    row("count points, 10 nearest (within 5 km, all of them counted)", median_ms(near5), median_ms(near_scan), "SQLite full scan")
    nearest_in_a_row(conn, api, grid_points)
    ogc_against_api(api, base)
    geojson_memory(api, proc)


def nearest_in_a_row(conn, api, grid_points):
    """The 10 nearest again, each question asked 10 x ROUNDS times in a row rather than between
    the other questions and their scans (whose reads push the server's pages out of the caches
    that a service asked for many points in turn keeps warm): new centres each time, on the
    server and in the scan alike, each a count point's own place."""
    places = conn.execute("SELECT CAST(longitude AS REAL), CAST(latitude AS REAL) FROM count_points "
                          "WHERE longitude IS NOT NULL AND easting IS NOT NULL ORDER BY id").fetchall()
    ours, scans = [], []
    for _ in range(10 * ROUNDS):
        lon, lat = rng.choice(places)
        ours.append(timed(lambda: fetch(f"{api}/count-points?filter%5Bnear%5D={lon:.6f},{lat:.6f},20000&page%5Bsize%5D=10"))[0])
    for _ in range(ROUNDS):
        e, n = rng.choice(grid_points)
        scans.append(timed(lambda: scan_nearest(conn, e, n))[0])
    row("count points, 10 nearest within 20 km, asked in a row", median_ms(ours), median_ms(scans), "SQLite full scan, in a row")


def ogc_against_api(api, base):
    try:
        fetch(base + "/ogcapi/collections")
    except OSError:
        print("\n(no /ogcapi on this server: OGC items not measured)")
        return
    ogc, json_page = [], []
    for i in range(ROUNDS):
        offset = rng.randrange(0, 40) * 1000
        ogc.append(timed(lambda: fetch(f"{base}/ogcapi/collections/count-points/items?limit=1000&offset={offset}"))[0])
        page = offset // 1000 + 1
        json_page.append(timed(lambda: fetch(f"{api}/count-points?page%5Bsize%5D=1000&page%5Bnumber%5D={page}"))[0])
    row("OGC items, 1,000 count points", median_ms(ogc), median_ms(json_page), "server, JSON API page of 1,000")


def geojson_memory(api, proc):
    before = rss_kib(proc.pid)
    ms, body = timed(lambda: fetch(f"{api}/count-points.geojson"))
    after = rss_kib(proc.pid)
    features = body.count(b'"type":"Feature"')
    print(f"\n.geojson of all count points: {len(body) / 1e6:.1f} MB, {features} features, {ms:.0f} ms; "
          f"server RSS {before / 1024:.0f} MB before, {after / 1024:.0f} MB after")


if __name__ == "__main__":
    main()
