#!/usr/bin/env bash
# The disk of three kept releases (issue 36, part 4): the full-size synthetic release and two
# successors (bench/successor.py --by-direction) loaded one after another with --release into
# WORK/t.db, any further options passed to each load (e.g. --whole-rows). Prints each load's
# seconds and peak memory, then the disk: FILE, the releases folder, the downloads folder (hard
# links counted once), and both as multiples of one release (FILE; FILE and its downloads).
#
#   bench/releases_disk.sh FULL SUCC1 SUCC2 WORK [LOAD OPTIONS...]
#
# Env: LOADER (default: this checkout's release build).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOADER=${LOADER:-${CARGO_TARGET_DIR:-$ROOT/target}/release/roadtraffic-load}
FULL=$1 SUCC1=$2 SUCC2=$3 WORK=$4
shift 4
rm -rf "$WORK"
mkdir -p "$WORK"
for release in "r1 $FULL" "r2 $SUCC1" "r3 $SUCC2"; do
    read -r name input <<< "$release"
    /usr/bin/time -f "$name: %e s, %M KiB peak" \
        "$LOADER" --quiet --db "$WORK/t.db" --release "$name" "$input" "$@"
done
bytes() { du -B1 -s "$@" | tail -1 | cut -f1; }
one=$(stat -c %s "$WORK/t.db")
kept=$(bytes "$WORK/t.db.releases")
downloads=$(bytes "$WORK/t.db.downloads")
latest=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["releases"][-1]["id"][:16])' \
    "$WORK/t.db.releases/releases.json")
latest_downloads=$(bytes "$WORK/t.db.downloads/$latest-v1")
all=$(bytes "$WORK")
echo "FILE $one B, releases folder $kept B, downloads $downloads B (the latest's alone $latest_downloads B), all $all B"
echo "SQLite files: $(echo "scale=3; ($one + $kept) / $one" | bc)x one release's"
echo "everything: $(echo "scale=3; $all / ($one + $latest_downloads)" | bc)x one release's file and downloads"
