#!/usr/bin/env bash
# Pages of the oldest kept release (r1 of bench/releases_disk.sh), side by side: BEFORE serving
# BEFORE_DB (e.g. its AADF tables kept whole, loaded with --whole-rows) and SERVER serving DB
# (e.g. loaded by default, r1 reading them through two layers), each URL by bench/ab.sh,
# response cache off. BEFORE_DB may be DB, to compare two servers on one file.
#
#   BEFORE=... BEFORE_DB=.../t.db bench/releases_pages.sh DB
#
# Env: as bench/ab.sh (SERVER, ROUNDS: 2, DURATION: 5s).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DB=${1:?usage: BEFORE=... BEFORE_DB=... bench/releases_pages.sh DB}
for url in \
    '/releases/r1/api/average-annual-daily-flow?page%5Bnumber%5D=2000' \
    '/releases/r1/api/average-annual-daily-flow?filter%5Bcount_point_id%5D=96364' \
    '/releases/r1/api/average-annual-daily-flow?filter%5Byear%5D=2015' \
    '/releases/r1/api/average-annual-daily-flow?filter%5Byear%5D=2015&page%5Bnumber%5D=30' \
    '/releases/r1/api/average-annual-daily-flow?sort=year&page%5Bnumber%5D=50' \
    '/releases/r1/api/average-annual-daily-flow?sort=-year&page%5Bnumber%5D=50' \
    '/releases/r1/api/average-annual-daily-flow?sort=count_point_id&page%5Bnumber%5D=100' \
    '/releases/r1/api/average-annual-daily-flow?filter%5Broad_category%5D=TM&sort=year' \
    '/releases/r1/api/average-annual-daily-flow-by-direction?filter%5Blocal_authority_id%5D=26&page%5Bnumber%5D=20' \
    '/releases/r1/api/average-annual-daily-flow/summary?group_by=year&sum=all_motor_vehicles' \
    '/releases/r1/api/average-annual-daily-flow/summary?group_by=year&sum=all_motor_vehicles&filter%5Blocal_authority_id%5D=26' \
    '/releases/r1/api/average-annual-daily-flow/summary?group_by=road_category&sum=all_motor_vehicles&filter=year%20%3E%202010'; do
    ROUNDS=${ROUNDS:-2} DURATION=${DURATION:-5s} SERVE_ARGS="--response-cache-mb 0 --lazy-downloads" \
        "$ROOT/bench/ab.sh" "$DB" "$url"
done
