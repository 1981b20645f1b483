#!/usr/bin/env bash
# Installs the Debian packages that the etcd feature and its tests need, once:
# protoc with the protobuf well-known types (etcd-client's build script
# compiles etcd's .proto files, which import google/protobuf/*.proto), a
# real etcd for the tests, and chromium with chromedriver for the composer
# page's browser test. A no-op when all are present. The default builds
# (`make demo`, `pip install ./bindings-python`, …) need none of them.
set -euo pipefail
have() {
    command -v protoc >/dev/null && command -v etcd >/dev/null &&
        [ -f /usr/include/google/protobuf/descriptor.proto ] &&
        command -v chromium >/dev/null && command -v chromedriver >/dev/null
}
have && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
echo "polyflake: installing protobuf-compiler, libprotobuf-dev, etcd-server, chromium and chromium-driver from Debian" >&2
$sudo apt-get update -qq >/dev/null
# etcd-server's post-install may try to start a system service; without an
# init system that fails harmlessly, and the tests start their own on other ports.
$sudo apt-get install -y -qq --no-install-recommends protobuf-compiler libprotobuf-dev etcd-server \
    chromium chromium-driver >/dev/null
have
