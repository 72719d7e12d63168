#!/usr/bin/env bash
# A/B of two server builds on one file, for one URL: each build serves DB on its own port, and
# wrk (-t2 -c16) asks each in turn, ROUNDS times, so that both see the same machine. Prints per
# run: round, build, requests/s, and the server's CPU per request (user + system, from /proc),
# the steadier of the two on a shared machine.
#
#   BEFORE="$BENCH_BIN/serve-base" bench/ab.sh DB URL
#
# Env: BEFORE (required), BEFORE_DB (the file the older build serves, when the schema changed
#      between the two: the same release loaded by the older loader; default DB), SERVER (target/release/roadtraffic-serve), ROUNDS (4), DURATION (8s),
#      SERVE_ARGS (extra options for both servers, e.g. "--response-cache-mb 0"), PORT (18501:
#      the two servers use PORT and PORT+1), OURS_URL (the URL the newer build is asked, when it
#      answers the same at another path, e.g. a kept release's /releases/2024/api/...; default
#      URL), WRK_ARGS (more options of wrk for both, e.g. -H "Accept: application/geo+json" or
#      -H "Range: bytes=0-65535").
set -euo pipefail

DB=$(realpath "${1:?usage: bench/ab.sh DB URL}")
URL=${2:?usage: bench/ab.sh DB URL}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BEFORE=${BEFORE:?BEFORE=<an older roadtraffic-serve binary>}
SERVER=${SERVER:-$ROOT/target/release/roadtraffic-serve}
ROUNDS=${ROUNDS:-4} DURATION=${DURATION:-8s} PORT=${PORT:-18501}
# shellcheck disable=SC2206
EXTRA=(${SERVE_ARGS:-})
eval "WRK_EXTRA=(${WRK_ARGS:-})"

declare -A BIN=([before]=$BEFORE [ours]=$SERVER) AT=([before]=$PORT [ours]=$((PORT + 1))) PID=()
declare -A FILE=([before]=$(realpath "${BEFORE_DB:-$DB}") [ours]=$DB)
declare -A ASK=([before]=$URL [ours]=${OURS_URL:-$URL})
for build in before ours; do
    "${BIN[$build]}" --db "${FILE[$build]}" --bind "127.0.0.1:${AT[$build]}" "${EXTRA[@]}" 2> /dev/null &
    PID[$build]=$!
done
trap 'kill "${PID[before]}" "${PID[ours]}" 2> /dev/null || true' EXIT
for build in before ours; do
    for _ in $(seq 100); do
        curl -sf "http://127.0.0.1:${AT[$build]}${ASK[$build]}" > /dev/null && break
        sleep 0.1
    done
done

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TICKS=$(getconf CLK_TCK)
echo "# $(date -u +%FT%TZ) $URL (ours: ${ASK[ours]}); wrk -t2 -c16 -d$DURATION ${WRK_ARGS:-}; $(nproc) cores"
echo "round build req/s cpu_us_per_req"
for round in $(seq "$ROUNDS"); do
    for build in before ours; do
        before=$(cpu_ticks "${PID[$build]}")
        rps=$(wrk -t2 -c16 -d"$DURATION" "${WRK_EXTRA[@]}" "http://127.0.0.1:${AT[$build]}${ASK[$build]}" |
            awk '/Requests\/sec/ {print $2}')
        after=$(cpu_ticks "${PID[$build]}")
        echo "$round $build $rps $(awk -v c=$((after - before)) -v t="$TICKS" -v r="$rps" \
            -v d="${DURATION%s}" 'BEGIN {printf "%.1f", c / t * 1e6 / (r * d)}')"
    done
done
