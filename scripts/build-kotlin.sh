#!/usr/bin/env bash
# The Kotlin library's native half, the one way it is built: the cdylib, its
# Kotlin bindings generated from it in library mode (uniffi-bindgen, a tool:
# a debug build), and the library copied where JNA finds it in the jar
# (bindings-kotlin/target/native). Maven then compiles and packages the jar:
# `mvn verify` in make test-kotlin, `mvn package` in make demo and
# make bench-kotlin.
#   $BUILD_FEATURES  the binding's features: `etcd test-hooks` for the tests
#                    (the default); none for the demo's lean jar; `test-hooks`
#                    for the benchmark
#   $BUILD_PROFILE   `dev` (a debug build, with Rust's debug assertions and
#                    overflow checks: the suites run those; the shipped release
#                    library is tested by make test-dist-host) or `release`
# It builds nothing else: the suite's own needs (the library without etcd, the
# service's replicas) are scripts/test-kotlin.sh's, so that the demo's builds
# stay those a new machine can run (scripts/test-demo.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
features=${BUILD_FEATURES-etcd test-hooks}
profile=${BUILD_PROFILE:-dev}
module="$root/bindings-kotlin"
lib="$cargo_target/$([ "$profile" = dev ] && echo debug || echo "$profile")/libpolyflake_kotlin.so"
prefixed() { for f in "$@"; do printf 'polyflake-kotlin/%s ' "$f"; done; }
rm -rf "$module/target/generated-sources/uniffi" "$module/target/native"
# shellcheck disable=SC2046
cargo build --quiet --profile "$profile" -p polyflake-kotlin --features "$(prefixed $features)"
cargo build --quiet -p uniffi-bindgen
"$cargo_target/debug/uniffi-bindgen" generate --library "$lib" --language kotlin \
    --out-dir "$module/target/generated-sources/uniffi" --no-format
mkdir -p "$module/target/native/linux-x86-64"
cp "$lib" "$module/target/native/linux-x86-64/"
