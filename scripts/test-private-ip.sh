#!/usr/bin/env bash
# POLYFLAKE_NODE_ID=private-ip from the CLI, Python and Node (Kotlin's is in
# its own suite, PrivateIpTest), on the artifacts the other test targets
# built:
#   - inside a network namespace whose loopback holds 10.1.2.3, a sonyflake
#     generator gets machine ID 0x0203 = 515 (its low 16 bits);
#   - on this host, without a private address, it is refused naming what it saw.
# Needs root for `ip netns` (CI runs as root).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cli=$(bash "$root/scripts/artifact.sh" cli)
python="$work/py-venv/bin/python"
ns="polyflake-$$"
state=$(mktemp -d)
trap 'ip netns del "$ns" 2>/dev/null || true; rm -rf "$state"' EXIT
ip netns add "$ns"
ip netns exec "$ns" ip link set lo up
ip netns exec "$ns" ip addr add 10.1.2.3/24 dev lo

machine_ids() { # each language's sonyflake machine ID, one per line
    "$cli" next --layout sonyflake --json | tr -d '[]" ' | { read -r id; echo $((id & 0xFFFF)); }
    "$python" -c 'import polyflake as p; g = p.Generator.from_env("sonyflake"); print(p.decode(g.next_id(), "sonyflake").machine_id)'
    (cd "$root/bindings-node" && node -e "const p = require('./polyflake.js'); console.log(p.decode(p.Generator.fromEnv('sonyflake').nextId(), 'sonyflake').machineId)")
}
got=$(ip netns exec "$ns" env POLYFLAKE_NODE_ID=private-ip POLYFLAKE_STATE_DIR="$state" bash -c "$(declare -f machine_ids); cli='$cli' python='$python' root='$root' machine_ids" 2>/dev/null)
if [ "$got" != $'515\n515\n515' ]; then
    echo "private-ip in a namespace holding 10.1.2.3: expected machine ID 515 from the CLI, Python and Node, got: $got" >&2
    exit 1
fi

# This host: refused, naming an address it saw (unless it has a private one).
mapfile -t addresses < <(ip -o -4 addr show | awk '{print $4}' | cut -d/ -f1)
for a in "${addresses[@]}"; do
    case "$a" in 10.*|192.168.*|169.254.*|172.1[6-9].*|172.2?.*|172.3[01].*|100.6[4-9].*|100.[7-9]?.*|100.1[01]?.*|100.12[0-7].*)
        echo "this host has the private address $a; the refusal is not tested here"; exit 0;;
    esac
done
expect="${addresses[-1]}"
for run in cli python node; do
    case $run in
        cli) out=$(POLYFLAKE_NODE_ID=private-ip POLYFLAKE_STATE_DIR="$state" "$cli" next --layout sonyflake 2>&1 || true) ;;
        python) out=$(POLYFLAKE_NODE_ID=private-ip "$python" -c 'import polyflake as p
try:
    p.Generator.from_env("sonyflake")
except p.InvalidArgumentError as e:
    print(e.code, e)' 2>&1) ;;
        node) out=$(cd "$root/bindings-node" && POLYFLAKE_NODE_ID=private-ip node -e "try { require('./polyflake.js').Generator.fromEnv('sonyflake') } catch (e) { console.log(e.code, e.message) }" 2>&1) ;;
    esac
    case "$out" in
        *"no private IPv4 address"*"$expect"*) ;;
        *) echo "$run: expected a refusal naming $expect, got: $out" >&2; exit 1 ;;
    esac
done
echo "private-ip: machine ID 515 in the namespace from the CLI, Python and Node; refused here naming $expect"
