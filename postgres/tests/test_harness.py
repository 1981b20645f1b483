"""The shared launchers' own promises (tests/ports.py, tests/etcd_cluster.py,
tests/postgres_cluster.py): a server that loses the port chosen for it is
started again on another, and `stop DIR` leaves no process and no directory."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import etcd_cluster
import pids
import ports
import postgres_cluster
import pytest

LAUNCHER = Path(__file__).resolve().parents[2] / "tests" / "etcd_cluster.py"


@pytest.fixture
def taken() -> Iterator[socket.socket]:
    """A port of the launchers' range that another process listens on."""
    s = socket.socket()
    s.bind(("127.0.0.1", ports.free_port()))
    s.listen()
    yield s
    s.close()


def first_taken(monkeypatch: pytest.MonkeyPatch, taken: socket.socket) -> list[int]:
    """free_port answers the taken port once (as when another launcher bound
    it after the check), then its own choices; the answers are recorded."""
    real = ports.free_port
    answers: list[int] = []

    def chosen(used: set[int] | None = None) -> int:
        port = taken.getsockname()[1] if not answers else real(used)
        answers.append(port)
        if used is not None:
            used.add(port)
        return port

    for module in (etcd_cluster, postgres_cluster):
        monkeypatch.setattr(module, "free_port", chosen)
    return answers


def test_free_port_is_below_the_ephemeral_range_and_bindable() -> None:
    low, _ = (
        int(n)
        for n in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
    )
    used: set[int] = set()
    for _ in range(50):
        port = ports.free_port(used)
        assert ports.LOW <= port < min(ports.HIGH, low)
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))
    assert len(used) == 50


def test_etcd_on_a_lost_port_starts_again_on_another(
    monkeypatch: pytest.MonkeyPatch, taken: socket.socket
) -> None:
    answers = first_taken(monkeypatch, taken)
    cluster = etcd_cluster.Cluster(1)
    try:
        member = cluster.members[0]
        assert member.healthy()
        assert taken.getsockname()[1] == answers[0]
        assert (
            member.client_port not in (answers[0],) and member.peer_port != answers[0]
        )
    finally:
        cluster.close()
    assert not cluster.base.exists()


def test_etcd_without_a_retry_fails_on_a_lost_port(
    monkeypatch: pytest.MonkeyPatch, taken: socket.socket
) -> None:
    first_taken(monkeypatch, taken)
    monkeypatch.setattr(etcd_cluster, "retrying", lambda start: start())
    with pytest.raises(ports.PortLost):
        etcd_cluster.Cluster(1)


def test_postgres_on_a_lost_port_starts_again_on_another(
    monkeypatch: pytest.MonkeyPatch, taken: socket.socket
) -> None:
    answers = first_taken(monkeypatch, taken)
    cluster = postgres_cluster.Cluster()
    try:
        cluster.start()
        assert cluster.ready()
        assert cluster.port != answers[0] == taken.getsockname()[1]
    finally:
        cluster.close()


def test_a_three_member_cluster_stopped_by_dir_leaves_nothing() -> None:
    out = subprocess.run(
        [sys.executable, str(LAUNCHER), "start", "--members", "3"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    started = json.loads(out.stdout)
    member_pids = [m["pid"] for m in started["members"]]
    assert len(set(member_pids)) == 3
    assert started["endpoints"] == ",".join(m["endpoint"] for m in started["members"])
    assert all(etcd_cluster.call(m["endpoint"], "/health") for m in started["members"])
    subprocess.run([sys.executable, str(LAUNCHER), "stop", started["dir"]], check=True)
    assert not Path(started["dir"]).exists()
    for pid in member_pids:
        assert not pids.alive(pid), pid
