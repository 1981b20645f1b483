#!/usr/bin/env bash
# The README's main job: build the CLI and the Python package, mint IDs,
# take one apart, and show that Rust and Python read it identically.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/debian-deps.sh"
cd "$root"
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

cargo build --quiet --release -p polyflake-cli --features etcd
pf="$root/target/release/polyflake"
export POLYFLAKE_STATE_DIR="$root/target/demo-state"

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
venv="$root/target/py-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import polyflake" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check maturin
    "$venv/bin/maturin" build --quiet --release -m bindings-python/Cargo.toml -o target/wheels
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall target/wheels/polyflake-*.whl
fi
py_json=$("$venv/bin/python" - "${ids[0]}" <<'PY'
import sys, polyflake
p = polyflake.decode(int(sys.argv[1]), "twitter")
print(polyflake.dumps({"id": p.id, "layout": p.layout.name, **{"timestamp_ms": p.timestamp_ms,
      "time": p.datetime.isoformat(timespec="milliseconds").replace("+00:00", "Z")},
      **{k: v for k, v in p._asdict().items() if k != "timestamp_ms"}}, separators=(",", ":")))
PY
)
echo "python:   $py_json"
[ "$rust_json" = "$py_json" ] || agree=0

if [ ! -f bindings-node/polyflake.linux-x64-gnu.node ]; then
    (cd bindings-node && npm ci --no-audit --no-fund --loglevel=error \
        && npx napi build --platform --release --js index.js --dts index.d.ts >/dev/null)
fi
node_json=$(node -e '
const pf = require("./bindings-node/polyflake.js")
const p = pf.decode(BigInt(process.argv[1]), "twitter")
const snake = (k) => k.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase())
const out = { id: p.id, layout: "twitter", timestamp_ms: p.timestampMs, time: p.date.toISOString() }
for (const k of pf.Layout.TWITTER.fieldNames) out[snake(k)] = p[k]
out.sequence = p.sequence
console.log(JSON.stringify(out, pf.jsonReplacer))' "${ids[0]}")
echo "node:     $node_json"
[ "$rust_json" = "$node_json" ] || agree=0

jar=$(ls bindings-kotlin/target/polyflake-*.jar 2>/dev/null | head -1 || true)
if [ -z "$jar" ]; then
    bash scripts/test-kotlin.sh -q -DskipTests >/dev/null
    jar=$(ls bindings-kotlin/target/polyflake-*.jar | head -1)
fi
mvn -q -B -Dstyle.color=never -f bindings-kotlin/pom.xml dependency:build-classpath -Dmdep.outputFile="$root/target/kotlin-cp.txt" -Dmdep.includeScope=runtime >/dev/null
cp=$(cat target/kotlin-cp.txt)
cat > target/demo.jsh <<JSH
var p = dev.polyflake.Polyflake.decode(Long.parseUnsignedLong("${ids[0]}"), dev.polyflake.Layout.TWITTER);
var f = p.getNodes();
var time = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(java.time.ZoneOffset.UTC).format(p.getInstant());
System.out.println("{\"id\":\"" + Long.toUnsignedString(p.getId()) + "\",\"layout\":\"twitter\",\"timestamp_ms\":" + p.getTimestampMs() + ",\"time\":\"" + time + "\",\"datacenter_id\":" + f.get("datacenter_id") + ",\"machine_id\":" + f.get("machine_id") + ",\"sequence\":" + p.getSequence() + "}");
/exit
JSH
kotlin_json=$(jshell -q --class-path "$jar:$cp" target/demo.jsh 2>/dev/null | grep '^{' || true)
echo "kotlin:   $kotlin_json"
[ "$rust_json" = "$kotlin_json" ] || agree=0
if [ "$agree" = 1 ]; then
    say "all languages agree"
else
    say "MISMATCH between languages"; exit 1
fi
