#!/usr/bin/env bash
# Builds the PostgreSQL extension (postgres/, pgrx) against Debian's
# PostgreSQL 15 and installs it there, as `cargo pgrx install --release`
# does: the library into `pg_config --pkglibdir`, the control file and the
# SQL into `--sharedir`/extension. The SQL comes from the schema pgrx embeds
# in the library, written by the workspace's own polyflake-pg-schema, so that
# a fresh machine does not build cargo-pgrx and its 390 crates (ADR 0018).
# Users install with cargo-pgrx as usual (docs/postgres.md). Used by make
# test-postgres (built ahead by make test: scripts/ahead.sh) and make bench-pg.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bash "$root/scripts/debian-deps.sh"
pg_config=/usr/lib/postgresql/15/bin/pg_config
export PGRX_PG_CONFIG_PATH="$pg_config"
echo "pg-extension: building and installing the extension into PostgreSQL 15"
cargo build --quiet --release --lib -p polyflake-postgres --features etcd
cargo build --quiet --release -p polyflake-pg-schema
staged="$work/pg-extension"
rm -rf "$staged" && mkdir -p "$staged"
"$cargo_target/release/polyflake-pg-schema" "$cargo_target/release/libpolyflake.so" \
    "$root/postgres/polyflake.control" "$staged"
install -m 0755 "$cargo_target/release/libpolyflake.so" "$("$pg_config" --pkglibdir)/polyflake.so"
install -m 0644 "$staged"/* "$("$pg_config" --sharedir)/extension/"
