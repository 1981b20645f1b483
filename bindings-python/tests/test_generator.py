"""Threads, fork, waiting without the GIL, real time."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import polyflake
import pytest


def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No POLYFLAKE_ variable of the caller's environment reaches the test."""
    for key in list(os.environ):
        if key.startswith("POLYFLAKE_"):
            monkeypatch.delenv(key)


def test_many_threads_one_generator_no_duplicates() -> None:
    generator = polyflake.Generator("snowflake", node_id=5)
    results: list[list[int]] = [[] for _ in range(8)]

    def work(out: list[int]) -> None:
        for _ in range(20_000):
            out.append(generator.next_id())
        out.extend(generator.next_ids(5_000))

    threads = [threading.Thread(target=work, args=(out,)) for out in results]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    everything = [i for out in results for i in out]
    assert len(everything) == 8 * 25_000
    assert len(set(everything)) == len(everything)
    for out in results:
        assert out == sorted(out) and len(set(out)) == len(out)
    assert {polyflake.decode(i, "snowflake").node_id for i in everything} == {5}


def test_ids_carry_the_current_time() -> None:
    generator = polyflake.Generator(polyflake.Layout.TWITTER, datacenter_id=1, machine_id=2)
    before = int(time.time() * 1000)
    id_ = generator.next_id()
    after = int(time.time() * 1000)
    assert before - 2 <= polyflake.decode(id_, "twitter").timestamp_ms <= after + 2


def test_a_waiting_generator_releases_the_gil() -> None:
    # A tiny sequence makes next_ids wait for about 300 ms; another Python
    # thread must keep running meanwhile.
    layout = polyflake.Layout.custom(epoch_ms=0, time_bits=41, nodes=[("n", 1)], sequence_bits=1)
    generator = polyflake.Generator(layout, n=0)
    ticks = 0
    done = threading.Event()

    def counter() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1

    t = threading.Thread(target=counter)
    t.start()
    before = ticks
    start = time.perf_counter()
    ids = generator.next_ids(600)
    elapsed = time.perf_counter() - start
    during = ticks - before
    done.set()
    t.join()
    assert len(set(ids)) == 600
    assert elapsed >= 0.25
    assert during > 1000, during


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_cannot_reuse_its_parents_identity() -> None:
    generator = polyflake.Generator("snowflake", node_id=9)
    parent_id = generator.next_id()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read)
        try:
            generator.next_id()
            verdict = b"issued"
        except polyflake.LeaseLostError as e:
            verdict = b"refused:" + e.code.encode() + b":" + e.reason.value.encode()
        fresh = polyflake.Generator("snowflake", node_id=10).next_id()
        verdict += b":" + str(polyflake.decode(fresh, "snowflake").node_id).encode()
        os.write(write, verdict)
        os._exit(0)
    os.close(write)
    verdict = os.read(read, 100)
    os.waitpid(pid, 0)
    assert verdict == b"refused:LEASE_LOST:forked:10"
    assert generator.next_id() > parent_id  # the parent's generator carries on


