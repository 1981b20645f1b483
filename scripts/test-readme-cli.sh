#!/usr/bin/env bash
# The README's command-line examples as written, with the CLI `cargo test`
# just built, each in a state directory of its own.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
readme="$work/readme-cli"
rm -rf "$readme"
python3 "$root/scripts/readme_examples.py" extract sh "$readme"
cargo build -q -p polyflake-cli
for example in "$readme"/*.sh; do
    state=$(mktemp -d)
    POLYFLAKE_STATE_DIR="$state" PATH="$cargo_target/debug:$PATH" bash -euo pipefail "$example" >/dev/null
    rm -rf "$state"
done
echo "README command-line examples ran"
