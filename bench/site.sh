#!/usr/bin/env bash
# Website benchmark: each kind of page of roadtraffic-serve under wrk (median, p99, req/s), the
# map's point data on the wire, the home page drawn in headless Chromium (load event, map
# painted), and the same count point on Datasette serving the same file in the same run (its
# row page, and its table of AADF rows: what a Datasette user opens instead).
#
#   bench/site.sh DB             (DB built by roadtraffic-load; prints a markdown table)
#
# Env: PORT (18090) and PORT2 (18091), DURATION (10s), THREADS (2), CONNS (8),
#      ROUNDS (5) cold Chromium loads of the home page, KEEP_LOGS=1 to keep wrk's output.
# Needs: wrk, sqlite3, datasette, chromium, python3 with websocket-client (bench/setup.sh).
# Build first: cargo build --release --bin roadtraffic-serve
set -euo pipefail

DB=$(realpath "${1:?usage: bench/site.sh DB}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${SERVER:-$ROOT/target/release/roadtraffic-serve}
PORT=${PORT:-18090} PORT2=${PORT2:-18091}
DURATION=${DURATION:-10s} THREADS=${THREADS:-2} CONNS=${CONNS:-8} ROUNDS=${ROUNDS:-5}
DBNAME=$(basename "${DB%.*}")   # Datasette names the database after the file's stem
[ -x "$SERVER" ] || { echo "no $SERVER: cargo build --release --bin roadtraffic-serve" >&2; exit 1; }
for tool in wrk sqlite3 datasette chromium python3; do
    command -v "$tool" >/dev/null || { echo "no $tool: run bench/setup.sh" >&2; exit 1; }
done

WORK=$(mktemp -d "${OUT_DIR:-/tmp}/site-bench.XXXXXX")
OURS_PID= DS_PID=
cleanup() {
    for p in $OURS_PID $DS_PID; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [ "${KEEP_LOGS:-0}" = 1 ]; then echo "logs kept in $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# --- The pages to ask for, looked up in the file itself: the biggest areas, and the count
# point with the most AADF rows (its page is the heaviest of its kind) -----------------------
q() { sqlite3 -readonly "$DB" "$1"; }
REGION=$(q "select region_id from count_points group by 1 order by count(*) desc limit 1")
LA=$(q "select local_authority_id from count_points group by 1 order by count(*) desc limit 1")
CP=$(q "select count_point_id from aadf group by 1 order by count(*) desc, 1 limit 1")
ROAD=$(q "select road_name from count_points where count_point_id = $CP")
POINTS=$(q "select count(*) from count_points")
echo "# $POINTS count points; region $REGION, local authority $LA (the most count points);"
echo "# count point $CP on $ROAD (the most AADF rows)"

# --- Start both servers ---------------------------------------------------------------------
"$SERVER" --db "$DB" --bind "127.0.0.1:$PORT" > "$WORK/ours.log" 2>&1 &
OURS_PID=$!
datasette serve -i "$DB" --host 127.0.0.1 --port "$PORT2" \
    --setting sql_time_limit_ms 10000 --setting suggest_facets off > "$WORK/ds.log" 2>&1 &
DS_PID=$!
OURS="http://127.0.0.1:$PORT" DS="http://127.0.0.1:$PORT2"
# Ready: an API page, which does not learn the site's summary of the file.
for url in "$OURS/api/regions?page%5Bsize%5D=1" "$DS/$DBNAME.json"; do
    for i in $(seq 120); do   # at most 60 s each
        curl -fs -o /dev/null "$url" && break
        [ "$i" -lt 120 ] || { echo "no answer from $url" >&2; tail "$WORK"/*.log >&2; exit 1; }
        sleep 0.5
    done
done
# The first page after start also learns what every page shares (the map's points, the
# areas, the headline figures), once per loaded file.
FIRST=$(curl -fsS -o /dev/null -w '%{time_total}' "$OURS/")

# --- The map's point data: its URL is the home page's map's data attribute ------------------
POINTS_URL=$OURS$(curl -fsS "$OURS/" | grep -o 'data-points="[^"]*"' | sed -n 1p | cut -d'"' -f2)
WIRE=$(curl -fsS -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download}' "$POINTS_URL")
PLAIN=$(curl -fsS -o /dev/null -w '%{size_download}' "$POINTS_URL")

# --- Pages under wrk --------------------------------------------------------------------------
# bench URL: one checked request (must be 200), then wrk. Sets RESULT to
# "median p99 req/s bytes errors".
n=0 RESULT=
bench() {
    n=$((n + 1))
    local bytes
    bytes=$(curl -fsS -o /dev/null -w '%{size_download}' "$1") || { echo "failed: $1" >&2; exit 1; }
    wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --timeout 30s --latency "$1" > "$WORK/wrk.$n" 2>&1
    RESULT=$(awk -v bytes="$bytes" '
        /^Requests\/sec/ { rps = $2 }
        $1 == "50%"      { median = $2 }
        $1 == "99%"      { p99 = $2 }
        /timeout [0-9]/  { err += $NF }
        /Non-2xx/        { err += $NF }
        END { printf "%s %s %s %s %d\n", median, p99, rps, bytes, err }' "$WORK/wrk.$n")
}

ROAD_Q=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$ROAD")
CASES=(
"ours: home (map, headline figures)|$OURS/"
"ours: search \`$ROAD\`|$OURS/?q=$ROAD_Q"
"ours: regions|$OURS/regions"
"ours: region $REGION|$OURS/regions/$REGION"
"ours: local authority $LA|$OURS/local-authorities/$LA"
"ours: count point $CP|$OURS/manualcountpoints/$CP"
"ours: about|$OURS/about"
"ours: 404 page|$OURS/manualcountpoints/0"
"Datasette: count point $CP row page|$DS/$DBNAME/count_points/$CP"
"Datasette: AADF rows of count point $CP|$DS/$DBNAME/aadf?count_point_id=$CP"
)
echo
echo "| page | median | p99 | req/s | bytes | errors |"
echo "|---|---|---|---|---|---|"
for c in "${CASES[@]}"; do
    IFS='|' read -r label url <<< "$c"
    if [[ $label == *404* ]]; then   # a 404 is its answer: checked by status, not by curl -f
        [ "$(curl -s -o /dev/null -w '%{http_code}' "$url")" = 404 ] || { echo "not a 404: $url" >&2; exit 1; }
        wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --timeout 30s --latency "$url" > "$WORK/wrk.404" 2>&1
        RESULT=$(awk '/^Requests\/sec/ { r = $2 } $1 == "50%" { m = $2 } $1 == "99%" { p = $2 }
                      END { printf "%s %s %s - 0\n", m, p, r }' "$WORK/wrk.404")
    else
        bench "$url"
    fi
    read -r median p99 rps bytes err <<< "$RESULT"
    echo "| $label | $median | $p99 | $rps | $bytes | $err |"
done

# --- The home page in headless Chromium: cold profile each round -----------------------------
read -r LOAD PAINTED < <(python3 "$ROOT/bench/site_paint.py" "$OURS/" "$ROUNDS" 2> "$WORK/paint.log")
echo
echo "| measure | value |"
echo "|---|---|"
echo "| map point data, $POINTS count points: on the wire (gzip) / plain | $WIRE / $PLAIN bytes |"
echo "| first page after start (learns the file's summary once) | $(awk -v t="$FIRST" 'BEGIN { printf "%.0f ms", t * 1000 }') |"
echo "| home page in headless Chromium, median of $ROUNDS cold loads: load event | $LOAD ms |"
echo "| home page in headless Chromium, median of $ROUNDS cold loads: map painted | $PAINTED ms |"
echo
echo "wrk -t$THREADS -c$CONNS -d$DURATION --timeout 30s --latency; $(nproc) cores; $(chromium --version 2>/dev/null | head -1); DB $DB"
