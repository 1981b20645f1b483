#!/usr/bin/env bash
# Kotlin/JVM: the library with `etcd` and `test-hooks` in a debug build
# (scripts/build-kotlin.sh), a second library without etcd (`test-hooks`
# alone, the same API) that the suite checks refuses etcd, the replicas
# Generator.fromService is tested against, and the JUnit suite against the
# packaged jar (mvn verify); then the framework integrations against that jar.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
module="$root/bindings-kotlin"
bash "$root/scripts/debian-deps.sh"
rm -rf "$module/target/native-without-etcd"
# It only has to refuse etcd.
cargo build --quiet -p polyflake-kotlin --features polyflake-kotlin/test-hooks
mkdir -p "$module/target/native-without-etcd"
cp "$cargo_target/debug/libpolyflake_kotlin.so" "$module/target/native-without-etcd/"
BUILD_FEATURES="etcd test-hooks" BUILD_PROFILE=dev bash "$root/scripts/build-kotlin.sh"
# The replicas Generator.fromService is tested against (tests/service_cluster.py).
cli=$(bash "$root/scripts/artifact.sh" cli-serve)
POLYFLAKE_CLI="$cli" mvn -B -ntp -f "$module/pom.xml" verify "$@"
# The framework integrations (polyflake-jackson, polyflake-hibernate) against the jar just
# tested, installed into the local Maven repository as their dependency; their suites
# start PostgreSQL themselves (tests/postgres_cluster.py). Hibernate 7, then 6.
mvn -B -q -ntp install:install-file -Dfile="$module/target/polyflake-$version.jar" -DpomFile="$module/pom.xml"
# install: the Hibernate 6 run takes polyflake-jackson from the local repository.
mvn -B -ntp -f "$module/integrations/pom.xml" install
mvn -B -ntp -q -f "$module/integrations/pom.xml" -pl hibernate -Phibernate6 verify
