#!/usr/bin/env bash
# Installs the Debian packages that the etcd feature and its tests need, once:
# protoc with the protobuf well-known types (etcd-client's build script
# compiles etcd's .proto files, which import google/protobuf/*.proto), a
# real etcd for the tests, chromium with chromedriver for the composer
# page's browser test, and for the end-to-end run PostgreSQL 15 (the tests
# initdb their own cluster) and libfaketime (a stepped clock for one
# replica); for `make dist` LLVM's object readers (llvm-readobj, llvm-nm: ELF
# and Mach-O alike), and for `make test-dist` qemu-user-static, which runs the
# aarch64 packages on this x86_64 machine, and podman with runc, which runs
# the service's image; for the PostgreSQL extension (pgrx) PostgreSQL 15's
# server headers and libclang, which pgrx's bindgen reads them with. A no-op
# when all are present. The default builds
# (`make demo`, `pip install ./bindings-python`, …) need none of them.
set -euo pipefail
have() {
    command -v protoc >/dev/null && command -v etcd >/dev/null &&
        [ -f /usr/include/google/protobuf/descriptor.proto ] &&
        command -v chromium >/dev/null && command -v chromedriver >/dev/null &&
        compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null &&
        compgen -G "/usr/lib/*/faketime/libfaketime.so.1" >/dev/null &&
        command -v llvm-readobj >/dev/null && command -v qemu-aarch64-static >/dev/null &&
        command -v podman >/dev/null && command -v runc >/dev/null &&
        [ -x /usr/lib/postgresql/15/bin/pg_config ] && [ -f /usr/include/postgresql/15/server/postgres.h ] &&
        compgen -G "/usr/lib/llvm-*/lib/libclang.so" >/dev/null
}
have && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
echo "polyflake: installing protobuf-compiler, libprotobuf-dev, etcd-server, chromium, chromium-driver, postgresql, faketime, llvm, qemu-user-static, podman, runc, postgresql-server-dev-15 and libclang-dev from Debian" >&2
$sudo apt-get update -qq >/dev/null
# etcd-server's and postgresql's post-installs may try to start system
# services; without an init system that fails harmlessly, and the tests
# start their own on other ports.
$sudo apt-get install -y -qq --no-install-recommends protobuf-compiler libprotobuf-dev etcd-server \
    chromium chromium-driver postgresql faketime llvm qemu-user-static podman runc \
    postgresql-server-dev-15 libclang-dev >/dev/null
have
