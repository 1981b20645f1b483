#!/usr/bin/env bash
# make test-dist, last: the OCI image of `polyflake serve` that make dist
# wrote (dist/oci/), read back and run.
#   1. oci_image.py check: every digest and size, the diff_ids, amd64 and arm64
#      in the index, a non-root user, a static entrypoint of each architecture,
#      no shell in the layer.
#   2. podman (Debian's, with runc) loads the archive and runs the amd64 image
#      as its config says: answers /readyz and /v1/ids (serve_check.py), runs as user 65532, and
#      exits 0 on `podman stop` (SIGTERM). Its storage lives in target/podman.
# This machine's sandbox withholds CAP_SYS_RESOURCE, so podman's default
# rlimits (above the hard limits here) cannot be set: the run sets them to
# what this shell has. crun refuses this host's hybrid cgroups; runc runs.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
archive="$root/dist/oci/polyflake-serve-$version.oci.tar"
[ -f "$archive" ] || { echo "test-image: $archive is missing: run make dist first" >&2; exit 1; }
layout="$work/test-image/layout"
rm -rf "$work/test-image" && mkdir -p "$layout"
tar -C "$layout" -xf "$archive"
python3 "$root/scripts/oci_image.py" check "$layout"

store="$work/podman"
podman=(podman --root "$store/root" --runroot "$store/run" --storage-driver vfs
    --cgroup-manager cgroupfs --events-backend file --runtime runc)
image="localhost/polyflake/serve:$version"
name="polyflake-test-image-$$"
cleanup() {
    "${podman[@]}" rm -f "$name" >/dev/null 2>&1 || true
    "${podman[@]}" rmi -f "$image" >/dev/null 2>&1 || true
}
trap cleanup EXIT
"${podman[@]}" load -q -i "$archive"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"${podman[@]}" run -d --name "$name" --network host \
    --ulimit "nofile=$(ulimit -n):$(ulimit -Hn)" --ulimit nproc=4096:4096 \
    -e "POLYFLAKE_LISTEN=127.0.0.1:$port" "$image" >/dev/null
python3 "$root/scripts/serve_check.py" --port "$port"
user=$("${podman[@]}" top "$name" user | tail -1 | tr -d ' ')
[ "$user" = polyflake ] || { echo "test-image: serve runs as '$user', not polyflake" >&2; exit 1; }
"${podman[@]}" stop -t 20 "$name" >/dev/null
code=$("${podman[@]}" inspect "$name" --format '{{.State.ExitCode}}')
[ "$code" = 0 ] || { "${podman[@]}" logs "$name" >&2; echo "test-image: exit code $code after SIGTERM" >&2; exit 1; }
"${podman[@]}" logs "$name" 2>&1 | grep -q "worker identity is released" ||
    { echo "test-image: serve did not release its identity on SIGTERM" >&2; exit 1; }
echo "test-image: the image ran under podman as user polyflake and stopped cleanly on SIGTERM"
