#!/usr/bin/env bash
# Export benchmark: the national raw counts CSV (every row, names and codes joined) streamed
# over HTTP by roadtraffic-serve to `curl -o /dev/null`, against the sqlite3 shell writing the
# same columns of the same file as CSV to /dev/null, in alternating rounds. Prints each time,
# the medians, their ratio, the bytes, and the server's RSS before and after.
#
#   bench/export.sh DB            (DB built by roadtraffic-load; ROUNDS=3, PORT=18085)
#
# Build first: cargo build --release --bin roadtraffic-serve
set -euo pipefail

DB=$(realpath "${1:?usage: bench/export.sh DB}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${SERVER:-$ROOT/target/release/roadtraffic-serve}
PORT=${PORT:-18085} ROUNDS=${ROUNDS:-3}
[ -x "$SERVER" ] || { echo "no $SERVER: cargo build --release --bin roadtraffic-serve" >&2; exit 1; }

WORK=$(mktemp -d)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

"$SERVER" --db "$DB" --bind "127.0.0.1:$PORT" > "$WORK/server.log" 2>&1 &
PID=$!
URL="http://127.0.0.1:$PORT/downloads/dft_traffic_counts_raw_counts.csv"
for _ in $(seq 100); do curl -fs -o /dev/null "http://127.0.0.1:$PORT/api/regions" && break; sleep 0.1; done
rss() { awk '/VmRSS/ {printf "%d MB", $2 / 1024}' "/proc/$PID/status"; }

# The same columns as the national file: the raw counts, their area names and ONS codes.
SQL="SELECT r.count_point_id, r.direction_of_travel, r.year, r.count_date, r.hour,
  r.region_id, g.name, g.ons_code, r.local_authority_id, l.name, l.ons_code, r.road_name,
  r.road_category, r.road_type, r.start_junction_road_name, r.end_junction_road_name,
  r.easting, r.northing, r.latitude, r.longitude, r.link_length_km, r.link_length_miles,
  r.pedal_cycles, r.two_wheeled_motor_vehicles, r.cars_and_taxis, r.buses_and_coaches,
  r.lgvs, r.hgvs_2_rigid_axle, r.hgvs_3_rigid_axle, r.hgvs_4_or_more_rigid_axle,
  r.hgvs_3_or_4_articulated_axle, r.hgvs_5_articulated_axle, r.hgvs_6_articulated_axle,
  r.all_hgvs, r.all_motor_vehicles
FROM raw_counts r LEFT JOIN regions g ON g.id = r.region_id
  LEFT JOIN local_authorities l ON l.id = r.local_authority_id ORDER BY r.id"

echo "# $(date -u +%FT%TZ) $(nproc) cores; $(sqlite3 --version | cut -d' ' -f1); $ROUNDS rounds; DB $DB"
RSS0=$(rss)
cat "$DB" > /dev/null   # warm the page cache for both
for r in $(seq "$ROUNDS"); do
    /usr/bin/time -f "%e" -o "$WORK/t" sqlite3 -readonly -csv -header "$DB" "$SQL" > /dev/null
    echo "baseline $(cat "$WORK/t")" | tee -a "$WORK/results"
    read -r bytes secs < <(curl -fsS -o /dev/null -w '%{size_download} %{time_total}\n' "$URL")
    echo "ours $secs $bytes" | tee -a "$WORK/results"
done
awk -v rss0="$RSS0" -v rss1="$(rss)" '
    function median(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
        return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
    }
    $1 == "baseline" { b[++nb] = $2 }
    $1 == "ours"     { o[++no] = $2; bytes = $3 }
    END {
        printf "\n| | median s | rounds |\n|---|---|---|\n"
        printf "| sqlite3 -csv -header > /dev/null (baseline) | %.2f | %d |\n", median(b, nb), nb
        printf "| GET /downloads/dft_traffic_counts_raw_counts.csv to curl | %.2f | %d |\n", median(o, no), no
        printf "\nratio ours/baseline: %.2f; %d bytes a download; server RSS %s before, %s after\n", median(o, no) / median(b, nb), bytes, rss0, rss1
    }' "$WORK/results"
