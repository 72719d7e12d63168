#!/usr/bin/env bash
# Soak benchmark: wrk on loopback mixing deep pages, filtered pages, 30,000-row pages and the
# unpaginated lists against one roadtraffic-serve, for a bounded time. Prints wrk's latency
# percentiles and errors, and the server's resident memory before, during and after.
# With SWAP_DATA=DIR, a new release is loaded from DIR over the served file a sixth of the way
# in, so that the load and the swap happen under load: every request must still succeed.
#
#   bench/soak.sh DB                    (DURATION=60s CONNS=32 by default)
#   SWAP_DATA="$BENCH_DATA/full" bench/soak.sh DB
#
# The served file is copied first, so DB itself is never replaced. wrk reports any non-2xx
# answer or socket error in its summary; none printed means none happened.
set -euo pipefail

DB=$(realpath "${1:?usage: bench/soak.sh DB}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${SERVER:-$ROOT/target/release/roadtraffic-serve}
LOADER=${LOADER:-$ROOT/target/release/roadtraffic-load}
PORT=${PORT:-18090} DURATION=${DURATION:-60s} CONNS=${CONNS:-32} THREADS=${THREADS:-2}

OUT_DIR=${OUT_DIR:-${BENCH_DATA:-$ROOT/target/bench-data}} && mkdir -p "$OUT_DIR"
WORK=$(mktemp -d "$(cd "$OUT_DIR" && pwd)/soak.XXXXXX")
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
cp "$DB" "$WORK/served.db"

rss() { awk '/VmRSS/ {printf "%d MB", $2 / 1024}' "/proc/$PID/status"; }
"$SERVER" --db "$WORK/served.db" --bind "127.0.0.1:$PORT" > "$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/api/regions" > /dev/null && break; sleep 0.1; done

ROWS=$(sqlite3 -readonly "$DB" "select count(*) from raw_counts")
LAST=$(( (ROWS + 249) / 250 ))
LA=$(sqlite3 -readonly "$DB" "select local_authority_id from raw_counts_runs group by 1 order by sum(last_id - first_id + 1) desc limit 1")

# Each wrk connection cycles through the mix; page numbers move so the caches see new work.
cat > "$WORK/mix.lua" <<EOF
local paths = {
  function(n) return "/api/raw-counts?page%5Bsize%5D=250&page%5Bnumber%5D=" .. (1 + (n * 7919) % $LAST) end,
  function(n) return "/api/raw-counts?filter%5Blocal_authority_id%5D=$LA&page%5Bsize%5D=250&page%5Bnumber%5D=" .. (1 + n % 400) end,
  function(n) return "/api/average-annual-daily-flow?filter%5Byear%5D=" .. (2000 + n % 25) .. "&filter%5Broad_type%5D=Major&page%5Bnumber%5D=" .. (1 + n % 20) end,
  function(n) return "/api/raw-counts?page%5Bsize%5D=30000&page%5Bnumber%5D=" .. (1 + n % 160) end,
  function(n) return "/api/count-points?filter%5Broad_category%5D=TM&page%5Bnumber%5D=" .. (1 + n % 10) end,
  function(n) return "/api/local-authorities" end,
  function(n) return "/api/regions" end,
  function(n) return "/api/raw-counts?filter%5Bhour%5D=" .. (7 + n % 12) .. "&page%5Bnumber%5D=" .. (1 + n % 1500) end,
}
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", paths[1 + n % #paths](n))
end
EOF

echo "# $(date -u +%FT%TZ) $(nproc) cores; wrk -t$THREADS -c$CONNS -d$DURATION; $ROWS raw counts"
echo "server RSS before: $(rss)"
SIDE=()
if [ -n "${SWAP_DATA:-}" ]; then
    ( sleep $(( ${DURATION%s} / 6 )); /usr/bin/time -f 'release swapped in: load took %e s' \
        "$LOADER" --quiet --db "$WORK/served.db" "$SWAP_DATA" ) &
    SIDE+=($!)
fi
( sleep $(( ${DURATION%s} / 2 )); echo "server RSS halfway: $(rss)" ) &
SIDE+=($!)
wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --timeout 30s --latency -s "$WORK/mix.lua" "http://127.0.0.1:$PORT"
wait "${SIDE[@]}"
echo "server RSS after: $(rss)"
sleep 5
echo "server RSS 5 s after: $(rss)"
grep -c '" 5[0-9][0-9] ' "$WORK/server.log" | sed 's/^/5xx answers logged: /' || true
grep -h "serving the new release" "$WORK/server.log" | sed 's/^/server: /' || true
