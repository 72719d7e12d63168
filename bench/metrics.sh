#!/usr/bin/env bash
# What the metrics cost: the page-1 benchmark of serve.sh (raw counts, page 1 of 250 rows) on
# one roadtraffic-serve, in alternating rounds without and with a scraper reading /metrics
# every SCRAPE_EVERY seconds (Prometheus scrapes every 15 s to 1 min: the default of 1 s is
# harsher than any real setup), same server, same run. Every request is counted by the metrics
# middleware in both; the difference is what scraping adds. With BASELINE=path to a
# roadtraffic-serve built without the metrics (e.g. from the commit before them), a third
# series measures the middleware itself, on the same file and port.
#
#   bench/metrics.sh DB            (ROUNDS=3 DURATION=10s CONNS=16 THREADS=2 SCRAPE_EVERY=1)
#
# Prints a markdown table: median requests/s and p99 of each, the ratio to "no scraping", and
# the scrapes made (each checked: 200, ending in a newline) with their median time.
set -euo pipefail

DB=$(realpath "${1:?usage: bench/metrics.sh DB}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${SERVER:-${CARGO_TARGET_DIR:-$ROOT/target}/release/roadtraffic-serve}
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-10s} CONNS=${CONNS:-16} THREADS=${THREADS:-2}
PORT=${PORT:-18095} SCRAPE_EVERY=${SCRAPE_EVERY:-1}
[ -x "$SERVER" ] || { echo "no $SERVER: cargo build --release" >&2; exit 1; }
for tool in wrk curl; do
    command -v "$tool" > /dev/null || { echo "metrics.sh: $tool is missing (bench/setup.sh)" >&2; exit 1; }
done

OUT_DIR=${OUT_DIR:-${BENCH_DATA:-$ROOT/target/bench-data}} && mkdir -p "$OUT_DIR"
WORK=$(mktemp -d "$(cd "$OUT_DIR" && pwd)/metrics.XXXXXX")
PID=
stop_server() { [ -z "$PID" ] || { kill "$PID" 2> /dev/null; wait "$PID" 2> /dev/null || true; PID=; }; }
cleanup() { stop_server; rm -rf "$WORK"; }
trap cleanup EXIT

start_server() {   # start_server BINARY
    "$1" --db "$DB" --bind "127.0.0.1:$PORT" > "$WORK/server.log" 2>&1 &
    PID=$!
    for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/api/regions" > /dev/null && return; sleep 0.1; done
    echo "the server did not start" >&2; cat "$WORK/server.log" >&2; exit 1
}

URL="http://127.0.0.1:$PORT/api/raw-counts?page%5Bsize%5D=250&page%5Bnumber%5D=1"
# round NAME [scrape]: one wrk run; appends "rps p99_ms" to $WORK/NAME, scrape times (ms) to
# $WORK/scrapes.
round() {
    local scraper=
    if [ "${2:-}" = scrape ]; then
        (
            while :; do
                curl -fsS -o "$WORK/scrape.txt" -w '%{time_total}\n' \
                    "http://127.0.0.1:$PORT/metrics" >> "$WORK/scrape-times"
                [ "$(tail -c1 "$WORK/scrape.txt" | od -An -c | tr -d ' ')" = '\n' ] ||
                    { echo "a scrape was cut short" >&2; exit 1; }
                sleep "$SCRAPE_EVERY"
            done
        ) &
        scraper=$!
    fi
    wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --timeout 30s --latency "$URL" > "$WORK/wrk.out" 2>&1
    [ -z "$scraper" ] || { kill "$scraper"; wait "$scraper" 2> /dev/null || true; }
    ! grep -q "Non-2xx\|Socket errors" "$WORK/wrk.out" || { cat "$WORK/wrk.out" >&2; exit 1; }
    awk '/^Requests\/sec/ { rps = $2 }
         $1 == "99%" { v = $2; ms = v + 0
                       if (v ~ /us$/) ms /= 1000; else if (v ~ /[^m]s$/) ms *= 1000 }
         END { printf "%s %.2f\n", rps, ms }' "$WORK/wrk.out" >> "$WORK/$1"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: > "$WORK/scrape-times"
start_server "$SERVER"
curl -fsS "$URL" > /dev/null   # warm
for _ in $(seq "$ROUNDS"); do
    round plain
    round scraped scrape
done
stop_server
if [ -n "${BASELINE:-}" ]; then
    start_server "$BASELINE"
    curl -fsS "$URL" > /dev/null
    for _ in $(seq "$ROUNDS"); do round baseline; done
    stop_server
fi

PLAIN=$(cut -d' ' -f1 "$WORK/plain" | median)
row() {   # row LABEL FILE
    local rps p99
    rps=$(cut -d' ' -f1 "$WORK/$2" | median)
    p99=$(cut -d' ' -f2 "$WORK/$2" | median)
    awk -v l="$1" -v r="$rps" -v p="$p99" -v b="$PLAIN" -v all="$(cut -d' ' -f1 "$WORK/$2" | tr '\n' ' ')" \
        'BEGIN { printf "| %s | %.0f | %.2f ms | %.3f | %s|\n", l, r, p, r / b, all }'
}
echo "# $(date -u +%FT%TZ) $(nproc) cores; wrk -t$THREADS -c$CONNS -d$DURATION x $ROUNDS rounds each, alternating; DB $DB"
echo "# page 1 of raw counts, 250 rows: $URL"
echo
echo "| server | requests/s (median) | p99 (median) | vs no scraping | each round |"
echo "|---|---|---|---|---|"
row "metrics, not scraped" plain
row "metrics, scraped every $SCRAPE_EVERY s" scraped
[ -z "${BASELINE:-}" ] || row "no metrics ($BASELINE)" baseline
echo
SCRAPES=$(wc -l < "$WORK/scrape-times")
SCRAPE_MS=$(awk '{ print $1 * 1000 }' "$WORK/scrape-times" | median)
echo "- $SCRAPES scrapes of $(wc -c < "$WORK/scrape.txt") bytes ($(grep -vc '^#' "$WORK/scrape.txt") series), median $SCRAPE_MS ms each"
