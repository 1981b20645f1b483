#!/usr/bin/env bash
# Python: builds two wheels (abi3) and tests those artifacts:
#   - with the `etcd` and `test-hooks` features, installed into a fresh venv:
#     ruff, mypy --strict and stubtest on the stubs, a typed example, pytest;
#   - without features (what `pip install ./bindings-python` builds): the
#     tests in tests-lean/, which expect etcd to be refused.
# Both are debug builds: Rust's debug assertions and overflow checks run under
# the suites (a misaligned generator was found so), and the dependencies are
# shared with the Rust suites' debug builds. The release wheel users install
# is tested by make test-dist-host.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bash "$root/scripts/debian-deps.sh"
venv=$(bash "$root/scripts/py-venv.sh")

rm -rf "$work/py-lean"
test_wheels=$(bash "$root/scripts/artifact.sh" wheel-test)
lean_wheels=$(bash "$root/scripts/artifact.sh" wheel-lean)
"$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps \
    "$test_wheels"/polyflake-*.whl
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
    --target "$work/py-lean" "$lean_wheels"/polyflake-*.whl

# The replicas Generator.from_service is tested against (tests/service_cluster.py).
POLYFLAKE_CLI=$(bash "$root/scripts/artifact.sh" cli-serve)
export POLYFLAKE_CLI

cd "$root/bindings-python"
"$venv/bin/ruff" check python tests tests-lean benchmarks
"$venv/bin/ruff" format --check python tests tests-lean benchmarks
# Type-check the installed package (stubs + py.typed), never the source tree;
# stubtest holds the stubs to what the installed module really has.
(cd tests && "$venv/bin/mypy" --strict --no-incremental typing_example.py)
(cd tests && "$venv/bin/python" -m mypy.stubtest polyflake --allowlist ../stubtest-allowlist.txt)
(cd tests && "$venv/bin/python" -m pytest -q -p no:cacheprovider)
(cd tests-lean && PYTHONPATH="$work/py-lean" "$venv/bin/python" -m pytest -q -p no:cacheprovider)
# The README's Python as written, against the installed wheel.
readme="$work/readme-py"
rm -rf "$readme"
"$venv/bin/python" "$root/scripts/readme_examples.py" extract python "$readme"
for example in "$readme"/*.py; do (cd "$readme" && "$venv/bin/python" "$example" >/dev/null); done