def test_close_and_with_give_up_the_identity_at_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clean_env(monkeypatch)
    monkeypatch.setenv("POLYFLAKE_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("POLYFLAKE_NODE_ID", "37")
    with polyflake.Generator.from_env("twitter") as g:
        issued = g.next_ids(1000)
        with pytest.raises(polyflake.LeaseLostError, match=f"pid {os.getpid()}"):
            polyflake.Generator.from_env("twitter").claim()
    # Left the block: the lock is free though `g` is still referenced.
    with pytest.raises(polyflake.LeaseLostError, match="closed") as closed:
        g.next_id()
    assert closed.value.reason is polyflake.LeaseLostReason.CLOSED
    assert closed.value.retryable is False
    successor = polyflake.Generator.from_env("twitter")
    assert successor.next_id() > max(issued)
    successor.close()
    successor.close()  # a second close does nothing
    # An exception leaving the block is not swallowed, and the identity is freed.
    with pytest.raises(ValueError), polyflake.Generator.from_env("twitter"):
        raise ValueError("boom")
    polyflake.Generator.from_env("twitter").close()


def test_wall_clock_and_policies_are_selectable() -> None:
    for policy in ("fail", "wait", "logical"):
        g = polyflake.Generator(
            "discord", clock="wall", on_clock_backwards=policy, worker_id=1, process_id=2
        )
        assert g.next_id() < g.next_id()
    with pytest.raises(polyflake.InvalidArgumentError):
        polyflake.Generator("discord", on_clock_backwards="panic", worker_id=1, process_id=2)
    with pytest.raises(polyflake.InvalidArgumentError):
        polyflake.Generator("discord", clock="sundial", worker_id=1, process_id=2)
    with pytest.raises(TypeError):
        polyflake.Generator("discord", clock=3, worker_id=1, process_id=2)  # type: ignore[arg-type]


def test_identity_is_required_and_checked() -> None:
    with pytest.raises(polyflake.InvalidArgumentError, match="missing field") as missing:
        polyflake.Generator("twitter", datacenter_id=1)
    assert missing.value.kind is polyflake.ArgumentKind.MISSING_FIELD
    with pytest.raises(polyflake.InvalidArgumentError, match="no field") as unknown:
        polyflake.Generator("twitter", datacenter_id=1, machine_id=2, rack_id=3)
    assert unknown.value.kind is polyflake.ArgumentKind.UNKNOWN_NAME
    with pytest.raises(polyflake.FieldOutOfRangeError) as e:
        polyflake.Generator("twitter", datacenter_id=32, machine_id=0)
    assert (e.value.field, e.value.value, e.value.max) == ("datacenter_id", 32, 31)
    g = polyflake.Generator("twitter", datacenter_id=3, machine_id=4)
    assert g.node_fields == [("datacenter_id", 3), ("machine_id", 4)]
    assert repr(g) == 'Generator("twitter", datacenter_id=3, machine_id=4)'


def test_clock_backwards_error_says_how_far() -> None:
    clock = polyflake.ManualClock(polyflake.Layout.TWITTER.epoch_ms + 10_000)
    g = polyflake.Generator(
        "twitter", clock=clock, on_clock_backwards="fail", datacenter_id=0, machine_id=0
    )
    g.next_id()
    clock.advance(-7)
    with pytest.raises(polyflake.ClockMovedBackwardsError) as e:
        g.next_id()
    assert isinstance(e.value, RuntimeError)
    assert e.value.behind_ms == 7


def test_identity_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_env(monkeypatch)
    monkeypatch.setenv("POLYFLAKE_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("POLYFLAKE_NODE_ID", "37")
    g = polyflake.Generator.from_env("twitter")
    assert g.node_fields == [("datacenter_id", 1), ("machine_id", 5)]
    assert g.identity_source.startswith("POLYFLAKE_NODE_ID=37 (locked at ")
    # One live generator per identity: a second one (a forked worker, a copied
    # config) is refused, naming the holder.
    with pytest.raises(polyflake.LeaseLostError, match=f"pid {os.getpid()}") as held:
        polyflake.Generator.from_env("twitter").claim()
    assert held.value.reason is polyflake.LeaseLostReason.TAKEN_OVER
    assert held.value.reason == "taken_over"  # a str enum: the contract's name
    del g
    monkeypatch.setenv("POLYFLAKE_NODE_ID", "not-a-number")
    with pytest.raises(polyflake.InvalidArgumentError, match="POLYFLAKE_NODE_ID") as bad:
        polyflake.Generator.from_env("twitter")
    assert bad.value.kind is polyflake.ArgumentKind.CONFIGURATION
    monkeypatch.delenv("POLYFLAKE_NODE_ID")
    a = polyflake.Generator.from_env("snowflake")
    b = polyflake.Generator.from_env("snowflake")
    assert a.node_fields != b.node_fields
    assert a.identity_source.startswith("local lease on node 0")
    assert (tmp_path / "snowflake" / "node-0.lock").exists()


def test_every_identity_variable_form(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_env(monkeypatch)
    monkeypatch.setenv("POLYFLAKE_STATE_DIR", str(tmp_path))
    # `snowflake`'s one field is `node_id`: its field variable is POLYFLAKE_NODE_ID.
    monkeypatch.setenv("POLYFLAKE_NODE_ID", "17")
    assert polyflake.Generator.from_env("snowflake").node_fields == [("node_id", 17)]
    monkeypatch.setenv("POLYFLAKE_NODE_ID", "")
    with pytest.raises(polyflake.InvalidArgumentError, match="POLYFLAKE_NODE_ID is set but empty"):
        polyflake.Generator.from_env("snowflake")
    monkeypatch.setenv("POLYFLAKE_NODE_ID", "3")
    monkeypatch.setenv("POLYFLAKE_ETCD_ENDPOINTS", "http://127.0.0.1:1")
    with pytest.raises(polyflake.InvalidArgumentError, match="more than one way"):
        polyflake.Generator.from_env("twitter")


def test_a_rust_panic_is_an_exception_not_a_crash() -> None:
    with pytest.raises(BaseException, match="deliberate panic") as e:
        polyflake._polyflake._panic_for_tests()
    assert type(e.value).__name__ == "PanicException"
    assert polyflake.decode(polyflake.min_id("twitter", 1700000000000), "twitter")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_leases_an_identity_of_its_own(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("POLYFLAKE_STATE_DIR", str(tmp_path))
    parent = polyflake.Generator.from_env("snowflake").claim()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        child = polyflake.Generator.from_env("snowflake")
        os.write(write, str(dict(child.node_fields)["node_id"]).encode())
        os._exit(0)
    os.close(write)
    child_node = int(os.read(read, 20))
    os.waitpid(pid, 0)
    assert child_node != dict(parent.node_fields)["node_id"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_generator_made_but_unused_before_a_fork_serves_the_child(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A module-level generator in a parent that forks its workers (gunicorn
    # --preload): made, it claims nothing; each process claims at first use.
    clean_env(monkeypatch)
    monkeypatch.setenv("POLYFLAKE_STATE_DIR", str(tmp_path))
    shared = polyflake.Generator.from_env("snowflake")
    assert not shared.claimed and "claimed at first use" in repr(shared)
    assert shared.stats().ceiling_waits == 0
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        ids = shared.next_ids(1000)
        node = dict(shared.node_fields)["node_id"]
        os.write(write, f"{node}:{ids[0]}:{ids[-1]}".encode())
        time.sleep(0.5)  # still holding node 0 while the parent claims
        os._exit(0)
    os.close(write)
    child_node, first, last = (int(x) for x in os.read(read, 100).split(b":"))
    assert child_node == 0 and last > first
    # The parent's copy was never claimed: it claims its own value now.
    assert not shared.claimed
    parent_node = dict(shared.node_fields)["node_id"]
    os.waitpid(pid, 0)
    assert shared.claimed and parent_node == 1
    # Claimed before a fork, the child's copy refuses (the parent's value).
    pid = os.fork()
    if pid == 0:
        try:
            shared.next_id()
            os._exit(1)
        except polyflake.LeaseLostError as e:
            os._exit(0 if e.reason is polyflake.LeaseLostReason.FORKED else 2)
    assert os.waitpid(pid, 0)[1] == 0
    # Closed unused: it never claims.
    unused = polyflake.Generator.from_env("snowflake")
    unused.close()
    with pytest.raises(polyflake.LeaseLostError) as closed:
        unused.next_id()
    assert closed.value.reason is polyflake.LeaseLostReason.CLOSED
    assert not unused.claimed


@pytest.mark.parametrize("n", [2**24 + 1, 2**33, 2**62, 2**64 - 1])
def test_a_batch_past_the_maximum_is_a_value_error(n: int) -> None:
    g = polyflake.Generator("snowflake", node_id=1)
    with pytest.raises(polyflake.FieldOutOfRangeError, match="16777216") as e:
        g.next_ids(n)
    assert isinstance(e.value, ValueError)
    assert len(g.next_ids(3)) == 3


def test_a_state_dir_that_cannot_be_created_is_an_os_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clean_env(monkeypatch)
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    monkeypatch.setenv("POLYFLAKE_STATE_DIR", str(not_a_dir))
    with pytest.raises(polyflake.StateIoError) as e:
        polyflake.Generator.from_env("snowflake").claim()
    assert isinstance(e.value, OSError) and e.value.code == "STATE_IO"
    assert isinstance(e.value.errno, int) and e.value.errno > 0
    assert e.value.filename.startswith(str(not_a_dir))


def test_a_node_check_on_the_local_lease_and_on_a_given_value(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clean_env(monkeypatch)
    monkeypatch.setenv("POLYFLAKE_STATE_DIR", str(tmp_path))
    g = polyflake.Generator.from_env("snowflake", check=lambda nodes: nodes != (0,))
    assert g.node_fields == [("node_id", 1)]
    monkeypatch.setenv("POLYFLAKE_NODE_ID", "0")
    with pytest.raises(polyflake.InvalidArgumentError, match=r"refused node values \[0\]") as e:
        polyflake.Generator.from_env("snowflake", check=lambda nodes: nodes != (0,)).claim()
    assert e.value.kind is polyflake.ArgumentKind.NODE_CHECK


def test_the_reason_and_kind_enums_are_the_cores_names() -> None:
    from polyflake._polyflake import _error_names

    reasons, kinds = _error_names()
    assert [r.value for r in polyflake.LeaseLostReason] == reasons
    assert [k.value for k in polyflake.ArgumentKind] == kinds
    # Pickling keeps the typed values.
    import pickle

    e = polyflake.LeaseLostError("lease lost: x", {"reason": "lapsed"}, {}, {"retryable": True})
    back = pickle.loads(pickle.dumps(e))
    assert (back.reason, back.retryable) == (polyflake.LeaseLostReason.LAPSED, True)


def test_stats_count_ceiling_waits_and_clock_events() -> None:
    clock = polyflake.ManualClock(polyflake.Layout.SNOWFLAKE.epoch_ms + 10_000)
    g = polyflake.Generator("snowflake", clock=clock, on_clock_backwards="logical", node_id=1)
    assert g.stats() == g.stats()
    first = g.stats()
    assert (first.ceiling_waits, first.clock_backwards_ran_ahead, first.lease) == (0, 0, None)
    g.next_id()
    clock.advance(-3)
    g.next_id()  # issued ahead of a clock that is behind
    stats = g.stats()
    assert stats.clock_backwards_ran_ahead == 1
    assert stats.clock_backwards_refused == 0
    assert "clock_backwards_ran_ahead=1" in repr(stats)
    strict = polyflake.Generator("snowflake", clock=clock, on_clock_backwards="fail", node_id=2)
    strict.next_id()
    clock.advance(-1)
    with pytest.raises(polyflake.ClockMovedBackwardsError):
        strict.next_id()
    assert strict.stats().clock_backwards_refused == 1
    # A tick's 4096 sequence values spent: the next call waits for the next tick.
    wall = polyflake.Generator("snowflake", node_id=3)
    wall.next_ids(3 * 4096)
    assert wall.stats().ceiling_waits >= 1
