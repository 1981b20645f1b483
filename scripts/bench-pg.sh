#!/usr/bin/env bash
# make bench-pg: insert rate and index size of the Snowflake BIGINT key beside
# UUIDv4 and UUIDv7 in a real PostgreSQL (e2e/bench_keys.py), set up as the
# end-to-end run is. BENCH_ROWS sets N (default 2,000,000).
set -euo pipefail
exec bash "$(dirname "$0")/e2e.sh" --bench-keys --rows "${BENCH_ROWS:-2000000}"
