#!/usr/bin/env python3
"""Fails when docs/design.md names a path that is gone (make check, make lint).

The map names files and folders in backticks, some from the repository's root
(`core/src/generator/mod.rs`), some from the folder the sentence is about
(`serve/app.rs` in the CLI's row, `keeper.rs` in etcd's). So a name holds when
it is a tracked path from the root, or the tail of one (whole components:
`serve/app.rs` is held by `cli/src/serve/app.rs`, never by `cli/src/observe/app.rs`),
and a folder when some tracked file lies under such a path. What is not a path
(a function, a variable, a command) is not checked: a path is a backticked word
with a slash, or a word ending in one of the project's file endings.

    python3 scripts/check_design_paths.py [FILE.md ...]   # default: docs/design.md
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENDINGS = (
    ".rs .py .pyi .kt .kts .js .mjs .cjs .ts .sh .json .toml .md .proto .html .sql .control .txt "
    ".yaml .yml .xml .png"
).split()
# A backticked word that could be a path: no spaces, no call parentheses, no
# `::`, no `=`, no `<placeholder>`.
CANDIDATE = re.compile(r"`([A-Za-z0-9_.\-/]+)`")


def tracked() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [line for line in out.splitlines() if line and (ROOT / line).exists()]


# Build outputs, made by the targets, never tracked.
OUTPUTS = ("target/", "dist/")


def is_path(word: str) -> bool:
    if word.startswith(("-", ".", "/") + OUTPUTS) or "//" in word:
        return False
    if "/" in word:
        return True
    return any(word.endswith(ending) for ending in ENDINGS)


def holds(word: str, files: list[str]) -> bool:
    name = word.rstrip("/")
    for path in files:
        # A file at that path or with that tail, or a folder holding files.
        if path == name or path.endswith("/" + name):
            return True
        if path.startswith(name + "/") or ("/" + name + "/") in ("/" + path):
            return True
    return False


def main(argv: list[str]) -> int:
    docs = [Path(a).resolve() for a in argv] or [ROOT / "docs" / "design.md"]
    files = tracked()
    missing = []
    for doc in docs:
        for number, line in enumerate(doc.read_text().splitlines(), 1):
            for word in CANDIDATE.findall(line):
                if is_path(word) and not holds(word, files):
                    missing.append(f"{doc.relative_to(ROOT)}:{number}: `{word}` names no file or folder")
    for line in missing:
        print(line, file=sys.stderr)
    if missing:
        print(f"{len(missing)} path(s) in the map are gone: correct the map", file=sys.stderr)
        return 1
    print(f"check_design_paths: every path {', '.join(str(d.relative_to(ROOT)) for d in docs)} names exists")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
