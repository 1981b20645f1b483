"""A PostgreSQL 15 cluster of the suite's own, with the installed extension.

initdb into a fresh directory under /tmp, a free port on 127.0.0.1,
started here and stopped by its PID. PostgreSQL refuses to run as root: as
root the cluster runs as `postgres` (Debian's package makes it), else
`nobody`."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def dsn() -> Iterator[str]:
    bins = sorted(glob.glob("/usr/lib/postgresql/15/bin/initdb"))
    assert bins, "PostgreSQL 15's initdb is missing (make deps installs it)"
    bindir = Path(bins[0]).parent
    # Under /tmp, not the checkout: the cluster's account must reach its directory, and a
    # checkout may sit in a directory only its owner can enter (mktemp -d). Removed at the end.
    base = Path(tempfile.mkdtemp(prefix="polyflake-pg-"))
    kw: dict = {}
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            user = pwd.getpwnam("nobody")
        os.chmod(base, 0o711)
        os.chown(base, user.pw_uid, user.pw_gid)
        kw = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
    data = base / "db"
    subprocess.run(
        [
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-U",
            "polyflake",
            "-A",
            "trust",
            "--no-sync",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=base,
        **kw,
    )
    port = free_port()
    with open(
        base / "postgres.log", "wb"
    ) as log:  # the server keeps its own copy of the descriptor
        server = subprocess.Popen(
            [
                str(bindir / "postgres"),
                "-D",
                str(data),
                "-p",
                str(port),
                "-k",
                str(base),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "fsync=off",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=base,
            **kw,
        )
    url = f"postgresql://polyflake@127.0.0.1:{port}/postgres"
    deadline = time.monotonic() + 30
    while True:
        try:
            psycopg.connect(url, connect_timeout=1).close()
            break
        except psycopg.OperationalError:
            assert server.poll() is None, (base / "postgres.log").read_text()
            assert time.monotonic() < deadline, "PostgreSQL did not start within 30 s"
            time.sleep(0.2)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION polyflake")
    try:
        yield url
    finally:
        server.send_signal(signal.SIGINT)  # fast shutdown
        server.wait(timeout=60)
        text = (base / "postgres.log").read_text(errors="replace")
        # No input may end a backend: the log would say so.
        assert "terminated by signal" not in text and "PANIC" not in text, text[-4000:]
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def sql(dsn: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        yield conn
