#!/usr/bin/env bash
# Installs the Debian packages the etcd lease needs, once: protoc to build
# etcd-client (every binding and `--features etcd` links it) and a real etcd
# for the tests. A no-op when both are present.
set -euo pipefail
command -v protoc >/dev/null && command -v etcd >/dev/null && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
# etcd-server's post-install may try to start a system service; without an
# init system that fails harmlessly, and the tests start their own on other ports.
$sudo apt-get install -y -qq --no-install-recommends protobuf-compiler etcd-server >/dev/null
command -v protoc >/dev/null && command -v etcd >/dev/null
