#!/usr/bin/env bash
# Kept releases (issue 25): a plain load into an empty folder, then three releases kept side by
# side in one --db (the full-size synthetic release and two successors, bench/successor.py):
# seconds, peak memory, and the disk of the folder beside one complete file.
#
#   bench/releases.sh FULL SUCC1 SUCC2 [WORK]
#
# Build first: cargo build --release -p roadtraffic
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOADER=${LOADER:-${CARGO_TARGET_DIR:-$ROOT/target}/release/roadtraffic-load}
FULL=$1 SUCC1=$2 SUCC2=$3 WORK=${4:-$(mktemp -d)}
[ -x "$LOADER" ] || { echo "no $LOADER: cargo build --release -p roadtraffic" >&2; exit 1; }

# Seconds and peak resident memory (MB) of a command, from GNU time.
measure() {
    local log
    log=$(mktemp)
    /usr/bin/time -v "$@" 2>"$log" >/dev/null || { cat "$log" >&2; exit 1; }
    awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0;
                    for (i = 1; i <= n; i++) s = s * 60 + t[i]; secs = s }
                /Maximum resident set size/ { mb = $2 / 1024 }
                END { printf "%.1f s, %.0f MB peak", secs, mb }' "$log"
    rm -f "$log"
}

rm -rf "$WORK/plain" "$WORK/kept"
mkdir -p "$WORK/plain" "$WORK/kept"
sync
echo "plain load into an empty folder: $(measure "$LOADER" --quiet --db "$WORK/plain/t.db" "$FULL")"
i=0
for input in "$FULL" "$SUCC1" "$SUCC2"; do
    i=$((i + 1))
    sync
    echo "release r$i kept: $(measure "$LOADER" --quiet --db "$WORK/kept/t.db" --release "r$i" "$input")"
done
one=$(stat -c %s "$WORK/kept/t.db")
all=$(du -B1 -s "$WORK/kept" | cut -f1)
echo "disk: $((all / 1000000)) MB for 3 releases, $((one / 1000000)) MB for one: $(echo "scale=2; $all / $one" | bc)x"
"$LOADER" releases --db "$WORK/kept/t.db"
