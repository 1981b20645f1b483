#!/usr/bin/env bash
# Python benchmark: the release wheel beside the peer libraries in one venv.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
venv="$work/py-bench-venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check maturin \
    snowflake-id snowflake-id-toolkit sonyflake uuid-utils
"$venv/bin/maturin" build --quiet --release -m "$root/bindings-python/Cargo.toml" -o "$work/wheels/bench"
"$venv/bin/python" -m pip install -q --force-reinstall --no-deps "$work"/wheels/bench/polyflake-*.whl
"$venv/bin/python" "$root/bindings-python/benchmarks/bench.py" > "$work/bench-python.md"
python3 "$root/scripts/bench_report.py" --section python --from "$work/bench-python.md"
