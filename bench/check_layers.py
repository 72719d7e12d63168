"""Checks, independently of the server and the loader, that each older kept release of SHARED
(loaded by default, its rows shared) reads its AADF tables, through the layers its manifest
lists, as the same rows, each value of the same type, as the same release of WHOLE (the same
inputs loaded with --whole-rows). Reads the SQLite files with Python's sqlite3.

    python3 bench/check_layers.py SHARED/t.db WHOLE/t.db
"""
import hashlib
import json
import sqlite3
import sys
from pathlib import Path

TABLES = ["aadf", "aadf_by_direction"]


def manifest(db):
    return json.loads((Path(str(db) + ".releases") / "releases.json").read_text())


def path_of(db, name):
    return db if name is None else Path(str(db) + ".releases") / name


def typed_rows(conn, table):
    """Every row, with each value's SQLite type after it, by id."""
    cols = [c[1] for c in conn.execute(f'PRAGMA table_info("{table}")')]
    types = ", ".join(f'typeof("{c}")' for c in cols)
    return {r[0]: r for r in conn.execute(f'SELECT *, {types} FROM "{table}"')}


def through_layers(db, files, table):
    """A layer's own rows over the layers and the table below, less the ids hidden above."""
    hidden, out = set(), {}
    for i, name in enumerate(files):
        conn = sqlite3.connect(f"file:{path_of(db, name)}?mode=ro", uri=True)
        whole = i == len(files) - 1
        rows = typed_rows(conn, table if whole else f"{table}__own")
        out.update({k: v for k, v in rows.items() if k not in hidden and k not in out})
        if not whole:
            hidden |= {r[0] for r in conn.execute(f'SELECT id FROM "{table}__hide"')}
        conn.close()
    return out


def kept_whole(db, release, table):
    name = release["shared"][table] if table in release["shared"] else release["file"]
    conn = sqlite3.connect(f"file:{path_of(db, name)}?mode=ro", uri=True)
    rows = typed_rows(conn, table)
    conn.close()
    return rows


def main():
    shared_db, whole_db = Path(sys.argv[1]), Path(sys.argv[2])
    older = zip(manifest(shared_db)["releases"][:-1], manifest(whole_db)["releases"][:-1])
    for shared, whole in older:
        assert shared["name"] == whole["name"], (shared["name"], whole["name"])
        for table in TABLES:
            files = shared.get("layered", {}).get(table)
            assert files, f'{shared["name"]} {table}: not read through layers'
            got, want = through_layers(shared_db, files, table), kept_whole(whole_db, whole, table)
            digest = hashlib.sha256(repr(sorted(got.items())).encode()).hexdigest()[:12]
            print(f'{shared["name"]} {table}: {len(got)} rows through {files}, '
                  f'{len(want)} kept whole, equal: {got == want} ({digest})')
            assert got == want
    print("every older release's AADF tables are equal")


if __name__ == "__main__":
    main()
