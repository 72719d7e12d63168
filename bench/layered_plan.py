"""The plan and time of one page of an older kept release whose AADF table is read through
layers (a temporary view of UNION ALL, made here as the server makes it from the manifest):
the statement of a page of one year as the server wrote it before the seventh round of issue 36
(its ORDER BY key `u.first_id` not selected) and as it writes it now (selected). Python's
sqlite3 alone, one statement at a time, best of three.

    python3 bench/layered_plan.py DB [RELEASE] [YEAR]

RELEASE: the oldest kept one by default; YEAR: the middle one of its runs by default.
"""
import json
import sqlite3
import sys
import time
from pathlib import Path


def path_of(db, name):
    return db if name is None else Path(str(db) + ".releases") / name


def connect(db, release):
    """The release's file as main, each file its layers name attached, the view made."""
    files = release["layered"]["aadf"]
    conn = sqlite3.connect(f"file:{path_of(db, release['file'])}?mode=ro", uri=True)
    schemas = ["main"]
    for i, name in enumerate(files[1:]):
        conn.execute(f"ATTACH ? AS shared{i}", (f"file:{path_of(db, name)}?mode=ro",))
        schemas.append(f"shared{i}")
    arms = []
    for i, schema in enumerate(schemas):
        table = "aadf" if i == len(schemas) - 1 else "aadf__own"
        hidden = [f"id NOT IN (SELECT id FROM {s}.aadf__hide)" for s in schemas[:i]]
        where = f" WHERE {' AND '.join(hidden)}" if hidden else ""
        arms.append(f"SELECT * FROM {schema}.{table}{where}")
    conn.execute(f"CREATE TEMP VIEW aadf AS {' UNION ALL '.join(arms)}")
    return conn


def main():
    db = Path(sys.argv[1])
    releases = json.loads((Path(str(db) + ".releases") / "releases.json").read_text())
    name = sys.argv[2] if len(sys.argv) > 2 else releases["releases"][0]["name"]
    release = next(r for r in releases["releases"] if r["name"] == name)
    conn = connect(db, release)
    years = [y for (y,) in conn.execute("SELECT DISTINCT year FROM aadf_runs ORDER BY year")]
    year = int(sys.argv[3]) if len(sys.argv) > 3 else years[len(years) // 2]
    print(f"{name}, aadf through {release['layered']['aadf']}, year {year}")
    for label, extra in [("before (u.first_id not selected)", ""), ("now (selected)", ", u.first_id")]:
        sql = (f"SELECT r.id, r.count_point_id, r.all_motor_vehicles{extra} FROM aadf_runs u "
               "JOIN aadf r ON r.id BETWEEN u.first_id AND u.last_id WHERE u.year = ? "
               "ORDER BY u.first_id, r.id LIMIT 250")
        plan = [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", (year,))]
        times = []
        for _ in range(3):
            start = time.perf_counter()
            rows = conn.execute(sql, (year,)).fetchall()
            times.append(time.perf_counter() - start)
        print(f"{label}: {len(rows)} rows, best {min(times) * 1000:.2f} ms; plan: {plan}")


if __name__ == "__main__":
    main()
