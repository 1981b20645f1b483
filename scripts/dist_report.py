#!/usr/bin/env python3
"""dist/REPORT.md, and the inspection of every native file `make dist` ships.

    dist_report.py <dist> <native> <uniffi Kotlin sources>

<native> holds each target's files as shipped (scripts/dist.sh): <triple>/polyflake,
<triple>/polyflake.<platform>.node, <triple>/<jna folder>/lib…; the wheels' extension
modules are read from dist/python. LLVM's tools (Debian's llvm) read ELF and Mach-O
alike. Each file must have the target's object format and architecture and export
what its loader calls: PyInit__polyflake (CPython), napi_register_module_v1 (Node),
every uniffi function the generated Kotlin declares (JNA); a glibc build may need
no symbol newer than GLIBC_2.17, a musl build none at all, and a static CLI no
shared library. Any miss is printed and the exit code is 1.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

dist, native, kotlin = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
GLIBC_FLOOR = (2, 17)
# llvm-readobj's names for each target's object format and machine.
FORMAT = {
    ("x86_64", "linux"): ("elf64-x86-64", "x86_64"),
    ("aarch64", "linux"): ("elf64-littleaarch64", "aarch64"),
    ("x86_64", "apple"): ("Mach-O 64-bit x86-64", "x86_64"),
    ("aarch64", "apple"): ("Mach-O arm64", "aarch64"),
}
problems: list[str] = []


def run(*args: str) -> str:
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def size(path: Path) -> str:
    n = path.stat().st_size
    return f"{n / 1_048_576:.1f} MiB" if n >= 1_048_576 else f"{n / 1024:.0f} KiB"


def exports(path: Path, macho: bool) -> set[str]:
    if macho:
        names = run("llvm-nm", "--extern-only", "--defined-only", "--just-symbol-name", str(path)).split()
        return {n.removeprefix("_") for n in names}
    return set(run("llvm-nm", "-D", "--defined-only", "--just-symbol-name", str(path)).split())


def links(path: Path, macho: bool) -> list[str]:
    if macho:
        # The load commands that need a library; a dylib's own install name
        # (LC_ID_DYLIB) is not one.
        headers = run("llvm-objdump", "--macho", "--private-headers", str(path))
        return re.findall(r"cmd LC_(?:LOAD|LOAD_WEAK|REEXPORT)_DYLIB\n\s+cmdsize \d+\n\s+name (\S+)", headers)
    out = run("llvm-readobj", "--needed-libs", str(path))
    return re.findall(r"^\s+(\S+\.so[.\d]*)$", out, re.MULTILINE)


def inspect(triple: str, path: Path, kind: str, wants: set[str]) -> str:
    """Checks one native file; returns what it links against, for the report."""
    arch = triple.partition("-")[0]
    system = "apple" if "apple" in triple else "linux"
    fmt, machine = FORMAT[(arch, system)]
    headers = run("llvm-readobj", "--file-headers", str(path))
    got_fmt = re.search(r"^Format: (.*)$", headers, re.MULTILINE)
    got_arch = re.search(r"^Arch: (.*)$", headers, re.MULTILINE)
    name = f"{triple} {kind}"
    if not got_fmt or got_fmt[1] != fmt or not got_arch or got_arch[1] != machine:
        problems.append(f"{name}: {path.name} is {got_fmt and got_fmt[1]} {got_arch and got_arch[1]}, not {fmt} {machine}")
        return "?"
    macho = system == "apple"
    missing = wants - exports(path, macho)
    if missing:
        problems.append(f"{name}: {path.name} does not export {', '.join(sorted(missing)[:5])}")
    needed = links(path, macho)
    if macho:
        outside = [n for n in needed if not n.startswith("/usr/lib/") and not n.startswith("/System/")]
        if outside:
            problems.append(f"{name}: links outside the system: {outside}")
        return ", ".join(Path(n).name for n in needed)
    versions = {tuple(int(p) for p in v.split(".")) for v in re.findall(r"GLIBC_([0-9.]+)\b", run("llvm-readelf", "-V", str(path)))}
    if triple.endswith("-musl"):
        if versions:
            problems.append(f"{name}: a musl build needs glibc symbols")
        if kind == "CLI":
            if needed or "INTERP" in run("llvm-readobj", "--program-headers", str(path)):
                problems.append(f"{name}: the musl CLI is not static: {needed}")
            return "static"
        if needed != ["libc.so"]:
            problems.append(f"{name}: a musl library needs {needed}, not musl's libc.so alone")
        return "musl libc.so"
    floor = max(versions) if versions else None
    if floor is None or floor > GLIBC_FLOOR:
        problems.append(f"{name}: glibc floor {floor}, not <= {GLIBC_FLOOR}")
    return "GLIBC_" + ".".join(map(str, floor)) if floor else "no glibc"


# The functions the generated Kotlin hands to JNA: each library must have them all.
uniffi = set(re.findall(r"\bfun ((?:uniffi|ffi)_polyflake_kotlin_\w+)\(", "".join(p.read_text() for p in kotlin.rglob("*.kt"))))
if len(uniffi) < 20:
    problems.append(f"the generated Kotlin declares only {len(uniffi)} uniffi functions")

rows = ["| target | file | size | links against |", "|---|---|---|---|"]
with tempfile.TemporaryDirectory() as tmp:
    for target in sorted(p for p in native.iterdir() if p.is_dir()):
        triple = target.name
        for path in sorted(p for p in target.rglob("*") if p.is_file()):
            if path.name == "polyflake":
                kind, wants = "CLI", set()
            elif path.suffix == ".node":
                kind, wants = "Node addon", {"napi_register_module_v1"}
            else:
                kind, wants = f"JVM `{path.parent.name}/`", uniffi
            rows.append(f"| {triple} | {kind} `{path.name}` | {size(path)} | {inspect(triple, path, kind, wants)} |")
    for wheel in sorted((dist / "python").glob("*.whl")):
        arch = "aarch64" if ("aarch64" in wheel.name or "arm64" in wheel.name) else "x86_64"
        system = "apple-darwin" if "macosx" in wheel.name else ("unknown-linux-musl" if "musllinux" in wheel.name else "unknown-linux-gnu")
        triple = f"{arch}-{system}"
        with zipfile.ZipFile(wheel) as z:
            inner = next(n for n in z.namelist() if n.endswith((".so", ".dylib")))
            z.extract(inner, f"{tmp}/{wheel.name}")
        path = Path(tmp, wheel.name, inner)
        tag = wheel.name.split("-", 4)[-1].removesuffix(".whl")
        rows.append(f"| {triple} | Python `{inner}` ({tag}) | {size(path)} | {inspect(triple, path, 'wheel', {'PyInit__polyflake'})} |")

artifacts = ["| artifact | size |", "|---|---|"]
for path in sorted(dist.rglob("*")):
    if path.is_file() and path.suffix in {".whl", ".gz", ".tgz", ".jar"}:
        artifacts.append(f"| `{path.relative_to(dist)}` | {size(path)} |")

print("# dist/\n")
print("\n".join(artifacts))
print()
print("\n".join(rows))
if problems:
    print("\n".join(f"dist: {p}" for p in problems), file=sys.stderr)
    sys.exit(1)
