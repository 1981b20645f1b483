#!/usr/bin/env bash
# Kotlin/JVM benchmark: the packaged library beside hutool and tsid-creator.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/test-kotlin.sh" -q -DskipTests -Pbench
mvn -q -B -f "$root/bindings-kotlin/pom.xml" -Pbench exec:java > "$root/target/bench-kotlin.md"
python3 "$root/scripts/bench_report.py" --section kotlin --from "$root/target/bench-kotlin.md"
