#!/usr/bin/env python3
"""Turns criterion's results for `core/benches/generate.rs` into the Rust
section of docs/benchmarks.md. Run after `make bench`."""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRITERION = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target") / "criterion"
DOC = ROOT / "docs" / "benchmarks.md"
CEILING_NS = 1e6 / 4096  # 4,096 IDs per millisecond
def replace_section(name: str, body: str) -> None:
    """Puts `body` between the `<!-- name:begin -->`/`end` markers of
    docs/benchmarks.md (appending them the first time)."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    # A benchmark's terminal colours are not for the document.
    body = re.sub(r"\x1b\[[0-9;]*m", "", body)
    block = f"{begin}\n{body.strip()}\n{end}"
    if begin in text and end in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    DOC.write_text(text)


def results() -> dict[str, float]:
    out = {}
    for bench in CRITERION.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        est = json.loads((bench.parent / "estimates.json").read_text())
        out[meta["full_id"]] = est["median"]["point_estimate"]
    return out


def cpu() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
        return re.search(r"model name\s*:\s*(.*)", text).group(1).strip()
    except (OSError, AttributeError):
        return platform.processor() or "unknown CPU"


def section(r: dict[str, float]) -> str:
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    lines = ["## Rust core", "", f"Measured with `make bench` on {cpu()}, 2 cores, {rustc}. Medians of criterion runs; "
             "lower is better. Ratios are peer ÷ polyflake (above 1 means polyflake is faster).", ""]
    lines += ["### Generating IDs", "",
              "| measurement | threads | polyflake | snowflaked | ratio | polyflake vs ceiling |",
              "|---|---|---|---|---|---|"]
    for t in (1, 2):
        p = r.get(f"ceiling/{t}t/polyflake-snowflake")
        s = r.get(f"ceiling/{t}t/snowflaked")
        if p and s:
            lines.append(f"| `snowflake` preset, waits included (ns/ID) | {t} | {p:.1f} | {s:.1f} | {s / p:.2f} | "
                         f"{CEILING_NS / p * 100:.1f}% of 4,096/ms |")
        p = r.get(f"cost/{t}t/polyflake-snowflake")
        s = r.get(f"cost/{t}t/snowflaked")
        w = r.get(f"cost/{t}t/polyflake-wide")
        if p and s:
            lines.append(f"| `snowflake` preset, cost per ID outside waits (ns) | {t} | {p:.1f} | {s:.1f} | {s / p:.2f} | |")
        if w and s:
            lines.append(f"| 21-bit sequence layout, never waits (ns/ID) | {t} | {w:.1f} | {s:.1f}¹ | {s / w:.2f} | |")
    p, k, kc = r.get("cost/1t/polyflake-snowflake"), r.get("clock/monotonic"), r.get("clock/monotonic+cas")
    if p and k:
        lines.append(f"| one read of the monotonic clock (ns) | 1 | {k:.1f} | | "
                     f"next_id = {p / k:.2f}× the clock read | |")
    if p and kc:
        lines.append(f"| the clock read and one compare-and-swap, any lock-free generator's floor (ns) | 1 | {kc:.1f} | | "
                     f"next_id = {p / kc:.2f}× this floor | |")
    lines += ["", "¹ snowflaked has one fixed layout; its figure is its cost per ID outside waits.", "",
              "### Decoding and encodings (ns per call)", "",
              "| operation | polyflake | snowflaked | ratio |", "|---|---|---|---|"]
    s = r.get("decode/snowflaked")
    rows = [
        ("polyflake-fields", "read the three raw fields snowflaked returns, `snowflake` preset (its shape), layout known at compile time: `Layout::snowflake().decode(id)`"),
        ("checked-floor", "floor: snowflaked's shifts plus the refusal of an ID with its unused bit set (hand-written)"),
        ("polyflake-fields-runtime", "the same, the preset a value known only at run time"),
        ("polyflake-fields-custom", "the same, a custom layout of that shape (run time)"),
        ("runtime-floor", "floor of a layout read at run time: the checked shifts, each amount and mask loaded from memory (hand-written)"),
        ("polyflake", "the whole `Parts` (twitter: time, ticks, sequence, 2 node fields), known at compile time"),
        ("polyflake-runtime", "the whole `Parts` (twitter), the preset known at run time"),
        ("polyflake-custom", "the whole `Parts` (custom: 3 node fields, sequence above them)"),
    ]
    for key, what in rows:
        v = r.get(f"decode/{key}")
        if v and s:
            lines.append(f"| {what} | {v:.2f} | {s:.2f} | {s / v:.2f} |")
    d, i = r.get("format/decimal"), r.get("format/itoa")
    lines += ["", "| encoding | format | format ÷ decimal format | parse | parse ÷ decimal parse |",
              "|---|---|---|---|---|"]
    dp = r.get("parse/decimal")
    for name in ("decimal", "hex", "base2", "base32", "base36", "base58", "base64", "crockford32", "bytes"):
        f, q = r.get(f"format/{name}"), r.get(f"parse/{name}")
        if f and q and d and dp:
            lines.append(f"| {name} | {f:.1f} | {f / d:.2f} | {q:.1f} | {q / dp:.2f} |")
    if d and i:
        lines += ["", f"Decimal format {d:.1f} ns beside the `itoa` crate's {i:.1f} ns in the same run: "
                  f"{d / i:.2f}× itoa."]
    return "\n".join(lines)


def main() -> int:
    if "--section" in sys.argv:
        # `--section NAME --from FILE`: another language's benchmark output.
        name = sys.argv[sys.argv.index("--section") + 1]
        body = Path(sys.argv[sys.argv.index("--from") + 1]).read_text()
        replace_section(name, body)
        print(body)
        return 0
    r = results()
    if not r:
        print("no criterion results under target/criterion: run `make bench` first", file=sys.stderr)
        return 1
    new = section(r)
    replace_section("rust", new)
    print(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
