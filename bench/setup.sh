#!/usr/bin/env bash
# Installs what the benchmarks in bench/ need (idempotent: only what is missing).
#   sqlite3   the baseline loader (.import --csv) and the row look-ups of serve.sh
#   wrk       the HTTP load generator of serve.sh
#   hyperfine for ad-hoc timings (not needed by the scripts themselves)
#   time      GNU time (/usr/bin/time), for peak RSS
#   datasette the server baseline of serve.sh and site.sh (PyPI)
#   chromium  headless, site.sh's page-drawn time; websocket-client (PyPI) speaks to it
#   nginx     columnar.py's baseline for byte ranges
#   duckdb    columnar.py's query engine over HTTP, with httpfs from PyPI (it cannot be
#             downloaded from DuckDB's site here), loaded by path
set -euo pipefail

missing=()
command -v sqlite3   >/dev/null || missing+=(sqlite3)
command -v wrk       >/dev/null || missing+=(wrk)
command -v hyperfine >/dev/null || missing+=(hyperfine)
[ -x /usr/bin/time ]            || missing+=(time)
command -v chromium  >/dev/null || missing+=(chromium)
command -v nginx     >/dev/null || missing+=(nginx)
if [ ${#missing[@]} -gt 0 ]; then
    SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
command -v datasette >/dev/null || python3 -m pip install --quiet datasette
python3 -c 'import websocket' 2>/dev/null || python3 -m pip install --quiet websocket-client
python3 -c 'import duckdb_ext' 2>/dev/null ||
    python3 -m pip install --quiet 'duckdb==1.4.4' 'duckdb-ext-httpfs==1.4.4.20260205'

# Versions, for the record of any run.
sqlite3 --version | cut -d' ' -f1
wrk --version 2>&1 | head -1 | cut -d' ' -f1-2 || true
hyperfine --version
dpkg-query -W -f='GNU time ${Version}\n' time 2>/dev/null || true
datasette --version
chromium --version 2>/dev/null | head -1
