#!/usr/bin/env bash
# Node: builds the addon twice (napi CLI from the npm registry):
#   - without features (what a plain source build gives): its generated
#     loader and typings must equal the committed index.js/index.d.ts, and
#     lean-test/ expects etcd to be refused;
#   - with the `etcd` and `test-hooks` features: the addon the suite runs on.
# Both are debug builds (Rust's debug assertions and overflow checks under the
# suite); the release addon users install is tested by make test-dist-host.
# Then type-checks a typed usage example and runs node --test on the package.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bash "$root/scripts/debian-deps.sh"
cd "$root/bindings-node"
npm ci --no-audit --no-fund --loglevel=error
rm -rf "$work/node-lean" "$work/node-test"
npx napi build --platform -o "$work/node-lean" --js index.js --dts index.d.ts
for generated in index.js index.d.ts; do
    if ! cmp -s "$work/node-lean/$generated" "$generated"; then
        diff -u "$generated" "$work/node-lean/$generated" | head -40 >&2 || true
        echo "bindings-node: the generated $generated differs from the committed one; commit it" >&2
        exit 1
    fi
done
npx napi build --platform --features "etcd test-hooks" -o "$work/node-test" \
    --no-js --dts index.d.ts
cp "$work/node-test/polyflake.linux-x64-gnu.node" .
npx tsc --noEmit -p tsconfig.json
# polyflake/drizzle's and polyflake/typeorm's typings against the ORMs' own (drizzle's other dialects'
# declarations do not check, hence a config of its own that skips them).
npx tsc --noEmit -p tsconfig.integrations.json
# The replicas Generator.fromService is tested against (tests/service_cluster.py).
cli=$(bash "$root/scripts/artifact.sh" cli-serve)
POLYFLAKE_CLI="$cli" node --test __test__/
POLYFLAKE_LEAN_ADDON="$work/node-lean/polyflake.linux-x64-gnu.node" node --test lean-test/
# The README's JavaScript as written, against this package.
readme="$work/readme-node"
rm -rf "$readme" && mkdir -p "$readme/node_modules"
ln -s "$root/bindings-node" "$readme/node_modules/polyflake"
for peer in drizzle-orm pg typeorm; do ln -s "$root/bindings-node/node_modules/$peer" "$readme/node_modules/$peer"; done
python3 "$root/scripts/readme_examples.py" extract js "$readme"
for example in "$readme"/*.cjs; do node "$example" >/dev/null; done
