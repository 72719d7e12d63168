#!/usr/bin/env bash
# Replicas benchmark: roadtraffic-serve replicas behind Debian's nginx (deploy/nginx/
# roadtraffic.conf, as shipped but for its ports), with wrk on loopback, in four phases of one
# run, each with the same request mix:
#
#   1. one replica, direct (the baseline);
#   2. one replica through nginx (what nginx itself costs);
#   3. three replicas through nginx;
#   4. three replicas through nginx while one is SIGKILLed and restarted, and a new release is
#      rolled out to all three (deploy/rollout.sh): every request must succeed.
#
# Every response is checked in wrk (Lua): status 200, and its page consistent with its total
# (rows = to - from + 1 = what page `current_page` of `per_page` holds of `total`; last_page =
# ceil(total / per_page)). Prints a markdown table: requests/s, p99, failed requests (socket
# errors, non-200 answers, inconsistent pages).
#
#   bench/replicas.sh DB [NEW_DB]          (DB and NEW_DB built by roadtraffic-load)
#
# NEW_DB is the release rolled out in phase 4; without it, a copy of DB relabelled in its
# metadata (the same rows under another release id: the switch is real, the totals equal).
# Env: DURATION (30s a phase), CONNS (32), THREADS (2), PORT_BASE (18500), SIZE (100 rows a
# page), KEEP_LOGS=1. Needs nginx, wrk, sqlite3, curl (bench/setup.sh; nginx: apt-get install
# nginx). Build first: cargo build --release.
set -euo pipefail

DB=$(realpath "${1:?usage: bench/replicas.sh DB [NEW_DB]}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${SERVER:-${CARGO_TARGET_DIR:-$ROOT/target}/release/roadtraffic-serve}
DURATION=${DURATION:-30s} CONNS=${CONNS:-32} THREADS=${THREADS:-2}
PORT_BASE=${PORT_BASE:-18500} SIZE=${SIZE:-100}
SECS=${DURATION%s}
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
for tool in "$NGINX" wrk sqlite3 curl; do
    command -v "$tool" > /dev/null || { echo "replicas.sh: $tool is missing" >&2; exit 1; }
done
[ -x "$SERVER" ] || { echo "no $SERVER: cargo build --release" >&2; exit 1; }

OUT_DIR=${OUT_DIR:-${BENCH_DATA:-$ROOT/target/bench-data}} && mkdir -p "$OUT_DIR"
WORK=$(mktemp -d "$(cd "$OUT_DIR" && pwd)/replicas.XXXXXX")
# Each replica's pid in $WORK/rN.pid: the restart in phase 4 happens in a subshell.
NGINX_PID=
cleanup() {
    for p in $(cat "$WORK"/r*.pid 2> /dev/null) $NGINX_PID; do kill "$p" 2> /dev/null || true; done
    wait 2> /dev/null || true
    if [ "${KEEP_LOGS:-0}" = 1 ]; then echo "logs kept in $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# --- The files: one copy per replica, and the release to roll out ---------------------------
for r in 1 2 3; do mkdir "$WORK/r$r"; cp "$DB" "$WORK/r$r/roadtraffic.db"; done
if [ -n "${2:-}" ]; then
    cp "$(realpath "$2")" "$WORK/new.db"
else
    cp "$DB" "$WORK/new.db"
    sqlite3 "$WORK/new.db" "UPDATE metadata SET value = 'rolled out by bench/replicas.sh' WHERE key = 'release'"
fi

NGINX_PORT=$PORT_BASE
port() { echo $((PORT_BASE + $1)); }
start_replica() {   # start_replica N: replica N on its port, serving its own copy
    "$SERVER" --db "$WORK/r$1/roadtraffic.db" --bind "127.0.0.1:$(port "$1")" \
        --public-url "http://127.0.0.1:$NGINX_PORT" >> "$WORK/r$1.log" 2>&1 &
    echo $! > "$WORK/r$1.pid"
    for _ in $(seq 300); do curl -fs "http://127.0.0.1:$(port "$1")/readyz" > /dev/null && return; sleep 0.1; done
    echo "replica $1 did not start" >&2; tail "$WORK/r$1.log" >&2; exit 1
}

# --- nginx: the shipped site file, its upstream and listen lines rewritten -----------------
start_nginx() {   # start_nginx N: nginx in front of replicas 1..N
    local servers=""
    for r in $(seq "$1"); do
        servers+="    server 127.0.0.1:$(port "$r") max_fails=3 fail_timeout=10s;\n"
    done
    mkdir -p "$WORK/nginx"
    sed -e '/^    server 127\.0\.0\.1:808[0-9] /d' \
        -e "s/^    least_conn;/    least_conn;\n$servers/" \
        -e "s/^    listen 80;/    listen 127.0.0.1:$NGINX_PORT;/" \
        "$ROOT/deploy/nginx/roadtraffic.conf" > "$WORK/nginx/site.conf"
    cat > "$WORK/nginx/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    include $WORK/nginx/site.conf;
}
EOF
    "$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g "user $(id -un) $(id -gn);" &
    NGINX_PID=$!
    for _ in $(seq 100); do curl -fs "http://127.0.0.1:$NGINX_PORT/api/regions" > /dev/null && return; sleep 0.1; done
    echo "nginx did not start" >&2; cat "$WORK/nginx/error.log" >&2; exit 1
}
stop_nginx() { kill "$NGINX_PID"; wait "$NGINX_PID" 2> /dev/null || true; NGINX_PID=; }

# --- The request mix, and the check of every response ---------------------------------------
q() { sqlite3 -readonly "$DB" "$1"; }
RAW_LAST=$(( ($(q "select count(*) from raw_counts") + SIZE - 1) / SIZE ))
LA=$(q "select local_authority_id from raw_counts_runs group by 1 order by sum(last_id - first_id + 1) desc limit 1")
CP_LAST=$(( ($(q "select count(*) from count_points") + SIZE - 1) / SIZE ))
cat > "$WORK/mix.lua" <<EOF
local s = "page%5Bsize%5D=$SIZE&page%5Bnumber%5D="
local paths = {
  function(n) return "/api/raw-counts?" .. s .. (1 + (n * 7919) % $RAW_LAST) end,
  function(n) return "/api/raw-counts?filter%5Blocal_authority_id%5D=$LA&" .. s .. (1 + n % 200) end,
  function(n) return "/api/average-annual-daily-flow?filter%5Byear%5D=" .. (2000 + n % 25) .. "&" .. s .. (1 + n % 20) end,
  function(n) return "/api/count-points?" .. s .. (1 + n % ($CP_LAST + 2)) end,
}
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", paths[1 + n % #paths](n))
end

local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) checked = 0; bad = 0; non200 = 0; first_bad = "" end

