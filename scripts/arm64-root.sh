#!/usr/bin/env bash
# An arm64 Debian userland in target/arm64-root, for running the aarch64
# packages under qemu-user (`qemu-aarch64-static -L target/arm64-root …`):
# CPython 3.11, Node.js 18 and OpenJDK 17, with their libraries, from the
# arm64 packages of the same Debian release as this machine.
#
# apt resolves and downloads them with a state of its own under target/
# (an empty dpkg status, arm64 as the only architecture), so this machine's
# dpkg is not touched: no foreign architecture is added, nothing installed.
# dpkg -x unpacks each package; nothing runs its maintainer scripts, which
# the interpreters do not need. Prints the root's path.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
packages=(python3 nodejs openjdk-17-jre-headless)
sysroot="$work/arm64-root"
state="$work/arm64-apt"
stamp="$sysroot/.polyflake-packages"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${packages[*]}" ]; then
    echo "$sysroot"
    exit 0
fi
rm -rf "$sysroot" "$state"
mkdir -p "$state/lists/partial" "$state/archives/partial" "$sysroot"
: > "$state/status"
apt=(apt-get -q -o APT::Architecture=arm64 -o APT::Architectures::=arm64
    -o Dir::State="$state" -o Dir::State::Lists="$state/lists" -o Dir::State::status="$state/status"
    -o Dir::Cache="$state" -o Dir::Cache::archives="$state/archives"
    -o Debug::NoLocking=1 -o APT::Install-Recommends=false)
"${apt[@]}" update >/dev/null
"${apt[@]}" install -y --download-only "${packages[@]}" >/dev/null
debs=("$state"/archives/*.deb)
for deb in "${debs[@]}"; do
    dpkg-deb -x "$deb" "$sysroot"
done
for tool in usr/bin/python3.11 usr/bin/node usr/lib/jvm/java-17-openjdk-arm64/bin/java; do
    [ -x "$sysroot/$tool" ] || { echo "arm64-root: $tool is missing after unpacking ${#debs[@]} packages" >&2; exit 1; }
done
rm -rf "$state/archives"
echo "${packages[*]}" > "$stamp"
echo "$sysroot"
