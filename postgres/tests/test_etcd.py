"""next_id() under an etcd lease: the server's lease worker holds it and leads
the layout's shared words; every backend follows them (ADR 0016). Against a
real etcd and real servers."""

from __future__ import annotations

import re
import threading
import time
import uuid
from pathlib import Path

import psycopg
import pytest
from conftest import Cluster, Etcd

CONNECTIONS = 8
PER_CONNECTION = 5_000
# A short lease, so that a paused etcd shows within seconds: the margin is
# 25% of the TTL, as in production (2 s of 10 s is 20%).
SHORT_LEASE = {
    "POLYFLAKE_ETCD_TTL_MS": "4000",
    "POLYFLAKE_ETCD_SAFETY_MARGIN_MS": "1000",
    "POLYFLAKE_ETCD_KEEP_ALIVE_MS": "1000",
    "POLYFLAKE_ETCD_REQUEST_TIMEOUT_MS": "1000",
}


def leased(etcd: Etcd, prefix: str, **more: str) -> dict[str, str]:
    settings = {
        "polyflake.layouts": "twitter",
        "polyflake.etcd_endpoints": etcd.url,
        "polyflake.etcd_prefix": prefix,
    }
    settings.update({f"polyflake.{k}": v for k, v in more.items()})
    return settings


def prefix() -> str:
    return f"/pg-{uuid.uuid4().hex[:8]}"


def refusal(conn: psycopg.Connection) -> str | None:
    """None if next_id issues now, else the error's message."""
    try:
        conn.execute("SELECT polyflake.next_id()")
        return None
    except psycopg.errors.ObjectNotInPrerequisiteState as e:
        return f"{e.diag.message_primary} [{e.diag.message_detail}]"


def wait_until_issuing(conn: psycopg.Connection, within: float = 20) -> None:
    deadline = time.monotonic() + within
    while (said := refusal(conn)) is not None:
        assert time.monotonic() < deadline, f"next_id still refuses: {said}"
        time.sleep(0.1)


def node(conn: psycopg.Connection, id_: int) -> int:
    parts = conn.execute("SELECT polyflake.decode(%s, 'twitter')", (id_,)).fetchone()[0]
    return parts["datacenter_id"] << 5 | parts["machine_id"]


