"""PostgreSQL 15 clusters of the suite's own, with the installed extension.

Each cluster is an initdb into a fresh directory under /tmp, on a free port of
127.0.0.1, started here and stopped by its PID. PostgreSQL refuses to run as
root: as root the clusters run as `postgres` (Debian's package makes it), else
`nobody`. Every cluster preloads the library (`shared_preload_libraries`) and
keeps its leases in one state directory of the session, as clusters of one
host share the user's."""

from __future__ import annotations

import base64
import glob
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
import etcd_cluster  # and etcd
import postgres_cluster  # the repository's one way to start PostgreSQL
from ports import free_port  # and its one free-port rule
from postgres_cluster import private_dir

__all__ = ["Cluster", "Etcd", "faketime_library", "free_port", "private_dir"]


def faketime_library() -> str:
    found = sorted(glob.glob("/usr/lib/*/faketime/libfaketime.so.1"))
    assert found, "libfaketime is missing (make deps installs faketime)"
    return found[0]


class Cluster(postgres_cluster.Cluster):
    """The shared cluster with the installed extension: preloaded
    (`shared_preload_libraries`), its leases in `state_dir`, and
    `CREATE EXTENSION polyflake` run at each start."""

    def __init__(self, state_dir: Path | None) -> None:
        super().__init__()
        self.state_dir = state_dir

    def start(
        self,
        settings: dict[str, str] | None = None,
        env: dict[str, str] | None = None,
        preload: bool = True,
    ) -> None:
        options = {}
        if preload:
            options["shared_preload_libraries"] = "polyflake"
        if self.state_dir is not None:
            options["polyflake.state_dir"] = str(self.state_dir)
        options.update(settings or {})
        super().start(options, env)
        with self.connect() as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS polyflake")

    def connect(self) -> psycopg.Connection:
        return psycopg.connect(self.url, autocommit=True)

    def close(self) -> str:
        text = super().close()
        # No input may end a backend: the log would say so.
        assert "terminated by signal" not in text and "PANIC" not in text, text[-4000:]
        return text


@pytest.fixture(scope="session")
def state_dir() -> Iterator[Path]:
    path = private_dir("polyflake-pg-state-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def cluster(state_dir: Path) -> Iterator[Cluster]:
    """The suite's main cluster: next_id for twitter (its default) and sonyflake."""
    cluster = Cluster(state_dir)
    cluster.start({"polyflake.layouts": "twitter, sonyflake"})
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture(scope="session")
def dsn(cluster: Cluster) -> str:
    return cluster.url


@pytest.fixture
def sql(dsn: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        yield conn


@pytest.fixture
def new_cluster(state_dir: Path) -> Iterator[callable]:
    """Makes clusters for one test (sharing the session's state directory by default)."""
    made: list[Cluster] = []

    def make(state: Path | None = state_dir) -> Cluster:
        made.append(Cluster(state))
        return made[-1]

    yield make
    for c in made:
        c.close()


class Etcd:
    """One etcd member of the suite's own, from the shared launcher
    (tests/etcd_cluster.py), stopped by its PID; `pause()`/`resume()` stop and
    continue it (SIGSTOP/SIGCONT), `holders(prefix, layout)` reads the worker
    keys from etcd itself."""

    def __init__(self) -> None:
        self.cluster = etcd_cluster.Cluster(1)
        member = self.cluster.members[0]
        assert member.process is not None
        self.process = member.process
        self.url = member.endpoint

    def call(self, path: str, body: dict) -> dict | None:
        return etcd_cluster.call(self.url, path, body, timeout=1)

    def holders(self, prefix: str, layout: str) -> dict[int, str] | None:
        """Node number -> the holder's value of each worker key (None: no answer)."""
        key = f"{prefix}/{layout}/workers/"
        end = key[:-1] + chr(ord(key[-1]) + 1)
        answer = self.call(
            "/v3/kv/range",
            {"key": b64(key), "range_end": b64(end)},
        )
        if answer is None:
            return None
        return {
            int(
                base64.b64decode(kv["key"]).decode().rsplit("/", 1)[1]
            ): base64.b64decode(kv.get("value", "")).decode()
            for kv in answer.get("kvs", [])
        }

    def pause(self) -> None:
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def close(self) -> None:
        self.cluster.close()


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.fixture(scope="session")
def etcd() -> Iterator[Etcd]:
    server = Etcd()
    try:
        yield server
    finally:
        server.close()
