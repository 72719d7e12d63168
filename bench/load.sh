#!/usr/bin/env bash
# Loader benchmark: the plain sqlite3 shell's `.import --csv` of every CSV file (untyped
# tables, no indexes) against `roadtraffic-load` (typed tables, derived tables, every index,
# ANALYZE), on the same files, in alternating rounds with a warm page cache.
#
#   bench/load.sh DATA_DIR            (ROUNDS=3, OUT_DIR, else BENCH_DATA, else target/bench-data)
#   BEFORE=/path/to/older/roadtraffic-load bench/load.sh DATA_DIR
#                                     (also times an older build in the same rounds, to
#                                      compare a change before and after on equal terms)
#
# Build first: cargo build --release --bin roadtraffic-load
set -euo pipefail

DATA=${1:?usage: bench/load.sh DATA_DIR}
ROUNDS=${ROUNDS:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOADER=${LOADER:-$ROOT/target/release/roadtraffic-load}
[ -x "$LOADER" ] || { echo "no $LOADER: cargo build --release --bin roadtraffic-load" >&2; exit 1; }

mapfile -t CSVS < <(find "$DATA" -type f -iname '*.csv' | sort)
[ ${#CSVS[@]} -gt 0 ] || { echo "no CSV files under $DATA" >&2; exit 1; }
# The baseline only reads plain CSV: a zip would be loaded by ours alone.
if [ -n "$(find "$DATA" -type f -iname '*.zip' | head -1)" ]; then
    echo "$DATA holds .zip files: unzip them first so both sides read the same bytes" >&2; exit 1
fi

# Outputs live under OUT_DIR (never in tracked files) and are removed whatever happens.
OUT_DIR=${OUT_DIR:-${BENCH_DATA:-$ROOT/target/bench-data}} && mkdir -p "$OUT_DIR"
WORK=$(mktemp -d "$(cd "$OUT_DIR" && pwd)/load-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cp "$LOADER" "$WORK/roadtraffic-load" && LOADER=$WORK/roadtraffic-load   # immune to a rebuild
if [ -n "${BEFORE:-}" ]; then cp "$BEFORE" "$WORK/before-load" && BEFORE=$WORK/before-load; fi

# One sqlite3 process imports every file into its own table t1, t2, ... (created from the
# header). The shell wraps each .import in one transaction; journal and sync are its defaults.
{
    echo ".bail on"
    i=0
    for f in "${CSVS[@]}"; do i=$((i + 1)); echo ".import --csv '$f' t$i"; done
} > "$WORK/import.sql"

echo "# $(date -u +%FT%TZ) $(hostname) $(nproc) cores; $(sqlite3 --version | cut -d' ' -f1) vs $("$LOADER" --version)"
echo "# ${#CSVS[@]} files, $(du -shc "${CSVS[@]}" | tail -1 | cut -f1) under $DATA; $ROUNDS rounds"
cat "${CSVS[@]}" > /dev/null   # warm the page cache

# run NAME CMD...: times CMD with GNU time; prints "NAME seconds peak_kb"; removes its output.
run() {
    local name=$1; shift
    sync   # flush the previous round's writes so they are not paid for by this one
    /usr/bin/time -f '%e %M' -o "$WORK/time" "$@"
    local size; size=$(du -sh "$WORK/db" | cut -f1)
    echo "$name $(cat "$WORK/time") $size" | tee -a "$WORK/results"
    rm -rf "$WORK/db"
}

for r in $(seq "$ROUNDS"); do
    mkdir -p "$WORK/db"
    run baseline sqlite3 "$WORK/db/baseline.db" < "$WORK/import.sql"
    if [ -n "${BEFORE:-}" ]; then
        mkdir -p "$WORK/db"
        run before "$BEFORE" --quiet --db "$WORK/db/before.db" "$DATA"
    fi
    mkdir -p "$WORK/db"
    run ours "$LOADER" --quiet --db "$WORK/db/ours.db" "$DATA"
done

# Summary: median time of each side, median of the per-round ratios, ours' peak RSS.
awk '
    function median(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
        return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
    }
    function runs(a, n,   i, s) { s = ""; for (i = 1; i <= n; i++) s = s sprintf("%s%.2f", i > 1 ? ", " : "", a[i]); return s }
    $1 == "baseline" { b[++nb] = $2; if ($3 > bpeak) bpeak = $3 }
    $1 == "before"   { e[++ne] = $2; if ($3 > epeak) epeak = $3 }
    $1 == "ours"     { o[++no] = $2; if ($3 > peak) peak = $3 }
    END {
        for (i = 1; i <= no; i++) ratio[i] = o[i] / b[i]
        for (i = 1; i <= ne; i++) eratio[i] = e[i] / b[i]
        printf "\n| | median s | runs (s) | peak RSS |\n|---|---|---|---|\n"
        printf "| sqlite3 .import (baseline) | %.2f | %s | %.0f MB |\n", median(b, nb), runs(b, nb), bpeak / 1024
        if (ne) printf "| roadtraffic-load (before) | %.2f | %s | %.0f MB |\n", median(e, ne), runs(e, ne), epeak / 1024
        printf "| roadtraffic-load (ours) | %.2f | %s | %.0f MB |\n", median(o, no), runs(o, no), peak / 1024
        if (ne) printf "\nmedian ratio before/baseline: %.2f\n", median(eratio, ne)
        printf "\nmedian ratio ours/baseline: %.2f\n", median(ratio, no)
    }' "$WORK/results"
