#!/usr/bin/env bash
# make dist: the artifacts users install without Rust, for linux x86_64 with
# glibc >= 2.17 (manylinux2014), all with the etcd lease, in dist/:
#   python/  an abi3 manylinux2014 wheel (maturin --zig) and an sdist that
#            builds with Rust alone (no etcd, so no protoc)
#   npm/     polyflake-<v>.tgz (JS, typings, optionalDependencies) and
#            polyflake-linux-x64-gnu-<v>.tgz (the prebuilt .node)
#   maven/   a file repository: the jar (native library under JNA's
#            linux-x86-64/), -sources, -javadoc and the pom
#   cli/     polyflake-<v>-x86_64-unknown-linux-gnu.tar.gz, with `polyflake serve`
#   SHA256SUMS and REPORT.md (sizes, and each native library's glibc floor)
# One cargo-zigbuild invocation builds the CLI and the Node and Kotlin
# libraries against glibc 2.17, sharing every dependency; maturin builds the
# wheel with the same zig. Zig comes from PyPI (ziglang), cargo-zigbuild
# from crates.io.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bash "$root/scripts/debian-deps.sh"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)
triple=x86_64-unknown-linux-gnu
glibc=2.17
dist="$root/dist"
venv="$work/dist-venv"
rm -rf "$dist" && mkdir -p "$dist"/{python,npm,maven,cli}

if [ ! -x "$venv/bin/maturin" ]; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check maturin==1.16.0 ziglang==0.17.1 auditwheel==6.8.2
fi
# cargo-zigbuild finds zig as `python3 -m ziglang`: the venv's python first.
export PATH="$venv/bin:$PATH"
# cargo finds the subcommand in $CARGO_HOME/bin, where `cargo install` puts it.
if [ "$("${CARGO_HOME:-$HOME/.cargo}/bin/cargo-zigbuild" --version 2>/dev/null)" != "cargo-zigbuild 0.24.1" ]; then
    cargo install --quiet --locked cargo-zigbuild --version 0.24.1
fi

echo "dist: native libraries and the CLI for $triple, glibc $glibc"
cargo zigbuild --quiet --release --target "$triple.$glibc" \
    -p polyflake-cli -p polyflake-node -p polyflake-kotlin \
    --features polyflake-cli/serve,polyflake-node/etcd,polyflake-kotlin/etcd
built="$cargo_target/$triple/release"

echo "dist: Python wheel and sdist"
"$venv/bin/maturin" build --quiet --release --zig --compatibility manylinux2014 --target "$triple" \
    -m "$root/bindings-python/Cargo.toml" --features etcd -o "$dist/python"
"$venv/bin/maturin" sdist -m "$root/bindings-python/Cargo.toml" -o "$dist/python"
wheel=$(ls "$dist"/python/*.whl)
"$venv/bin/auditwheel" show "$wheel" > "$work/auditwheel.txt"
if ! grep -Eq 'manylinux_2_17_x86_64|manylinux2014_x86_64' "$work/auditwheel.txt"; then
    cat "$work/auditwheel.txt" >&2
    echo "dist: auditwheel does not place the wheel at manylinux_2_17" >&2
    exit 1
fi

echo "dist: npm packages"
stage="$work/dist-npm"
rm -rf "$stage" && mkdir -p "$stage/main" "$stage/linux-x64-gnu"
node="$root/bindings-node"
cp "$node"/{polyflake.js,polyflake.mjs,polyflake.d.ts,index.js,index.d.ts,types-header.d.ts,LICENSE-MIT,LICENSE-APACHE} "$stage/main/"
cp "$root/README.md" "$stage/main/"
cp "$built/libpolyflake_node.so" "$stage/linux-x64-gnu/polyflake.linux-x64-gnu.node"
cp "$node"/LICENSE-MIT "$node"/LICENSE-APACHE "$stage/linux-x64-gnu/"
node "$root/scripts/npm-packages.mjs" "$node/package.json" "$stage" "$version"
(cd "$stage/main" && npm pack --silent --pack-destination "$dist/npm" >/dev/null)
(cd "$stage/linux-x64-gnu" && npm pack --silent --pack-destination "$dist/npm" >/dev/null)

echo "dist: Maven jar"
module="$root/bindings-kotlin"
lib="$built/libpolyflake_kotlin.so"
rm -rf "$module/target/generated-sources/uniffi" "$module/target/native" "$module/target/apidocs"
# uniffi reads its metadata from the symbol table, which the zig-linked
# library does not keep: the Kotlin is generated from a host build of the same
# crate with the same features (the same API and checksums).
cargo build --quiet --release -p polyflake-kotlin --features polyflake-kotlin/etcd
cargo build --quiet -p uniffi-bindgen
"$cargo_target/debug/uniffi-bindgen" generate --library "$cargo_target/release/libpolyflake_kotlin.so" --language kotlin \
    --out-dir "$module/target/generated-sources/uniffi" --no-format
mkdir -p "$module/target/native/linux-x86-64" "$module/target/apidocs"
cp "$lib" "$module/target/native/linux-x86-64/"
python3 "$root/scripts/readme_html.py" "$module/README.md" > "$module/target/apidocs/index.html"
mvn -B -q -ntp -f "$module/pom.xml" -Pdist -Dmaven.test.skip=true package
jars="$module/target/polyflake-$version"
mvn -B -q -ntp deploy:deploy-file -Durl="file://$dist/maven" -DrepositoryId=dist \
    -Dfile="$jars.jar" -Dsources="$jars-sources.jar" -Djavadoc="$jars-javadoc.jar" \
    -DpomFile="$module/pom.xml"

echo "dist: CLI tarball"
cli="$work/dist-cli/polyflake-$version-$triple"
rm -rf "$work/dist-cli" && mkdir -p "$cli"
cp "$built/polyflake" "$root/README.md" "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$cli/"
tar -C "$work/dist-cli" -czf "$dist/cli/polyflake-$version-$triple.tar.gz" "polyflake-$version-$triple"

(cd "$dist" && find python npm cli maven -type f ! -name 'maven-metadata*' ! -name '*.md5' ! -name '*.sha1' \
    | sort | xargs sha256sum > SHA256SUMS)
python3 "$root/scripts/dist_report.py" "$dist" "$built" "$wheel" > "$dist/REPORT.md"
cat "$dist/REPORT.md"
