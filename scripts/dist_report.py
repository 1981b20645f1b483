#!/usr/bin/env python3
"""dist/REPORT.md: each artifact's size, and each native library's glibc floor
(the highest GLIBC_ symbol version it needs, read with objdump -T).

    dist_report.py <dist> <directory of the zig-built libraries> <wheel>
"""

import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

dist, built, wheel = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])


def floor(path: Path) -> str:
    out = subprocess.run(["objdump", "-T", str(path)], capture_output=True, text=True, check=True).stdout
    versions = {tuple(int(p) for p in v.split(".")) for v in re.findall(r"GLIBC_([0-9.]+)\b", out)}
    return "GLIBC_" + ".".join(map(str, max(versions))) if versions else "none"


def size(path: Path) -> str:
    n = path.stat().st_size
    return f"{n / 1_048_576:.1f} MiB" if n >= 1_048_576 else f"{n / 1024:.0f} KiB"


rows = ["| artifact | size |", "|---|---|"]
for path in sorted(dist.rglob("*")):
    if path.is_file() and path.suffix in {".whl", ".gz", ".tgz", ".jar"}:
        rows.append(f"| `{path.relative_to(dist)}` | {size(path)} |")

libs = ["| native library | size | glibc floor |", "|---|---|---|"]
for name, path in [
    ("CLI `polyflake`", built / "polyflake"),
    ("Node `polyflake.linux-x64-gnu.node`", built / "libpolyflake_node.so"),
    ("JVM `linux-x86-64/libpolyflake_kotlin.so`", built / "libpolyflake_kotlin.so"),
]:
    libs.append(f"| {name} | {size(path)} | {floor(path)} |")
with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as z:
    inner = next(n for n in z.namelist() if n.endswith(".so"))
    z.extract(inner, tmp)
    path = Path(tmp) / inner
    libs.append(f"| Python `{inner}` | {size(path)} | {floor(path)} |")

print("# dist/\n")
print("\n".join(rows))
print()
print("\n".join(libs))
