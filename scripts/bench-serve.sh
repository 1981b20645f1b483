#!/usr/bin/env bash
# make bench-serve: `polyflake serve` (release) on loopback, in one run:
#   - HTTP under wrk, beside the same machine's floor, a trivial axum handler
#     (/healthz of the same server): requests/s and latency for count=1 and
#     count=1000, and IDs/s against the 4,096-per-ms ceiling;
#   - gRPC under cli/examples/grpc_load.rs (wrk's counterpart: one-thread
#     client, one channel per connection), beside the standard health check
#     of the same server: the same counts;
#   - next_id() through a service-backed generator (polyflake-service) beside
#     a local generator, per call (service/examples/next_id.rs).
# Into docs/benchmarks.md (section serve).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v wrk >/dev/null || { sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo; $sudo apt-get install -y -qq wrk >/dev/null; }
bash "$root/scripts/debian-deps.sh"
cargo build --quiet --release -p polyflake-cli --features serve
cargo build --quiet --release -p polyflake-cli --features serve --example grpc_load
cargo build --quiet --release -p polyflake-service --example next_id
free() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free)
gport=$(free)
state=$(mktemp -d)
POLYFLAKE_STATE_DIR="$state" "$cargo_target/release/polyflake" serve --layout snowflake \
    --listen "127.0.0.1:$port" --grpc-listen "127.0.0.1:$gport" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$state"' EXIT
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
grpc() { # name connections method
    "$cargo_target/release/examples/grpc_load" "127.0.0.1:$gport" "$3" "$2" "${BENCH_SECONDS:-10}" > "$out/$1.json"
}
grpc gfloor 16 health
grpc gone 16 ids1
grpc gbatch 16 ids1000
grpc gfloor4 4 health
grpc gone4 4 ids1
"$cargo_target/release/examples/next_id" "http://127.0.0.1:$port" 2000000 1000 > "$out/next_id.jsonl"
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

import json

def grpc(name):
    r = json.loads((Path(sys.argv[1]) / f"{name}.json").read_text())
    return r["rps"], r["p50_ms"], r["p99_ms"]

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
gfloor, gone, gbatch, gfloor4, gone4 = (grpc(n) for n in ("gfloor", "gone", "gbatch", "gfloor4", "gone4"))
rows += [
    ("gRPC health check (`grpc.health.v1.Health/Check`), the floor", 16, gfloor, "—"),
    ("gRPC `NextIds(count=1)`", 16, gone, f"{gone[0] / gfloor[0]:.0%} of the floor's requests/s; {gone[0] / one[0]:.2f}× HTTP's"),
    ("gRPC `NextIds(count=1000)`", 16, gbatch, f"{gbatch[0] * 1000:,.0f} IDs/s = {gbatch[0] / 4096:.0%} of 4,096/ms; {gbatch[0] / batch[0]:.2f}× HTTP's"),
    ("gRPC health check, the floor", 4, gfloor4, "—"),
    ("gRPC `NextIds(count=1)`", 4, gone4, f"{gone4[0] / gfloor4[0]:.0%} of the floor's requests/s; {gone4[0] / one4[0]:.2f}× HTTP's"),
]
per_call = {r["generator"]: r for r in map(json.loads, (Path(sys.argv[1]) / "next_id.jsonl").read_text().split("\n")[:-1])}
local, service, stats = per_call["local"], per_call["service"], per_call["service-stats"]
body = ["`make bench-serve`: the release `polyflake serve` (layout `snowflake`, a local lease) under",
        "`wrk -t1` on loopback, 2 cores shared by server and load generator. 16 connections saturate",
        "both cores: the throughput rows, whose p99 is queueing on the shared cores (the floor's as",
        "much as ours). 4 connections leave the server unsaturated: the latency rows.",
        "",
        "| request | connections | requests/s | p50 | p99 | |", "|---|---|---|---|---|---|"]
for name, conns, (rps, p50, p99), note in rows:
    body.append(f"| {name} | {conns} | {rps:,.0f} | {p50:.2f} ms | {p99:.2f} ms | {note} |")
body += ["",
         "HTTP rows under `wrk -t1`; gRPC rows under `cli/examples/grpc_load.rs`, wrk's counterpart (a",
         "one-thread tokio client, one channel per connection, back-to-back unary calls, a warm-up second).",
         "Each face beside its own floor, a trivial handler of the same server. On this machine (a",
         "2-vCPU VM) consecutive runs differ by up to 2× in requests/s, floors included: read the",
         "ratios within one run.",
         "",
         "`next_id()` on one thread, 2,000,000 calls: a service-backed generator (`polyflake-service`,",
         "batches of 1,000 from the replica above, refilled by its own thread) beside a local generator",
         "(`twitter`). Per call from a timed loop (two clock reads included); the mean from an untimed",
         "loop, which both the local ceiling (4,096 IDs per ms) and the replica's answers bound.",
         "",
         "| generator | mean per ID | p50 per call | p99 per call | longest call | |",
         "|---|---|---|---|---|---|",
         f"| local `Generator::next_id` | {local['mean_ns']:.0f} ns | {local['p50_ns']} ns | {local['p99_ns']} ns | {local['max_ns'] / 1e6:.1f} ms | waits at the ceiling |",
         f"| `ServiceGenerator::next_id` | {service['mean_ns']:.0f} ns | {service['p50_ns']} ns | {service['p99_ns']} ns | {service['max_ns'] / 1e6:.1f} ms | {stats['batches']:,} batches, {stats['stalls']:,} calls waited for one |"]
replace_section("serve", "\n".join(body))
print("\n".join(body))
PY
