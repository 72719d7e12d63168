"""Which count points each area holds, by GeoPandas: the release's count points (where the
count_points table puts them, else the first record of another table) joined to a boundary
file with `intersects` (a point on an edge is in the area). Prints JSON: each area's count
points, sorted. Usage: sjoin.py DB BOUNDARY_FILE lonlat|grid"""

import json
import sqlite3
import sys

import geopandas
import shapely

db, boundaries, crs = sys.argv[1], sys.argv[2], sys.argv[3]
conn = sqlite3.connect(db)
tables = [
    ("count_points", "id"),
    ("aadf", "id"),
    ("aadf_by_direction", "id"),
    ("raw_counts_runs", "first_id"),
]
places = {}
for table, order in tables:
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
        continue
    rows = conn.execute(
        f"SELECT count_point_id, longitude, latitude, easting, northing FROM {table} "
        f"WHERE count_point_id IS NOT NULL ORDER BY {order}"
    )
    for cp, lon, lat, e, n in rows:
        if cp in places:
            continue
        x, y = (lon, lat) if crs == "lonlat" else (e, n)
        places[cp] = (x, y)

def number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None

ids, points = [], []
for cp, (x, y) in places.items():
    x, y = number(x), number(y)
    if x is None or y is None:
        continue
    ids.append(cp)
    points.append(shapely.Point(x, y))
frame = geopandas.GeoDataFrame({"count_point_id": ids}, geometry=points)
areas = geopandas.read_file(boundaries)
areas = areas.set_crs(None, allow_override=True)
frame = frame.set_crs(None, allow_override=True)
joined = geopandas.sjoin(frame, areas[["code", "geometry"]], predicate="intersects")
members = {code: [] for code in areas["code"]}
for code, cp in zip(joined["code"], joined["count_point_id"]):
    members[code].append(int(cp))
print(json.dumps({code: sorted(cps) for code, cps in members.items()}))
