#!/usr/bin/env python3
"""Totals, measured: national facets and summaries asked of the server, against the same
GROUP BY run by SQLite over the table as the CSV gives it (a full scan), and against
Datasette's facets over the same file, side by side in one run (issue 26).

    bench/totals.py DB CSV_DIR [SERVE_BIN_DIR]     (ROUNDS=20; SCAN_ROUNDS=3; ONLY=text)

- DB: a file loaded by `roadtraffic-load` (the full-size synthetic release: `$BENCH_DATA/full-26.db`).
- CSV_DIR: the CSV files it was loaded from. Their raw counts and AADF are imported once into
  `DB.csv-flat` (`sqlite3 .import`, columns typed as the header reads: what a user who
  downloads the CSV and opens it in SQLite has), and each question's GROUP BY is run there.
- SERVE_BIN_DIR: where `roadtraffic-serve` is (default `target/release`).

ONLY asks only the questions whose name holds that text (e.g. "one local authority");
SCAN_ROUNDS=0 leaves out the scans (and the import they need) and Datasette.

The server runs with `--response-cache-mb 0`, so every answer is computed. Each question is
asked ROUNDS times (median milliseconds, client side, keep-alive); each scan SCAN_ROUNDS times
after one warm-up. Datasette (`datasette` on PATH; from PyPI) serves DB immutable with its
default facet time limit (200 ms) and is asked `?_facet=<column>&_size=0`: its time, and
whether it gave up on the facet.
"""
import http.client
import json
import os
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = int(os.environ.get("ROUNDS", "20"))
ONLY = os.environ.get("ONLY", "")
SCAN_ROUNDS = int(os.environ.get("SCAN_ROUNDS", "3"))

# (name, API path and query, flat table, GROUP BY over it, Datasette table and facet or None)
QUESTIONS = [
    ("raw counts: facet year", "/api/raw-counts/facets?facet=year",
     "raw", "SELECT year, count(*) FROM raw GROUP BY year ORDER BY 2 DESC, 1", ("raw_counts", "year")),
    ("raw counts: facet road_category", "/api/raw-counts/facets?facet=road_category",
     "raw", "SELECT road_category, count(*) FROM raw GROUP BY 1 ORDER BY 2 DESC, 1",
     ("raw_counts", "road_category")),
    ("raw counts: sum(all_motor_vehicles) by year",
     "/api/raw-counts/summary?group_by=year&sum=all_motor_vehicles",
     "raw", "SELECT year, count(*), sum(all_motor_vehicles) FROM raw GROUP BY year ORDER BY year", None),
    ("raw counts: sum(all_motor_vehicles) by region and year",
     "/api/raw-counts/summary?group_by=region_id,year&sum=all_motor_vehicles",
     "raw", "SELECT region_id, year, count(*), sum(all_motor_vehicles) FROM raw GROUP BY 1, 2 ORDER BY 1, 2",
     None),
    ("AADF: sum(all_motor_vehicles) by year",
     "/api/average-annual-daily-flow/summary?group_by=year&sum=all_motor_vehicles",
     "aadf", "SELECT year, count(*), sum(all_motor_vehicles) FROM aadf GROUP BY year ORDER BY year", None),
    ("AADF: sum(all_motor_vehicles) by region and year",
     "/api/average-annual-daily-flow/summary?group_by=region_id,year&sum=all_motor_vehicles",
     "aadf", "SELECT region_id, year, count(*), sum(all_motor_vehicles) FROM aadf GROUP BY 1, 2 ORDER BY 1, 2",
     None),
    ("raw counts of one local authority: sum(all_motor_vehicles) by year",
     "/api/raw-counts/summary?group_by=year&sum=all_motor_vehicles&filter[local_authority_id]={la}",
     "raw", "SELECT year, count(*), sum(all_motor_vehicles) FROM raw WHERE local_authority_id = {la} "
     "GROUP BY year ORDER BY year", None),
    ("AADF of one local authority: sum(all_motor_vehicles) by year",
     "/api/average-annual-daily-flow/summary?group_by=year&sum=all_motor_vehicles&filter[local_authority_id]={la}",
     "aadf", "SELECT year, count(*), sum(all_motor_vehicles) FROM aadf WHERE local_authority_id = {la} "
     "GROUP BY year ORDER BY year", None),
    ("raw counts of one local authority: sum(all_motor_vehicles) by hour",
     "/api/raw-counts/summary?group_by=hour&sum=all_motor_vehicles&filter[local_authority_id]={la}",
     "raw", "SELECT hour, count(*), sum(all_motor_vehicles) FROM raw WHERE local_authority_id = {la} "
     "GROUP BY hour ORDER BY hour", None),
    ("raw counts of one local authority: sum(all_motor_vehicles) by year and hour",
     "/api/raw-counts/summary?group_by=year,hour&sum=all_motor_vehicles&filter[local_authority_id]={la}",
     "raw", "SELECT year, hour, count(*), sum(all_motor_vehicles) FROM raw "
     "WHERE local_authority_id = {la} GROUP BY 1, 2 ORDER BY 1, 2", None),
    ("count points by local authority", "/api/count-points/summary?group_by=local_authority_id",
     None, None, ("count_points", "local_authority_id")),
]

