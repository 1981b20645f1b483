#!/usr/bin/env bash
# make test: the Debian packages first (apt is not shared), then the release
# builds of the last suites start in a lane of their own that takes only the
# CPU the suites leave (scripts/ahead.sh, ADR 0019), and the suites run one
# after another, as make runs its targets: the arguments are those targets.
# The lane ends with this script, however it ends.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bash "$root/scripts/debian-deps.sh"
trap 'bash "$root/scripts/ahead.sh" stop' EXIT
bash "$root/scripts/ahead.sh" start pg-extension fuzz-build dist-native
export POLYFLAKE_AHEAD="$work/ahead"
# One id for this run: scripts/artifact.sh builds each shared artifact once in it.
export POLYFLAKE_RUN="$(date +%s)-$$"
"${MAKE:-make}" --no-print-directory -C "$root" "$@"
