"""Generator.from_service against real `polyflake serve` replicas leasing from
one real etcd (tests/service_cluster.py starts them, stops them by PID): one
replica killed and one paused while four threads take IDs."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polyflake
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from ports import free_port  # noqa: E402  (the repository's one free-port rule)


@pytest.fixture(scope="module")
def cluster() -> Iterator[dict[str, Any]]:
    cli = os.environ.get("POLYFLAKE_CLI")
    assert cli, "POLYFLAKE_CLI names a polyflake built with serve (scripts/test-python.sh sets it)"
    started = subprocess.run(
        [sys.executable, str(ROOT / "tests/service_cluster.py"), "start", "--cli", cli],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    info: dict[str, Any] = json.loads(started.stdout)
    try:
        yield info
    finally:
        subprocess.run(
            [sys.executable, str(ROOT / "tests/service_cluster.py"), "stop", info["dir"]],
            check=True,
        )  # fmt: skip


def test_a_killed_and_a_paused_replica_cost_no_duplicate_and_no_error(
    cluster: dict[str, Any],
) -> None:
    replicas = cluster["replicas"]
    service = polyflake.Generator.from_service(
        [r["url"] for r in replicas], batch=500, request_timeout=0.3
    )
    assert (service.batch, service.low_water) == (500, 250)
    stop = threading.Event()
    taken: list[list[int]] = []
    waits: list[float] = []
    errors: list[BaseException] = []

    def take() -> None:
        ids, longest = [], 0.0
        try:
            while not stop.is_set():
                began = time.perf_counter()
                ids.append(service.next_id())
                longest = max(longest, time.perf_counter() - began)
        except BaseException as e:  # an error ends the thread; the test reports it
            errors.append(e)
        taken.append(ids)
        waits.append(longest)

    threads = [threading.Thread(target=take) for _ in range(4)]
    for t in threads:
        t.start()
    time.sleep(1.5)
    os.kill(replicas[0]["pid"], signal.SIGKILL)
    time.sleep(1.5)
    os.kill(replicas[1]["pid"], signal.SIGSTOP)
    time.sleep(2.0)
    os.kill(replicas[1]["pid"], signal.SIGCONT)
    time.sleep(1.0)
    stop.set()
    for t in threads:
        t.join()

    assert errors == []
    every = [i for ids in taken for i in ids]
    assert len(set(every)) == len(every), "no ID twice"
    assert len(every) > 10_000
    stats = service.stats()
    # Batches of 500 to 8,000 (the default max_batch, 16 x 500).
    assert 500 <= service.batch <= 8000
    assert stats.batches * 8000 >= len(every)
    assert stats.failovers >= 1, f"the killed replica was skipped: {stats}"
    assert stats.refused == 0
    # Every ID is a replica's: the layout's node fields hold identities that etcd leased.
    parts = [polyflake.decode(i, "twitter") for i in every]
    nodes = {(p.datacenter_id, p.machine_id) for p in parts}
    assert len(nodes) >= 2, nodes
    print(f"\n{len(every)} IDs, stalls {stats.stalls}, longest next_id {max(waits) * 1000:.0f} ms")
    service.close()
    with pytest.raises(polyflake.LeaseLostError) as closed:
        service.next_id()
    assert closed.value.reason is polyflake.LeaseLostReason.CLOSED


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_refuses_its_parents_buffer(cluster: dict[str, Any]) -> None:
    with polyflake.Generator.from_service(cluster["replicas"][2]["url"], batch=100) as service:
        parent = service.next_id()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            os.close(read)
            try:
                service.next_id()
                verdict = b"issued"
            except polyflake.LeaseLostError as e:
                verdict = b"refused:" + e.reason.value.encode()
            # Closing (and dropping) the copy leaves the parent's thread and buffer alone.
            service.close()
            del service
            gc.collect()
            os.write(write, verdict + b":closed")
            os._exit(0)
        os.close(write)
        verdict = os.read(read, 100)
        os.waitpid(pid, 0)
        assert verdict == b"refused:forked:closed"
        assert service.next_id() != parent


def test_no_replica_answering_is_a_typed_retryable_error() -> None:
    port = free_port()  # nobody listens there
    service = polyflake.Generator.from_service(f"http://127.0.0.1:{port}", deadline=0.3)
    began = time.monotonic()
    with pytest.raises(polyflake.LeaseLostError, match=f"127.0.0.1:{port}") as info:
        service.next_ids(3)
    assert time.monotonic() - began >= 0.3
    assert info.value.reason is polyflake.LeaseLostReason.UNREACHABLE
    assert info.value.retryable is True
    assert service.stats().refused == 1
    service.close()


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"urls": []}, polyflake.InvalidArgumentError),
        ({"urls": "https://127.0.0.1:1"}, polyflake.InvalidArgumentError),
        ({"urls": 7}, TypeError),
        ({"urls": "http://127.0.0.1:1", "batch": 0}, polyflake.FieldOutOfRangeError),
        ({"urls": "http://127.0.0.1:1", "batch": 100_001}, polyflake.FieldOutOfRangeError),
        ({"urls": "http://127.0.0.1:1", "batch": True}, TypeError),
        (
            {"urls": "http://127.0.0.1:1", "batch": 10, "low_water": 11},
            polyflake.FieldOutOfRangeError,
        ),
        ({"urls": "http://127.0.0.1:1", "deadline": 0}, polyflake.InvalidArgumentError),
        ({"urls": "http://127.0.0.1:1", "deadline": -1.0}, polyflake.InvalidArgumentError),
        ({"urls": "http://127.0.0.1:1", "request_timeout": "1"}, TypeError),
    ],
)
def test_bad_settings_are_coded_errors(kwargs: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        polyflake.Generator.from_service(**kwargs)
