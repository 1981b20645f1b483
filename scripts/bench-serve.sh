#!/usr/bin/env bash
# make bench-serve: `polyflake serve` (release) under wrk on loopback, beside
# the same machine's floor, a trivial axum handler (/healthz of the same
# server): requests/s and latency for count=1 and count=1000, and IDs/s
# against the 4,096-per-ms ceiling. Into docs/benchmarks.md (section serve).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v wrk >/dev/null || { sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo; $sudo apt-get install -y -qq wrk >/dev/null; }
bash "$root/scripts/debian-deps.sh"
cargo build --quiet --release -p polyflake-cli --features serve
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
state=$(mktemp -d)
POLYFLAKE_STATE_DIR="$state" "$cargo_target/release/polyflake" serve --layout snowflake --listen "127.0.0.1:$port" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$state"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done
out="$work/bench-serve"
mkdir -p "$out"
run() { # name path
    wrk -t1 -c16 -d"${BENCH_SECONDS:-10}"s --latency "http://127.0.0.1:$port$2" > "$out/$1.txt"
}
run floor /healthz
run one "/v1/ids?count=1"
run batch "/v1/ids?count=1000"
python3 - "$out" "$root/scripts" <<'PY'
import re, sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from bench_report import replace_section

def parse(name):
    text = (Path(sys.argv[1]) / f"{name}.txt").read_text()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    def pct(p):
        m = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
        v, unit = float(m.group(1)), m.group(2)
        return v / 1000 if unit == "us" else v if unit == "ms" else v * 1000
    return rps, pct(50), pct(99)

floor, one, batch = parse("floor"), parse("one"), parse("batch")
ids_per_ms = batch[0]  # 1,000 IDs per request: requests/s = IDs/ms
rows = [
    ("trivial axum handler (`/healthz`), the floor", floor, "—"),
    ("`GET /v1/ids?count=1`", one, f"{one[0] / floor[0]:.0%} of the floor's requests/s"),
    ("`GET /v1/ids?count=1000`", batch, f"{batch[0] * 1000:,.0f} IDs/s = {ids_per_ms / 4096:.0%} of 4,096/ms"),
]
body = ["`make bench-serve`: the release `polyflake serve` (layout `snowflake`, a local lease) under",
        "`wrk -t1 -c16` on loopback, 2 cores shared by server and load generator.",
        "",
        "| request | requests/s | p50 | p99 | |", "|---|---|---|---|---|"]
for name, (rps, p50, p99), note in rows:
    body.append(f"| {name} | {rps:,.0f} | {p50:.2f} ms | {p99:.2f} ms | {note} |")
replace_section("serve", "\n".join(body))
print("\n".join(body))
PY
