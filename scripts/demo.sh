#!/usr/bin/env bash
# The README's main job: build the CLI and the three bindings (default
# features: Rust, Python, Node, a JDK and Maven are all it needs), mint IDs,
# take one apart, and show that every language reads it identically.
# Build output goes to target/demo-build.log; the screen shows the demo.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$root"
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
log="$work/demo-build.log"
: > "$log"
# Builds talk to the log; the demo shows only its own output.
quietly() {
    if ! "$@" >> "$log" 2>&1; then
        echo "polyflake demo: this step failed: $*" >&2
        tail -n 40 "$log" >&2
        echo "(the whole build log: $log)" >&2
        exit 1
    fi
}

echo "polyflake: building the CLI and the Python, Node and Kotlin packages (first run takes a few minutes; log in target/demo-build.log)"
# Debug builds: the demo mints a handful of IDs, so compile time is what
# counts (the tests and benchmarks use release builds). Downloads (npm, pip,
# Maven) run beside the first compile, which keeps both cores busy.
venv="$work/py-venv-demo"
background() { quietly "$@" & }
need() { [ -z "$1" ] || wait "$1" || exit 1; }
background bash -c "cd bindings-node && npm ci --no-audit --no-fund --loglevel=error"
npm_ready=$!
pip_ready=""
if [ ! -x "$venv/bin/maturin" ]; then
    background bash -c "python3 -m venv '$venv' &&
        '$venv/bin/python' -m pip install -q --disable-pip-version-check maturin"
    pip_ready=$!
fi
background mvn -q -B -ntp -f bindings-kotlin/pom.xml dependency:go-offline
maven_ready=$!
quietly cargo build -p polyflake-cli
need "$pip_ready"
rm -rf "$work/wheels/demo"
quietly "$venv/bin/maturin" build --profile dev -m bindings-python/Cargo.toml -o "$work/wheels/demo"
quietly "$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall "$work"/wheels/demo/polyflake-*.whl
need "$npm_ready"
(cd bindings-node && quietly npx napi build --platform --js index.js --dts index.d.ts)
need "$maven_ready"
BUILD_FEATURES="" BUILD_PROFILE=dev quietly bash scripts/build-kotlin.sh
quietly mvn -q -B -ntp -f bindings-kotlin/pom.xml -Dmaven.test.skip=true package
quietly mvn -q -B -ntp -Dstyle.color=never -f bindings-kotlin/pom.xml dependency:build-classpath \
    -Dmdep.outputFile="$work/kotlin-cp.txt" -Dmdep.includeScope=runtime
# The library jar itself, never the -sources or -javadoc jar `make dist` leaves beside it.
jar=$(ls bindings-kotlin/target/polyflake-*.jar | grep -v -e '-sources\.jar$' -e '-javadoc\.jar$' | head -1)

pf="$cargo_target/debug/polyflake"
export POLYFLAKE_STATE_DIR="$work/demo-state"

say "polyflake next: three IDs (no identity given, so a local lease picks one)"
mapfile -t ids < <("$pf" next --layout twitter --count 3)
printf '%s\n' "${ids[@]}"

say "polyflake decode ${ids[0]} --layout twitter"
"$pf" decode "${ids[0]}" --layout twitter

say "polyflake convert: the same ID in base58 and crockford32"
"$pf" convert "${ids[0]}" --to base58
"$pf" convert "${ids[0]}" --to crockford32

say "polyflake compose: Discord's documented example ID, from its parts"
"$pf" compose --layout discord --timestamp 2016-04-30T11:18:25.796Z --worker-id 1 --process-id 0 --sequence 7

say "the same ID decoded by every language"
rust_json=$("$pf" decode "${ids[0]}" --layout twitter --json)
echo "rust/cli: $rust_json"
agree=1
py_json=$("$venv/bin/python" - "${ids[0]}" <<'PY'
import sys, polyflake
p = polyflake.decode(int(sys.argv[1]), "twitter")
print(polyflake.dumps({"id": p.id, "layout": p.layout.name, **{"timestamp_ms": p.timestamp_ms,
      "time": p.time.isoformat(timespec="milliseconds").replace("+00:00", "Z")},
      **{k: v for k, v in p._asdict().items() if k != "timestamp_ms"}}, separators=(",", ":"),
      id_keys=["id"]))  # node fields such as machine_id are numbers here, not IDs
PY
)
echo "python:   $py_json"
[ "$rust_json" = "$py_json" ] || agree=0

node_json=$(node -e '
const pf = require("./bindings-node/polyflake.js")
const p = pf.decode(BigInt(process.argv[1]), "twitter")
const snake = (k) => k.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase())
const out = { id: p.id, layout: "twitter", timestamp_ms: p.timestampMs, time: p.time.toISOString() }
for (const k of pf.Layout.TWITTER.fieldNames) out[snake(k)] = p[k]
out.sequence = p.sequence
console.log(JSON.stringify(out, pf.jsonReplacer))' "${ids[0]}")
echo "node:     $node_json"
[ "$rust_json" = "$node_json" ] || agree=0

cp=$(cat "$work/kotlin-cp.txt")
cat > "$work/demo.jsh" <<JSH
var p = dev.polyflake.Polyflake.decode(Long.parseUnsignedLong("${ids[0]}"), dev.polyflake.Layout.TWITTER);
var f = p.getNodes();
var time = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(java.time.ZoneOffset.UTC).format(p.getTime());
System.out.println("{\"id\":\"" + Long.toUnsignedString(p.getId()) + "\",\"layout\":\"twitter\",\"timestamp_ms\":" + p.getTimestampMs() + ",\"time\":\"" + time + "\",\"datacenter_id\":" + f.get("datacenter_id") + ",\"machine_id\":" + f.get("machine_id") + ",\"sequence\":" + p.getSequence() + "}");
/exit
JSH
kotlin_json=$(jshell -q --class-path "$jar:$cp" "$work/demo.jsh" 2>"$work/demo-jshell.log" | grep '^{' || true)
echo "kotlin:   $kotlin_json"
[ -n "$kotlin_json" ] || sed 's/^/          /' "$work/demo-jshell.log" | head -5
[ "$rust_json" = "$kotlin_json" ] || agree=0
if [ "$agree" = 1 ]; then
    say "all languages agree"
else
    say "MISMATCH between languages"; exit 1
fi
