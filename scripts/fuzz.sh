#!/usr/bin/env bash
# Random bad input against the built artifacts: the adversarial suites of
# Python and Node with $POLYFLAKE_FUZZ_CASES calls each (make test runs them
# with a few thousand). Builds what `make test` builds if it is missing.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
[ -x "$work/py-venv/bin/python" ] && "$work/py-venv/bin/python" -c "import polyflake" 2>/dev/null ||
    bash "$root/scripts/test-python.sh"
[ -f "$root/bindings-node/polyflake.linux-x64-gnu.node" ] || bash "$root/scripts/test-node.sh"
echo "fuzz: $POLYFLAKE_FUZZ_CASES calls each; seeds are printed on failure (POLYFLAKE_FUZZ_SEED replays one)"
(cd "$root/bindings-python/tests" && "$work/py-venv/bin/python" -m pytest -q -p no:cacheprovider test_adversarial.py)
(cd "$root/bindings-node" && node --test __test__/adversarial.test.mjs)
