#!/usr/bin/env bash
# Diff benchmark: `roadtraffic-load diff OLD NEW` (time and peak memory) beside one load of the
# NEW release into a fresh file, and a load of NEW replacing OLD (which compares the two
# before the swap), same run, in alternating rounds.
#
#   bench/diff.sh OLD_DATA_DIR NEW_DATA_DIR    (ROUNDS=3; OUT_DIR, else BENCH_DATA,
#                                              else target/bench-data)
#
# For the issue's figure: NEW a second synthetic release made with another seed and a year
# more (see the README's release-day section for the commands).
# Build first: cargo build --release --bin roadtraffic-load
set -euo pipefail

OLD=${1:?usage: bench/diff.sh OLD_DATA_DIR NEW_DATA_DIR}
NEW=${2:?usage: bench/diff.sh OLD_DATA_DIR NEW_DATA_DIR}
ROUNDS=${ROUNDS:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOADER=${LOADER:-${CARGO_TARGET_DIR:-$ROOT/target}/release/roadtraffic-load}
[ -x "$LOADER" ] || { echo "no $LOADER: cargo build --release --bin roadtraffic-load" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

OUT_DIR=${OUT_DIR:-${BENCH_DATA:-$ROOT/target/bench-data}} && mkdir -p "$OUT_DIR"
WORK=$(mktemp -d "$(cd "$OUT_DIR" && pwd)/diff-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cp "$LOADER" "$WORK/roadtraffic-load" && LOADER=$WORK/roadtraffic-load   # immune to a rebuild

# "seconds peak_KiB" of one command, its own process measured by /usr/bin/time.
measure() {
    /usr/bin/time -f '%e %M' -o "$WORK/time" "$@" >/dev/null 2>"$WORK/stderr" \
        || { cat "$WORK/stderr" >&2; exit 1; }
    cat "$WORK/time"
}
"$LOADER" --db "$WORK/old.db" --quiet --release old "$OLD"
LOAD=(); DIFF=(); REPLACE=()
for r in $(seq "$ROUNDS"); do
    rm -f "$WORK/new.db"
    LOAD+=("$(measure "$LOADER" --db "$WORK/new.db" --quiet --release new "$NEW")")
    DIFF+=("$(measure "$LOADER" diff "$WORK/old.db" "$WORK/new.db" --quiet --report-json "$WORK/changes.json")")
    cp "$WORK/old.db" "$WORK/replaced.db"
    REPLACE+=("$(measure "$LOADER" --db "$WORK/replaced.db" --quiet --release new "$NEW")")
    echo "round $r: load ${LOAD[-1]}, diff ${DIFF[-1]}, replacing load ${REPLACE[-1]} (s KiB)" >&2
done
# The median round by time: "seconds peak_KiB".
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'; }
read -r LT LM <<<"$(median "${LOAD[@]}")"
read -r DT DM <<<"$(median "${DIFF[@]}")"
read -r RT RM <<<"$(median "${REPLACE[@]}")"
mib() { echo "$1 / 1024" | bc; }
echo
echo "OLD $OLD, NEW $NEW; median of $ROUNDS rounds; peak memory = max RSS of the process"
echo
echo "| Run | Time (s) | Peak memory (MiB) | Time / one load |"
echo "|---|---|---|---|"
printf '| load NEW into a fresh file | %.2f | %s | 1.00 |\n' "$LT" "$(mib "$LM")"
printf '| diff OLD NEW | %.2f | %s | %.2f |\n' "$DT" "$(mib "$DM")" "$(echo "$DT / $LT" | bc -l)"
printf '| load NEW replacing OLD (with the comparison) | %.2f | %s | %.2f |\n' "$RT" "$(mib "$RM")" "$(echo "$RT / $LT" | bc -l)"
