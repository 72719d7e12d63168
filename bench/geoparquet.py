#!/usr/bin/env python3
"""GeoParquet (issue 35), measured: the national Parquet files of two builds side by side, one
run, on one release (the old build's files: year-then-local-authority order, no geometry).

    bench/geoparquet.py --db FULL.db --old OLD_SERVE_BIN --new NEW_SERVE_BIN [--la ID]
                        [--rounds N] [--json]

    pip install 'duckdb==1.4.4' 'duckdb-ext-httpfs==1.4.4.20260205' pyarrow

Each build is started on the release with `--lazy-downloads` and a fresh `--downloads-dir`
of its own (a temporary folder), and asked for each national Parquet file of the datasets
with places in turn; per round, the builds alternate (and who goes first).

1. Sizes: each file's bytes (target: new <= 1.10 x old).
2. Writing: the wall time of the first GET of each file on a fresh folder, which writes it
   (the server writes the file whole, then sends it); the best of `--rounds` (default 2).
3. Row groups for 20 boxes about 13 km across, centred on 20 British towns: the share of the
   row groups a reader must read, (a) by the rows' own extent in each group (what perfect
   statistics give), (b) by the statistics pyarrow reads (the old files' DOUBLE statistics
   are in an order pyarrow 26 ignores: every group) (target: <= 30%).
4. DuckDB over HTTP (each query a new in-memory DuckDB, HTTP metadata cache off, through a
   counting proxy): the bytes it takes for each box (the new files filtered on the `bbox`
   covering column, the old on longitude and latitude) and for one local authority
   (`--la`, default 42), as a share of the file (targets: boxes <= 10%, the authority <= 15%).
   Both builds' answers (rows and sum of all motor vehicles) must agree.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from columnar import (CountingProxy, download, duck, free_port, httpfs_file,  # noqa: E402
                      request)

FILES = ["dft_traffic_counts_aadf", "dft_traffic_counts_aadf_by_direction",
         "dft_traffic_counts_raw_counts", "count_points"]
# The files whose boxes and authority DuckDB is measured on.
QUERIED = ["dft_traffic_counts_aadf", "dft_traffic_counts_raw_counts"]

# 20 towns (longitude, latitude), each the centre of a box 13 km across.
TOWNS = {
    "London": (-0.1276, 51.5072), "Birmingham": (-1.8904, 52.4862),
    "Manchester": (-2.2426, 53.4808), "Leeds": (-1.5491, 53.8008),
    "Glasgow": (-4.2518, 55.8642), "Edinburgh": (-3.1883, 55.9533),
    "Cardiff": (-3.1791, 51.4816), "Bristol": (-2.5879, 51.4545),
    "Newcastle": (-1.6178, 54.9783), "Sheffield": (-1.4701, 53.3811),
    "Nottingham": (-1.1581, 52.9548), "Leicester": (-1.1398, 52.6369),
    "Norwich": (1.2974, 52.6309), "Plymouth": (-4.1427, 50.3755),
    "Aberdeen": (-2.0943, 57.1497), "Inverness": (-4.2247, 57.4778),
    "Exeter": (-3.5339, 50.7184), "York": (-1.0815, 53.9600),
    "Cambridge": (0.1218, 52.2053), "Swansea": (-3.9436, 51.6214),
}
HALF_KM = 6.5


def box(lon, lat):
    import math
    dlat = HALF_KM / 111.32
    dlon = HALF_KM / (111.32 * math.cos(math.radians(lat)))
    return (lon - dlon, lat - dlat, lon + dlon, lat + dlat)


class Server:
    """A build serving the release on a free port, its downloads in a folder of its own."""

    def __init__(self, binary, db):
        self.dir = tempfile.mkdtemp(prefix="geoparquet-bench-")
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        self.proc = subprocess.Popen(
            [binary, "--db", db, "--bind", f"127.0.0.1:{port}", "--lazy-downloads",
             "--downloads-dir", self.dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(600):
            try:
                request(self.base + "/api/regions", "HEAD")
                return
            except OSError:
                time.sleep(0.1)
        raise SystemExit(f"{binary} did not start")

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def write_times(builds, db, rounds, keep):
    """Each build's first-GET seconds of each file, best of `rounds`; the files kept in `keep`."""
    times = {name: {f: [] for f in FILES} for name in builds}
    for r in range(rounds):
        order = list(builds.items()) if r % 2 == 0 else list(builds.items())[::-1]
        for name, binary in order:
            server = Server(binary, db)
            try:
                for f in FILES:
                    dest = os.path.join(keep, f"{name}-{f}.parquet")
                    t = time.perf_counter()
                    download(f"{server.base}/downloads/{f}.parquet", dest)
                    times[name][f].append(time.perf_counter() - t)
            finally:
                server.stop()
    return times


