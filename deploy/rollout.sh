#!/usr/bin/env bash
# Rolls a release out to replicas, one at a time. The release is loaded once (roadtraffic-load
# into a staging path); then for each replica, its copy of the file is replaced and the
# replica is waited for:
#
#   deploy/rollout.sh NEW.db URL=PATH [URL=PATH ...]
#   deploy/rollout.sh /srv/staging/roadtraffic.db \
#       http://127.0.0.1:8081=/srv/roadtraffic/r1/roadtraffic.db \
#       http://127.0.0.1:8082=/srv/roadtraffic/r2/roadtraffic.db
#
# For each URL=PATH: NEW.db is copied beside PATH (same file system), flushed to disk, and
# renamed over PATH (atomic: the replica sees the old file or the new, never part of one); the
# replica at URL switches within its --watch-interval, requests in flight finishing on the old
# file; the script waits until URL/readyz reports the new release's id, then goes on to the
# next replica. A replica that does not switch within TIMEOUT seconds (it refused the file: its
# log says why) stops the rollout, the replicas not yet reached untouched.
#
# The id is the SHA-256 of the file's metadata table (what /readyz and /metrics report), so it
# is computed here with sqlite3. Replicas on other machines: copy NEW.db to PATH.partial there
# (rsync, scp), then rename it over PATH with ssh; the steps and the wait are the same.
#
# Env: TIMEOUT (30 s per replica); LINK=1 hard-links instead of copying (replicas on one
# machine and file system: one copy on disk for all).
set -euo pipefail

NEW=${1:?usage: deploy/rollout.sh NEW.db URL=PATH [URL=PATH ...]}
shift
[ $# -gt 0 ] || { echo "rollout.sh: no replica given" >&2; exit 2; }
TIMEOUT=${TIMEOUT:-30}

release_id() {
    sqlite3 -readonly -separator "$(printf '\t')" "$1" \
        "SELECT key, value FROM metadata ORDER BY key" | sha256sum | cut -d' ' -f1
}
ID=$(release_id "$NEW")

for replica in "$@"; do
    url=${replica%%=*} path=${replica#*=}
    [ "$url" != "$replica" ] || { echo "rollout.sh: '$replica' is not URL=PATH" >&2; exit 2; }
    tmp=$(mktemp "$(dirname "$path")/.$(basename "$path").rollout.XXXXXX")
    if [ "${LINK:-0}" = 1 ]; then
        ln -f "$NEW" "$tmp"
    else
        cp "$NEW" "$tmp"
        sync "$tmp"
    fi
    mv -f "$tmp" "$path"
    sync "$(dirname "$path")"
    started=$(date +%s.%N)
    # grep without -q, which would leave curl writing into a closed pipe (exit 23 under pipefail).
    until curl -fsS --max-time 2 "$url/readyz" 2>/dev/null | grep "\"id\":\"$ID\"" > /dev/null; do
        if awk -v s="$started" -v now="$(date +%s.%N)" -v t="$TIMEOUT" 'BEGIN { exit !(now - s > t) }'; then
            echo "rollout.sh: $url did not switch to $ID within $TIMEOUT s: stopped" >&2
            exit 1
        fi
        sleep 0.1
    done
    awk -v s="$started" -v now="$(date +%s.%N)" -v url="$url" \
        'BEGIN { printf "%s serves the new release (%.1f s after the rename)\n", url, now - s }'
done