-- A page consistent with its total: the rows it holds are those of its number, size and total.
local function consistent(body)
  local page = tonumber(body:match('"current_page":(%d+)'))
  local size = tonumber(body:match('"per_page":(%d+)'))
  local total = tonumber(body:match('"total":(%d+)'))
  local last = tonumber(body:match('"last_page":(%d+)'))
  if not (page and size and total and last) or body:sub(-1) ~= "}" then return false end
  local _, rows = body:gsub('{"id":', "")
  local expected = math.max(0, math.min(size, total - (page - 1) * size))
  if rows ~= expected or last ~= math.max(1, math.ceil(total / size)) then return false end
  if rows == 0 then return body:find('"from":null', 1, true) ~= nil end
  local from = tonumber(body:match('"from":(%d+)'))
  local to = tonumber(body:match('"to":(%d+)'))
  return from == (page - 1) * size + 1 and to == from + rows - 1
end

function response(status, headers, body)
  if status ~= 200 then non200 = non200 + 1; return end
  checked = checked + 1
  if not consistent(body) then
    bad = bad + 1
    if first_bad == "" then first_bad = body:sub(1, 300) end
  end
end

function done(summary, latency, requests)
  local c, b, n, first = 0, 0, 0, ""
  for _, t in ipairs(threads) do
    c = c + t:get("checked"); b = b + t:get("bad"); n = n + t:get("non200")
    if first == "" then first = t:get("first_bad") end
  end
  io.write(string.format("CHECKED %d INCONSISTENT %d NON200 %d\n", c, b, n))
  if first ~= "" then io.write("FIRST INCONSISTENT: " .. first .. "\n") end
end
EOF

