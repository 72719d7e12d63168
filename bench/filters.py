#!/usr/bin/env python3
"""CQL2 filters, measured (issue 34): each question asked of the server as a CQL2 `filter=`
against the same question in the form it had before (a `filter[...]` page, a plain page) or
answered by a full scan in SQLite, side by side in one run.

    bench/filters.py DB [SERVE_BIN_DIR]     (ROUNDS=40; the directory defaults to target/release)

Starts `roadtraffic-serve --db DB --response-cache-mb 0` on a free port; every question is
asked ROUNDS times, each time of a different count point, box or polygon (so that no filter
set's total is already known: every answer counts its rows), and the median milliseconds are
reported:

- raw counts of one count point from 2015 on, page of 250 with its total: `filter=
  count_point_id = X AND year >= 2015` against `filter[count_point_id]=X&filter[year]=2015,...`;
- raw counts in a 10 km octagon (`S_INTERSECTS(geometry, POLYGON(...))`), page of 250 with its
  total, against a full scan of the raw counts as imported from the CSV (one flat table) that
  tests only the octagon's bounding box (less work than the question: a lower bound on a full
  scan's time); the server's total is checked against the octagon tested exactly (shapely)
  over the scan's rows;
- OGC items, 1,000 raw counts in a 30 km box, against a JSON API page of 1,000 raw counts of a
  local authority (both with their totals).
"""
import json
import math
import os
import statistics
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spatial import ROUNDS, fetch, rng, setup, timed  # noqa: E402

try:
    from shapely.geometry import Point, Polygon
except ImportError:  # the exact check is skipped, the timings are not
    Point = Polygon = None

KM_LAT = 1_000 / 111_320  # degrees of latitude in a kilometre


def octagon(lon, lat, km):
    """A regular octagon `km` across around (lon, lat), in WGS 84."""
    r_lat = KM_LAT * km / 2
    r_lon = r_lat / math.cos(math.radians(lat))
    ring = [(lon + r_lon * math.cos(math.pi / 8 + i * math.pi / 4),
             lat + r_lat * math.sin(math.pi / 8 + i * math.pi / 4)) for i in range(8)]
    return ring + [ring[0]]


def wkt(ring):
    return "POLYGON((" + ",".join(f"{x:.6f} {y:.6f}" for x, y in ring) + "))"


def q(text):
    return urllib.parse.quote(text, safe="")


def page_total(body):
    return json.loads(body)["total"]


def flat_candidates(flat, ring):
    xs, ys = [p[0] for p in ring], [p[1] for p in ring]
    return flat.execute(
        "SELECT CAST(longitude AS REAL), CAST(latitude AS REAL) FROM raw_flat "
        "WHERE CAST(longitude AS REAL) BETWEEN ? AND ? AND CAST(latitude AS REAL) BETWEEN ? AND ?",
        (min(xs), max(xs), min(ys), max(ys))).fetchall()


def exact_count(rows, ring):
    if Polygon is None:
        return None
    shape = Polygon(ring)
    return sum(1 for x, y in rows if shape.intersects(Point(x, y)))


def row(name, ours, baseline, label):
    ratio = baseline / ours if ours else float("inf")
    print(f"| {name} | {ours:.1f} | {baseline:.1f} ({label}) | {ratio:.2f}x |")


def selective(conn, api):
    years = [r[0] for r in conn.execute("SELECT DISTINCT year FROM raw_counts_runs WHERE year >= 2015 ORDER BY 1")]
    points = [r[0] for r in conn.execute("SELECT DISTINCT count_point_id FROM raw_counts_runs ORDER BY 1")]
    cql2, classic = [], []
    for i, cp in enumerate(rng.sample(points, ROUNDS)):
        filter_ = q(f"count_point_id = {cp} AND year >= 2015")
        listed = ",".join(map(str, years))
        asks = [
            (cql2, f"{api}/raw-counts?filter={filter_}&page%5Bsize%5D=250"),
            (classic, f"{api}/raw-counts?filter%5Bcount_point_id%5D={cp}&filter%5Byear%5D={listed}&page%5Bsize%5D=250"),
        ]
        # Whichever is asked first reads the count point's pages from disk: each goes first
        # in every other round.
        totals = []
        for samples, url in (asks if i % 2 == 0 else asks[::-1]):
            ms, body = timed(lambda: fetch(url))
            samples.append(ms)
            totals.append(page_total(body))
        assert totals[0] == totals[1], (cp, totals)
    row("raw counts, one count point from 2015 on, page of 250 and total", statistics.median(cql2),
        statistics.median(classic), "server, the same as filter[count_point_id] and filter[year]")


def polygons(conn, flat, api):
    points = conn.execute("SELECT CAST(longitude AS REAL), CAST(latitude AS REAL) FROM count_points "
                          "WHERE longitude IS NOT NULL ORDER BY id").fetchall()
    ours, scans = [], []
    for lon, lat in rng.sample(points, ROUNDS):
        ring = octagon(lon, lat, 10)
        filter_ = q(f"S_INTERSECTS(geometry, {wkt(ring)})")
        ms, body = timed(lambda: fetch(f"{api}/raw-counts?filter={filter_}&page%5Bsize%5D=250"))
        ours.append(ms)
        ms, rows = timed(lambda: flat_candidates(flat, ring))
        scans.append(ms)
        exact = exact_count(rows, ring)
        assert exact is None or exact == page_total(body), (lon, lat, exact, page_total(body))
    row("raw counts in a 10 km octagon (S_INTERSECTS), page of 250 and total", statistics.median(ours),
        statistics.median(scans), "SQLite, full scan of the flat raw counts, box test only")


def ogc_box(conn, base, api):
    points = conn.execute("SELECT CAST(longitude AS REAL), CAST(latitude AS REAL) FROM count_points "
                          "WHERE longitude IS NOT NULL ORDER BY id").fetchall()
    las = [r[0] for r in conn.execute("SELECT id FROM local_authorities ORDER BY id")]
    ogc, plain = [], []
    for lon, lat in rng.sample(points, ROUNDS):
        half_lat = KM_LAT * 15
        half_lon = half_lat / math.cos(math.radians(lat))
        box = f"{lon - half_lon:.6f},{lat - half_lat:.6f},{lon + half_lon:.6f},{lat + half_lat:.6f}"
        ogc.append(timed(lambda: fetch(f"{base}/ogcapi/collections/raw-counts/items?limit=1000&bbox={box}"))[0])
        la = rng.choice(las)
        plain.append(timed(lambda: fetch(f"{api}/raw-counts?filter%5Blocal_authority_id%5D={la}&page%5Bsize%5D=1000"))[0])
    row("OGC items, 1,000 raw counts in a 30 km box", statistics.median(ogc), statistics.median(plain),
        "server, JSON API page of 1,000 raw counts of a local authority")


def main():
    conn, flat, proc, base = setup(sys.argv)
    try:
        api = base + "/api"
        print(f"{ROUNDS} questions each, median ms (each of a new count point, box or polygon)\n")
        print("| question | server | baseline | baseline / server |")
        print("|---|---|---|---|")
        selective(conn, api)
        polygons(conn, flat, api)
        ogc_box(conn, base, api)
    finally:
        proc.terminate()


if __name__ == "__main__":
    main()
