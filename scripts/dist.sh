#!/usr/bin/env bash
# make dist / make dist-all: the packages users install without Rust, with the
# etcd lease, cross-built here with zig for the targets of release/targets.json
# ("here"), into dist/:
#   python/  one abi3 wheel per target (maturin --zig) and an sdist that
#            builds with Rust alone (no etcd, so no protoc)
#   npm/     polyflake-<v>.tgz (JS, typings, optionalDependencies) and one
#            polyflake-<platform>-<v>.tgz per target (the prebuilt .node)
#   maven/   a file repository: one jar with every target's library under
#            JNA's resource path (linux-x86-64/, linux-aarch64/, darwin-*/),
#            -sources, -javadoc and the pom; polyflake-hibernate and
#            polyflake-jackson (and their parent pom)
#   cli/     polyflake-<v>-<triple>.tar.gz per target, with `polyflake serve`
#   oci/     polyflake-serve-<v>.oci.tar: the image of `polyflake serve` for
#            linux amd64 and arm64, from the static musl CLI (scripts/oci_image.py)
#   SHA256SUMS and REPORT.md (sizes, and what each native file links against)
#
#   dist.sh          make dist: linux x86_64 and aarch64 with glibc >= 2.17
#                    (manylinux2014), every package; the static musl CLIs
#   dist.sh --all    make dist-all: also the musl wheels and addons, and macOS
#                    x86_64 and arm64 (wheels, addons, the jar's libraries, CLIs)
#   dist.sh --host   make dist-host, in make test: linux x86_64 with glibc >=
#                    2.17 alone, every package but the image (which needs the
#                    musl CLIs); the short version that keeps .ci/run in budget
#   ... --native     the native files alone (the libraries, CLIs and wheels,
#                    into target/dist-native and -wheels), which make test builds ahead
#                    (scripts/ahead.sh); without it they are taken from there
#                    when make test built them ahead, else built first
#
# Per target one cargo-zigbuild invocation builds the CLI and the Node and
# Kotlin libraries together, sharing every dependency; maturin builds the
# wheel with the same zig. Zig and cargo-zigbuild come from PyPI (ziglang,
# cargo-zigbuild, into target/dist-venv), each target's standard library from rustup.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
all=0 host=0 native_only=0
for arg in "$@"; do
    case "$arg" in
        --all) all=1 ;;
        --host) host=1 ;;
        --native) native_only=1 ;;
        *) echo "dist: unknown option $arg" >&2; exit 2 ;;
    esac
done
bash "$root/scripts/debian-deps.sh"
glibc=2.17
dist="$root/dist"
venv="$work/dist-venv"
# Each target's native files, as shipped, for the report and the inspection,
# and the wheels the native phase builds.
native="$work/dist-native"
wheels="$work/dist-wheels"

# The targets of this run: triple, here, python tag, node platform, JNA folder.
rows=()
while read -r triple here python node jna; do
    [ $host = 1 ] && [ "$triple" != x86_64-unknown-linux-gnu ] && continue
    case "$here" in
        dist) rows+=("$triple libs $python $node $jna") ;;
        dist-cli) [ $all = 1 ] && rows+=("$triple libs $python $node $jna") || rows+=("$triple cli - - -") ;;
        dist-all) [ $all = 1 ] && rows+=("$triple libs $python $node $jna") ;;
    esac
done < <(python3 "$root/scripts/release_matrix.py" --here)

# cargo-zigbuild too comes prebuilt from PyPI (a fresh machine compiled it
# from crates.io for 1.5 minutes).
if [ ! -x "$venv/bin/maturin" ] || [ ! -x "$venv/bin/cargo-zigbuild" ]; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check maturin==1.16.0 ziglang==0.17.1 \
        auditwheel==6.8.2 cargo-zigbuild==0.24.1
fi

