"""polyflake beside the Python peers, in one run: `make bench-python`.

Per-call cost from a plain Python loop, IDs per millisecond against the
4,096-per-ms ceiling of the `snowflake` layout, duplicates in the IDs each
generator issued, and decode. Prints the Python section of docs/benchmarks.md.
"""

from __future__ import annotations

import operator
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

import polyflake

N = 400_000
CEILING_NS = 1e6 / 4096


def per_call(fn: Callable[[], Any], n: int = N) -> float:
    # Timed loops keep nothing: keeping 400,000 objects makes the GC the subject.
    start = time.perf_counter_ns()
    for _ in range(n):
        fn()
    return (time.perf_counter_ns() - start) / n


def best(fn: Callable[[], Any], rounds: int = 3) -> tuple[float, list[Any]]:
    """Best time of `rounds`, and the values of a separate loop that keeps them."""
    ns = min(per_call(fn) for _ in range(rounds))
    return ns, [fn() for _ in range(N)]


def interleaved(fns: dict[str, Callable[[], Any]], rounds: int = 15) -> dict[str, float]:
    """Best time of each, measured in turns: on a shared machine whose speed drifts within a
    run, a ratio between rows measured one after another swings by a third; in turns it holds."""
    best_ns = {name: float("inf") for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            best_ns[name] = min(best_ns[name], per_call(fn, N // 4))
    return best_ns


def peers() -> dict[str, Callable[[], Any]]:
    found: dict[str, Callable[[], Any]] = {}
    try:
        from snowflake import SnowflakeGenerator

        gen = SnowflakeGenerator(1, epoch=1288834974657)
        found["snowflake-id"] = lambda: next(gen)
    except ImportError:
        pass
    try:
        from snowflake_id_toolkit import TwitterSnowflakeIDGenerator

        tk = TwitterSnowflakeIDGenerator(node_id=1, epoch=1288834974657)
        found["snowflake-id-toolkit"] = tk.generate_next_id
    except ImportError:
        pass
    try:
        import datetime as dt

        from sonyflake import Sonyflake

        sf = Sonyflake(machine_id=1, start_time=dt.datetime(2014, 9, 1, tzinfo=dt.timezone.utc))
        found["sonyflake"] = sf.next_id
    except ImportError:
        pass
    try:
        import uuid_utils

        found["uuid_utils.uuid7"] = uuid_utils.uuid7
    except ImportError:
        pass
    return found


def main() -> int:
    snowflake = polyflake.Generator("snowflake", node_id=1)
    wide = polyflake.Generator(
        polyflake.Layout.custom(1288834974657, 41, [("node_id", 1)], sequence_bits=21), node_id=1
    )
    rows: list[tuple[str, float, str, str]] = []

    floor_ns, _ = best(lambda: operator.index(7))
    rows.append(("floor: a trivial native call returning an int", floor_ns, "", ""))
    cost, ids = best(wide.next_id)
    rows.append(
        (
            "polyflake `next_id()` (21-bit sequence, never waits)",
            cost,
            "",
            f"{len(ids) - len(set(ids))}",
        )
    )
    cost, ids = best(snowflake.next_id)
    rows.append(
        (
            "polyflake `next_id()` (`snowflake` preset)",
            cost,
            f"{min(100.0, CEILING_NS / cost * 100):.1f}%",
            f"{len(ids) - len(set(ids))}",
        )
    )
    start = time.perf_counter_ns()
    batch = wide.next_ids(N)
    rows.append(
        ("polyflake `next_ids(400000)`, per ID", (time.perf_counter_ns() - start) / N, "", "")
    )
    assert len(set(batch)) == N
    polyflake_cost = rows[1][1]
    for name, fn in peers().items():
        cost, ids = best(fn)
        keys = [str(i) for i in ids]
        dupes = len(keys) - len(set(keys))
        ceiling = f"{min(100.0, CEILING_NS / cost * 100):.1f}%" if "uuid" not in name else "n/a"
        rows.append(
            (f"{name} (ratio {cost / polyflake_cost:.1f}× polyflake)", cost, ceiling, str(dupes))
        )

    id_ = snowflake.next_id()
    layout = polyflake.Layout("snowflake")
    parts = polyflake.decode(id_, "snowflake")
    fields = {"node_id": parts.node_id}
    # Each ratio beside its floor, measured in turns with it.
    t = interleaved(
        {
            "floor": lambda: operator.index(7),
            "preset": lambda: polyflake.decode(id_, "snowflake"),
            "layout": lambda: polyflake.decode(id_, layout),
            "divmod": lambda: divmod(id_, 4096),
            "dict": lambda: fields["node_id"],
            "node": lambda: parts.node_id,
            "time": lambda: parts.timestamp_ms,
        }
    )
    floor_ns, decode_ns = t["floor"], t["preset"]
    node_vs_dict = t["node"] / t["dict"]
    decode_rows = [
        ("floor: a trivial native call returning an int (in turns with the rows below)", floor_ns),
        (f"polyflake `decode(id, 'snowflake')` ({decode_ns / floor_ns:.1f}× the floor)", decode_ns),
        (f"polyflake `decode(id, layout)` ({t['layout'] / floor_ns:.1f}× the floor)", t["layout"]),
        # The same crossing's own floor: two arguments in, a new GC-tracked object out.
        ("floor: `divmod(id, 4096)`, a native call returning a new tuple", t["divmod"]),
        ("floor: a dict lookup", t["dict"]),
        (
            f"polyflake `parts.node_id` (a node field; {node_vs_dict:.1f}× the dict lookup)",
            t["node"],
        ),
        ("polyflake `parts.timestamp_ms`", t["time"]),
    ]
    rows += [(name, ns, "", "") for name, ns in decode_rows]
    try:
        from snowflake import Snowflake

        cost, _ = best(lambda: Snowflake.parse(id_, 1288834974657))
        rows.append(
            (f"snowflake-id `Snowflake.parse` (ratio {cost / decode_ns:.1f}×)", cost, "", "")
        )
    except ImportError:
        pass

    lines = [
        "## Python",
        "",
        f"`make bench-python`: CPython {platform.python_version()}, the installed wheel, "
        f"plain Python loops of {N:,} calls (best of 3; timed loops keep nothing, duplicates "
        "are counted in a second loop that keeps them). Ratios are peer ÷ polyflake; "
        "the ceiling column is IDs per ms ÷ 4,096.",
        "",
        "| what | ns per call | of the ceiling | duplicates |",
        "|---|---|---|---|",
    ]
    lines += [f"| {name} | {ns:.0f} | {ceil} | {dup} |" for name, ns, ceil, dup in rows]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
