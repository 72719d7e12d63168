#!/usr/bin/env bash
# Fetch benchmark: `roadtraffic-load --fetch --download-only` (fresh cache each round: every
# file downloaded, hashed (SHA-256) as it arrives, checked whole by its zip structure and
# recorded) against `curl` downloading the same zips from the same local server, in alternating
# rounds, same run. The fetch does not inflate the zips: the load that follows checks every
# member's CRC-32 as it inflates it anyway (inflating here too doubled that work).
#
#   bench/fetch.sh DATA_DIR        (a release's CSV files; ROUNDS=3; OUT_DIR,
#                                  else BENCH_DATA, else target/bench-data)
#   BEFORE=path/to/roadtraffic-load bench/fetch.sh DATA_DIR
#                                  (another build measured in the same rounds, an extra row)
#
# The CSV files are zipped under the release's national names into a scratch folder, served by
# nginx on 127.0.0.1 (python3 -m http.server when nginx is missing), stopped on exit.
# Build first: cargo build --release --bin roadtraffic-load
set -euo pipefail

DATA=${1:?usage: bench/fetch.sh DATA_DIR}
ROUNDS=${ROUNDS:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOADER=${LOADER:-${CARGO_TARGET_DIR:-$ROOT/target}/release/roadtraffic-load}
[ -x "$LOADER" ] || { echo "no $LOADER: cargo build --release --bin roadtraffic-load" >&2; exit 1; }
for tool in curl zip; do command -v $tool >/dev/null || { echo "needs $tool" >&2; exit 1; }; done

OUT_DIR=${OUT_DIR:-${BENCH_DATA:-$ROOT/target/bench-data}} && mkdir -p "$OUT_DIR"
WORK=$(mktemp -d "$(cd "$OUT_DIR" && pwd)/fetch-bench.XXXXXX")
SERVER_PID=
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$WORK/www/release" "$WORK/logs"

# Zip every CSV file (the release's national zips are named after its national files).
for f in "$DATA"/*.csv; do
    stem=$(basename "$f" .csv)
    (cd "$(dirname "$f")" && zip -q -j "$WORK/www/release/$stem.zip" "$(basename "$f")")
done
# Older generators name the count points file dft_count_points.csv; the release names it
# count_points.csv.
[ -f "$WORK/www/release/dft_count_points.zip" ] && mv "$WORK/www/release/dft_count_points.zip" "$WORK/www/release/count_points.zip"
chmod a+x "$WORK" && chmod -R a+rX "$WORK/www"   # nginx's workers read as another user
BYTES=$(cat "$WORK"/www/release/*.zip | wc -c)

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
if command -v nginx >/dev/null; then
    cat > "$WORK/nginx.conf" <<CONF
daemon off; worker_processes 1; pid $WORK/nginx.pid; error_log $WORK/logs/error.log;
events { worker_connections 64; }
http { access_log off; sendfile on; client_body_temp_path $WORK/logs;
       server { listen 127.0.0.1:$PORT; root $WORK/www; } }
CONF
    nginx -c "$WORK/nginx.conf" -p "$WORK" & SERVER_PID=$!
    SERVER=nginx
else
    (cd "$WORK/www" && exec python3 -m http.server "$PORT" --bind 127.0.0.1 >/dev/null 2>&1) & SERVER_PID=$!
    SERVER="python3 http.server"
fi
SOURCE="http://127.0.0.1:$PORT/release/"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.1; done

NAMES=$(cd "$WORK/www/release" && ls *.zip)
now() { date +%s.%N; }
curl_round() {
    rm -rf "$WORK/curl" && mkdir "$WORK/curl"
    local t0; t0=$(now)
    for n in $NAMES; do curl -sSf -o "$WORK/curl/$n" "$SOURCE$n"; done
    echo "$(now) - $t0" | bc
}
fetch_round() {   # fetch_round LOADER
    rm -rf "$WORK/cache"
    local t0; t0=$(now)
    "$1" --db "$WORK/unused.db" --fetch --download-only --quiet --source "$SOURCE" --cache-dir "$WORK/cache"
    echo "$(now) - $t0" | bc
}
fetch_round "$LOADER" >/dev/null   # warm the page cache and check the release is complete
CURL=(); FETCH=(); OLD=()
for r in $(seq "$ROUNDS"); do
    CURL+=("$(curl_round)"); FETCH+=("$(fetch_round "$LOADER")")
    line="round $r: curl ${CURL[-1]} s, --fetch ${FETCH[-1]} s"
    if [ -n "${BEFORE:-}" ]; then OLD+=("$(fetch_round "$BEFORE")"); line+=", before ${OLD[-1]} s"; fi
    echo "$line" >&2
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
C=$(median "${CURL[@]}")
MB=$(echo "scale=1; $BYTES / 1048576" | bc)
row() {   # row LABEL SECONDS
    printf '| %s | %.2f | %.0f | %.2f |\n' "$1" "$2" "$(echo "$MB / $2" | bc -l)" "$(echo "$2 / $C" | bc -l)"
}
echo
echo "$(ls "$WORK/www/release" | wc -l) zips, $MB MiB, served by $SERVER on 127.0.0.1; median of $ROUNDS rounds"
echo
echo "| Client | Time (s) | Throughput (MiB/s) | Ratio to curl |"
echo "|---|---|---|---|"
row curl "$C"
[ -n "${BEFORE:-}" ] && row "before: $BEFORE --fetch --download-only" "$(median "${OLD[@]}")"
row "roadtraffic-load --fetch --download-only" "$(median "${FETCH[@]}")"