CSV_TABLES = {"raw": "dft_traffic_counts_raw_counts.csv", "aadf": "dft_traffic_counts_aadf.csv"}
INTEGER_HEADERS = {"year", "region_id", "local_authority_id", "count_point_id", "hour", "easting",
                   "northing"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port, path, proc):
    for _ in range(600):
        if proc.poll() is not None:
            sys.exit(f"server exited: {proc.returncode}")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", path)
            if c.getresponse().status < 500:
                return
        except OSError:
            pass
        time.sleep(0.1)
    sys.exit("server did not start")


def column_type(header):
    h = header.lower()
    if h in INTEGER_HEADERS or h.startswith(("pedal", "two_wheeled", "cars", "buses", "lgvs",
                                             "hgvs", "all_")):
        return "INTEGER"
    return "TEXT"


def flat_db(db, csv_dir):
    """The CSV files as a user imports them: one table each, typed by header."""
    path = db + ".csv-flat"
    if os.path.exists(path):
        return path
    tmp = path + ".partial"
    if os.path.exists(tmp):
        os.remove(tmp)
    script = []
    for table, name in CSV_TABLES.items():
        csv = os.path.join(csv_dir, name)
        with open(csv, encoding="utf-8") as f:
            headers = f.readline().strip().split(",")
        cols = ", ".join(f'"{h.lower()}" {column_type(h)}' for h in headers)
        script += [f"CREATE TABLE {table} ({cols});", f".import --csv --skip 1 {csv} {table}"]
    subprocess.run(["sqlite3", tmp], input="\n".join(script), text=True, check=True)
    os.rename(tmp, path)
    return path


def median_ms(samples):
    return statistics.median(samples) * 1000


def ask(conn, path):
    started = time.perf_counter()
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read()
    took = time.perf_counter() - started
    if r.status != 200:
        sys.exit(f"{path}: {r.status} {body[:300]!r}")
    return took, body


def quoted(path):
    base, _, query = path.partition("?")
    pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
    return base + "?" + urllib.parse.urlencode(pairs)


def ours(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port)
    ask(conn, path)  # the first asks the release its tables of totals
    return median_ms([ask(conn, path)[0] for _ in range(ROUNDS)])


def scan(flat, sql):
    flat.execute(sql).fetchall()
    samples = []
    for _ in range(SCAN_ROUNDS):
        started = time.perf_counter()
        flat.execute(sql).fetchall()
        samples.append(time.perf_counter() - started)
    return median_ms(samples)


def datasette(db, facets):
    exe = shutil.which("datasette")
    if exe is None:
        return {}
    port = free_port()
    proc = subprocess.Popen([exe, "serve", "-i", db, "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    name = os.path.splitext(os.path.basename(db))[0]
    out = {}
    try:
        wait_for(port, "/-/versions.json", proc)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for table, column in facets:
            path = f"/{name}/{table}.json?_facet={column}&_size=0"
            took = []
            for _ in range(min(ROUNDS, 5)):
                t, body = ask(conn, path)
                took.append(t)
            answer = json.loads(body)
            # Datasette 0.65 leaves a facet that timed out out of `facet_results`; 1.0 also
            # names it in `facets_timed_out`.
            gave_up = (column in answer.get("facets_timed_out", [])
                       or column not in answer.get("facet_results", {}))
            out[(table, column)] = (median_ms(took), gave_up)
    finally:
        proc.terminate()
        proc.wait()
    return out


def busiest_authority(db):
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        return c.execute("SELECT local_authority_id FROM raw_counts_totals_by_area GROUP BY 1 "
                         "ORDER BY sum(records) DESC LIMIT 1").fetchone()[0]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    db, csv_dir = sys.argv[1], sys.argv[2]
    bin_dir = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ROOT, "target", "release")
    la = busiest_authority(db)
    questions = [q for q in QUESTIONS if ONLY in q[0]]
    flat = sqlite3.connect(flat_db(db, csv_dir)) if SCAN_ROUNDS else None
    port = free_port()
    proc = subprocess.Popen([os.path.join(bin_dir, "roadtraffic-serve"), "--db", db, "--bind",
                             f"127.0.0.1:{port}", "--response-cache-mb", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(port, "/readyz", proc)
        rows = [(name, ours(port, quoted(path.format(la=la))),
                 scan(flat, sql.format(la=la)) if sql and flat else None, ds)
                for name, path, _, sql, ds in questions]
    finally:
        proc.terminate()
        proc.wait()
    anchors = datasette(db, [ds for *_, ds in rows if ds]) if flat else {}
    print(f"local authority {la} (the most raw counts); ROUNDS={ROUNDS}, SCAN_ROUNDS={SCAN_ROUNDS}\n")
    print("| question | mirror, ms | SQLite GROUP BY over the CSV's table, ms | faster | Datasette facet, ms |")
    print("|---|---:|---:|---:|---|")
    for name, mine, scanned, ds in rows:
        ratio = f"{scanned / mine:,.0f}x" if scanned else ""
        anchor = ""
        if ds in anchors:
            ms, gave_up = anchors[ds]
            anchor = f"{ms:,.0f}" + (" (gave up at its 200 ms limit)" if gave_up else "")
        scanned = f"{scanned:,.0f}" if scanned else ""
        print(f"| {name} | {mine:.1f} | {scanned} | {ratio} | {anchor} |")


if __name__ == "__main__":
    main()