def group_extents(path):
    """Each row group's (xmin, ymin, xmax, ymax) of its rows' own longitude and latitude."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    f = pq.ParquetFile(path)
    out = []
    for g in range(f.num_row_groups):
        t = f.read_row_group(g, columns=["longitude", "latitude"])
        lon, lat = pc.min_max(t["longitude"]), pc.min_max(t["latitude"])
        out.append((lon["min"].as_py(), lat["min"].as_py(), lon["max"].as_py(), lat["max"].as_py()))
    return out


def visible_extents(path):
    """Each row group's extent as pyarrow's statistics give it: the `bbox` fields' (new), else
    longitude's and latitude's; None where pyarrow has no min/max (the group must be read)."""
    import pyarrow.parquet as pq
    md = pq.ParquetFile(path).metadata
    names = [md.schema.column(i).path for i in range(md.num_columns)]
    if "bbox.xmin" in names:
        leaves = [("bbox.xmin", "min"), ("bbox.ymin", "min"), ("bbox.xmax", "max"),
                  ("bbox.ymax", "max")]
    else:
        leaves = [("longitude", "min"), ("latitude", "min"), ("longitude", "max"),
                  ("latitude", "max")]
    out = []
    for g in range(md.num_row_groups):
        stats = [md.row_group(g).column(names.index(n)).statistics for n, _ in leaves]
        if not all(s is not None and s.has_min_max for s in stats):
            out.append(None)
        else:
            out.append(tuple(getattr(s, k) for s, (_, k) in zip(stats, leaves)))
    return out


def meets(extent, b):
    if extent is None:
        return True
    if any(v is None for v in extent):
        return False  # no place in the group
    return extent[0] <= b[2] and extent[2] >= b[0] and extent[1] <= b[3] and extent[3] >= b[1]


def group_shares(path):
    by_data, by_stats = group_extents(path), visible_extents(path)
    share = lambda ext, b: sum(meets(e, b) for e in ext) / len(ext)  # noqa: E731
    boxes = [box(*c) for c in TOWNS.values()]
    return {"groups": len(by_data),
            "by_data": [share(by_data, b) for b in boxes],
            "by_pyarrow": [share(by_stats, b) for b in boxes]}


def box_sql(url, b, covering):
    where = (f"bbox.xmin <= {b[2]} AND bbox.xmax >= {b[0]} AND bbox.ymin <= {b[3]} "
             f"AND bbox.ymax >= {b[1]}" if covering else
             f"longitude BETWEEN {b[0]} AND {b[2]} AND latitude BETWEEN {b[1]} AND {b[3]}")
    return f"SELECT count(*), sum(all_motor_vehicles) FROM read_parquet('{url}') WHERE {where}"


def la_sql(url, la):
    return (f"SELECT count(*), sum(all_motor_vehicles) FROM read_parquet('{url}') "
            f"WHERE local_authority_id = {int(la)}")


def duck_bytes(ext, proxy, sql):
    proxy.reset()
    con = duck(ext)
    rows = con.execute(sql).fetchall()
    con.close()
    return proxy.bytes, [tuple(r) for r in rows]


def duckdb_shares(builds, db, keep, la):
    """Bytes DuckDB takes through a counting proxy, per box and for the authority, by build."""
    ext = httpfs_file()
    out = {}
    for name, binary in builds.items():
        server = Server(binary, db)
        proxy = CountingProxy(server.base)
        try:
            out[name] = {}
            for f in QUERIED:
                size = os.path.getsize(os.path.join(keep, f"{name}-{f}.parquet"))
                url = f"{proxy.base}/downloads/{f}.parquet"
                request(f"{server.base}/downloads/{f}.parquet", "HEAD")  # written before
                boxes = [duck_bytes(ext, proxy, box_sql(url, box(*c), name == "new"))
                         for c in TOWNS.values()]
                la_bytes, la_rows = duck_bytes(ext, proxy, la_sql(url, la))
                out[name][f] = {"size": size,
                                "boxes": [n / size for n, _ in boxes],
                                "box_answers": [a for _, a in boxes],
                                "la": la_bytes / size, "la_answer": la_rows}
        finally:
            proxy.stop()
            server.stop()
    return out


def pct(v):
    return f"{100 * v:.1f}%"


def markdown(res):
    lines = [f"`{' '.join(res['argv'])}`", "",
             "| file | old bytes | new bytes | new / old | write s old | write s new |",
             "|---|---|---|---|---|---|"]
    for f in FILES:
        o, n = res["sizes"]["old"][f], res["sizes"]["new"][f]
        wo, wn = min(res["write"]["old"][f]), min(res["write"]["new"][f])
        lines.append(f"| {f} | {o:,} | {n:,} | {n / o:.3f} | {wo:.2f} | {wn:.2f} |")
    lines += ["", "| file | build | row groups | boxes: groups read by extent (mean, max) | "
              "by pyarrow's statistics (mean) | DuckDB share of file per box (mean, max) | "
              "DuckDB share, local authority |", "|---|---|---|---|---|---|---|"]
    for f in QUERIED:
        for name in ("old", "new"):
            g, d = res["groups"][name][f], res["duckdb"][name][f]
            mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
            lines.append(
                f"| {f} | {name} | {g['groups']} | {pct(mean(g['by_data']))}, "
                f"{pct(max(g['by_data']))} | {pct(mean(g['by_pyarrow']))} | "
                f"{pct(mean(d['boxes']))}, {pct(max(d['boxes']))} | {pct(d['la'])} |")
    lines.append("")
    lines.append("answers agree: " + str(res["agree"]))
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--db", required=True)
    p.add_argument("--old", required=True)
    p.add_argument("--new", required=True)
    p.add_argument("--la", type=int, default=42)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    builds = {"old": args.old, "new": args.new}
    keep = tempfile.mkdtemp(prefix="geoparquet-files-")
    try:
        write = write_times(builds, args.db, args.rounds, keep)
        sizes = {n: {f: os.path.getsize(os.path.join(keep, f"{n}-{f}.parquet")) for f in FILES}
                 for n in builds}
        groups = {n: {f: group_shares(os.path.join(keep, f"{n}-{f}.parquet")) for f in QUERIED}
                  for n in builds}
        duckdb = duckdb_shares(builds, args.db, keep, args.la)
    finally:
        shutil.rmtree(keep, ignore_errors=True)
    agree = all(duckdb["old"][f][k] == duckdb["new"][f][k]
                for f in QUERIED for k in ("box_answers", "la_answer"))
    res = {"argv": ["bench/geoparquet.py"] + sys.argv[1:], "sizes": sizes, "write": write,
           "groups": groups, "duckdb": duckdb, "agree": agree}
    print(json.dumps(res, indent=1) if args.json else markdown(res))


if __name__ == "__main__":
    main()
