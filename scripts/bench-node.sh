#!/usr/bin/env bash
# Node benchmark: the release addon (with `test-hooks`, for the floor of a
# native call) beside the peer packages in one run.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$root/bindings-node"
npm ci --no-audit --no-fund --loglevel=error
npx napi build --platform --release --features test-hooks -o "$work/node-bench" --no-js --dts index.d.ts
cp "$work/node-bench/polyflake.linux-x64-gnu.node" .
(cd benchmarks && npm install --no-audit --no-fund --loglevel=error --no-package-lock)
node benchmarks/bench.mjs > "$work/bench-node.md"
python3 "$root/scripts/bench_report.py" --section node --from "$work/bench-node.md"
