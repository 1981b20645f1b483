#!/usr/bin/env bash
# make test-dist: installs each artifact of dist/ the way a user would, with
# cargo and rustc off PATH (except the sdist, which builds with Rust), and runs
# the golden vectors through the installed package:
#   - the wheel into a fresh venv; the sdist into another (built from source);
#   - the npm tarballs into a fresh npm project (and the main one alone, whose
#     loader must say which platform package is missing);
#   - the jar into a fresh Maven project that depends on it from dist/maven;
#   - the CLI from its tarball, and the ID service it ships (`polyflake serve`);
#   - the static musl CLIs: x86_64 here, aarch64 under qemu-user;
#   - the aarch64 wheel, npm packages, jar and CLI the same way, run by arm64
#     CPython, Node and OpenJDK from Debian under qemu-user (scripts/arm64-root.sh);
#   - the OCI image of `polyflake serve`, checked and run by podman (test-image.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
dist="$root/dist"
[ -f "$dist/SHA256SUMS" ] || { echo "test-dist: run make dist first" >&2; exit 1; }
(cd "$dist" && sha256sum --quiet -c SHA256SUMS)
vectors="$root/tests/vectors"
scratch="$work/test-dist"
rm -rf "$scratch" && mkdir -p "$scratch"
# A user's PATH: no Rust toolchain.
no_rust=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -e '/\.cargo/bin' -e '/\.rustup' | paste -sd: -)
if PATH="$no_rust" command -v cargo >/dev/null || PATH="$no_rust" command -v rustc >/dev/null; then
    echo "test-dist: cargo or rustc is still on the PATH without Rust" >&2
    exit 1
fi
user() { PATH="$no_rust" "$@"; }

