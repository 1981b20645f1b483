#!/usr/bin/env bash
# Fuzzing: the cargo-fuzz targets of fuzz/ (parse, decode, layout, generator;
# $FUZZ_SECONDS each, nightly Rust and libFuzzer), then the adversarial suites
# of Python and Node with $POLYFLAKE_FUZZ_CASES random bad calls each.
# `make fuzz` runs 600 s per target and 100,000 calls; `make test` a short
# run of each. Every run first replays the committed corpus in
# fuzz/corpus/<target> (so it doubles as a regression suite) and adds what it
# finds there: commit it. A crash lands in fuzz/artifacts/<target>; put it in
# the corpus with its fix (`cargo +nightly fuzz run <target> <file>` replays it).
# `fuzz.sh --build` builds the targets and stops: make test builds them ahead
# (scripts/ahead.sh); a run takes that build, or builds first.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
# The fuzz targets' own cargo target directory (sanitizer flags, nightly):
# the same for the build ahead and the run.
export CARGO_TARGET_DIR="$work/fuzz-target"
seconds=${FUZZ_SECONDS:-600}
cases=${POLYFLAKE_FUZZ_CASES:-100000}
if ! rustup toolchain list | grep -q '^nightly'; then
    echo "fuzz: cargo fuzz needs the nightly toolchain (rustup toolchain install nightly)" >&2
    exit 1
fi
cd "$root"
if [ "${1:-}" = "--build" ]; then
    command -v cargo-fuzz >/dev/null || cargo install --quiet --locked cargo-fuzz
    cargo +nightly fuzz build
    exit
fi
bash "$root/scripts/ahead.sh" take fuzz-build
for target in parse decode layout generator; do
    echo "fuzz: $target for ${seconds} s"
    # libFuzzer's own report goes to the log; its last line says how many runs.
    if ! cargo +nightly fuzz run "$target" -- -max_total_time="$seconds" > "$work/fuzz-$target.log" 2>&1; then
        tail -n 40 "$work/fuzz-$target.log" >&2
        echo "fuzz: $target found a failure (input in fuzz/artifacts/$target)" >&2
        exit 1
    fi
    grep -E '^Done [0-9]+ runs' "$work/fuzz-$target.log" || true
done
[ -x "$work/py-venv/bin/python" ] && "$work/py-venv/bin/python" -c "import polyflake" 2>/dev/null ||
    bash "$root/scripts/test-python.sh"
[ -f "$root/bindings-node/polyflake.linux-x64-gnu.node" ] || bash "$root/scripts/test-node.sh"
echo "fuzz: $cases random bad calls each in Python and Node (POLYFLAKE_FUZZ_SEED replays a failure)"
(cd "$root/bindings-python/tests" &&
    POLYFLAKE_FUZZ_CASES=$cases "$work/py-venv/bin/python" -m pytest -q -p no:cacheprovider test_adversarial.py)
(cd "$root/bindings-node" && POLYFLAKE_FUZZ_CASES=$cases node --test __test__/adversarial.test.mjs)
