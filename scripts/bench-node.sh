#!/usr/bin/env bash
# Node benchmark: the release addon beside the peer packages in one run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/bindings-node"
npm ci --no-audit --no-fund --loglevel=error
npx napi build --platform --release --js index.js --dts index.d.ts
(cd benchmarks && npm install --no-audit --no-fund --loglevel=error --no-package-lock)
node benchmarks/bench.mjs > "$root/target/bench-node.md"
python3 "$root/scripts/bench_report.py" --section node --from "$root/target/bench-node.md"
