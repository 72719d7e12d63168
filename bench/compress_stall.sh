#!/usr/bin/env bash
# What compressing cold pages costs the other requests: with `--compress` (response cache on,
# as by default), wrk asks for distinct pages of raw counts in random order with
# `Accept-Encoding: gzip`, each page built and encoded once, while a second wrk measures the
# latency of a small request (`/api/regions`) on the same server. Where the encoding runs on a
# worker's event loop, a small request behind it waits for it.
#
#   bench/compress_stall.sh DB    (with BEFORE=<an older roadtraffic-serve>: the same, alternating)
#
# Env: DURATION (15s), ROUNDS (2), PORT (18180; BEFORE's is PORT+1), BEFORE, BEFORE_DB (DB).
# Build first: cargo build --release --bin roadtraffic-serve
set -euo pipefail

DB=$(realpath "${1:?usage: bench/compress_stall.sh DB}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${SERVER:-$ROOT/target/release/roadtraffic-serve}
BEFORE=${BEFORE:-} BEFORE_DB=${BEFORE_DB:-$DB}
PORT=${PORT:-18180} DURATION=${DURATION:-15s} ROUNDS=${ROUNDS:-2}
WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

start() { # binary db port
    "$1" --db "$2" --bind "127.0.0.1:$3" --compress > "$WORK/$3.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 100); do curl -fs "http://127.0.0.1:$3/api/regions" > /dev/null && return; sleep 0.1; done
    echo "no server on $3" >&2; exit 1
}

LAST=$(( ($(sqlite3 -readonly "$DB" "select count(*) from raw_counts") + 249) / 250 ))
seq "$LAST" | shuf | sed 's|^|/api/raw-counts?page%5Bsize%5D=250\&page%5Bnumber%5D=|' > "$WORK/pages.txt"

# One measure: the cold gzip load and the small request's latency, side by side.
measure() { # label port
    local base="http://127.0.0.1:$2"
    wrk -t1 -c8 -d"$DURATION" -H "Accept-Encoding: gzip" -s "$ROOT/bench/random_pages.lua" \
        "$base/" -- "$WORK/pages.txt" > "$WORK/cold.txt" &
    local cold=$!
    wrk -t1 -c4 -d"$DURATION" --latency "$base/api/regions" > "$WORK/small.txt"
    wait "$cold"
    printf '| %s | %s | %s | %s | %s |\n' "$1" \
        "$(awk '/Requests\/sec/ {print $2}' "$WORK/cold.txt")" \
        "$(awk '/Requests\/sec/ {print $2}' "$WORK/small.txt")" \
        "$(awk '$1 == "50%" {print $2}' "$WORK/small.txt")" \
        "$(awk '$1 == "99%" {print $2}' "$WORK/small.txt")"
}

start "$SERVER" "$DB" "$PORT"
[ -z "$BEFORE" ] || start "$BEFORE" "$BEFORE_DB" $((PORT + 1))
echo "| server, round | cold gzip pages/s | small req/s | small p50 | small p99 |"
echo "|---|---|---|---|---|"
for round in $(seq "$ROUNDS"); do
    measure "ours, round $round" "$PORT"
    [ -z "$BEFORE" ] || measure "before, round $round" $((PORT + 1))
done
echo "wrk -t1 -c8 (cold, gzip) beside wrk -t1 -c4 --latency /api/regions, -d$DURATION; $(nproc) cores; DB $DB"
