#!/usr/bin/env bash
# make test-postgres: the PostgreSQL extension (postgres/, pgrx), installed
# into Debian's PostgreSQL 15 by pg-extension.sh, then its SQL suite
# (postgres/tests) against clusters of the suite's own on 127.0.0.1. (The
# rules of its custom layouts are tested by cargo test: postgres/layouts.)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
# Built ahead by make test (scripts/ahead.sh), else here.
bash "$root/scripts/ahead.sh" take pg-extension
venv=$(bash "$root/scripts/py-venv.sh")
# An ID minted in SQL is decoded by the CLI and the Python wheel too: the
# debug CLI and the lean wheel of scripts/artifact.sh (test-python's, in make test).
cli=$(bash "$root/scripts/artifact.sh" cli)
wheel=$(ls "$(bash "$root/scripts/artifact.sh" wheel-lean)"/polyflake-*.whl | head -1)
# In a directory of its own on PYTHONPATH: the venv's own polyflake (test-python's) is not this one.
rm -rf "$work/pg-lean"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps --target "$work/pg-lean" "$wheel"
"$venv/bin/ruff" check -q "$root/postgres/tests" "$root"/tests/*.py
"$venv/bin/ruff" format --check -q "$root/postgres/tests" "$root"/tests/*.py
(cd "$root/postgres/tests" && PYTHONPATH="$work/pg-lean" POLYFLAKE_CLI="$cli" "$venv/bin/python" -m pytest -q -p no:cacheprovider .)
