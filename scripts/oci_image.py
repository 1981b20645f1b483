#!/usr/bin/env python3
"""The OCI image of `polyflake serve`, written as an OCI image layout without a daemon.

    oci_image.py build <out dir> <version> <created> amd64=<static CLI> arm64=<static CLI>
    oci_image.py check <layout dir>

`build` writes one image per architecture from the static musl CLI, and an index naming
both (a multi-platform image: `podman pull oci-archive:…` or `skopeo copy oci:…` picks the
host's). Each image is one layer, and nothing else: the binary at /polyflake, /etc/passwd and
/etc/group naming the user it runs as (65532, "polyflake"), and two directories that user
owns: /var/lib/polyflake (the state directory of a local lease) and /tmp. No shell, no libc,
no package manager. The entrypoint is `/polyflake serve`, listening on 0.0.0.0:8080.
Byte-for-byte reproducible: every time in the layer and in the config is <created>
(the commit's time), files are added in one order, gzip carries no time and no name.

`check` reads a layout back and fails unless every blob matches its digest and size, every
layer's diff_id matches its uncompressed tar, the image runs as a non-root user, its
entrypoint is a static executable of the right architecture in the layer, and the layer
holds no shell.
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

USER, GROUP = 65532, 65532
PORT = 8080
STATE = "/var/lib/polyflake"
MEDIA = {
    "index": "application/vnd.oci.image.index.v1+json",
    "manifest": "application/vnd.oci.image.manifest.v1+json",
    "config": "application/vnd.oci.image.config.v1+json",
    "layer": "application/vnd.oci.image.layer.v1.tar+gzip",
}
# llvm-readobj's "Arch:" for each OCI architecture.
MACHINE = {"amd64": "x86_64", "arm64": "aarch64"}
SHELLS = {"bin/sh", "bin/bash", "bin/ash", "bin/busybox", "usr/bin/sh", "usr/bin/bash"}


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def layer(binary: Path, created: int) -> bytes:
    """The one layer, as an uncompressed tar."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:

        def add(name: str, kind: bytes, mode: int, data: bytes = b"", owner: int = 0) -> None:
            info = tarfile.TarInfo(name)
            info.type, info.mode, info.mtime = kind, mode, created
            info.uid = info.gid = owner
            info.uname = info.gname = "polyflake" if owner else "root"
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data else None)

        add("etc", tarfile.DIRTYPE, 0o755)
        add("etc/passwd", tarfile.REGTYPE, 0o644, f"root:x:0:0:root:/root:/sbin/nologin\npolyflake:x:{USER}:{GROUP}:polyflake:{STATE}:/sbin/nologin\n".encode())
        add("etc/group", tarfile.REGTYPE, 0o644, f"root:x:0:\npolyflake:x:{GROUP}:\n".encode())
        add("polyflake", tarfile.REGTYPE, 0o755, binary.read_bytes())
        add("tmp", tarfile.DIRTYPE, 0o1777)
        add("var", tarfile.DIRTYPE, 0o755)
        add("var/lib", tarfile.DIRTYPE, 0o755)
        # 0700: the local lease's lock and mark files are the owner's alone.
        add(STATE.lstrip("/"), tarfile.DIRTYPE, 0o700, owner=USER)
    return out.getvalue()


