#!/usr/bin/env bash
# Kotlin/JVM benchmark: the packaged library (with `test-hooks`, for the floor
# of a direct-mapped call) beside hutool and tsid-creator.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
BUILD_FEATURES="test-hooks" BUILD_PROFILE=release bash "$root/scripts/build-kotlin.sh"
mvn -q -B -ntp -f "$root/bindings-kotlin/pom.xml" -Dmaven.test.skip=true -Pbench package
mvn -q -B -f "$root/bindings-kotlin/pom.xml" -Pbench exec:java > "$work/bench-kotlin.md"
python3 "$root/scripts/bench_report.py" --section kotlin --from "$work/bench-kotlin.md"