# The packages come from the native files: the native phase first (here,
# or taken from the lane of make test that built it ahead).
if [ $native_only = 0 ]; then
    if [ $host = 1 ]; then
        bash "$root/scripts/ahead.sh" take dist-native
    else
        bash "$0" "$@" --native
    fi
fi

# The native phase (--native): the libraries and CLIs into $native, the wheels into $wheels.
if [ $native_only = 1 ]; then
rm -rf "$native" "$wheels" && mkdir -p "$native" "$wheels"
# cargo-zigbuild finds zig as `python3 -m ziglang`: the venv's python first.
export PATH="$venv/bin:$PATH"
installed=$(rustup target list --installed)
for row in "${rows[@]}"; do
    triple=${row%% *}
    grep -qx "$triple" <<<"$installed" || rustup target add "$triple" >/dev/null
done

# The target zig builds for: glibc targets name the glibc they link against.
zig_target() { case "$1" in *-linux-gnu) echo "$1.$glibc" ;; *) echo "$1" ;; esac; }
# The name cargo gives a library on a target: libX.so, libX.dylib.
dylib() { case "$1" in *-apple-darwin) echo "lib$2.dylib" ;; *) echo "lib$2.so" ;; esac; }
cli_features=polyflake-cli/serve
lib_features=polyflake-node/etcd,polyflake-kotlin/etcd

# build_cli TRIPLE: the CLI with `serve`; on musl static (Rust's default there).
build_cli() {
    local triple=$1
    echo "dist: the CLI for $triple"
    "$venv/bin/cargo-zigbuild" zigbuild --quiet --release --target "$(zig_target "$triple")" -p polyflake-cli --features "$cli_features"
    mkdir -p "$native/$triple"
    cp "$cargo_target/$triple/release/polyflake" "$native/$triple/"
}

# build_libs TRIPLE: the CLI and the Node and Kotlin libraries. A musl
# library must link libc dynamically, unlike the static CLI: those get
# their own target directory, so the two builds do not undo each other.
build_libs() {
    local triple=$1 packages=(-p polyflake-node) features=$lib_features
    local out="$cargo_target/$triple/release" target
    target=$(zig_target "$triple")
    [ "$3" != - ] || features=polyflake-node/etcd
    [ "$3" = - ] || packages+=(-p polyflake-kotlin)
    echo "dist: native libraries for $triple"
    case "$triple" in
        *-linux-musl)
            local flags
            flags="CARGO_TARGET_$(tr 'a-z-' 'A-Z_' <<<"$triple")_RUSTFLAGS"
            env "$flags=-C target-feature=-crt-static" CARGO_TARGET_DIR="$cargo_target/musl-dylib" \
                "$venv/bin/cargo-zigbuild" zigbuild --quiet --release --target "$target" "${packages[@]}" --features "$features"
            out="$cargo_target/musl-dylib/$triple/release"
            build_cli "$triple"
            ;;
        *)
            "$venv/bin/cargo-zigbuild" zigbuild --quiet --release --target "$target" -p polyflake-cli "${packages[@]}" \
                --features "$cli_features,$features"
            mkdir -p "$native/$triple"
            cp "$out/polyflake" "$native/$triple/"
            ;;
    esac
    cp "$out/$(dylib "$triple" polyflake_node)" "$native/$triple/polyflake.$2.node"
    [ "$3" = - ] || { mkdir -p "$native/$triple/$3" && cp "$out/$(dylib "$triple" polyflake_kotlin)" "$native/$triple/$3/"; }
}

