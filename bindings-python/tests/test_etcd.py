"""Etcd leases from Python against a real etcd (Debian's etcd-server),
started by the suites' shared launcher (tests/etcd_cluster.py) and stopped by PID."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import polyflake
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from etcd_cluster import Cluster  # the repository's one way to start etcd
from ports import free_port  # and its one free-port rule


@pytest.fixture(scope="module")
def etcd() -> Iterator[tuple[str, int]]:
    """One member from the suites' shared launcher: (its URL, its PID)."""
    cluster = Cluster(1)
    try:
        member = cluster.members[0]
        assert member.process is not None
        yield member.endpoint, member.process.pid
    finally:
        cluster.close()


def _short(url: str, prefix: str, **kwargs: object) -> polyflake.Generator:
    return polyflake.Generator.from_etcd(
        "twitter", url, prefix=prefix, ttl=4, keep_alive=1, safety_margin=1,
        request_timeout=0.9, **kwargs,  # type: ignore[arg-type]
    )  # fmt: skip


def test_generators_hold_distinct_identities_and_exhaust_clearly(etcd: tuple[str, int]) -> None:
    url, _ = etcd
    a = polyflake.Generator.from_etcd("twitter", [url], prefix="/py-distinct", node_range=(0, 2))
    b = polyflake.Generator.from_etcd("twitter", url, prefix="/py-distinct", node_range=(0, 2))
    assert "etcd lease on node" in a.identity_source
    assert a.node_fields != b.node_fields
    with pytest.raises(polyflake.LeaseLostError, match="every one of the 2 node values") as info:
        polyflake.Generator.from_etcd(
            "twitter", url, prefix="/py-distinct", node_range=(0, 2)
        ).claim()
    assert info.value.code == "LEASE_LOST"
    assert info.value.reason is polyflake.LeaseLostReason.EXHAUSTED
    assert info.value.retryable is True
    ids = a.next_ids(1000) + b.next_ids(1000)
    assert len(set(ids)) == 2000
    # Dropping a generator revokes its lease: the value is free at once.
    del a
    c = polyflake.Generator.from_etcd("twitter", url, prefix="/py-distinct", node_range=(0, 2))
    assert c.node_fields != b.node_fields


def test_from_env_follows_polyflake_etcd_endpoints(
    etcd: tuple[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _ = etcd
    monkeypatch.setenv("POLYFLAKE_ETCD_ENDPOINTS", url)
    monkeypatch.setenv("POLYFLAKE_ETCD_PREFIX", "/py-env")
    generator = polyflake.Generator.from_env("snowflake")
    assert "/py-env/snowflake/workers/0" in generator.identity_source
    assert generator.next_id() > 0


def test_refuses_while_etcd_is_stopped_and_recovers(etcd: tuple[str, int]) -> None:
    url, pid = etcd
    generator = _short(url, "/py-pause")
    issued = generator.next_ids(100)
    os.kill(pid, signal.SIGSTOP)
    stopped = time.monotonic()
    try:
        with pytest.raises(polyflake.LeaseLostError) as info:
            while time.monotonic() - stopped < 8:
                issued.append(generator.next_id())
                time.sleep(0.005)
        # Refused before etcd itself could expire the lease (TTL 4 s).
        assert time.monotonic() - stopped < 4
        assert info.value.code == "LEASE_LOST"
        # The keep-alive reported etcd silent before the deadline passed.
        assert info.value.reason is polyflake.LeaseLostReason.UNREACHABLE, info.value
        assert info.value.retryable is True
        lease = generator.stats().lease
        assert lease is not None and lease.losses >= 1
        time.sleep(4)
    finally:
        os.kill(pid, signal.SIGCONT)
    deadline = time.monotonic() + 30
    while True:
        try:
            issued.append(generator.next_id())
            break
        except polyflake.LeaseLostError:
            assert time.monotonic() < deadline, "no recovery after etcd returned"
            time.sleep(0.05)
    issued += generator.next_ids(100)
    assert len(set(issued)) == len(issued)
    assert issued[-1] > issued[0]


def test_bad_arguments_are_typed_errors(etcd: tuple[str, int]) -> None:
    url, _ = etcd
    with pytest.raises(polyflake.InvalidArgumentError, match="whole seconds"):
        polyflake.Generator.from_etcd("twitter", url, ttl=2.5)
    with pytest.raises(polyflake.InvalidArgumentError, match="non-negative"):
        polyflake.Generator.from_etcd("twitter", url, keep_alive=-1)
    with pytest.raises(polyflake.InvalidArgumentError, match="max_clock_gap") as gap:
        polyflake.Generator.from_etcd("twitter", url, max_clock_gap=-1)
    assert gap.value.kind is polyflake.ArgumentKind.CONFIGURATION
    # Zero turns the peers' clock check off: taken, and a lease is held.
    unchecked = polyflake.Generator.from_etcd("twitter", url, prefix="/py-gap", max_clock_gap=0)
    assert "etcd lease on node" in unchecked.identity_source
    unchecked.close()
    with pytest.raises(TypeError):
        polyflake.Generator.from_etcd("twitter", url, ttl="10")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        polyflake.Generator.from_etcd("twitter", 2379)  # type: ignore[arg-type]
    port = free_port()
    with pytest.raises(polyflake.LeaseLostError, match="cannot reach etcd") as info:
        polyflake.Generator.from_etcd(
            "twitter", f"http://127.0.0.1:{port}", request_timeout=0.3
        ).claim()
    assert info.value.reason is polyflake.LeaseLostReason.UNREACHABLE


def test_a_node_check_refusing_value_0_leads_to_value_1(etcd: tuple[str, int]) -> None:
    url, _ = etcd
    seen: list[tuple[int, ...]] = []

    def not_zero(nodes: tuple[int, ...]) -> bool:
        seen.append(nodes)
        return nodes != (0, 0)

    g = polyflake.Generator.from_etcd(
        "twitter", url, prefix="/py-check", node_range=(0, 3), check=not_zero
    )
    assert g.node_fields == [("datacenter_id", 0), ("machine_id", 1)]
    assert seen == [(0, 0), (0, 1)]
    # The refused value was released at once.
    plain = polyflake.Generator.from_etcd("twitter", url, prefix="/py-check", node_range=(0, 3))
    assert plain.node_fields == [("datacenter_id", 0), ("machine_id", 0)]

    def broken(nodes: tuple[int, ...]) -> bool:
        raise KeyError("registry down")

    with pytest.raises(polyflake.InvalidArgumentError, match="registry down") as info:
        polyflake.Generator.from_etcd("twitter", url, prefix="/py-check", check=broken).claim()
    assert info.value.code == "INVALID_ARGUMENT"
    assert info.value.kind is polyflake.ArgumentKind.NODE_CHECK
    # Every value of the range refused: the lease has none left to offer.
    with pytest.raises(polyflake.LeaseLostError, match="refused") as refused:
        polyflake.Generator.from_etcd(
            "twitter", url, prefix="/py-refuse-all", node_range=(0, 2), check=lambda n: False
        ).claim()
    assert refused.value.reason is polyflake.LeaseLostReason.CHECK_REFUSED
    assert refused.value.retryable is False
    with pytest.raises(polyflake.InvalidArgumentError, match="must return a bool"):
        polyflake.Generator.from_etcd("twitter", url, prefix="/py-check", check=lambda n: 1).claim()  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="check"):
        polyflake.Generator.from_etcd("twitter", url, prefix="/py-check", check=5)  # type: ignore[arg-type]
