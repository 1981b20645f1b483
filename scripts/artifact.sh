#!/usr/bin/env bash
# The one place the suites take a shared debug artifact from: builds it the
# first time this make test run asks for it, keeps it in target/artifacts/NAME/
# (where a later build of another feature set cannot replace it: cargo links
# every feature set of the CLI to the same target/debug/polyflake), and prints
# its path. Outside a make test run (POLYFLAKE_RUN unset: a suite run alone)
# it builds every time, so a suite never takes a stale artifact.
#
#   artifact.sh cli          the CLI, default features (no etcd)
#   artifact.sh cli-serve    the CLI with `serve` (and so etcd): the service's replicas
#   artifact.sh wheel-test   a directory holding the Python wheel with `etcd` and `test-hooks`
#   artifact.sh wheel-lean   a directory holding the wheel without features (`pip install ./bindings-python`)
#
# The wheels are built with the maturin of the suites' venv (scripts/py-venv.sh).
# Build output goes to stderr; stdout is the path alone.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
name=${1:?usage: artifact.sh cli|cli-serve|wheel-test|wheel-lean}
out="$work/artifacts/$name"
case "$name" in
    cli | cli-serve) path="$out/polyflake" ;;
    wheel-test | wheel-lean) path="$out" ;;
    *) echo "artifact.sh: no artifact $name" >&2; exit 2 ;;
esac
run=${POLYFLAKE_RUN:-}
if [ -n "$run" ] && [ "$(cat "$out/.run" 2>/dev/null)" = "$run" ]; then
    echo "$path"
    exit 0
fi
rm -rf "$out"
mkdir -p "$out"
maturin() {
    local venv
    venv=$(bash "$root/scripts/py-venv.sh")
    "$venv/bin/maturin" "$@" >&2
}
case "$name" in
    cli)
        cargo build -q -p polyflake-cli >&2
        cp "$cargo_target/debug/polyflake" "$path"
        ;;
    cli-serve)
        bash "$root/scripts/debian-deps.sh" >&2
        cargo build -q -p polyflake-cli --features serve >&2
        cp "$cargo_target/debug/polyflake" "$path"
        ;;
    wheel-test)
        bash "$root/scripts/debian-deps.sh" >&2
        maturin build --quiet -m "$root/bindings-python/Cargo.toml" --features etcd,test-hooks -o "$out"
        ;;
    wheel-lean)
        maturin build --quiet -m "$root/bindings-python/Cargo.toml" -o "$out"
        ;;
esac
[ -z "$run" ] || echo "$run" > "$out/.run"
echo "$path"
