"""An etcd of a test's own, one member or three: every suite that needs a real
etcd (Rust's through tests/etcd_cluster.rs, Python, Node, Kotlin, the service
cluster, the PostgreSQL extension's lease worker and the end-to-end run)
starts it with this file, so that a fix to the start (a port race, the
readiness wait) reaches every suite at once.

Debian's etcd-server (`make deps` installs it; ETCD_BIN names another): each
member with a data directory under the cluster's own directory (/tmp by
default), ports from tests/ports.py's rule, healthy (a leader elected) before
`start` returns, a cluster that does not come up started again on other
ports. Stopped by the PIDs written beside the members, directory removed.
Only the standard library: a suite in any language runs it as a script::

    python3 tests/etcd_cluster.py start [--members 3]
        # prints {"dir": …, "endpoints": "http://…,…", "members": [{"name", "endpoint", "pid"}, …]}
    python3 tests/etcd_cluster.py stop DIR   # every member by its PID, DIR removed

A suite kills and pauses members itself (by the PIDs printed); `stop` resumes
a paused one before killing it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pids import end
from ports import PortLost, free_port, retrying


def binary() -> str:
    found = os.environ.get("ETCD_BIN") or shutil.which("etcd")
    if not found:
        raise RuntimeError("etcd is missing (make deps installs Debian's etcd-server)")
    return found


def call(
    endpoint: str, path: str, body: dict | None = None, timeout: float = 2
) -> dict | None:
    """A JSON call to a member (its HTTP gateway), None if it does not answer."""
    data = None if body is None else json.dumps(body).encode()
    try:
        with urllib.request.urlopen(
            f"{endpoint}{path}", data=data, timeout=2
        ) as answer:
            parsed = json.loads(answer.read())
    except (OSError, ValueError):
        return None
    return parsed if isinstance(parsed, dict) else None


@dataclass
class Member:
    """One member: its ports, data directory and log under the cluster's
    directory, and the process running it now (None before the first start)."""

    name: str
    client_port: int
    peer_port: int
    data: Path
    log: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.client_port}"

    @property
    def peer(self) -> str:
        return f"http://127.0.0.1:{self.peer_port}"

    @property
    def pid_file(self) -> Path:
        return self.data.parent / f"{self.name}.pid"

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def healthy(self) -> bool:
        # Listening is not serving: /health is true once there is a leader.
        return (call(self.endpoint, "/health") or {}).get("health") == "true"


class Cluster:
    """`Cluster(members)`: started and healthy; `start(some)` starts members
    again on their data directories; `signal`, `leader`, `stop`, `close`."""

    def __init__(
        self, members: int = 1, base: Path | None = None, name: str = "etcd"
    ) -> None:
        self.base = (
            Path(tempfile.mkdtemp(prefix="polyflake-etcd-")) if base is None else base
        )
        self.base.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.members: list[Member] = []
        try:
            retrying(lambda: self._first_start(members))
        except BaseException:
            self.close()
            raise

    def _first_start(self, count: int) -> None:
        self.stop()
        for m in self.members:
            shutil.rmtree(m.data, ignore_errors=True)
        taken: set[int] = set()
        self.members = [
            Member(
                f"{self.name}{i}", free_port(taken), free_port(taken),
                self.base / f"{self.name}{i}", self.base / f"{self.name}{i}.log",
            )
            for i in range(count)
        ]  # fmt: skip
        self.start()

    @property
    def endpoints(self) -> str:
        return ",".join(m.endpoint for m in self.members)

    def start(self, members: list[Member] | None = None, seconds: float = 30) -> None:
        """Starts `members` (every one by default) and waits until each is
        healthy; PortLost if one is not within `seconds`."""
        initial = ",".join(f"{m.name}={m.peer}" for m in self.members)
        token = f"polyflake-{self.members[0].client_port}"
        chosen = members or self.members
        for m in chosen:
            # The member keeps its own copy of the log's descriptor.
            with open(m.log, "ab") as log:
                m.process = subprocess.Popen(
                    [binary(), "--name", m.name, "--data-dir", str(m.data),
                     "--listen-client-urls", m.endpoint, "--advertise-client-urls", m.endpoint,
                     "--listen-peer-urls", m.peer, "--initial-advertise-peer-urls", m.peer,
                     "--initial-cluster", initial, "--initial-cluster-token", token],
                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                )  # fmt: skip
            m.pid_file.write_text(f"{m.process.pid}\n")
        deadline = time.monotonic() + seconds
        for m in chosen:
            while not m.healthy():
                if not m.running() or time.monotonic() > deadline:
                    tail = m.log.read_text(errors="replace")[-2000:]
                    raise PortLost(
                        f"etcd member {m.name} on {m.endpoint} did not come up:\n{tail}"
                    )
                time.sleep(0.05)

    def signal(self, sig: signal.Signals) -> None:
        """`sig` to every running member."""
        for m in self.members:
            if m.running() and m.process is not None:
                m.process.send_signal(sig)

    def leader(self) -> Member | None:
        """The member that says it leads (its gateway's status call)."""
        for m in self.members:
            status = call(m.endpoint, "/v3/maintenance/status", {}) or {}
            if status.get("leader") and status.get("leader") == status.get(
                "header", {}
            ).get("member_id"):
                return m
        return None

    def stop(self) -> None:
        """Every running member resumed (if paused) and killed, by its PID."""
        for m in self.members:
            if m.running() and m.process is not None:
                m.process.send_signal(signal.SIGCONT)
                m.process.kill()
                m.process.wait()

    def close(self) -> None:
        """Stopped, and its directory removed."""
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)


def stop_dir(base: Path) -> None:
    """Every member that `start` left running in `base`, by its PID; `base` removed."""
    for pid_file in base.glob("*.pid"):
        end(int(pid_file.read_text()))
    shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("start")
    start.add_argument("--members", type=int, default=1, choices=(1, 3, 5))
    stop = sub.add_parser("stop")
    stop.add_argument("dir", type=Path)
    args = parser.parse_args()
    if args.command == "start":
        cluster = Cluster(args.members)
        # The members outlive this script, each in a session of its own;
        # `stop` ends them by the PIDs written beside them.
        print(json.dumps({
            "dir": str(cluster.base),
            "endpoints": cluster.endpoints,
            "members": [
                {"name": m.name, "endpoint": m.endpoint, "pid": m.process.pid if m.process else 0}
                for m in cluster.members
            ],
        }))  # fmt: skip
    else:
        stop_dir(args.dir)


if __name__ == "__main__":
    main()
