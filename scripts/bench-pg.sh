#!/usr/bin/env bash
# make bench-pg: insert rate, index size and WAL of Snowflake BIGINT keys
# (the extension's next_id() and the client's) beside bigserial, an
# Instagram-style PL/pgSQL next_id(), UUIDv4 and UUIDv7 in a real PostgreSQL
# (e2e/bench_keys.py), set up as the end-to-end run is, with the extension
# installed and preloaded; and next_id() alone beside nextval().
# BENCH_ROWS sets N (default 2,000,000).
set -euo pipefail
bash "$(dirname "$0")/pg-extension.sh"
exec bash "$(dirname "$0")/e2e.sh" --bench-keys --rows "${BENCH_ROWS:-2000000}"
