#!/usr/bin/env bash
# The README's command-line examples as written, with the CLI (with `serve`)
# of scripts/artifact.sh, each in a state directory of its own.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
readme="$work/readme-cli"
rm -rf "$readme"
python3 "$root/scripts/readme_examples.py" extract sh "$readme"
bin=$(dirname "$(bash "$root/scripts/artifact.sh" cli-serve)")
for example in "$readme"/*.sh; do
    state=$(mktemp -d)
    # A session of its own: what an example leaves running (the service) is stopped with it.
    POLYFLAKE_STATE_DIR="$state" PATH="$bin:$PATH" setsid bash -euo pipefail "$example" >/dev/null &
    pid=$!
    status=0
    wait "$pid" || status=$?
    kill -TERM -- "-$pid" 2>/dev/null || true
    sleep 0.2
    rm -rf "$state"
    [ "$status" = 0 ] || { echo "README example $example failed ($status)" >&2; exit 1; }
done
echo "README command-line examples ran"
