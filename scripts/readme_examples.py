#!/usr/bin/env python3
"""Every code example in the READMEs runs in CI as written.

    readme_examples.py extract LANG DIR   write each LANG block to DIR (python, js, sh)
    readme_examples.py check              every block is covered: Rust blocks are doctests
                                          (core/src/lib.rs includes README.md), Kotlin blocks
                                          must appear verbatim in one of KOTLIN_TESTS, the
                                          others are extracted and run by the test scripts

A block whose first line is `make …` is the set-up commands themselves; CI runs them.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The READMEs, and the integrations page, whose examples run the same way.
READMES = [
    ROOT / "README.md",
    *sorted(ROOT.glob("bindings-*/README.md")),
    ROOT / "docs/integrations.md",
]
# The JUnit files that hold the Kotlin blocks verbatim: the binding's, and the
# integrations' (whose classes the binding's tests cannot see).
KOTLIN_TESTS = [
    ROOT / "bindings-kotlin/src/test/kotlin/dev/polyflake/ReadmeExamplesTest.kt",
    ROOT / "bindings-kotlin/integrations/hibernate/src/test/kotlin/dev/polyflake/hibernate/DocsExamplesTest.kt",
]
EXT = {"python": "py", "js": "cjs", "sh": "sh"}
FENCE = re.compile(r"^```(\w*)\s*$")


def blocks() -> list[tuple[Path, int, str, str]]:
    found = []
    for readme in READMES:
        lines = readme.read_text().splitlines()
        i = 0
        while i < len(lines):
            m = FENCE.match(lines[i])
            if m and m.group(1):
                start = i + 1
                j = start
                while not lines[j].startswith("```"):
                    j += 1
                found.append((readme, start, m.group(1), "\n".join(lines[start:j]) + "\n"))
                i = j
            i += 1
    return found


def is_setup(code: str) -> bool:
    return code.lstrip().startswith("make ")


def extract(lang: str, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for readme, line, tag, code in blocks():
        if tag != lang or is_setup(code):
            continue
        name = f"{readme.parent.name if readme.parent != ROOT else 'root'}-{line}.{EXT[lang]}"
        (out / name).write_text(code)
        n += 1
    if n == 0:
        sys.exit(f"no {lang} example found in the READMEs")
    print(f"{n} {lang} example(s) from the READMEs in {out}")


def kotlin_body(code: str) -> str:
    """A Kotlin block without its imports (which a test file has at its top)."""
    kept = [line for line in code.splitlines() if not line.startswith("import ")]
    return flat("\n".join(kept))


def flat(code: str) -> str:
    """Code with each line's indentation dropped (the test nests the block)."""
    return "\n".join(line.strip() for line in code.strip().splitlines())


def check() -> None:
    kotlin = [flat(test.read_text()) for test in KOTLIN_TESTS]
    known = {"rust", "kotlin", *EXT}
    bad = []
    for readme, line, tag, code in blocks():
        where = f"{readme.relative_to(ROOT)}:{line}"
        if tag not in known:
            bad.append(f"{where}: a ```{tag} block that no test runs")
        elif tag == "kotlin" and not any(kotlin_body(code) in test for test in kotlin):
            names = ", ".join(str(test.relative_to(ROOT)) for test in KOTLIN_TESTS)
            bad.append(f"{where}: this Kotlin block is in none of {names}")
    lib = (ROOT / "core/src/lib.rs").read_text()
    if 'include_str!("../../README.md")' not in lib:
        bad.append("core/src/lib.rs no longer runs README.md's Rust blocks as doctests")
    if bad:
        sys.exit("README examples not run in CI:\n  " + "\n  ".join(bad))
    print(f"{len(blocks())} README blocks, each run in CI")


if __name__ == "__main__":
    if sys.argv[1:2] == ["extract"] and len(sys.argv) == 4:
        extract(sys.argv[2], Path(sys.argv[3]))
    elif sys.argv[1:] == ["check"]:
        check()
    else:
        sys.exit(__doc__)
