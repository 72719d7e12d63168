#!/usr/bin/env bash
# Release day in one pass (issue 36): the load that writes every national file itself (Parquet,
# CSV and zip), against the load before it plus the server's first writing of the files that
# load left to it (read back out of SQLite: all 21 before issue 36, the 14 CSV and zip files
# for a loader of its first rounds), and against the sqlite3 shell's bare `.import` of the same CSVs, side by side in
# alternating rounds with a warm page cache.
#
#   BEFORE=/path/to/older/roadtraffic-load bench/one_pass.sh DATA_DIR   (ROUNDS=2, OUT_DIR,
#   BEFORE_SERVE=its roadtraffic-serve, needed when the schema changed between the two;
#   NO_TOTALS=a roadtraffic-load of this build with every dataset's `rollups` emptied in the
#   catalogue, to show the share of the load the tables of totals take)
#
# Build first: cargo build --release --bins (the server is this build's: its writer is the
# one the older server had, moved into the downloads crate).
set -euo pipefail

DATA=${1:?usage: BEFORE=... bench/one_pass.sh DATA_DIR}
ROUNDS=${ROUNDS:-2}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release}
: "${BEFORE:?BEFORE=/path/to/the older roadtraffic-load}"
OUT_DIR=${OUT_DIR:-${BENCH_DATA:-$ROOT/target/bench-data}} && mkdir -p "$OUT_DIR"
WORK=$(mktemp -d "$(cd "$OUT_DIR" && pwd)/one-pass.XXXXXX")
SERVER_PID=
trap '[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
cp "$BIN/roadtraffic-load" "$WORK/load" && cp "$BIN/roadtraffic-serve" "$WORK/serve"
cp "$BEFORE" "$WORK/before-load"
cp "${BEFORE_SERVE:-$BIN/roadtraffic-serve}" "$WORK/before-serve"

mapfile -t CSVS < <(find "$DATA" -type f -iname '*.csv' | sort)
{ echo ".bail on"; i=0; for f in "${CSVS[@]}"; do i=$((i + 1)); echo ".import --csv '$f' t$i"; done; } > "$WORK/import.sql"
# Every national file, in the order the server's warm-up writes them: each dataset's Parquet,
# CSV, then zip (deflated from the CSV once that is written).
mapfile -t NATIONAL < <(cd "$DATA" && ls *.csv | sed 's/\.csv$//' | while read -r stem; do printf '%s\n' "$stem.parquet" "$stem.csv" "$stem.zip"; done)
echo "# $(date -u +%FT%TZ) $(hostname) $(nproc) cores; ${#CSVS[@]} files, $(du -shc "${CSVS[@]}" | tail -1 | cut -f1); $ROUNDS rounds"
cat "${CSVS[@]}" > /dev/null

timed() {  # timed NAME CMD...: "NAME seconds peak_kb"
    local name=$1; shift
    sync
    /usr/bin/time -f '%e %M' -o "$WORK/time" "$@"
    echo "$name $(cat "$WORK/time")" | tee -a "$WORK/results"
}

# The server's first writing of every national file of DB the load did not leave, one after
# another as its warm-up would write them: seconds from its first answer until the last file
# is served.
server_writes() {
    local db=$1 port
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    # The load's own downloads folder: the files it wrote are served as they are.
    "$WORK/before-serve" --db "$db" --bind "127.0.0.1:$port" --lazy-downloads > "$WORK/serve.log" 2>&1 &
    SERVER_PID=$!
    until curl -fs "http://127.0.0.1:$port/api/regions" > /dev/null; do sleep 0.1; done
    local start; start=$(date +%s.%N)
    for p in "${NATIONAL[@]}"; do curl -fs -o /dev/null "http://127.0.0.1:$port/downloads/$p"; done
    local end; end=$(date +%s.%N)
    kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=
    echo "server_write $(echo "$end - $start" | bc) 0" | tee -a "$WORK/results"
}

for r in $(seq "$ROUNDS"); do
    rm -rf "$WORK/db"; mkdir -p "$WORK/db"
    timed baseline sqlite3 "$WORK/db/baseline.db" < "$WORK/import.sql"
    rm -rf "$WORK/db"; mkdir -p "$WORK/db"
    timed before "$WORK/before-load" --quiet --db "$WORK/db/before.db" "$DATA"
    server_writes "$WORK/db/before.db"
    rm -rf "$WORK/db"; mkdir -p "$WORK/db"
    timed ours "$WORK/load" --quiet --db "$WORK/db/ours.db" "$DATA"
    ready=$(find "$WORK/db/ours.db.downloads" -name '*.etag' | wc -l)
    echo "# round $r: $ready of ${#NATIONAL[@]} national files ready when the load ended"
    if [ -n "${NO_TOTALS:-}" ]; then
        rm -rf "$WORK/db"; mkdir -p "$WORK/db"
        timed no_totals "$NO_TOTALS" --quiet --db "$WORK/db/nt.db" "$DATA"
    fi
done
rm -rf "$WORK/db"

awk '
    function median(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
        return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
    }
    $1 == "baseline" { b[++nb] = $2; if ($3 > bp) bp = $3 }
    $1 == "before" { e[++ne] = $2; if ($3 > ep) ep = $3 }
    $1 == "server_write" { w[++nw] = $2 }
    $1 == "ours" { o[++no] = $2; if ($3 > op) op = $3 }
    $1 == "no_totals" { t[++nt] = $2; if ($3 > tp) tp = $3 }
    END {
        for (i = 1; i <= no; i++) { ro[i] = o[i] / b[i]; re[i] = (e[i] + w[i]) / b[i] }
        printf "\n| | median s | peak RSS | / .import |\n|---|---|---|---|\n"
        printf "| sqlite3 .import | %.2f | %.0f MB | 1 |\n", median(b, nb), bp / 1024
        printf "| before: load | %.2f | %.0f MB | |\n", median(e, ne), ep / 1024
        printf "| before: + the server writing the national files it left | %.2f | | %.2f |\n", median(e, ne) + median(w, nw), median(re, ne)
        printf "| one pass: load writing them | %.2f | %.0f MB | %.2f |\n", median(o, no), op / 1024, median(ro, no)
        if (nt) printf "| one pass without the tables of totals | %.2f | %.0f MB | (totals: %.1f%% of the load) |\n", median(t, nt), tp / 1024, 100 * (median(o, no) - median(t, nt)) / median(o, no)
    }' "$WORK/results"
