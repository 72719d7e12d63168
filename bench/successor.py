#!/usr/bin/env python3
"""A successor of a release, for the releases benchmark (issue 25): the same CSV files, with the
revisions a new annual release brings.

    bench/successor.py SRC DEST [--seed N] [--revise 0.07] [--by-direction]

- AADF: a share (--revise) of the estimated rows re-estimated (every vehicle column scaled by
  a factor of 0.85..1.15, the totals with them), and a year added: the latest year's rows
  repeated for the year after, at the end, their counts moved a little.
- AADF by direction: unchanged, unless --by-direction (then revised and extended the same way).
- Every other file (raw counts, count points, the traffic tables) unchanged: hard-linked from
  SRC, so a successor costs the disk of its AADF file only.
"""
import argparse
import csv
import os
import random
import sys

VEHICLES = [
    "pedal_cycles", "two_wheeled_motor_vehicles", "cars_and_taxis", "buses_and_coaches", "LGVs",
    "HGVs_2_rigid_axle", "HGVs_3_rigid_axle", "HGVs_4_or_more_rigid_axle",
    "HGVs_3_or_4_articulated_axle", "HGVs_5_articulated_axle", "HGVs_6_articulated_axle",
]


def scaled(row, cols, factor):
    for c in cols:
        if row[c] not in ("", None):
            row[c] = str(max(0, round(float(row[c]) * factor)))
    hgvs = [c for c in cols if c.startswith("HGVs_")]
    row["all_HGVs"] = str(sum(int(row[c] or 0) for c in hgvs))
    motor = [c for c in cols if c != "pedal_cycles" and not c.startswith("HGVs_")]
    row["all_motor_vehicles"] = str(sum(int(row[c] or 0) for c in motor) + int(row["all_HGVs"]))


def revise(src, dest, rng, share):
    """Rows revised, and the latest year's rows repeated a year on, at the end (the files are
    in year order, as DfT's are)."""
    revised = 0
    with open(src, newline="") as i, open(dest, "w", newline="") as o:
        reader = csv.DictReader(i)
        cols = [c for c in VEHICLES if c in reader.fieldnames]
        writer = csv.DictWriter(o, reader.fieldnames, lineterminator="\n")
        writer.writeheader()
        latest_year, latest = 0, []
        for row in reader:
            year = int(row["year"])
            if year > latest_year:
                latest_year, latest = year, []
            if year == latest_year:
                latest.append(dict(row))
            if row["estimation_method"] == "Estimated" and rng.random() < share:
                scaled(row, cols, rng.uniform(0.85, 1.15))
                revised += 1
            writer.writerow(row)
        for row in latest:
            row["year"] = str(latest_year + 1)
            row["estimation_method"] = "Estimated"
            scaled(row, cols, rng.uniform(0.95, 1.05))
            writer.writerow(row)
    print(f"{os.path.basename(dest)}: {revised} rows revised, {len(latest)} added "
          f"(year {latest_year + 1})", file=sys.stderr)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("src")
    p.add_argument("dest")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--revise", type=float, default=0.07)
    p.add_argument("--by-direction", action="store_true")
    a = p.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.dest, exist_ok=True)
    rewritten = {"dft_traffic_counts_aadf.csv"}
    if a.by_direction:
        rewritten.add("dft_traffic_counts_aadf_by_direction.csv")
    for name in sorted(os.listdir(a.src)):
        src, dest = os.path.join(a.src, name), os.path.join(a.dest, name)
        if os.path.exists(dest):
            os.remove(dest)
        if name in rewritten:
            revise(src, dest, rng, a.revise)
        else:
            os.link(src, dest)


if __name__ == "__main__":
    main()
