#!/usr/bin/env bash
# The promises of the lean default build, checked: no crate's default build
# links the etcd client's stack, and the core names no registry.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$root"
status=0
for package in polyflake polyflake-cli polyflake-python polyflake-node polyflake-kotlin; do
    if cargo tree -p "$package" -e normal | grep -E '(tonic|tokio|prost|etcd-client) v'; then
        echo "check-lean: $package's default build links the above" >&2
        status=1
    fi
done
if grep -rniw etcd core/src; then
    echo "check-lean: core/src names etcd; registries are connectors (docs/adr/0006)" >&2
    status=1
fi
exit $status
