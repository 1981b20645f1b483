#!/usr/bin/env bash
# make test's guard of the README's main job: `make demo` as a new machine
# runs it. A new machine has the toolchains (Rust, Python, Node, a JDK,
# Maven) and none of the Debian packages `make deps` installs, but by the time
# this runs in `make test` they are here. So every program those packages
# bring that a build could reach for is shadowed by a stand-in that fails
# (first on PATH, and through the variables build scripts read first, such as
# PROTOC), and the demo builds in a cargo target directory of its own, where no
# build script's output from an earlier suite (compiled with the real
# programs) can stand in for running it again. A demo step that needs one of
# them fails here, naming it. The demo's own output is checked as it checks
# it: every language must read the minted ID identically (ADR 0023).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bare="$work/bare-machine"
stand_ins="$bare/bin"
rm -rf "$stand_ins"
mkdir -p "$stand_ins"
# What scripts/debian-deps.sh installs and a build could run: protoc
# (prost-build, hence etcd-client and tonic), PostgreSQL's tools (pgrx),
# clang and llvm-config (bindgen), etcd, the browser, the dist inspectors,
# qemu and podman.
for program in protoc etcd etcdctl chromium chromedriver pg_config initdb pg_ctl postgres psql \
    faketime clang llvm-config llvm-readobj llvm-nm qemu-aarch64-static podman runc; do
    cat > "$stand_ins/$program" <<EOF
#!/bin/sh
echo "polyflake: make demo ran '$program', which a new machine lacks (scripts/test-demo.sh)" >&2
exit 127
EOF
    chmod +x "$stand_ins/$program"
done
rc=0
env PATH="$stand_ins:$PATH" PROTOC="$stand_ins/protoc" PG_CONFIG="$stand_ins/pg_config" \
    PGRX_PG_CONFIG_PATH="$stand_ins/pg_config" LIBCLANG_PATH="$bare/no-libclang" \
    CARGO_TARGET_DIR="$bare/target" bash "$root/scripts/demo.sh" || rc=$?
if [ "$rc" != 0 ]; then
    echo "test-demo: make demo failed on a machine without the Debian packages (log: target/demo-build.log)" >&2
    grep -h "which a new machine lacks" "$work/demo-build.log" | sort -u >&2 || true
    exit "$rc"
fi
echo "test-demo: make demo passed with none of make deps' programs"
