#!/usr/bin/env bash
# make lint: the Kubernetes example in deploy/ against the Kubernetes API's
# own schemas, strictly (an unknown or misspelt field fails), offline, with
# kubernetes-validate from PyPI (it carries the schemas of each release); and
# every POLYFLAKE_ variable it sets must be one the docs define.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
venv=$(bash "$root/scripts/py-venv.sh")
# 1.30: the first release whose preStop `sleep` is on by default; 1.37: the newest.
versions=(1.30.0 1.37.0)
manifests=("$root"/deploy/kubernetes/*.yaml)
for version in "${versions[@]}"; do
    "$venv/bin/kubernetes-validate" --strict --kubernetes-version "$version" --quiet "${manifests[@]}"
done
unknown=()
for name in $(grep -ho 'POLYFLAKE_[A-Z_]*' "${manifests[@]}" | sort -u); do
    grep -q "$name" "$root/docs/identity.md" "$root/docs/service.md" || unknown+=("$name")
done
if [ ${#unknown[@]} -gt 0 ]; then
    echo "check-deploy: deploy/ sets variables no doc defines: ${unknown[*]}" >&2
    exit 1
fi
echo "check-deploy: ${#manifests[@]} manifest file(s) valid against Kubernetes ${versions[*]} (strict)"
