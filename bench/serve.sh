#!/usr/bin/env bash
# Server benchmark: roadtraffic-serve against Datasette (immutable mode) on the same SQLite
# file, with wrk on loopback: requests/s and p99 latency for four kinds of page of raw counts.
#
#   bench/serve.sh DB            (DB built by roadtraffic-load, e.g. /work/bench-data/full.db)
#
# Env: PORT (18080) and PORT2 (18081), DURATION (15s), THREADS (2), CONNS (16),
#      YEAR (2015) and ROAD_TYPE (Minor) for request (d), KEEP_LOGS=1 to keep wrk's output.
# Build first: cargo build --release --bin roadtraffic-serve
set -euo pipefail

DB=$(realpath "${1:?usage: bench/serve.sh DB}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${SERVER:-$ROOT/target/release/roadtraffic-serve}
PORT=${PORT:-18080} PORT2=${PORT2:-18081}
DURATION=${DURATION:-15s} THREADS=${THREADS:-2} CONNS=${CONNS:-16}
YEAR=${YEAR:-2015} ROAD_TYPE=${ROAD_TYPE:-Minor}
SIZE=250
DBNAME=$(basename "${DB%.*}")   # Datasette names the database after the file's stem
[ -x "$SERVER" ] || { echo "no $SERVER: cargo build --release --bin roadtraffic-serve" >&2; exit 1; }

WORK=$(mktemp -d "${OUT_DIR:-/work/bench-data}/serve-bench.XXXXXX")
OURS_PID= DS_PID=
cleanup() {
    for p in $OURS_PID $DS_PID; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [ "${KEEP_LOGS:-0}" = 1 ]; then echo "logs kept in $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# --- The positions to ask for, looked up in the file itself --------------------------------
q() { sqlite3 -readonly "$DB" "$1"; }
ROWS=$(q "select count(*) from raw_counts")
LAST=$(( (ROWS + SIZE - 1) / SIZE ))
# Datasette's keyset equivalent of page P is `_next=<id of the row just before it>`.
LAST_NEXT=$(q "select id from raw_counts order by id limit 1 offset $(( (LAST - 1) * SIZE - 1 ))")
read -r LA LA_ROWS < <(q "select local_authority_id, count(*) from raw_counts
                          group by 1 order by 2 desc limit 1" | tr '|' ' ')
LA_PAGE=$(( ((LA_ROWS + SIZE - 1) / SIZE) * 3 / 4 ))   # ~3/4 of the way to its last page
LA_NEXT=$(q "select id from raw_counts where local_authority_id = $LA
             order by id limit 1 offset $(( (LA_PAGE - 1) * SIZE - 1 ))")
echo "# raw_counts: $ROWS rows, last page $LAST (of $SIZE); LA $LA: $LA_ROWS rows, page $LA_PAGE"

# --- Start both servers (their access logs stay on, as by default) --------------------------
"$SERVER" --db "$DB" --bind "127.0.0.1:$PORT" > "$WORK/ours.log" 2>&1 &
OURS_PID=$!
# suggest_facets off: by default every table page of Datasette also runs facet-suggestion
# queries (~4.6 s per page on 5M rows) — work our API never does, so it is left out.
datasette serve -i "$DB" --host 127.0.0.1 --port "$PORT2" \
    --setting sql_time_limit_ms 10000 --setting max_returned_rows 1000 \
    --setting default_page_size $SIZE --setting suggest_facets off > "$WORK/ds.log" 2>&1 &
DS_PID=$!
for url in "http://127.0.0.1:$PORT/api/raw-counts?page%5Bsize%5D=1" \
           "http://127.0.0.1:$PORT2/$DBNAME.json"; do
    for i in $(seq 120); do   # at most 60 s each
        curl -fs -o /dev/null "$url" && break
        [ "$i" -lt 120 ] || { echo "no answer from $url" >&2; tail "$WORK"/*.log >&2; exit 1; }
        sleep 0.5
    done
done
rss() { awk '/^VmRSS/ { printf "%.0f MB", $2 / 1024 }' "/proc/$1/status"; }
RSS_OURS0=$(rss $OURS_PID) RSS_DS0=$(rss $DS_PID)

# --- The requests ---------------------------------------------------------------------------
OURS="http://127.0.0.1:$PORT/api/raw-counts?page%5Bsize%5D=$SIZE"
DS="http://127.0.0.1:$PORT2/$DBNAME/raw_counts.json?_size=$SIZE"
SQL="http://127.0.0.1:$PORT2/$DBNAME.json?sql=select+*+from+raw_counts"
# Each case: label | our URL | Datasette's URL. Ours is measured once per distinct URL.
CASES=(
"(a) page 1|$OURS&page%5Bnumber%5D=1|$DS"
"(b) last page $LAST, DS keyset _next|$OURS&page%5Bnumber%5D=$LAST|$DS&_next=$LAST_NEXT"
"(b) last page $LAST, DS SQL OFFSET|$OURS&page%5Bnumber%5D=$LAST|$SQL+order+by+id+limit+$SIZE+offset+$(( (LAST - 1) * SIZE ))"
"(c) LA $LA page $LA_PAGE, DS keyset _next|$OURS&filter%5Blocal_authority_id%5D=$LA&page%5Bnumber%5D=$LA_PAGE|$DS&local_authority_id=$LA&_next=$LA_NEXT"
"(c) LA $LA page $LA_PAGE, DS SQL OFFSET|$OURS&filter%5Blocal_authority_id%5D=$LA&page%5Bnumber%5D=$LA_PAGE|$SQL+where+local_authority_id+%3D+$LA+order+by+id+limit+$SIZE+offset+$(( (LA_PAGE - 1) * SIZE ))"
"(d) year=$YEAR road_type=$ROAD_TYPE page 1 (counted)|$OURS&filter%5Byear%5D=$YEAR&filter%5Broad_type%5D=$ROAD_TYPE&page%5Bnumber%5D=1|$DS&year=$YEAR&road_type=$ROAD_TYPE"
)

# bench URL: one checked request (must be 200; warms the cache), then wrk. Sets RESULT to
# "req/s p99 bytes errors" and keeps wrk's output in $WORK.
n=0 RESULT=
bench() {
    n=$((n + 1))
    local bytes
    bytes=$(curl -fsS -o /dev/null -w '%{size_download}' "$1") || { echo "failed: $1" >&2; exit 1; }
    # wrk's default 2 s timeout would drop slow requests from the latency figures.
    wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --timeout 30s --latency "$1" > "$WORK/wrk.$n" 2>&1
    RESULT=$(awk -v bytes="$bytes" '
        /^Requests\/sec/ { rps = $2 }
        $1 == "99%"      { p99 = $2 }
        /timeout [0-9]/  { err += $NF }
        /Non-2xx/        { err += $NF }
        END { printf "%s %s %s %d\n", rps, p99, bytes, err }' "$WORK/wrk.$n")
}

declare -A OURS_RESULT
echo
echo "| request | ours req/s | ours p99 | datasette req/s | datasette p99 | ratio (req/s) | bytes ours / DS | errors ours / DS |"
echo "|---|---|---|---|---|---|---|---|"
for c in "${CASES[@]}"; do
    IFS='|' read -r label ours ds <<< "$c"
    [ -n "${OURS_RESULT[$ours]:-}" ] || { bench "$ours"; OURS_RESULT[$ours]=$RESULT; }
    read -r o_rps o_p99 o_bytes o_err <<< "${OURS_RESULT[$ours]}"
    bench "$ds"
    read -r d_rps d_p99 d_bytes d_err <<< "$RESULT"
    ratio=$(awk -v o="$o_rps" -v d="$d_rps" 'BEGIN { if (d > 0) printf "%.1f", o / d; else print "-" }')
    echo "| $label | $o_rps | $o_p99 | $d_rps | $d_p99 | $ratio | $o_bytes / $d_bytes | $o_err / $d_err |"
done
echo
echo "RSS ours: $RSS_OURS0 before, $(rss $OURS_PID) after; Datasette: $RSS_DS0 before, $(rss $DS_PID) after"
echo "wrk -t$THREADS -c$CONNS -d$DURATION --timeout 30s --latency; $(nproc) cores; DB $DB"
