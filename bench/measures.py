#!/usr/bin/env python3
"""Summaries of other numbers than the counts, measured (issue 35): vehicle-km, link lengths,
extents and years, beside the old questions that a table of totals answers, asked of this
build and, for the old questions, of the build before, side by side in one run.

    bench/measures.py DB SERVE_BIN [BEFORE_SERVE_BIN]     (ROUNDS=20)

- DB: a file loaded by `roadtraffic-load` (the full-size synthetic release), only read.
- SERVE_BIN: this build's `roadtraffic-serve`; BEFORE_SERVE_BIN: the build before (its answers
  to the old questions are also compared byte for byte with this build's).

Each server runs with `--response-cache-mb 0` (every answer computed); each question is asked
once to warm up, then ROUNDS times: the median milliseconds, client side, with keep-alive.
"""
import http.client
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from totals import ask, busiest_authority, free_port, quoted, wait_for  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "20"))

# (name, path and query, old: whether the build before answers it)
QUESTIONS = [
    ("AADF: sum(all_motor_vehicles) by year (a table of totals)",
     "/api/average-annual-daily-flow/summary?group_by=year&sum=all_motor_vehicles", True),
    ("AADF: sum(vehicle_km) by year",
     "/api/average-annual-daily-flow/summary?group_by=year&sum=vehicle_km", False),
    ("AADF: sum(vehicle_km), sum(all_motor_vehicles) by year",
     "/api/average-annual-daily-flow/summary?group_by=year&sum=vehicle_km,all_motor_vehicles", False),
    ("AADF: sum(vehicle_km) by region and year",
     "/api/average-annual-daily-flow/summary?group_by=region_id,year&sum=vehicle_km", False),
    ("AADF by direction: sum(vehicle_miles) by year",
     "/api/average-annual-daily-flow-by-direction/summary?group_by=year&sum=vehicle_miles", False),
    ("AADF of one local authority: sum(vehicle_km) by year",
     "/api/average-annual-daily-flow/summary?group_by=year&sum=vehicle_km&filter[local_authority_id]={la}",
     False),
    ("AADF of one local authority: sum(all_motor_vehicles) by year",
     "/api/average-annual-daily-flow/summary?group_by=year&sum=all_motor_vehicles&filter[local_authority_id]={la}",
     True),
    ("count points: sum(link_length_km) by road category",
     "/api/count-points/summary?group_by=road_category&sum=link_length_km", False),
    ("count points: extent (min, max of longitude, latitude) by region",
     "/api/count-points/summary?group_by=region_id&min=longitude,latitude&max=longitude,latitude", False),
    ("AADF of one count point: first and last year",
     "/api/average-annual-daily-flow/summary?filter[count_point_id]={cp}&min=year&max=year", False),
    ("raw counts: sum(all_motor_vehicles) by region and year (a table of totals)",
     "/api/raw-counts/summary?group_by=region_id,year&sum=all_motor_vehicles", True),
    ("raw counts of one local authority: sum(all_motor_vehicles) by hour",
     "/api/raw-counts/summary?group_by=hour&sum=all_motor_vehicles&filter[local_authority_id]={la}", True),
]


def serve(binary, db):
    port = free_port()
    proc = subprocess.Popen([binary, "--db", db, "--bind", f"127.0.0.1:{port}",
                             "--response-cache-mb", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(port, "/api/regions", proc)
    return port, proc


def measure(binary, db, paths):
    port, proc = serve(binary, db)
    out = {}
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        for path in paths:
            _, body = ask(conn, path)
            took = [ask(conn, path)[0] for _ in range(ROUNDS)]
            out[path] = (statistics.median(took) * 1000, body)
    finally:
        proc.terminate()
        proc.wait()
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    db, binary = sys.argv[1], sys.argv[2]
    before = sys.argv[3] if len(sys.argv) > 3 else None
    import sqlite3
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        cp = c.execute("SELECT count_point_id FROM aadf ORDER BY id LIMIT 1").fetchone()[0]
    la = busiest_authority(db)
    paths = [(name, quoted(p.format(la=la, cp=cp)), old) for name, p, old in QUESTIONS]
    after = measure(binary, db, [p for _, p, _ in paths])
    old = measure(before, db, [p for _, p, o in paths if o]) if before else {}
    print(f"local authority {la}, count point {cp}; medians of {ROUNDS}, ms")
    print("| question | this build, ms | build before, ms |")
    print("|---|---:|---:|")
    for name, path, _ in paths:
        ms, body = after[path]
        was = old.get(path)
        shown = "" if was is None else f"{was[0]:,.1f}"
        if was is not None and was[1] != body:
            shown += " (answer differs)"
        print(f"| {name} | {ms:,.1f} | {shown} |")


if __name__ == "__main__":
    main()