echo "test-dist: the wheel"
user python3 -m venv "$scratch/wheel"
user "$scratch/wheel/bin/pip" install -q --disable-pip-version-check "$dist"/python/*manylinux*_x86_64.whl pytest
(cd "$root/bindings-python/tests" && user "$scratch/wheel/bin/python" -m pytest -q -p no:cacheprovider test_vectors.py)

echo "test-dist: the sdist, built from source with Rust alone"
python3 -m venv "$scratch/sdist"
# Its own cargo target directory: a build from the sources in the tarball alone.
env -u CARGO_TARGET_DIR "$scratch/sdist/bin/pip" install -q --disable-pip-version-check --no-cache-dir "$dist/python/polyflake-$version.tar.gz" pytest
(cd "$root/bindings-python/tests" && user "$scratch/sdist/bin/python" -m pytest -q -p no:cacheprovider test_vectors.py)

echo "test-dist: the npm packages"
project="$scratch/npm"
mkdir -p "$project/test"
(cd "$project" && user npm init -y >/dev/null &&
    user npm install --no-audit --no-fund --loglevel=error "$dist/npm/polyflake-$version.tgz" \
        "$dist/npm/polyflake-linux-x64-gnu-$version.tgz")
sed "s|new URL('../../tests/vectors/', import.meta.url)|new URL('file://$vectors/')|" \
    "$root/bindings-node/__test__/vectors.mjs" > "$project/test/vectors.mjs"
cp "$root/bindings-node/__test__/vectors.test.mjs" "$project/test/"
(cd "$project" && POLYFLAKE_PACKAGE_DIR=node_modules/polyflake user node --test test/ >/dev/null && user node -e "
  const p = require('polyflake')
  if (typeof p.Generator.fromEnv !== 'function' || p.decode(175928847299117063n, 'discord').workerId !== 1) process.exit(1)
  console.log('npm: require(\"polyflake\") works; vectors passed')")
# The main package without its platform package: the loader says what is missing.
alone="$scratch/npm-alone"
mkdir -p "$alone"
(cd "$alone" && user npm init -y >/dev/null &&
    user npm install --no-audit --no-fund --loglevel=error --omit=optional "$dist/npm/polyflake-$version.tgz")
if message=$(cd "$alone" && user node -e "require('polyflake')" 2>&1); then
    echo "test-dist: polyflake loaded without its platform package" >&2
    exit 1
fi
case "$message" in
    *"polyflake-linux-x64-gnu"*"linux"*"x64"*) ;;
    *) echo "test-dist: the loader's error does not name the platform package: $message" >&2; exit 1 ;;
esac

echo "test-dist: the jar, from a Maven project that depends on it"
cp -r "$root/scripts/dist-consumer" "$scratch/maven"
(cd "$scratch/maven" && user mvn -B -q -ntp -Dmaven.repo.local="$scratch/m2" -Ddist.repo="$dist/maven" package &&
    user java -cp "target/classes:target/dependency/*" example.VectorsCheck "$vectors")

echo "test-dist: the CLI tarballs"
# unpack_cli TRIPLE: the path of the binary in that target's tarball.
unpack_cli() {
    mkdir -p "$scratch/cli"
    tar -C "$scratch/cli" -xzf "$dist/cli/polyflake-$version-$1.tar.gz"
    echo "$scratch/cli/polyflake-$version-$1/polyflake"
}
# cli_vectors COMMAND...: the CLI (run as COMMAND) decodes every preset vector.
cli_vectors() {
    user python3 - "$vectors" "$@" <<'PY'
import json, subprocess, sys
vectors, cli = sys.argv[1], sys.argv[2:]
cases = [c for c in json.load(open(f"{vectors}/compose.json"))["cases"]
         if c["layout"] in ("twitter", "snowflake", "discord", "instagram", "sonyflake")]
for c in cases:
    out = subprocess.run([*cli, "decode", c["id"], "--layout", c["layout"], "--json"],
                         capture_output=True, text=True, check=True).stdout
    got = json.loads(out)
    assert str(got["timestamp_ms"]) == c["timestamp_ms"] and str(got["sequence"]) == c["sequence"], (c, got)
    for field, value in c["nodes"].items():
        assert str(got[field]) == value, (c, got)
print(f"cli {cli[-1].split('/')[-2]}: {len(cases)} decode vectors")
PY
}
cli=$(unpack_cli x86_64-unknown-linux-gnu)
cli_vectors "$cli"
# The shipped binary is the ID service too: it serves IDs on a local lease,
# answers ready, and stops on SIGTERM, releasing its value.
user python3 "$root/scripts/serve_check.py" --state "$scratch/serve-state" -- "$cli"

if [ "${1:-}" = "--host" ]; then
    echo "test-dist: the linux x86_64 packages installed and passed the golden vectors (make test-dist: every platform)"
    exit 0
fi

echo "test-dist: the static musl CLIs"
for triple in x86_64-unknown-linux-musl aarch64-unknown-linux-musl; do
    musl=$(unpack_cli "$triple")
    # Static: no program interpreter, no shared library (dist_report.py checks it too).
    if llvm-readobj --program-headers "$musl" | grep -q INTERP || llvm-readobj --needed-libs "$musl" | grep -q '\.so'; then
        echo "test-dist: $triple's CLI is not static" >&2
        exit 1
    fi
done
cli_vectors "$scratch/cli/polyflake-$version-x86_64-unknown-linux-musl/polyflake"
# No -L: a static binary needs no arm64 userland. It is the arm64 image's
# binary: its service runs too.
cli_vectors qemu-aarch64-static "$scratch/cli/polyflake-$version-aarch64-unknown-linux-musl/polyflake"
user python3 "$root/scripts/serve_check.py" --state "$scratch/serve-state-arm64" -- \
    qemu-aarch64-static "$scratch/cli/polyflake-$version-aarch64-unknown-linux-musl/polyflake"

echo "test-dist: the aarch64 packages, under qemu-user with arm64 Debian's CPython, Node and OpenJDK"
arm64_root=$(bash "$root/scripts/arm64-root.sh")
arm64() { user qemu-aarch64-static -L "$arm64_root" "$@"; }
# The wheel: pip installs it for an aarch64 CPython 3.11 (its tags must let
# it), with pytest; arm64 CPython runs the vectors.
site="$scratch/arm64-python/site-packages"
user python3 -m pip install -q --disable-pip-version-check --target "$site" --only-binary=:all: \
    --platform manylinux2014_aarch64 --python-version 3.11 --implementation cp --abi cp311 --abi abi3 --abi none \
    "$(ls "$dist"/python/*manylinux*aarch64*.whl)" pytest
(cd "$root/bindings-python/tests" &&
    PYTHONPATH="$site" arm64 "$arm64_root/usr/bin/python3.11" -c \
        "import platform, polyflake; assert platform.machine() == 'aarch64', platform.machine(); print('python: aarch64,', polyflake.__file__)" &&
    PYTHONPATH="$site" arm64 "$arm64_root/usr/bin/python3.11" -m pytest -q -p no:cacheprovider test_vectors.py)
# The npm packages: npm, on this x64 machine, refuses the arm64 platform
# package (its os, cpu and libc say where it belongs) unless forced; forced,
# arm64 Node 18 loads it and runs the vectors.
project="$scratch/npm-arm64"
mkdir -p "$project/test"
(cd "$project" && user npm init -y >/dev/null)
if (cd "$project" && user npm install --no-audit --no-fund --loglevel=error "$dist/npm/polyflake-linux-arm64-gnu-$version.tgz" \
    >"$scratch/npm-arm64.err" 2>&1) || ! grep -q EBADPLATFORM "$scratch/npm-arm64.err"; then
    echo "test-dist: npm installed the arm64 addon on x64" >&2
    exit 1
fi
(cd "$project" && user npm install --no-audit --no-fund --loglevel=error --force \
    "$dist/npm/polyflake-$version.tgz" "$dist/npm/polyflake-linux-arm64-gnu-$version.tgz" 2>/dev/null)
[ -f "$project/node_modules/polyflake-linux-arm64-gnu/polyflake.linux-arm64-gnu.node" ] ||
    { echo "test-dist: npm did not install the arm64 addon" >&2; exit 1; }
cp "$scratch/npm/test/vectors.mjs" "$root/bindings-node/__test__/vectors.test.mjs" "$project/test/"
# Run as a file, not under --test: node's runner would start node again,
# and qemu-user runs no foreign child without binfmt_misc.
(cd "$project" && arm64 "$arm64_root/usr/bin/node" -e "if (process.arch !== 'arm64') process.exit(3)" &&
    POLYFLAKE_PACKAGE_DIR=node_modules/polyflake arm64 "$arm64_root/usr/bin/node" test/vectors.test.mjs > "$scratch/npm-arm64.tap")
grep -E '^# (pass|fail)' "$scratch/npm-arm64.tap"
grep -q '^# fail 0$' "$scratch/npm-arm64.tap"
# The jar: the Maven project above, run by arm64 OpenJDK; JNA loads linux-aarch64/.
(cd "$scratch/maven" && arm64 "$arm64_root/usr/lib/jvm/java-17-openjdk-arm64/bin/java" \
    -cp "target/classes:target/dependency/*" example.VectorsCheck "$vectors")
cli_vectors qemu-aarch64-static -L "$arm64_root" "$(unpack_cli aarch64-unknown-linux-gnu)"

echo "test-dist: the OCI image"
bash "$root/scripts/test-image.sh"

echo "test-dist: every artifact installed and passed the golden vectors"
