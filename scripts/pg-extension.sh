#!/usr/bin/env bash
# Builds the PostgreSQL extension (postgres/, pgrx) against Debian's
# PostgreSQL 15 and installs it there, as a user's `cargo pgrx install` does:
# cargo-pgrx pinned to the pgrx of postgres/Cargo.toml, initialised on the
# system pg_config, with its home in target/ (nothing downloaded: no
# PostgreSQL of its own). Used by make test-postgres and make bench-pg.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bash "$root/scripts/debian-deps.sh"
pgrx=0.18.0
pg_config=/usr/lib/postgresql/15/bin/pg_config
export PGRX_HOME="$work/pgrx-home"
if [ "$("${CARGO_HOME:-$HOME/.cargo}/bin/cargo-pgrx" pgrx --version 2>/dev/null)" != "cargo-pgrx $pgrx" ]; then
    echo "pg-extension: installing cargo-pgrx $pgrx (crates.io)"
    cargo install --quiet --locked cargo-pgrx --version "$pgrx"
fi
[ -f "$PGRX_HOME/config.toml" ] || cargo pgrx init --pg15 "$pg_config" >/dev/null
echo "pg-extension: building and installing the extension into PostgreSQL 15"
(cd "$root/postgres" && cargo pgrx install --release --features etcd --pg-config "$pg_config" >"$work/pgrx-install.log" 2>&1) ||
    { tail -30 "$work/pgrx-install.log" >&2; exit 1; }
