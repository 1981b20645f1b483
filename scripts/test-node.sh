#!/usr/bin/env bash
# Node: builds the addon (release, napi CLI from the npm registry), checks
# that the committed generated loader and typings are current, type-checks a
# typed usage example, then runs the node --test suite against the package.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/debian-deps.sh"
cd "$root/bindings-node"
npm ci --no-audit --no-fund --loglevel=error
npx napi build --platform --release --js index.js --dts index.d.ts
if ! git -C "$root" diff --quiet -- bindings-node/index.js bindings-node/index.d.ts; then
    git -C "$root" diff --stat -- bindings-node/index.js bindings-node/index.d.ts
    echo "bindings-node: the generated index.js/index.d.ts differ from the committed ones; commit them" >&2
    exit 1
fi
npx tsc --noEmit -p tsconfig.json
node --test __test__/
