#!/usr/bin/env bash
# Area sets (issue 35): `areas add` of the real wards and constituencies on a copy of the
# full-size synthetic release, then a load of the full release replacing a file with those sets
# (carried over) against the same load replacing the file without them, rounds interleaved:
# seconds and peak memory (GNU time), and the carry-over's own seconds from the loader's log.
#
#   bench/areas.sh FULL_DB FULL_CSV_DIR AREAS_DIR [WORK] [ROUNDS]
#
# FULL_DB is never written: it is copied into WORK. Build first: cargo build --release -p roadtraffic
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOADER=${LOADER:-${CARGO_TARGET_DIR:-$ROOT/target}/release/roadtraffic-load}
FULL_DB=$1 FULL_CSV=$2 AREAS=$3 WORK=${4:-$(mktemp -d)} ROUNDS=${5:-2}
[ -x "$LOADER" ] || { echo "no $LOADER: cargo build --release -p roadtraffic" >&2; exit 1; }

# Seconds and peak resident memory (MB) of a command, from GNU time; its stderr in $WORK/last.log.
measure() {
    local log
    log=$(mktemp)
    /usr/bin/time -v "$@" 2>"$log" >/dev/null || { cat "$log" >&2; exit 1; }
    cp "$log" "$WORK/last.log"
    awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0;
                    for (i = 1; i <= n; i++) s = s * 60 + t[i]; secs = s }
                /Maximum resident set size/ { mb = $2 / 1024 }
                END { printf "%.1f s, %.0f MB peak", secs, mb }' "$log"
    rm -f "$log"
}

mkdir -p "$WORK/with" "$WORK/without"
cp "$FULL_DB" "$WORK/with/t.db"
cp "$FULL_DB" "$WORK/without/t.db"
sync
echo "areas add wards (7,979 areas): $(measure "$LOADER" areas add --db "$WORK/with/t.db" \
    wards "$AREAS/wards_2023.geojson")"
echo "areas add constituencies (632): $(measure "$LOADER" areas add --db "$WORK/with/t.db" \
    constituencies "$AREAS/constituencies_2024.geojson")"
echo "areas add constituencies on the grid (632): $(measure "$LOADER" areas add --db "$WORK/with/t.db" \
    constituencies_bng "$AREAS/constituencies_2024_bng.geojson")"
"$LOADER" areas list --db "$WORK/with/t.db"
for round in $(seq "$ROUNDS"); do
    for kind in without with; do
        echo "round $round, load replacing a file $kind sets: $(RUST_LOG=info measure "$LOADER" \
            --db "$WORK/$kind/t.db" "$FULL_CSV")"
        grep -h "area sets carried over" "$WORK/last.log" | sed 's/^/    /' || true
    done
done
rm -rf "$WORK/with" "$WORK/without"
