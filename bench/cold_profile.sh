#!/usr/bin/env bash
# Where a cold page's time goes: the cold mix of bench/serve.sh (every page of 250 unfiltered raw
# counts and of the biggest local authority's, in random order, the response cache off) asked
# of a server by wrk (-t2 -c16), with:
#   - its CPU per request (user + system from /proc over the run), alternating with BEFORE's
#     in the same rounds when BEFORE is given: each round starts both servers afresh;
#   - then `perf record --call-graph dwarf` of SERVER (and BEFORE) under the same mix, each
#     sample put in one part of the work by bench/cold_profile.py.
#
#   SERVER=target/release/roadtraffic-serve BEFORE=<older build> bench/cold_profile.sh DB
#
# Env: SERVER, BEFORE, ROUNDS (3), DURATION (5s), PERF_SECONDS (4; 0: no profile), PORT (18600).
# The servers run with --lazy-downloads and a downloads folder of their own, so that writing
# the national files does not run beside the measure, nor beside DB.
set -euo pipefail

DB=$(realpath "${1:?usage: bench/cold_profile.sh DB}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${SERVER:-$ROOT/target/release/roadtraffic-serve}
BEFORE=${BEFORE:-}
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-5s} PERF_SECONDS=${PERF_SECONDS:-4} PORT=${PORT:-18600}
WORK=$(mktemp -d)
PID=
trap '[ -z "$PID" ] || kill "$PID" 2> /dev/null; rm -rf "$WORK"' EXIT

q() { sqlite3 -readonly "$DB" "$1"; }
ROWS=$(q "select count(*) from raw_counts")
read -r LA LA_ROWS < <(q "select local_authority_id, count(*) from raw_counts
                          group by 1 order by 2 desc limit 1" | tr '|' ' ')
PAGES="/api/raw-counts?page%5Bsize%5D=250"
{ seq 1 $(( (ROWS + 249) / 250 )) | sed "s|^|$PAGES\&page%5Bnumber%5D=|"
  seq 1 $(( (LA_ROWS + 249) / 250 )) | sed "s|^|$PAGES\&filter%5Blocal_authority_id%5D=$LA\&page%5Bnumber%5D=|"
} > "$WORK/cold.txt"

start() {   # BINARY: serves DB, cache off, warmed by 2 s of the mix; its pid in PID
    ROADTRAFFIC_LAZY_DOWNLOADS=true ROADTRAFFIC_DOWNLOADS_DIR="$WORK/downloads" "$1" --db "$DB" \
        --bind "127.0.0.1:$PORT" --public-url http://mirror.test --response-cache-mb 0 \
        > "$WORK/server.log" 2>&1 &
    PID=$!
    for _ in $(seq 120); do curl -fs -o /dev/null "http://127.0.0.1:$PORT/api/regions" && break; sleep 0.5; done
    mix 2s > /dev/null
}
stop() { kill "$PID"; wait "$PID" 2> /dev/null || true; PID=; }
mix() { wrk -t2 -c16 -d"$1" --timeout 30s -s "$ROOT/bench/random_pages.lua" "http://127.0.0.1:$PORT/" -- "$WORK/cold.txt"; }
cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / hz }' "/proc/$PID/stat"; }

measure() {   # NAME BINARY: one line of req/s and CPU µs per request
    start "$2"
    local before after
    before=$(cpu); mix "$DURATION" > "$WORK/wrk"; after=$(cpu)
    awk -v name="$1" -v cpu="$(awk -v a="$after" -v b="$before" 'BEGIN { print a - b }')" '
        /requests in/ { n = $1 } /^Requests\/sec/ { rps = $2 }
        END { printf "| %s | %s | %.0f |\n", name, rps, cpu * 1e6 / n }' "$WORK/wrk"
    stop
}

echo "# raw_counts $ROWS rows, LA $LA $LA_ROWS rows: $(wc -l < "$WORK/cold.txt") pages; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| round, build | req/s | CPU µs/req |"
echo "|---|---|---|"
for round in $(seq "$ROUNDS"); do
    [ -z "$BEFORE" ] || measure "$round, before" "$BEFORE"
    measure "$round, ours" "$SERVER"
done
[ "$PERF_SECONDS" != 0 ] || exit 0
for build in ${BEFORE:+before} ours; do
    bin=$SERVER; [ "$build" = ours ] || bin=$BEFORE
    start "$bin"
    perf record -q -F 499 --call-graph dwarf,16384 -p "$PID" -o "$WORK/perf.data" -- sleep "$PERF_SECONDS" 2> /dev/null &
    perf_pid=$!
    mix $((PERF_SECONDS + 1))s > /dev/null
    wait $perf_pid
    echo; echo "## $build: $(awk '/^(RssAnon|RssFile)/ { printf "%s %.0f MB ", $1, $2 / 1024 }' "/proc/$PID/status")"
    stop
    perf script -i "$WORK/perf.data" 2> /dev/null | python3 "$ROOT/bench/cold_profile.py"
done
