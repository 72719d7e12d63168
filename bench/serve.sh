#!/usr/bin/env bash
# Server benchmark, with wrk on loopback, for four kinds of page of raw counts: (a) page 1,
# (b) the last page, (c) a deep page of a local-authority filter, (d) a counted two-filter page.
#   datasette: against Datasette (immutable mode) on the same SQLite file, the tool a user
#      would otherwise pick: requests/s and p99.
#   nginx: against the ceiling, nginx (Debian's package, a config of this script's own)
#      serving byte-identical copies of our responses as static files. Hot: the same URL
#      repeated (ours with its response cache on, as by default; and, "uncached", the same URL
#      repeated with the cache off: the cost of building the response). Cold: thousands of distinct
#      pages in random order (every page of unfiltered raw counts and of one local-authority
#      filter; ours with the response cache off) against 500 of those same pages as files.
#      Then gzip: a gzip-accepting client of `--compress`. CPU per request of both sides, from
#      /proc. With BEFORE=<an older roadtraffic-serve binary>, the same measures of it in the
#      same run, serving BEFORE_DB (default DB: give one built by its own loader when the
#      schema changed between the two).
#
#   bench/serve.sh DB            (DB built by roadtraffic-load, e.g. "$BENCH_DATA/full.db")
#
# Env: BASELINES ("datasette nginx"), DURATION (15s), ROUNDS (2: nginx part, alternating),
#      THREADS (2), CONNS (16), YEAR (2015) and ROAD_TYPE (Minor) for request (d), BEFORE,
#      BEFORE_DB, PORT (18080; the servers use PORT..PORT+5), KEEP_LOGS=1 to keep wrk's output.
# Build first: cargo build --release --bin roadtraffic-serve
set -euo pipefail