def worker_pid(cluster: Cluster) -> int:
    """The lease worker's PID: the postmaster's child of that title (a worker
    with no database connection is not in pg_stat_activity)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            stat = (proc / "stat").read_text()
            title = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError):
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == cluster.server.pid and "polyflake lease worker" in title:
            found.append(int(proc.name))
    assert len(found) == 1, found
    return found[0]


def holder_pid(value: str) -> int:
    found = re.search(r"pid=(\d+)", value)
    assert found, value
    return int(found.group(1))


def issuing(new_cluster, etcd: Etcd, keys: str) -> tuple[Cluster, int]:
    """A server under a lease at `keys` that issues: it and its node number,
    which etcd says its lease worker holds (not a backend)."""
    cluster: Cluster = new_cluster()
    cluster.start(leased(etcd, keys))
    with cluster.connect() as conn:
        wait_until_issuing(conn)
    held = etcd.holders(keys, "twitter")
    assert held is not None and len(held) == 1, held
    ((number, value),) = held.items()
    assert holder_pid(value) == worker_pid(cluster)
    return cluster, number


def test_eight_connections_issue_under_the_value_the_lease_worker_holds(
    new_cluster, etcd: Etcd
) -> None:
    cluster, number = issuing(new_cluster, etcd, prefix())
    with cluster.connect() as conn:
        ids: list[list[int]] = [[] for _ in range(CONNECTIONS)]

        def issue(c: int) -> None:
            with cluster.connect() as own:
                for _ in range(PER_CONNECTION):
                    ids[c].append(
                        own.execute("SELECT polyflake.next_id()").fetchone()[0]
                    )

        threads = [
            threading.Thread(target=issue, args=(c,)) for c in range(CONNECTIONS)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        every = [i for per in ids for i in per]
        assert len(every) == CONNECTIONS * PER_CONNECTION
        assert len(set(every)) == len(every), "an ID was issued twice"
        for per in ids:
            assert per == sorted(per) and len(set(per)) == len(per)
        assert {node(conn, i) for i in every[:: PER_CONNECTION // 10]} == {number}
        row = conn.execute(
            "SELECT nodes, source, error FROM polyflake.identities()"
        ).fetchone()
        assert row[2] is None and "lease worker" in row[1], row
        assert row[0]["datacenter_id"] << 5 | row[0]["machine_id"] == number


def test_a_value_held_elsewhere_is_refused_until_its_holder_lets_it_go(
    new_cluster, etcd: Etcd
) -> None:
    keys = prefix()
    first, number = issuing(new_cluster, etcd, keys)
    with first.connect() as conn:
        last = conn.execute(
            "SELECT max(i) FROM polyflake.next_ids(1000) AS i"
        ).fetchone()[0]
    # A second server allowed only that value: it cannot claim it.
    second: Cluster = new_cluster()
    second.start(leased(etcd, keys, etcd_node_range=f"{number}..{number + 1}"))
    with second.connect() as conn:
        time.sleep(1)
        said = refusal(conn)
        assert said is not None and said.startswith("LEASE_LOST"), said
        assert "[reason: exhausted]" in said, said
        error = conn.execute("SELECT error FROM polyflake.identities()").fetchone()[0]
        assert error and error.startswith("LEASE_LOST"), error
        # The first server still issues: the refusal took nothing from it.
        with first.connect() as other:
            assert other.execute("SELECT polyflake.next_id()").fetchone()[0] > last
            last = other.execute("SELECT polyflake.next_id()").fetchone()[0]
        # A clean shutdown revokes the lease: the second server claims the
        # value and starts past every ID the first issued under it.
        first.stop()
        wait_until_issuing(conn, within=30)
        after = conn.execute("SELECT polyflake.next_id()").fetchone()[0]
        assert node(conn, after) == number
        assert after > last, (after, last)
        assert holder_pid(etcd.holders(keys, "twitter")[number]) == worker_pid(second)


def test_a_paused_etcd_stops_next_id_before_the_lease_can_lapse(
    new_cluster, etcd: Etcd
) -> None:
    keys = prefix()
    cluster: Cluster = new_cluster()
    cluster.start(leased(etcd, keys), env=SHORT_LEASE)
    with cluster.connect() as conn:
        wait_until_issuing(conn)
        etcd.pause()
        paused = time.monotonic()
        try:
            last_issued = paused
            while (said := refusal(conn)) is None:
                last_issued = time.monotonic()
                assert last_issued - paused < 10, "next_id kept issuing"
                time.sleep(0.01)
            # Nothing past the TTL (4 s) from the last renewal before the
            # pause, which came at most a keep-alive period (1 s) before it.
            assert last_issued - paused < 4.0, last_issued - paused
            assert said.startswith("LEASE_LOST"), said
            # And it keeps refusing while etcd is paused.
            time.sleep(1)
            assert refusal(conn) is not None
        finally:
            etcd.resume()
        wait_until_issuing(conn, within=30)


def test_an_unreachable_etcd_is_refused_with_its_reason(new_cluster) -> None:
    cluster: Cluster = new_cluster()
    settings = {
        "polyflake.layouts": "twitter",
        "polyflake.etcd_endpoints": "http://127.0.0.1:1",
    }
    cluster.start(settings)
    with cluster.connect() as conn:
        time.sleep(1)
        said = refusal(conn)
        assert said is not None and said.startswith("LEASE_LOST"), said
        assert "[reason: unreachable]" in said, said


def test_endpoints_given_twice_or_a_bad_range_are_refused(
    new_cluster, etcd: Etcd
) -> None:
    cluster: Cluster = new_cluster()
    cluster.start(
        leased(etcd, prefix(), etcd_node_range="5..5"),
    )
    with cluster.connect() as conn:
        with pytest.raises(psycopg.errors.InvalidParameterValue) as err:
            conn.execute("SELECT polyflake.next_id()")
        assert "POLYFLAKE_ETCD_NODE_RANGE" in str(err.value), err.value
    cluster.stop()
    cluster.start(leased(etcd, prefix()), env={"POLYFLAKE_ETCD_ENDPOINTS": etcd.url})
    with cluster.connect() as conn:
        with pytest.raises(psycopg.errors.InvalidParameterValue) as err:
            conn.execute("SELECT polyflake.next_id()")
        assert "give it one way" in str(err.value), err.value
