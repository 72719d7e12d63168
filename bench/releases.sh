#!/usr/bin/env bash
# Kept releases (issue 25): three releases kept side by side in one --db (the full-size
# synthetic release and two successors, bench/successor.py), the third against a plain load
# into an empty folder, rounds interleaved: seconds, peak memory, and the disk of the folder
# beside one complete file.
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
KEPT=$WORK/kept/t.db
sync
echo "release r1 kept (into an empty folder): $(measure "$LOADER" --quiet --db "$KEPT" --release r1 "$FULL")"
echo "release r2 kept: $(measure "$LOADER" --quiet --db "$KEPT" --release r2 "$SUCC1")"
# Rounds interleaved (the machine is shared): a plain load into an empty folder, the third
# release kept (with its change report), and that release dropped again for the next round.
for round in $(seq "${ROUNDS:-3}"); do
    rm -f "$WORK/plain/t.db"
    sync
    echo "round $round: plain load into an empty folder: $(measure "$LOADER" --quiet --db "$WORK/plain/t.db" "$FULL")"
    sync
    echo "round $round: release r3 kept: $(measure "$LOADER" --quiet --db "$KEPT" --release r3 "$SUCC2")"
    one=$(stat -c %s "$KEPT")
    all=$(du -B1 -s "$WORK/kept" | cut -f1)
    echo "round $round: disk: $((all / 1000000)) MB for 3 releases, $((one / 1000000)) MB for one: $(echo "scale=2; $all / $one" | bc)x"
    [ "$round" = "${ROUNDS:-3}" ] && "$LOADER" releases --db "$KEPT"
    echo "round $round: r3 dropped (r2 made complete again): $(measure "$LOADER" --quiet --db "$KEPT" --drop-release r3)"
done
