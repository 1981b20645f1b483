#!/usr/bin/env bash
# The promises of the lean default build, checked: no crate's default build
# links the etcd client's stack, and the core names no registry. And the
# core's layers (docs/adr/0010): id/ names nothing of the crate but the
# error, identity/ never the generator, error.rs nothing at all.
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
layer() { # folder, what it must not name, why
    if grep -rnE "$2" "core/src/$1"; then
        echo "check-lean: core/src/$1 $3 (docs/adr/0010)" >&2
        status=1
    fi
}
layer id 'crate::(identity|generator|clock)\b' "imports above the ID's bits"
layer identity 'crate::generator\b' "imports the generator, which sits above it"
layer error.rs 'crate::[a-z]' "imports the crate; the error is at the bottom"
exit $status
