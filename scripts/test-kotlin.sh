#!/usr/bin/env bash
# Kotlin/JVM: builds the cdylib (the release build the other bindings share),
# generates the Kotlin bindings from it in library mode, bundles it where JNA
# finds it, and runs the JUnit suite against the packaged jar (mvn verify).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/debian-deps.sh"
module="$root/bindings-kotlin"
cargo build --quiet --release -p polyflake-kotlin -p uniffi-bindgen
lib="$root/target/release/libpolyflake_kotlin.so"
rm -rf "$module/target/generated-sources/uniffi" "$module/target/native"
"$root/target/release/uniffi-bindgen" generate --library "$lib" --language kotlin \
    --out-dir "$module/target/generated-sources/uniffi" --no-format
mkdir -p "$module/target/native/linux-x86-64"
cp "$lib" "$module/target/native/linux-x86-64/"
mvn -B -ntp -f "$module/pom.xml" verify "$@"
