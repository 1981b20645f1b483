#!/usr/bin/env bash
# etcd leases against a real etcd (Debian's etcd-server, started by the tests
# on 127.0.0.1 with a temporary data dir and stopped by PID): the lease crate
# in-process and in child processes.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bash "$root/scripts/debian-deps.sh"
cd "$root"
cargo test -p polyflake-etcd