# run LABEL URL: wrk, then one table row: req/s, p99, checked, failed (socket errors + non-200
# + inconsistent).
run() {
    wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --timeout 30s --latency -s "$WORK/mix.lua" "$2" \
        > "$WORK/wrk.$1" 2>&1
    awk -v label="$1" '
        /^Requests\/sec/      { rps = $2 }
        $1 == "99%"           { p99 = $2 }
        /Socket errors/       { gsub(",", ""); errs = $4 + $6 + $8 + $10 }
        /^CHECKED/            { checked = $2; bad = $4; non200 = $6 }
        END { printf "| %s | %s | %.2f | %s | %d | %d (socket %d, non-200 %d, inconsistent %d) |\n",
                     label, rps, rps / (base ? base : rps), p99, checked, errs + non200 + bad, errs, non200, bad }
        ' base="${BASE_RPS:-}" "$WORK/wrk.$1"
    grep "^FIRST INCONSISTENT" "$WORK/wrk.$1" >&2 || true
    awk '/Socket errors/ { gsub(",", ""); n += $4 + $6 + $8 + $10 } /^CHECKED/ { n += $4 + $6 }
         END { print n + 0 }' "$WORK/wrk.$1" >> "$WORK/failed"
}

echo "# $(date -u +%FT%TZ) $(nproc) cores; wrk -t$THREADS -c$CONNS -d$DURATION, pages of $SIZE rows; DB $DB"
echo
echo "| setup | requests/s | vs 1 replica direct | p99 | responses checked | failed |"
echo "|---|---|---|---|---|---|"
start_replica 1
run "1 replica, direct" "http://127.0.0.1:$(port 1)"
BASE_RPS=$(awk '/^Requests\/sec/ { print $2 }' "$WORK/wrk.1 replica, direct")
start_nginx 1
run "1 replica through nginx" "http://127.0.0.1:$NGINX_PORT"
stop_nginx
start_replica 2
start_replica 3
start_nginx 3
run "3 replicas through nginx" "http://127.0.0.1:$NGINX_PORT"

# Phase 4: the same, with a replica killed and restarted a quarter of the way in, and the new
# release rolled out to all three at half way.
(
    sleep $((SECS / 4))
    kill -KILL "$(cat "$WORK/r2.pid")"
    echo "replica 2 SIGKILLed at $(date -u +%T)" > "$WORK/chaos.log"
    sleep 2
    start_replica 2
    echo "replica 2 restarted and ready at $(date -u +%T)" >> "$WORK/chaos.log"
    sleep $((SECS / 4 - 2 > 0 ? SECS / 4 - 2 : 0))
    "$ROOT/deploy/rollout.sh" "$WORK/new.db" \
        "http://127.0.0.1:$(port 1)=$WORK/r1/roadtraffic.db" \
        "http://127.0.0.1:$(port 2)=$WORK/r2/roadtraffic.db" \
        "http://127.0.0.1:$(port 3)=$WORK/r3/roadtraffic.db" >> "$WORK/chaos.log" 2>&1
) &
CHAOS=$!
run "3 replicas through nginx; one SIGKILLed and restarted, a release rolled out" "http://127.0.0.1:$NGINX_PORT"
wait "$CHAOS" || { echo "the kill or the rollout failed:" >&2; cat "$WORK/chaos.log" >&2; exit 1; }
echo
sed 's/^/- /' "$WORK/chaos.log"
NEW_ID=$(sqlite3 -readonly -separator "$(printf '\t')" "$WORK/new.db" "SELECT key, value FROM metadata ORDER BY key" | sha256sum | cut -c1-12)
# grep without -q, which would leave curl writing into a closed pipe (exit 23 under pipefail).
for r in 1 2 3; do
    curl -fsS "http://127.0.0.1:$(port "$r")/readyz" | grep "\"id\":\"$NEW_ID" > /dev/null ||
        { echo "replica $r does not serve the new release" >&2; exit 1; }
done
echo "- after the run every replica serves the new release (id $NEW_ID...)"
FAILED=$(awk '{ n += $1 } END { print n + 0 }' "$WORK/failed")
[ "$FAILED" -eq 0 ] || { echo "replicas.sh: $FAILED failed requests" >&2; exit 1; }