def build(out: Path, version: str, created: int, binaries: dict[str, Path]) -> None:
    blobs = out / "blobs" / "sha256"
    blobs.mkdir(parents=True)

    def put(data: bytes) -> dict:
        d = digest(data)
        (blobs / d.removeprefix("sha256:")).write_bytes(data)
        return {"digest": d, "size": len(data)}

    created_text = dt.datetime.fromtimestamp(created, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    labels = {
        "org.opencontainers.image.title": "polyflake serve",
        "org.opencontainers.image.description": "Snowflake IDs over HTTP: batches, health, readiness, metrics",
        "org.opencontainers.image.version": version,
        "org.opencontainers.image.created": created_text,
        "org.opencontainers.image.licenses": "MIT OR Apache-2.0",
    }
    manifests = []
    for arch, binary in sorted(binaries.items()):
        tar = layer(binary, created)
        compressed = io.BytesIO()
        with gzip.GzipFile(fileobj=compressed, mode="wb", mtime=0, filename="") as gz:
            gz.write(tar)
        config = {
            "created": created_text,
            "architecture": arch,
            "os": "linux",
            "config": {
                "User": f"{USER}:{GROUP}",
                "Entrypoint": ["/polyflake", "serve"],
                "Env": [f"POLYFLAKE_LISTEN=0.0.0.0:{PORT}", f"POLYFLAKE_STATE_DIR={STATE}"],
                "ExposedPorts": {f"{PORT}/tcp": {}},
                "WorkingDir": "/",
                "StopSignal": "SIGTERM",
                "Labels": labels,
            },
            "rootfs": {"type": "layers", "diff_ids": [digest(tar)]},
            "history": [{"created": created_text, "created_by": "scripts/oci_image.py: the static musl CLI"}],
        }
        manifest = {
            "schemaVersion": 2,
            "mediaType": MEDIA["manifest"],
            "config": {"mediaType": MEDIA["config"], **put(canonical(config))},
            "layers": [{"mediaType": MEDIA["layer"], **put(compressed.getvalue())}],
            "annotations": {"org.opencontainers.image.created": created_text},
        }
        manifests.append({"mediaType": MEDIA["manifest"], **put(canonical(manifest)),
                          "platform": {"architecture": arch, "os": "linux"}})
    # The layout's index names one image, the multi-platform one: an index of
    # the per-architecture manifests, stored as a blob (as skopeo and buildah
    # write it), so that a runtime pulls the layout by its tag and picks its
    # own architecture.
    platforms = {"schemaVersion": 2, "mediaType": MEDIA["index"], "manifests": manifests}
    index = {
        "schemaVersion": 2,
        "mediaType": MEDIA["index"],
        "manifests": [
            {
                "mediaType": MEDIA["index"],
                **put(canonical(platforms)),
                "annotations": {"org.opencontainers.image.ref.name": f"polyflake/serve:{version}"},
            }
        ],
    }
    (out / "index.json").write_bytes(canonical(index))
    (out / "oci-layout").write_bytes(canonical({"imageLayoutVersion": "1.0.0"}))


def canonical(value: dict) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def check(root: Path) -> list[str]:
    problems: list[str] = []

    def blob(descriptor: dict, media: str) -> bytes:
        data = (root / "blobs" / "sha256" / descriptor["digest"].removeprefix("sha256:")).read_bytes()
        if digest(data) != descriptor["digest"] or len(data) != descriptor["size"]:
            problems.append(f"blob {descriptor['digest']}: digest or size does not match")
        if descriptor["mediaType"] != media:
            problems.append(f"blob {descriptor['digest']}: media type {descriptor['mediaType']}, not {media}")
        return data

    if json.loads((root / "oci-layout").read_text()) != {"imageLayoutVersion": "1.0.0"}:
        problems.append("oci-layout is not version 1.0.0")
    top = json.loads((root / "index.json").read_text())
    if len(top["manifests"]) != 1 or "org.opencontainers.image.ref.name" not in top["manifests"][0].get("annotations", {}):
        problems.append("index.json does not name one tagged image")
        return problems
    index = json.loads(blob(top["manifests"][0], MEDIA["index"]))
    arches = sorted(m["platform"]["architecture"] for m in index["manifests"])
    if arches != ["amd64", "arm64"]:
        problems.append(f"the image index names {arches}, not amd64 and arm64")
    for entry in index["manifests"]:
        arch = entry["platform"]["architecture"]
        manifest = json.loads(blob(entry, MEDIA["manifest"]))
        config = json.loads(blob(manifest["config"], MEDIA["config"]))
        if config["architecture"] != arch or config["os"] != "linux":
            problems.append(f"{arch}: the config says {config['architecture']}/{config['os']}")
        user = config["config"].get("User", "")
        if not user or user.split(":")[0] in ("0", "root"):
            problems.append(f"{arch}: runs as root ({user!r})")
        entrypoint = config["config"]["Entrypoint"]
        if entrypoint[:2] != ["/polyflake", "serve"]:
            problems.append(f"{arch}: entrypoint {entrypoint}")
        (layer_descriptor,) = manifest["layers"]
        tar = gzip.decompress(blob(layer_descriptor, MEDIA["layer"]))
        if config["rootfs"]["diff_ids"] != [digest(tar)]:
            problems.append(f"{arch}: diff_id does not match the layer")
        with tarfile.open(fileobj=io.BytesIO(tar)) as t:
            members = {m.name: m for m in t.getmembers()}
            shells = SHELLS & set(members)
            if shells:
                problems.append(f"{arch}: the layer holds a shell: {sorted(shells)}")
            state = members.get(STATE.lstrip("/"))
            if state is None or not state.isdir() or state.uid != int(user.split(":")[0]):
                problems.append(f"{arch}: {STATE} is not a directory the user owns")
            binary = members.get(entrypoint[0].lstrip("/"))
            if binary is None or not binary.mode & 0o111:
                problems.append(f"{arch}: {entrypoint[0]} is not an executable in the layer")
                continue
            path = root.parent / f".check-{arch}"
            path.write_bytes(t.extractfile(binary).read())
        try:
            headers = subprocess.run(["llvm-readobj", "--file-headers", "--program-headers", str(path)],
                                     capture_output=True, text=True, check=True).stdout
            if f"Arch: {MACHINE[arch]}" not in headers:
                problems.append(f"{arch}: {entrypoint[0]} is not an {MACHINE[arch]} executable")
            if "PT_INTERP" in headers:
                problems.append(f"{arch}: {entrypoint[0]} is not static (it names an interpreter)")
        finally:
            path.unlink()
    return problems


if __name__ == "__main__":
    if sys.argv[1] == "build":
        out, version, created = Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
        binaries = dict(arg.split("=", 1) for arg in sys.argv[5:])
        build(out, version, created, {arch: Path(path) for arch, path in binaries.items()})
        found = check(out)
    else:
        found = check(Path(sys.argv[2]))
    if found:
        sys.exit("oci image: " + "; ".join(found))
    print(f"oci image: {sys.argv[2]} checked")
