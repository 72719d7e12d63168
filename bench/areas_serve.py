"""Areas (issue 35), the server side, side by side in one run on one served file:

- a national summary by area (AADF `sum=vehicle_km` by constituency and year) from the totals
  by area, and the same question answered from the rows joined to the areas (a CQL2 filter
  that keeps every row sends it there);
- a `filter[area]` page against a `filter[local_authority_id]` page of the same size, the area
  chosen with about as many AADF rows as the local authority.

Usage: python3 bench/areas_serve.py URL DB (the server at URL serving DB, started with
`--response-cache-mb 0` so that every request is answered afresh). Prints medians in ms."""

import sqlite3
import statistics
import sys
import time
import urllib.request

url, db = sys.argv[1].rstrip("/"), sys.argv[2]


def timed(path):
    start = time.perf_counter()
    with urllib.request.urlopen(url + path) as r:
        body = r.read()
        assert r.status == 200, (path, r.status)
    return (time.perf_counter() - start) * 1000, body


def median(paths, runs=1):
    times = [timed(p)[0] for _ in range(runs) for p in paths]
    return statistics.median(times)


conn = sqlite3.connect(db)
la, la_rows = conn.execute(
    "SELECT local_authority_id, count(*) c FROM aadf GROUP BY 1 ORDER BY c DESC LIMIT 1"
).fetchone()
area, area_rows = conn.execute(
    "SELECT a.area_id, count(*) c FROM area_count_points a JOIN aadf r "
    "ON r.count_point_id = a.count_point_id WHERE a.set_name = 'constituencies' "
    "GROUP BY 1 ORDER BY abs(count(*) - ?) LIMIT 1",
    (la_rows,),
).fetchone()

# Every constituency by year is 632 x 25 = 15,800 groups, over the 10,000 a summary gives
# without `limit`: the first 10,000 in order.
summary = "/api/average-annual-daily-flow/summary?group_by=area:constituencies,year&sum=vehicle_km&limit=10000"
join = summary + "&filter=count_point_id%20%3E%200&filter-lang=cql2-text"
timed(summary), timed(join)  # the membership assigned, the file's pages read once
fast = median([summary], runs=15)
slow = median([join], runs=5)
print(f"summary by constituency and year: totals by area {fast:.1f} ms, rows joined {slow:.1f} ms, {slow / fast:.0f}x")

size = 100
pages = range(1, min(la_rows, area_rows) // size)
by_area = [f"/api/average-annual-daily-flow?filter[area]=constituencies:{area}&page[size]={size}&page[number]={n}" for n in pages]
by_la = [f"/api/average-annual-daily-flow?filter[local_authority_id]={la}&page[size]={size}&page[number]={n}" for n in pages]
timed(by_area[0]), timed(by_la[0])  # each filter set learnt once
a, b = [], []
for _ in range(3):
    a.append(median(by_area))
    b.append(median(by_la))
a, b = statistics.median(a), statistics.median(b)
print(f"page of {size}: filter[area] ({area}, {area_rows} rows) {a:.2f} ms, filter[local_authority_id] ({la}, {la_rows} rows) {b:.2f} ms, ratio {a / b:.2f}")
