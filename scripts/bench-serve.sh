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
run() { # name connections path
    wrk -t1 -c"$2" -d"${BENCH_SECONDS:-10}"s --latency "http://127.0.0.1:$port$3" > "$out/$1.txt"
}
# 16 connections saturate both cores (throughput; the tail is queueing on
# the shared cores, the floor's too); 4 connections show the latency of a
# server that is not saturated.
run floor 16 /healthz
run one 16 "/v1/ids?count=1"
run batch 16 "/v1/ids?count=1000"
run floor4 4 /healthz
run one4 4 "/v1/ids?count=1"
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
floor4, one4 = parse("floor4"), parse("one4")
ids_per_ms = batch[0]  # 1,000 IDs per request: requests/s = IDs/ms
rows = [
    ("trivial axum handler (`/healthz`), the floor", 16, floor, "—"),
    ("`GET /v1/ids?count=1`", 16, one, f"{one[0] / floor[0]:.0%} of the floor's requests/s"),
    ("`GET /v1/ids?count=1000`", 16, batch, f"{batch[0] * 1000:,.0f} IDs/s = {ids_per_ms / 4096:.0%} of 4,096/ms"),
    ("trivial axum handler (`/healthz`), the floor", 4, floor4, "—"),
    ("`GET /v1/ids?count=1`", 4, one4, f"{one4[0] / floor4[0]:.0%} of the floor's requests/s"),
]
body = ["`make bench-serve`: the release `polyflake serve` (layout `snowflake`, a local lease) under",
        "`wrk -t1` on loopback, 2 cores shared by server and load generator. 16 connections saturate",
        "both cores: the throughput rows, whose p99 is queueing on the shared cores (the floor's as",
        "much as ours). 4 connections leave the server unsaturated: the latency rows.",
        "",
        "| request | connections | requests/s | p50 | p99 | |", "|---|---|---|---|---|---|"]
for name, conns, (rps, p50, p99), note in rows:
    body.append(f"| {name} | {conns} | {rps:,.0f} | {p50:.2f} ms | {p99:.2f} ms | {note} |")
replace_section("serve", "\n".join(body))
print("\n".join(body))
PY
