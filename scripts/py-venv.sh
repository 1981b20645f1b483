#!/usr/bin/env bash
# The suites' one Python virtualenv, target/py-venv: every tool and library a
# suite's Python needs (tests/requirements.txt), made the first time a suite
# asks and again only when that file changes (its hash is kept in the venv) or
# the venv no longer runs. Suites run one after another in make test, but a
# suite run by hand beside another waits on the lock rather than racing it.
# polyflake is not in it: each suite installs the artifact it tests. Prints
# the venv's path; pip's output goes to stderr.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
venv="$work/py-venv"
requirements="$root/tests/requirements.txt"
want=$(sha256sum "$requirements" | cut -d' ' -f1)
mkdir -p "$work"
exec 9>"$work/py-venv.lock"
flock 9
if [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$want" ] || ! "$venv/bin/python" -c '' 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements" >&2
    echo "$want" > "$venv/.requirements"
fi
echo "$venv"
