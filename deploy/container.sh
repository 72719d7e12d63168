#!/usr/bin/env bash
# Builds the container image (deploy/Containerfile: static musl binaries on scratch, nothing
# pulled) with `podman build`, then checks the image without running a container: this
# machine's kernel refuses crun's setup (`setrlimit RLIMIT_NOFILE: Operation not permitted`),
# so the image's own file system is exported (`podman create` + `podman export`) and its
# binaries run from it the way a container would run them: in a mount and PID namespace, the
# root file system read-only, /proc and a /tmp tmpfs mounted, the data volume bound on /data,
# as the image's user (not root), with the image's environment and entrypoint. Checked: the
# binaries are static, the image holds nothing else, its user is not root, its loader builds a
# release on the volume, its server answers /readyz, the API and /metrics from the read-only
# volume, and exits 0 on SIGTERM.
#
#   deploy/container.sh            (IMAGE=roadtraffic:latest PORT=18480 KEEP_IMAGE=1 to keep it;
#                                   PROFILE=dev builds its binaries with cargo's dev profile)
#
# Needs: rustup's x86_64-unknown-linux-musl target (added if missing), musl-gcc (Debian
# musl-tools), podman, curl; root (for the namespaces and chroot).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=x86_64-unknown-linux-musl
IMAGE=${IMAGE:-roadtraffic:latest}
PORT=${PORT:-18480}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
PROFILE=${PROFILE:-release}
# Where cargo puts a profile's output: its name, but the dev profile's folder is "debug".
OUT_DIR=$TARGET_DIR/$TARGET/$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")
fail() { echo "container.sh: $*" >&2; exit 1; }

rustup target list --installed | grep -x "$TARGET" > /dev/null || rustup target add "$TARGET" ||
    fail "the $TARGET target is missing and rustup could not add it"
command -v musl-gcc >/dev/null || fail "musl-gcc is missing (apt-get install musl-tools)"
command -v podman >/dev/null || fail "podman is missing (apt-get install podman)"
[ "$(id -u)" -eq 0 ] || fail "run as root: the check uses mount namespaces and chroot"

# --- The static binaries --------------------------------------------------------------------
# The release profile without debug information: the image's copies are stripped, so making
# it is time lost (the dev profile keeps its line tables only, for our crates).
(cd "$ROOT" && CARGO_PROFILE_RELEASE_DEBUG=0 cargo build --profile "$PROFILE" --locked --target "$TARGET" \
    --bin roadtraffic-serve --bin roadtraffic-load)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/roadtraffic-container.XXXXXX")