# build_wheel TRIPLE TAG: the abi3 wheel, its platform tag checked.
build_wheel() {
    local triple=$1 tag=$2 arch=${1%%-*} args=() pattern found
    [ "$tag" = native ] || args=(--compatibility "$tag")
    echo "dist: the Python wheel for $triple"
    "$venv/bin/maturin" build --quiet --release --zig --target "$triple" "${args[@]}" \
        -m "$root/bindings-python/Cargo.toml" --features etcd -o "$wheels"
    # The one abi3 wheel of this target, found by the tag it must carry.
    pattern=$(case "$triple" in
        *-linux-gnu) echo "manylinux2014_$arch.manylinux_2_17_$arch" ;;
        *-linux-musl) echo "musllinux_1_2_$arch" ;;
        x86_64-apple-darwin) echo "macosx_*_x86_64" ;;
        aarch64-apple-darwin) echo "macosx_*_arm64" ;;
    esac)
    found=$(cd "$wheels" && ls -- *-cp310-abi3-$pattern.whl 2>/dev/null || true)
    if [ "$(wc -w <<<"$found")" != 1 ]; then
        echo "dist: no single abi3 wheel tagged $pattern for $triple in $wheels: $(ls "$wheels")" >&2
        exit 1
    fi
    # auditwheel reads the ELF of a glibc wheel: the floor it finds must be
    # the tag's. It reads musl wheels only on a musl system, and no macOS
    # wheel: their files are checked by dist_report.py (no glibc symbol and
    # musl's libc.so alone; Mach-O of the architecture).
    if [[ "$triple" == *-linux-gnu ]]; then
        "$venv/bin/auditwheel" show "$wheels/$found" > "$work/auditwheel-$triple.txt" 2>&1 || true
        if ! grep -q "manylinux_2_17_$arch" "$work/auditwheel-$triple.txt"; then
            cat "$work/auditwheel-$triple.txt" >&2
            echo "dist: auditwheel does not place $found at manylinux_2_17_$arch" >&2
            exit 1
        fi
    fi
}

for row in "${rows[@]}"; do
    read -r triple kind python node jna <<<"$row"
    if [ "$kind" = libs ]; then
        build_libs "$triple" "$node" "$jna"
        build_wheel "$triple" "$python"
    else
        build_cli "$triple"
    fi
done
exit 0
fi

