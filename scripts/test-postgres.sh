#!/usr/bin/env bash
# make test-postgres: the PostgreSQL extension (postgres/, pgrx), built
# against Debian's PostgreSQL 15 and installed into it as a user's
# `cargo pgrx install` does, then its SQL suite (postgres/tests) against a
# cluster of the suite's own on 127.0.0.1. cargo-pgrx is pinned to the pgrx
# of postgres/Cargo.toml and initialised on the system pg_config, with its
# home in target/ (nothing downloaded: no PostgreSQL of its own).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bash "$root/scripts/debian-deps.sh"
pgrx=0.18.0
pg_config=/usr/lib/postgresql/15/bin/pg_config
export PGRX_HOME="$work/pgrx-home"
if [ "$("${CARGO_HOME:-$HOME/.cargo}/bin/cargo-pgrx" pgrx --version 2>/dev/null)" != "cargo-pgrx $pgrx" ]; then
    echo "test-postgres: installing cargo-pgrx $pgrx (crates.io)"
    cargo install --quiet --locked cargo-pgrx --version "$pgrx"
fi
[ -f "$PGRX_HOME/config.toml" ] || cargo pgrx init --pg15 "$pg_config" >/dev/null
echo "test-postgres: building and installing the extension into PostgreSQL 15"
(cd "$root/postgres" && cargo pgrx install --release --pg-config "$pg_config" >"$work/pgrx-install.log" 2>&1) ||
    { tail -30 "$work/pgrx-install.log" >&2; exit 1; }
venv="$work/pg-venv"
if [ ! -x "$venv/bin/pytest" ]; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "psycopg[binary]==3.3.9" pytest ruff
fi
"$venv/bin/ruff" check -q "$root/postgres/tests"
(cd "$root/postgres/tests" && "$venv/bin/python" -m pytest -q -p no:cacheprovider .)
