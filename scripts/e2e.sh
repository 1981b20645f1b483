#!/usr/bin/env bash
# make e2e (the full run: production TTL, longer phases) and make test-e2e
# (the short run in make test): etcd, PostgreSQL, three `polyflake serve`
# replicas, Python and Node order services and an in-process Python writer,
# under scripted faults; e2e/run.py starts and checks everything.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bash "$root/scripts/debian-deps.sh"
cli=$(bash "$root/scripts/artifact.sh" cli-serve)

venv=$(bash "$root/scripts/py-venv.sh")
pip() { "$venv/bin/python" -m pip install -q --disable-pip-version-check "$@"; }
# The Python library with its etcd feature: test-python's wheel in make test
# (scripts/artifact.sh), never a stale one from an earlier run.
pip --force-reinstall --no-deps "$(bash "$root/scripts/artifact.sh" wheel-test)"/polyflake-*.whl
"$venv/bin/ruff" check "$root/e2e"
"$venv/bin/ruff" format --check "$root/e2e"

node_dir="$work/e2e-node"
mkdir -p "$node_dir"
cp "$root/e2e/package.json" "$root/e2e/client.mjs" "$node_dir/"
(cd "$node_dir" && npm install --silent --no-audit --no-fund >/dev/null)

script=run.py
if [ "${1:-}" = "--bench-keys" ]; then shift; script=bench_keys.py; fi
"$venv/bin/python" "$root/e2e/$script" --cli "$cli" --node-dir "$node_dir" "$@"