CID=
cleanup() {
    [ -z "$CID" ] || podman rm "$CID" > /dev/null || true
    [ "${KEEP_IMAGE:-0}" = 1 ] || podman rmi "$IMAGE" > /dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
for bin in roadtraffic-serve roadtraffic-load; do
    cp "$OUT_DIR/$bin" "$WORK/$bin"
    strip "$WORK/$bin"
    ! readelf -d "$WORK/$bin" | grep NEEDED > /dev/null || fail "$bin links shared libraries"
done
cp "$ROOT/deploy/Containerfile" "$WORK/"

# --- The image ------------------------------------------------------------------------------
podman build --quiet -t "$IMAGE" -f "$WORK/Containerfile" "$WORK" > /dev/null
USER_ID=$(podman image inspect --format '{{.Config.User}}' "$IMAGE")
[ "$USER_ID" = 65534:65534 ] || fail "the image runs as '$USER_ID', not 65534:65534"
mapfile -t ENTRY < <(podman image inspect --format '{{range .Config.Entrypoint}}{{println .}}{{end}}' "$IMAGE" | sed '/^$/d')
mapfile -t ENV < <(podman image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$IMAGE" | sed '/^$/d')
CID=$(podman create "$IMAGE")
mkdir "$WORK/rootfs"
podman export "$CID" | tar -x -C "$WORK/rootfs"
FILES=$(cd "$WORK/rootfs" && find . -type f | sort | tr '\n' ' ')
[ "$FILES" = "./usr/local/bin/roadtraffic-load ./usr/local/bin/roadtraffic-serve " ] ||
    fail "the image holds more than the two programs: $FILES"
SIZE=$(du -sh "$WORK/rootfs" | cut -f1)

# --- Run from the image's file system, as the container would -----------------------------
# (The curls below pipe into grep without -q: -q stops at the first match and leaves curl
# writing into a closed pipe, which fails, exit 23, under pipefail once a body outgrows the pipe.)
mkdir -p "$WORK/rootfs/proc" "$WORK/rootfs/tmp" "$WORK/rootfs/data" "$WORK/rootfs/in" "$WORK/volume" \
    "$WORK/rootfs/downloads" "$WORK/downloads"
chown 65534:65534 "$WORK/volume" "$WORK/downloads"
export WORK PORT ROOT
export ENTRYPOINT="${ENTRY[*]}" IMAGE_ENV="${ENV[*]}"
# --mount-proc: ps (below) looks itself up in /proc by its pid in the new namespace, which the
# machine's /proc does not know; the namespace's own /proc does.
unshare --mount --pid --fork --mount-proc bash -euo pipefail -c '
    R=$WORK/rootfs
    mount --make-rprivate /
    mount --bind "$R" "$R" && mount -o remount,bind,ro "$R"        # --read-only
    mount -t proc proc "$R/proc"
    mount -t tmpfs -o size=64m tmpfs "$R/tmp"                      # podman --read-only keeps /tmp
    mount --bind "$WORK/volume" "$R/data"                          # -v volume:/data
    mount --bind "$WORK/downloads" "$R/downloads"                  # the /downloads volume
    mount --bind "$ROOT/data/sample" "$R/in" && mount -o remount,bind,ro "$R/in"
    as_image_user() { exec env -i $IMAGE_ENV chroot --userspec=65534:65534 "$R" "$@"; }   # exec: $! is the program
    ( as_image_user /usr/local/bin/roadtraffic-load --quiet --release container-check /in )
    mount -o remount,bind,ro "$R/data"                             # -v volume:/data:ro
    as_image_user $ENTRYPOINT --bind "127.0.0.1:$PORT" > "$WORK/server.log" 2>&1 &
    SERVER=$!
    for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/healthz" > /dev/null && break; sleep 0.1; done
    curl -fsS "http://127.0.0.1:$PORT/readyz" | grep "\"release\":\"container-check\"" > /dev/null ||
        { echo "no /readyz from the image" >&2; cat "$WORK/server.log" >&2; exit 1; }
    curl -fsS "http://127.0.0.1:$PORT/api/raw-counts?sort=-hour&page%5Bsize%5D=3" | grep "\"total\":" > /dev/null
    curl -fsS "http://127.0.0.1:$PORT/metrics" | grep "^roadtraffic_release_info{" > /dev/null
    curl -fsS -r 0-3 "http://127.0.0.1:$PORT/downloads/dft_traffic_counts_aadf.parquet" | grep PAR1 > /dev/null
    ls "$WORK/downloads"/*/dft_traffic_counts_aadf.parquet > /dev/null ||
        { echo "the downloads were not kept in the /downloads volume" >&2; exit 1; }
    RUNS_AS=$(ps -eo user=,args= | sed -n "s|^\([a-z0-9]*\) *$ENTRYPOINT --bind 127.0.0.1:$PORT\$|\1|p")
    [ "$RUNS_AS" = nobody ] || { echo "the server runs as \"$RUNS_AS\", not nobody" >&2; exit 1; }
    kill -TERM "$SERVER"
    wait "$SERVER" || { echo "the server exited $? on SIGTERM" >&2; cat "$WORK/server.log" >&2; exit 1; }
'
echo "container image $IMAGE ($SIZE, static $TARGET binaries of the $PROFILE profile on scratch, user 65534): built;"
echo "from its file system, read-only, as its user: a release loaded, /readyz, the API,"
echo "/metrics and a range of a Parquet download (kept in /downloads) answered, exit 0 on SIGTERM"
