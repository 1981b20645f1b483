#!/usr/bin/env bash
# Kotlin/JVM: builds the cdylib, generates the Kotlin bindings from it in
# library mode, bundles it where JNA finds it, and runs the JUnit suite
# against the packaged jar (mvn verify). The features come from
# $BUILD_FEATURES: `etcd test-hooks` for the tests (the default here);
# `make demo` packages a lean jar with none. $BUILD_PROFILE is `dev` (a debug
# build, with Rust's debug assertions and overflow checks: the suites run
# those; the shipped release library is tested by make test-dist-host) or
# `release` (make bench-kotlin). For the tests, a second library without etcd
# (`test-hooks` alone, the same API) is checked to refuse etcd.
# uniffi-bindgen is a tool: a debug build.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
features=${BUILD_FEATURES-etcd test-hooks}
profile=${BUILD_PROFILE:-dev}
module="$root/bindings-kotlin"
lib="$cargo_target/$([ "$profile" = dev ] && echo debug || echo "$profile")/libpolyflake_kotlin.so"
prefixed() { for f in "$@"; do printf 'polyflake-kotlin/%s ' "$f"; done; }
rm -rf "$module/target/generated-sources/uniffi" "$module/target/native" "$module/target/native-without-etcd"
if [[ " $features " == *" test-hooks "* ]]; then
    bash "$root/scripts/debian-deps.sh"
    # It only has to refuse etcd.
    cargo build --quiet -p polyflake-kotlin --features polyflake-kotlin/test-hooks
    mkdir -p "$module/target/native-without-etcd"
    cp "$cargo_target/debug/libpolyflake_kotlin.so" "$module/target/native-without-etcd/"
fi
# shellcheck disable=SC2046
cargo build --quiet --profile "$profile" -p polyflake-kotlin --features "$(prefixed $features)"
cargo build --quiet -p uniffi-bindgen
"$cargo_target/debug/uniffi-bindgen" generate --library "$lib" --language kotlin \
    --out-dir "$module/target/generated-sources/uniffi" --no-format
mkdir -p "$module/target/native/linux-x86-64"
cp "$lib" "$module/target/native/linux-x86-64/"
# The replicas Generator.fromService is tested against (tests/service_cluster.py).
cargo build -q -p polyflake-cli --features serve
POLYFLAKE_CLI="$cargo_target/debug/polyflake" mvn -B -ntp -f "$module/pom.xml" verify "$@"
if [[ " $features " == *" etcd "* && " $features " == *" test-hooks "* ]]; then
    # The framework integrations (polyflake-jackson, polyflake-hibernate) against the jar just
    # tested, installed into the local Maven repository as their dependency; their suites
    # start PostgreSQL themselves (tests/postgres_cluster.py). Hibernate 7, then 6.
    mvn -B -q -ntp install:install-file -Dfile="$module/target/polyflake-$version.jar" -DpomFile="$module/pom.xml"
    # install: the Hibernate 6 run takes polyflake-jackson from the local repository.
    mvn -B -ntp -f "$module/integrations/pom.xml" install
    mvn -B -ntp -q -f "$module/integrations/pom.xml" -pl hibernate -Phibernate6 verify
fi
