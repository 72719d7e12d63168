#!/usr/bin/env bash
# `cargo install --path . --locked` installs the two programs, and they work from anywhere:
# installed into a scratch root, they load the bundled sample into a scratch folder (not the
# repository), serve it, answer /readyz and the API, and stop with exit 0 on SIGTERM.
#
#   deploy/check-install.sh        (PORT=18470; CARGO_TARGET_DIR is reused when set;
#                                   INSTALL_TARGET=<triple> installs that target's build,
#                                   PROFILE=dev the dev profile's)
#
# Needs: cargo, curl.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PORT=${PORT:-18470}
DEST=$(mktemp -d "${TMPDIR:-/tmp}/roadtraffic-install.XXXXXX")
SERVER=
cleanup() { [ -z "$SERVER" ] || kill "$SERVER" 2> /dev/null || true; rm -rf "$DEST"; }
trap cleanup EXIT
fail() { echo "check-install.sh: $*" >&2; [ ! -f "$DEST/serve.log" ] || cat "$DEST/serve.log" >&2; exit 1; }

cargo install --quiet --path "$ROOT" --locked --root "$DEST" --profile "${PROFILE:-release}" \
    ${INSTALL_TARGET:+--target "$INSTALL_TARGET"} \
    ${CARGO_TARGET_DIR:+--target-dir "$CARGO_TARGET_DIR"}
INSTALLED=$(cd "$DEST/bin" && ls | tr '\n' ' ')
[ "$INSTALLED" = "roadtraffic-load roadtraffic-serve " ] || fail "installed: $INSTALLED"

cd "$DEST"
bin/roadtraffic-load --quiet --db "$DEST/roadtraffic.db" --release install-check "$ROOT/data/sample"
bin/roadtraffic-serve --db "$DEST/roadtraffic.db" --bind "127.0.0.1:$PORT" > serve.log 2>&1 &
SERVER=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/healthz" > /dev/null && break; sleep 0.1; done
# grep without -q: it reads the whole body, where -q stops at the first match and leaves curl
# writing into a closed pipe, which fails (exit 23) under pipefail once a body outgrows the pipe.
curl -fsS "http://127.0.0.1:$PORT/readyz" | grep '"release":"install-check"' > /dev/null || fail "no /readyz"
curl -fsS "http://127.0.0.1:$PORT/api/regions" | grep '"name":' > /dev/null || fail "no /api/regions"
kill -TERM "$SERVER"
wait "$SERVER" || fail "roadtraffic-serve exited $? on SIGTERM"
SERVER=
echo "cargo install --path . --locked: roadtraffic-load and roadtraffic-serve installed; a release loaded and served from the installed programs, exit 0 on SIGTERM"
