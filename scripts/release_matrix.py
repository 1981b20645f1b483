#!/usr/bin/env python3
"""The build matrices of .github/workflows/release.yml, from release/targets.json.

    release_matrix.py            one line per matrix, `name=<json>` (for $GITHUB_OUTPUT)
    release_matrix.py --check    also checks that the workflow uses every matrix and
                                 that package.json lists every Node target (make lint)
    release_matrix.py --here     the targets scripts/dist.sh builds on this machine, one
                                 line each: triple, here, python, node, jna (- for none)
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
targets = json.loads((ROOT / "release/targets.json").read_text())["targets"]


def include(key: str) -> list[dict]:
    return [t for t in targets if t.get(key)]


matrices = {
    "python": include("python"),
    "node": include("node"),
    "jvm": include("jna"),
    "cli": include("cli"),
    "android": include("android_abi"),
}

if "--here" in sys.argv:
    for t in targets:
        if t.get("here"):
            print(" ".join(str(t.get(k) or "-") for k in ("triple", "here", "python", "node", "jna")))
elif "--check" in sys.argv:
    workflow = (ROOT / ".github/workflows/release.yml").read_text()
    missing = [m for m in matrices if f"needs.plan.outputs.{m}" not in workflow]
    package = json.loads((ROOT / "bindings-node/package.json").read_text())
    napi_targets = set(package["napi"]["targets"])
    unlisted = [t["triple"] for t in matrices["node"] if t["triple"] not in napi_targets]
    android_etcd = [t["triple"] for t in matrices["android"] if t["etcd"]]
    unknown_here = [t["triple"] for t in targets if t.get("here", "dist") not in ("dist", "dist-cli", "dist-all")]
    problems = (
        [f"release.yml does not use the {m} matrix" for m in missing]
        + [f"bindings-node/package.json napi.targets lacks {t}" for t in unlisted]
        + [f"{t}: Android builds go without etcd" for t in android_etcd]
        + [f"{t}: here is dist, dist-cli or dist-all" for t in unknown_here]
    )
    if problems:
        sys.exit("release matrix: " + "; ".join(problems))
    print(f"release matrix: {len(targets)} targets, " + ", ".join(f"{k} {len(v)}" for k, v in matrices.items()))
else:
    for name, rows in matrices.items():
        print(f"{name}={json.dumps({'include': rows}, separators=(',', ':'))}")
