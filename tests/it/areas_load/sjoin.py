"""The membership and the totals by area that GeoPandas gives for a boundary file and a file
built by roadtraffic-load, to compare with what the loader stored (tests/it/areas_load).

    python3 sjoin.py DB SET BOUNDARY_FILE [--layer L]

Prints JSON: {"pairs": [[area_id, count_point_id], ...], "totals": [[area_id, year, records,
sum_all_motor_vehicles, sum_vehicle_km_thousandths], ...]}, each sorted. Each count point is
where the count_points table puts it, else the first row of the other tables with places (as
the loader's rule says); a set on the British National Grid is joined on eastings and
northings, any other on longitude and latitude.
"""

import json
import sqlite3
import sys

import geopandas as gpd
import pandas as pd

db, set_name, boundary = sys.argv[1:4]
layer = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--layer" else None

con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
places = {}
for table, first in [("count_points", "id"), ("raw_counts_runs", "first_id"),
                     ("aadf_by_direction", "id"), ("aadf", "id")]:
    rows = con.execute(
        f"SELECT count_point_id, longitude, latitude, easting, northing, min({first}) "
        f"FROM {table} WHERE count_point_id IS NOT NULL GROUP BY count_point_id")
    for cp, lon, lat, e, n, _ in rows:
        places.setdefault(cp, (lon, lat, e, n))


def number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


zones = gpd.read_file(boundary, layer=layer) if layer else gpd.read_file(boundary)
grid = zones.crs is not None and zones.crs.to_epsg() == 27700
ids, xs, ys = [], [], []
for cp, (lon, lat, e, n) in places.items():
    x, y = (number(e), number(n)) if grid else (number(lon), number(lat))
    if x is not None and y is not None:
        ids.append(cp)
        xs.append(x)
        ys.append(y)
points = gpd.GeoDataFrame({"count_point_id": ids}, geometry=gpd.points_from_xy(xs, ys),
                          crs=zones.crs)
joined = gpd.sjoin(points, zones[["code", "geometry"]], predicate="intersects")
pairs = sorted({(str(c), int(cp)) for c, cp in zip(joined["code"], joined["count_point_id"])})

aadf = pd.read_sql_query(
    "SELECT count_point_id, year, all_motor_vehicles, link_length_km FROM aadf", con)
members = pd.DataFrame(pairs, columns=["area_id", "count_point_id"])
rows = members.merge(aadf, on="count_point_id")
rows = rows[rows["year"].notna()]


def thousandths(r):
    if pd.isna(r.all_motor_vehicles) or pd.isna(r.link_length_km) or r.link_length_km == "":
        return None
    y = int(r.year)
    days = 366 if (y % 400 == 0 or (y % 4 == 0 and y % 100 != 0)) else 365
    return int(r.all_motor_vehicles) * round(float(r.link_length_km) * 1000) * days


rows = rows.assign(vkm=[thousandths(r) for r in rows.itertuples()])
totals = []
for (area, year), g in rows.groupby(["area_id", "year"]):
    amv = g["all_motor_vehicles"].dropna()
    vkm = [v for v in g["vkm"] if v is not None and not pd.isna(v)]
    totals.append([area, int(year), len(g), int(amv.sum()) if len(amv) else None,
                   int(sum(vkm)) if vkm else None])
print(json.dumps({"pairs": [list(p) for p in pairs], "totals": sorted(totals)}))