# The packages, from the native files of this run's targets.
rm -rf "$dist" && mkdir -p "$dist"/{python,npm,maven,cli,oci}
cp "$wheels"/*.whl "$dist/python/"
libs_rows=()
for row in "${rows[@]}"; do
    read -r triple kind python node jna <<<"$row"
    [ "$kind" != libs ] || libs_rows+=("$row")
done
"$venv/bin/maturin" sdist -m "$root/bindings-python/Cargo.toml" -o "$dist/python"

echo "dist: npm packages"
stage="$work/dist-npm"
rm -rf "$stage" && mkdir -p "$stage/main"
node_dir="$root/bindings-node"
# The files package.json lists (the JS, the typings, the integrations' subpaths).
node -p "require('$node_dir/package.json').files.join('\\n')" | while read -r file; do cp "$node_dir/$file" "$stage/main/"; done
cp "$root/README.md" "$stage/main/"
platforms=()
for row in "${libs_rows[@]}"; do
    read -r triple kind python node jna <<<"$row"
    platforms+=("$node")
    mkdir -p "$stage/$node"
    cp "$native/$triple/polyflake.$node.node" "$node_dir/LICENSE-MIT" "$node_dir/LICENSE-APACHE" "$stage/$node/"
done
node "$root/scripts/npm-packages.mjs" "$node_dir/package.json" "$stage" "$version" "${platforms[@]}"
for dir in main "${platforms[@]}"; do
    (cd "$stage/$dir" && npm pack --silent --pack-destination "$dist/npm" >/dev/null)
done

echo "dist: Maven jar"
module="$root/bindings-kotlin"
rm -rf "$module/target/generated-sources/uniffi" "$module/target/native" "$module/target/apidocs"
# uniffi reads its metadata from the symbol table, which the zig-linked
# library does not keep: the Kotlin is generated from a host build of the same
# crate with the same features (the same API and checksums; a debug build, as
# the metadata does not depend on the profile).
cargo build --quiet -p polyflake-kotlin --features polyflake-kotlin/etcd
cargo build --quiet -p uniffi-bindgen
"$cargo_target/debug/uniffi-bindgen" generate --library "$cargo_target/debug/libpolyflake_kotlin.so" --language kotlin \
    --out-dir "$module/target/generated-sources/uniffi" --no-format
mkdir -p "$module/target/native" "$module/target/apidocs"
for row in "${libs_rows[@]}"; do
    read -r triple kind python node jna <<<"$row"
    [ "$jna" = - ] || cp -r "$native/$triple/$jna" "$module/target/native/"
done
python3 "$root/scripts/readme_html.py" "$module/README.md" > "$module/target/apidocs/index.html"
mvn -B -q -ntp -f "$module/pom.xml" -Pdist -Dmaven.test.skip=true package
jars="$module/target/polyflake-$version"
mvn -B -q -ntp deploy:deploy-file -Durl="file://$dist/maven" -DrepositoryId=dist \
    -Dfile="$jars.jar" -Dsources="$jars-sources.jar" -Djavadoc="$jars-javadoc.jar" \
    -DpomFile="$module/pom.xml"
# The framework integrations (pure JVM jars), built against the jar just packaged, which goes
# into the local Maven repository for that; their suites run in make test-kotlin.
echo "dist: Maven jars of the integrations"
mvn -B -q -ntp install:install-file -Dfile="$jars.jar" -DpomFile="$module/pom.xml"
mvn -B -q -ntp -f "$module/integrations/pom.xml" -Pdist -DskipTests package
mvn -B -q -ntp deploy:deploy-file -Durl="file://$dist/maven" -DrepositoryId=dist -Dpackaging=pom \
    -Dfile="$module/integrations/pom.xml" -DpomFile="$module/integrations/pom.xml"
for name in jackson hibernate; do
    jar="$module/integrations/$name/target/polyflake-$name-$version"
    mvn -B -q -ntp deploy:deploy-file -Durl="file://$dist/maven" -DrepositoryId=dist \
        -Dfile="$jar.jar" -Dsources="$jar-sources.jar" -DpomFile="$module/integrations/$name/pom.xml"
done

echo "dist: CLI tarballs"
rm -rf "$work/dist-cli"
for row in "${rows[@]}"; do
    triple=${row%% *}
    cli="$work/dist-cli/polyflake-$version-$triple"
    mkdir -p "$cli"
    cp "$native/$triple/polyflake" "$root/README.md" "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$cli/"
    tar -C "$work/dist-cli" -czf "$dist/cli/polyflake-$version-$triple.tar.gz" "polyflake-$version-$triple"
done

# The image of `polyflake serve`, from the static musl CLIs: an OCI layout
# for amd64 and arm64, packed as an oci-archive (podman load -i, skopeo copy).
musl_amd64="$native/x86_64-unknown-linux-musl/polyflake"
musl_arm64="$native/aarch64-unknown-linux-musl/polyflake"
if [ -f "$musl_amd64" ] && [ -f "$musl_arm64" ]; then
    echo "dist: the OCI image of polyflake serve"
    created=$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)
    layout="$work/dist-oci"
    rm -rf "$layout" && mkdir -p "$dist/oci"
    python3 "$root/scripts/oci_image.py" build "$layout" "$version" "$created" amd64="$musl_amd64" arm64="$musl_arm64"
    tar -C "$layout" --sort=name --mtime="@$created" --owner=0 --group=0 --numeric-owner \
        -cf "$dist/oci/polyflake-serve-$version.oci.tar" oci-layout index.json blobs
fi

(cd "$dist" && find python npm cli maven oci -type f ! -name 'maven-metadata*' ! -name '*.md5' ! -name '*.sha1' \
    | sort | xargs sha256sum > SHA256SUMS)
python3 "$root/scripts/dist_report.py" "$dist" "$native" "$module/target/generated-sources/uniffi" > "$dist/REPORT.md"
cat "$dist/REPORT.md"
