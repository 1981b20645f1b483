# Sourced by the scripts: where things are.
#   root          the repository
#   cargo_target  cargo's artifacts: $CARGO_TARGET_DIR when set (made absolute), else target/
#   work          our own scratch space (venvs, wheels, test builds): target/ in the repository
#   version       the workspace's version, which every package carries
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cargo_target=$(cd "$root" && mkdir -p "${CARGO_TARGET_DIR:-target}" && cd "${CARGO_TARGET_DIR:-target}" && pwd)
export CARGO_TARGET_DIR="$cargo_target"
work="$root/target"
mkdir -p "$work"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)