DB=$(realpath "${1:?usage: bench/serve.sh DB}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${SERVER:-$ROOT/target/release/roadtraffic-serve}
BEFORE=${BEFORE:-}
PORT=${PORT:-18080}
DURATION=${DURATION:-15s} THREADS=${THREADS:-2} CONNS=${CONNS:-16} ROUNDS=${ROUNDS:-2}
YEAR=${YEAR:-2015} ROAD_TYPE=${ROAD_TYPE:-Minor}
BASELINES=${BASELINES:-datasette nginx}
RANDOM_PAGES=$ROOT/bench/random_pages.lua   # the cold pages: a random line of a file a request
SIZE=250
DBNAME=$(basename "${DB%.*}")   # Datasette names the database after the file's stem
[ -x "$SERVER" ] || { echo "no $SERVER: cargo build --release --bin roadtraffic-serve" >&2; exit 1; }

OUT_DIR=${OUT_DIR:-${BENCH_DATA:-$ROOT/target/bench-data}} && mkdir -p "$OUT_DIR"
WORK=$(mktemp -d "$(cd "$OUT_DIR" && pwd)/serve-bench.XXXXXX")
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
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
LA_LAST=$(( (LA_ROWS + SIZE - 1) / SIZE ))
LA_PAGE=$(( LA_LAST * 3 / 4 ))   # ~3/4 of the way to its last page
LA_NEXT=$(q "select id from raw_counts where local_authority_id = $LA
             order by id limit 1 offset $(( (LA_PAGE - 1) * SIZE - 1 ))")
echo "# raw_counts: $ROWS rows, last page $LAST (of $SIZE); LA $LA: $LA_ROWS rows, page $LA_PAGE"

PAGES="/api/raw-counts?page%5Bsize%5D=$SIZE"
# The four requests: label | path.
FOUR=(
"(a) page 1|$PAGES&page%5Bnumber%5D=1"
"(b) last page $LAST|$PAGES&page%5Bnumber%5D=$LAST"
"(c) LA $LA page $LA_PAGE|$PAGES&filter%5Blocal_authority_id%5D=$LA&page%5Bnumber%5D=$LA_PAGE"
"(d) year=$YEAR road_type=$ROAD_TYPE page 1 (counted)|$PAGES&filter%5Byear%5D=$YEAR&filter%5Broad_type%5D=$ROAD_TYPE&page%5Bnumber%5D=1"
)

# --- Servers --------------------------------------------------------------------------------
wait_for() {   # URL: at most 60 s
    for _ in $(seq 120); do
        curl -fs -o /dev/null "$1" && return 0
        sleep 0.5
    done
    echo "no answer from $1" >&2; tail "$WORK"/*.log >&2; exit 1
}
# start NAME PORT BINARY ARGS...: a roadtraffic-serve (access log on, as by default) of
# SERVED (default DB); its pid in PID_<NAME>. Page URLs name one public URL, so every server
# writes the same bytes.
start() {
    local name=$1 port=$2 bin=$3; shift 3
    "$bin" --db "${SERVED:-$DB}" --bind "127.0.0.1:$port" --public-url http://mirror.test "$@" \
        > "$WORK/$name.log" 2>&1 &
    PIDS+=($!); printf -v "PID_$name" %s $!
    wait_for "http://127.0.0.1:$port/api/regions"
}
rss() { awk '/^VmRSS/ { printf "%.0f MB", $2 / 1024 }' "/proc/$1/status"; }
# CPU seconds (user + system) used so far by these processes.
cpu() { for p in "$@"; do cat "/proc/$p/stat"; done |
        awk -v hz="$(getconf CLK_TCK)" '{ t += $14 + $15 } END { printf "%.3f", t / hz }'; }

# bench URL [PIDS [WRK ARGS]]: one checked request (must be 200; warms caches), then wrk.
# Sets RESULT to "req/s p99 bytes errors cpu_us_per_request" (CPU of PIDS; "-" without).
n=0 RESULT=
bench() {
    local url=$1 pids=${2:-} bytes before after
    shift $(( $# < 2 ? $# : 2 ))
    n=$((n + 1))
    bytes=$(curl -fsS -o /dev/null -w '%{size_download}' "$url") || { echo "failed: $url" >&2; exit 1; }
    [ -z "$pids" ] || before=$(cpu $pids)
    # wrk's default 2 s timeout would drop slow requests from the latency figures.
    wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --timeout 30s --latency "$url" "$@" > "$WORK/wrk.$n" 2>&1
    [ -z "$pids" ] || after=$(cpu $pids)
    RESULT=$(awk -v bytes="$bytes" -v cpu="${pids:+$(awk -v a="${after:-0}" -v b="${before:-0}" 'BEGIN { print a - b }')}" '
        /requests in/    { requests = $1 }
        /^Requests\/sec/ { rps = $2 }
        $1 == "99%"      { p99 = $2 }
        /timeout [0-9]/  { err += $NF }
        /Non-2xx/        { err += $NF }
        END { us = (cpu != "" && requests > 0) ? sprintf("%.0f", cpu * 1e6 / requests) : "-"
              printf "%s %s %s %d %s\n", rps, p99, bytes, err, us }' "$WORK/wrk.$n")
}
ratio() { awk -v o="$1" -v d="$2" 'BEGIN { if (d > 0) printf "%.2f", o / d; else print "-" }'; }

# --- 1. Against Datasette --------------------------------------------------------------------
datasette_table() {
    start ours $PORT "$SERVER"
    # suggest_facets off: by default every table page of Datasette also runs facet-suggestion
    # queries (~4.6 s per page on 5M rows), work our API never does, so it is left out.
    datasette serve -i "$DB" --host 127.0.0.1 --port $((PORT + 1)) \
        --setting sql_time_limit_ms 10000 --setting max_returned_rows 1000 \
        --setting default_page_size $SIZE --setting suggest_facets off > "$WORK/ds.log" 2>&1 &
    local ds_pid=$!; PIDS+=($ds_pid)
    wait_for "http://127.0.0.1:$((PORT + 1))/$DBNAME.json"
    local rss_ours0 rss_ds0 o="http://127.0.0.1:$PORT" d="http://127.0.0.1:$((PORT + 1))"
    rss_ours0=$(rss "$PID_ours") rss_ds0=$(rss $ds_pid)
    local ds="$d/$DBNAME/raw_counts.json?_size=$SIZE" sql="$d/$DBNAME.json?sql=select+*+from+raw_counts"
    # Each case: label | our path | Datasette's URL. Ours is measured once per distinct URL.
    local cases=(
    "(a) page 1|${FOUR[0]#*|}|$ds"
    "(b) last page $LAST, DS keyset _next|${FOUR[1]#*|}|$ds&_next=$LAST_NEXT"
    "(b) last page $LAST, DS SQL OFFSET|${FOUR[1]#*|}|$sql+order+by+id+limit+$SIZE+offset+$(( (LAST - 1) * SIZE ))"
    "(c) LA $LA page $LA_PAGE, DS keyset _next|${FOUR[2]#*|}|$ds&local_authority_id=$LA&_next=$LA_NEXT"
    "(c) LA $LA page $LA_PAGE, DS SQL OFFSET|${FOUR[2]#*|}|$sql+where+local_authority_id+%3D+$LA+order+by+id+limit+$SIZE+offset+$(( (LA_PAGE - 1) * SIZE ))"
    "(d) year=$YEAR road_type=$ROAD_TYPE page 1 (counted)|${FOUR[3]#*|}|$ds&year=$YEAR&road_type=$ROAD_TYPE"
    )
    declare -A ours_result
    echo
    echo "| request | ours req/s | ours p99 | datasette req/s | datasette p99 | ratio (req/s) | bytes ours / DS | errors ours / DS |"
    echo "|---|---|---|---|---|---|---|---|"
    local c label path dsu o_rps o_p99 o_bytes o_err d_rps d_p99 d_bytes d_err _
    for c in "${cases[@]}"; do
        IFS='|' read -r label path dsu <<< "$c"
        [ -n "${ours_result[$path]:-}" ] || { bench "$o$path"; ours_result[$path]=$RESULT; }
        read -r o_rps o_p99 o_bytes o_err _ <<< "${ours_result[$path]}"
        bench "$dsu"
        read -r d_rps d_p99 d_bytes d_err _ <<< "$RESULT"
        echo "| $label | $o_rps | $o_p99 | $d_rps | $d_p99 | $(ratio "$o_rps" "$d_rps") | $o_bytes / $d_bytes | $o_err / $d_err |"
    done
    echo
    echo "RSS ours: $rss_ours0 before, $(rss "$PID_ours") after; Datasette: $rss_ds0 before, $(rss $ds_pid) after"
    kill "$PID_ours" $ds_pid; wait "$PID_ours" $ds_pid 2>/dev/null || true
}

# --- 2. Against nginx sending the same bytes --------------------------------------------------
# Static copies of our responses for nginx: the four pages, and 500 random cold pages.
static_copies() {
    local o=$1 i label path
    mkdir -p "$WORK/static/cold"; chmod 755 "$WORK"
    for i in "${!FOUR[@]}"; do
        IFS='|' read -r label path <<< "${FOUR[$i]}"
        curl -fsS -o "$WORK/static/$i.json" "$o$path"
    done
    { seq 1 "$LAST" | sed "s|^|$PAGES\&page%5Bnumber%5D=|"
      seq 1 "$LA_LAST" | sed "s|^|$PAGES\&filter%5Blocal_authority_id%5D=$LA\&page%5Bnumber%5D=|"
    } > "$WORK/cold.txt"
    shuf -n 500 --random-source=<(yes) "$WORK/cold.txt" | nl -nln -v0 | while read -r i path; do
        curl -fsS -o "$WORK/static/cold/$i.json" "$o$path"
        echo "/cold/$i.json"
    done > "$WORK/cold-nginx.txt"
}

start_nginx() {
    cat > "$WORK/nginx.conf" <<EOF
worker_processes 2;
daemon off;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log $WORK/nginx-access.log;
    default_type application/json;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    server { listen 127.0.0.1:$1; root $WORK/static; }
}
EOF
    nginx -c "$WORK/nginx.conf" -e "$WORK/nginx-error.log" &
    PIDS+=($!); NGINX_PIDS=$!
    wait_for "http://127.0.0.1:$1/0.json"
    NGINX_PIDS="$NGINX_PIDS $(pgrep -P "$NGINX_PIDS" | tr '\n' ' ')"
}

# One row: label, then "req/s p99 cpu" of ours, nginx and (if BEFORE) the older binary.
row() {
    local label=$1 ours=$2 ceiling=$3 before=${4:-} o_rps o_p99 o_bytes o_err o_us n_rps n_p99 n_bytes n_err n_us
    read -r o_rps o_p99 o_bytes o_err o_us <<< "$ours"
    read -r n_rps n_p99 n_bytes n_err n_us <<< "$ceiling"
    local line="| $label | $o_rps | $o_p99 | $o_us | $n_rps | $n_p99 | $n_us | $(ratio "$o_rps" "$n_rps") | $o_err / $n_err"
    if [ -n "$before" ]; then
        local b_rps b_p99 b_bytes b_err b_us
        read -r b_rps b_p99 b_bytes b_err b_us <<< "$before"
        line="$line | $b_rps | $b_p99 | $b_us | $(ratio "$b_rps" "$n_rps")"
    fi
    echo "$line |"
}

nginx_table() {
    local o="http://127.0.0.1:$PORT" cold_o="http://127.0.0.1:$((PORT + 2))"
    local x="http://127.0.0.1:$((PORT + 1))" b="http://127.0.0.1:$((PORT + 3))"
    local z="http://127.0.0.1:$((PORT + 4))" bz="http://127.0.0.1:$((PORT + 5))"
    start ours $PORT "$SERVER"
    start cold $((PORT + 2)) "$SERVER" --response-cache-mb 0
    start zipped $((PORT + 4)) "$SERVER" --compress
    if [ -n "$BEFORE" ]; then
        SERVED=${BEFORE_DB:-$DB} start before $((PORT + 3)) "$BEFORE"
        SERVED=${BEFORE_DB:-$DB} start before_zipped $((PORT + 5)) "$BEFORE" --compress
    fi
    static_copies "$o"
    start_nginx $((PORT + 1))
    local i label path ours ceiling before
    for i in "${!FOUR[@]}"; do   # the copies are the very bytes, whichever path served them
        IFS='|' read -r label path <<< "${FOUR[$i]}"
        cmp -s <(curl -fsS "$cold_o$path") "$WORK/static/$i.json" || { echo "cold bytes differ: $path" >&2; exit 1; }
        cmp -s <(curl -fsS "$x/$i.json") "$WORK/static/$i.json" || { echo "nginx bytes differ" >&2; exit 1; }
    done
    local head="| request | ours req/s | ours p99 | ours CPU µs/req | nginx req/s | nginx p99 | nginx CPU µs/req | ratio | errors ours / nginx"
    local rule="|---|---|---|---|---|---|---|---|---"
    [ -z "$BEFORE" ] || { head="$head | before req/s | before p99 | before CPU µs/req | before ratio"; rule="$rule|---|---|---|---"; }
    echo; echo "$head |"; echo "$rule|"
    local round
    for round in $(seq "$ROUNDS"); do
        for i in "${!FOUR[@]}"; do
            IFS='|' read -r label path <<< "${FOUR[$i]}"
            bench "$x/$i.json" "$NGINX_PIDS"; ceiling=$RESULT
            bench "$o$path" "$PID_ours"; ours=$RESULT
            before=
            [ -z "$BEFORE" ] || { bench "$b$path" "$PID_before"; before=$RESULT; }
            row "hot $label, round $round" "$ours" "$ceiling" "$before"
            bench "$cold_o$path" "$PID_cold"
            row "uncached $label, round $round" "$RESULT" "$ceiling" "$before"
        done
        bench "$x/cold/0.json" "$NGINX_PIDS" -s "$RANDOM_PAGES" -- "$WORK/cold-nginx.txt"; ceiling=$RESULT
        bench "$cold_o${FOUR[0]#*|}" "$PID_cold" -s "$RANDOM_PAGES" -- "$WORK/cold.txt"; ours=$RESULT
        before=
        [ -z "$BEFORE" ] || { bench "$b${FOUR[0]#*|}" "$PID_before" -s "$RANDOM_PAGES" -- "$WORK/cold.txt"; before=$RESULT; }
        row "cold: $(wc -l < "$WORK/cold.txt") pages (nginx: 500), round $round" "$ours" "$ceiling" "$before"
        bench "$x/0.json" "$NGINX_PIDS" -H "Accept-Encoding: gzip"; ceiling=$RESULT
        bench "$z${FOUR[0]#*|}" "$PID_zipped" -H "Accept-Encoding: gzip"; ours=$RESULT
        before=
        [ -z "$BEFORE" ] || { bench "$bz${FOUR[0]#*|}" "$PID_before_zipped" -H "Accept-Encoding: gzip"; before=$RESULT; }
        row "gzip (a), --compress (nginx: plain), round $round" "$ours" "$ceiling" "$before"
    done
    echo
    echo "RSS after: ours (cache on) $(rss "$PID_ours"), ours (cache off) $(rss "$PID_cold"), ours --compress $(rss "$PID_zipped")${BEFORE:+, before $(rss "$PID_before")}"
}

for baseline in $BASELINES; do "${baseline}_table"; done
echo "wrk -t$THREADS -c$CONNS -d$DURATION --timeout 30s --latency; $(nproc) cores; DB $DB"
