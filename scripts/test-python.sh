#!/usr/bin/env bash
# Python: builds the wheel once (release, abi3), installs it into a fresh venv
# and tests that artifact: ruff, mypy --strict on the stubs and a typed
# example, then pytest (golden vectors, threads, fork, bad input).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/debian-deps.sh"
venv="$root/target/py-venv"
wheels="$root/target/wheels"

rm -rf "$venv" "$wheels"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check maturin pytest mypy ruff
"$venv/bin/maturin" build --quiet --release -m "$root/bindings-python/Cargo.toml" -o "$wheels"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "$wheels"/polyflake-*.whl

cd "$root/bindings-python"
"$venv/bin/ruff" check python tests benchmarks
"$venv/bin/ruff" format --check python tests benchmarks
# Type-check the installed package (stubs + py.typed), never the source tree.
(cd tests && "$venv/bin/mypy" --strict --no-incremental typing_example.py)
(cd tests && "$venv/bin/python" -m pytest -q -p no:cacheprovider)
